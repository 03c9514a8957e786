/*
 * A compare channel re-armed from an interrupt of a higher priority that
 * preempts the channel's own handler while it services the previous match
 * (microbit: nRF51 TIMER0, TIMER2's line taken raw at the highest priority
 * re-arming it; the TIMER1 + TIMER2 chain, TIMER0's line taken raw). The
 * handler read the enabled flags, then cleared the enable and reported the
 * match without the port lock (the chain's service, in TIMER1's callback,
 * released it before its report): a re-arm in between was taken for the
 * old match, so its callback ran about 20000 ticks early and its target
 * never fired. Every handler of compare channels now holds the lock from
 * its read of the flags to the report (utim_core_event_unlock(),
 * driver.h). A sweep of delays moves the moment of the preemption across
 * the whole handler.
 */
#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "board_test.h"
#include "cortexm.h"
#include "harness.h"
#include "mcu.h"
#include "utim/port.h"
#include "utim/utim.h"
#include "utim_nrf51_timer.h"

#define IRQ_TIMER0 8
#define IRQ_TIMER2 10
/* NVIC priority bytes of lines 8..11 (TIMER0, TIMER1, TIMER2, ...). */
#define NVIC_IPR2 (*(volatile uint32_t *)0xE000E408u)
#define FAR       20000u /* the re-armed setting, ticks ahead */
#define NEAR      100u   /* the setting whose match the handler services */
#define SWEEP     60u    /* preemption delays tried */

/* One victim: an instance whose channel 0 is re-armed by a raw timer's
 * interrupt at the highest priority, its own lines at the lowest. */
typedef struct victim {
  unsigned index;                   /* in the board's table */
  utim_nrf51_timer_regs_t *preempt; /* the raw timer */
  int32_t preempt_irq;
  uint32_t ipr2; /* NVIC_IPR2's bytes for lines 8..10 */
} victim_t;

static const utim_periph_t *g_p;
static utim_nrf51_timer_regs_t *g_pre;
static volatile unsigned g_calls;
static volatile uint64_t g_cb_at;
static volatile uint64_t g_rearm_at;
static volatile unsigned g_rearmed;

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)ch;
  (void)arg;
  g_cb_at = utim_read(p);
  g_calls = g_calls + 1u;
}

/* The interrupt of a higher priority: stop the raw timer, re-arm the
 * victim's channel 0 far ahead (replacing its setting). */
static void preempt_isr(void *arg) {
  (void)arg;
  g_pre->intenclr = UTIM_NRF51_TIMER_INT_COMPARE(0);
  g_pre->events_compare[0] = 0u;
  g_pre->tasks_stop = 1u;
  g_rearm_at = utim_read(g_p);
  (void)utim_set_rel(g_p, 0, FAR);
  g_rearmed = 1u;
}

static void t_preempt(void *arg) {
  const victim_t *v = arg;
  g_p = utim_by_index(v->index);
  g_pre = v->preempt;
  /* The fastest the instance runs at, the raw timer at the same rate (the
   * nRF51 prescaler divides HFCLK by 2^k). */
  uint32_t hz = 0u;
  TH_EQ(utim_closest_freq(g_p, MICROBIT_HFCLK_HZ, UTIM_CLOCK_DEFAULT, &hz), 0);
  uint32_t shift = 0u;
  while (shift < 9u && (MICROBIT_HFCLK_HZ >> shift) > hz) {
    shift++;
  }
  if (!TH_CHECKF((MICROBIT_HFCLK_HZ >> shift) == hz, "%lu Hz is no prescaled HFCLK",
                 (unsigned long)hz) ||
      !TH_EQ(utim_init(g_p, hz, UTIM_CLOCK_DEFAULT), 0)) {
    return;
  }
  TH_EQ(utim_set_compare_cb(g_p, on_compare, NULL), 0);
  TH_EQ(utim_start(g_p), 0);
  cortexm_irq_set_raw(v->preempt_irq, preempt_isr, NULL);
  const uint32_t ipr = NVIC_IPR2;
  NVIC_IPR2 = (ipr & ~0x00FFFFFFu) | v->ipr2;
  unsigned early = 0u;
  unsigned lost = 0u;
  unsigned hits = 0u;
  for (unsigned j = 0u; j < SWEEP; j++) {
    g_calls = 0u;
    g_rearmed = 0u;
    /* The raw timer matches a few ticks after the victim's channel: j
     * delays the unmasking, so the victim's handler is preempted at a
     * different point. */
    g_pre->tasks_stop = 1u;
    g_pre->bitmode = UTIM_NRF51_TIMER_BITMODE_16;
    g_pre->prescaler = shift;
    g_pre->tasks_clear = 1u;
    g_pre->events_compare[0] = 0u;
    g_pre->cc[0] = NEAR + 3u;
    g_pre->intenset = UTIM_NRF51_TIMER_INT_COMPARE(0);
    const uint32_t key = utim_port_lock();
    g_pre->tasks_start = 1u;
    const uint64_t s = utim_read(g_p);
    (void)utim_set_rel(g_p, 0, NEAR);
    while (utim_read(g_p) - s < NEAR + 1u) {
    }
    for (volatile unsigned k = 0u; k < j; k++) {
    }
    utim_port_unlock(key);
    tb_wait_ticks(g_p, 2u * NEAR);
    if (g_rearmed == 0u) {
      th_note("delay %u: the raw timer did not preempt", j);
      continue;
    }
    hits++;
    const uint64_t target = g_rearm_at + FAR;
    const unsigned before = g_calls;
    const uint64_t at_before = g_cb_at;
    tb_wait_ticks(g_p, FAR + 500u);
    if (before != 0u && g_calls == before) {
      early++; /* the old match was taken for the new setting */
      th_note("delay %u: callback at %llu, %llu ticks before the re-armed target", j,
              (unsigned long long)at_before, (unsigned long long)(target - at_before));
    }
    if (g_calls == before) {
      lost++;
      th_note("delay %u: no callback at the re-armed target %llu", j, (unsigned long long)target);
    }
    (void)utim_clear(g_p, 0);
  }
  cortexm_irq_set_raw(v->preempt_irq, NULL, NULL);
  NVIC_IPR2 = ipr;
  g_pre->tasks_stop = 1u;
  th_note("%u preemptions: %u early callbacks, %u re-armed settings lost", hits, early, lost);
  TH_CHECKF(hits >= SWEEP / 2u, "only %u of %u delays preempted the handler", hits, SWEEP);
  TH_CHECKF(early == 0u, "%u callbacks ran before their re-armed target", early);
  TH_CHECKF(lost == 0u, "%u re-armed settings never fired", lost);
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  tb_setup();
  /* TIMER0 at the lowest priority, TIMER2 taken raw at the highest. */
  static const victim_t timer0 = {MICROBIT_IDX_TIMER0, (utim_nrf51_timer_regs_t *)0x4000A000u,
                                  IRQ_TIMER2, 0x0000C0u};
  /* The chain (TIMER1 counting, TIMER2 by software carry: both lowest; its
   * service reports from TIMER1's callback), TIMER0 taken raw at the highest. */
  static const victim_t chain = {MICROBIT_IDX_CHAIN32, (utim_nrf51_timer_regs_t *)0x40008000u,
                                 IRQ_TIMER0, 0xC0C000u};
  th_run("nRF51 TIMER0: compare re-armed from a higher-priority interrupt during its handler",
         t_preempt, (void *)&timer0);
  th_run("TIMER1 + TIMER2 chain: compare re-armed from a higher-priority interrupt during its "
         "service",
         t_preempt, (void *)&chain);
  return th_finish();
}
