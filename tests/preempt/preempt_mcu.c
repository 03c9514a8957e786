/*
 * A compare channel re-armed from an interrupt of a higher priority that
 * preempts the channel's own handler while it services the previous match
 * (microbit, nRF51 TIMER0; TIMER2's line taken raw at the highest priority
 * re-arms it). The handler read the enabled flags, then cleared the enable
 * and reported the match without the port lock: a re-arm in between had
 * its new enable cleared and was taken for the old match, so its callback
 * ran about 20000 ticks early and its target never fired. Every handler of
 * compare channels now holds the lock from its read of the flags to the
 * report (utim_core_event_unlock(), driver.h). A sweep of delays moves the
 * moment of the preemption across the whole handler.
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

#define IRQ_TIMER2 10
/* NVIC priority bytes of lines 8..11 (TIMER0 is line 8, TIMER2 line 10). */
#define NVIC_IPR2 (*(volatile uint32_t *)0xE000E408u)
#define FAR       20000u /* the re-armed setting, ticks ahead */
#define NEAR      100u   /* the setting whose match the handler services */
#define SWEEP     60u    /* preemption delays tried */

static utim_nrf51_timer_regs_t *const t2 = (utim_nrf51_timer_regs_t *)0x4000A000u;
static utim_nrf51_timer_regs_t *const t0 = (utim_nrf51_timer_regs_t *)0x40008000u;
static const utim_periph_t *g_p;
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

/* The interrupt of a higher priority: stop TIMER2, re-arm TIMER0's channel
 * 0 far ahead (replacing its setting). */
static void t2_isr(void *arg) {
  (void)arg;
  t2->intenclr = UTIM_NRF51_TIMER_INT_COMPARE(0);
  t2->events_compare[0] = 0u;
  t2->tasks_stop = 1u;
  g_rearm_at = utim_read(g_p);
  (void)utim_set_rel(g_p, 0, FAR);
  g_rearmed = 1u;
}

static void t_preempt(void *arg) {
  (void)arg;
  g_p = utim_by_index(MICROBIT_IDX_TIMER0);
  TH_EQ(utim_init(g_p, MICROBIT_HFCLK_HZ, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_compare_cb(g_p, on_compare, NULL), 0);
  TH_EQ(utim_start(g_p), 0);
  cortexm_irq_set_raw(IRQ_TIMER2, t2_isr, NULL);
  const uint32_t ipr = NVIC_IPR2;
  NVIC_IPR2 = (ipr & ~0x00FF00FFu) | 0xC0u; /* TIMER0 lowest, TIMER2 highest */
  unsigned early = 0u;
  unsigned lost = 0u;
  unsigned hits = 0u;
  for (unsigned j = 0u; j < SWEEP; j++) {
    g_calls = 0u;
    g_rearmed = 0u;
    /* TIMER2 matches a few ticks after TIMER0's channel: j delays the
     * unmasking, so TIMER0's handler is preempted at a different point. */
    t2->tasks_stop = 1u;
    t2->bitmode = UTIM_NRF51_TIMER_BITMODE_16;
    t2->prescaler = 0u;
    t2->tasks_clear = 1u;
    t2->events_compare[0] = 0u;
    t2->cc[0] = NEAR + 3u;
    t2->intenset = UTIM_NRF51_TIMER_INT_COMPARE(0);
    const uint32_t key = utim_port_lock();
    t2->tasks_start = 1u;
    (void)utim_set_rel(g_p, 0, NEAR);
    while (t0->events_compare[0] == 0u) {
    }
    for (volatile unsigned k = 0u; k < j; k++) {
    }
    utim_port_unlock(key);
    tb_wait_ticks(g_p, 2u * NEAR);
    if (g_rearmed == 0u) {
      th_note("delay %u: TIMER2 did not preempt", j);
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
  cortexm_irq_set_raw(IRQ_TIMER2, NULL, NULL);
  NVIC_IPR2 = ipr;
  th_note("%u preemptions: %u early callbacks, %u re-armed settings lost", hits, early, lost);
  TH_CHECKF(hits >= SWEEP / 2u, "only %u of %u delays preempted the handler", hits, SWEEP);
  TH_CHECKF(early == 0u, "%u callbacks ran before their re-armed target", early);
  TH_CHECKF(lost == 0u, "%u re-armed settings never fired", lost);
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  tb_setup();
  th_run("compare re-armed from a higher-priority interrupt during its handler", t_preempt, NULL);
  return th_finish();
}
