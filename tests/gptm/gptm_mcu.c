/**
 * @file gptm_mcu.c
 * @brief The Stellaris GPTM driver (drivers/stellaris_gptm) on the
 *        lm3s6965evb under QEMU: what QEMU 7.2 models of the GPTM's 32-bit
 *        periodic mode, driven through the uAPI on GPTM 0, timed by SysTick.
 *
 * The board keeps the GPTMs out of its table under QEMU (their count
 * cannot be read there, see utim_stellaris_gptm.h); this firmware defines
 * GPTM 0 as its own instance with the driver's macro, takes its interrupt
 * line (cortexm_irq_set_raw()) and checks the event path: the top sets the
 * period of the time-out, which arrives as the overflow callback; a masked
 * overflow waits and coalesces; a stopped timer is silent and starts again;
 * turning the overflow interrupt off and on drops a stale flag; a new top
 * restarts the count. Both timers count the system clock, so periods are
 * compared in its cycles: QEMU times out every TAILR cycles, the chip every
 * TAILR + 1, and the checks accept both (the difference is printed).
 * The read path is not checked (GPTMTAR reads 0 under QEMU).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "cortexm.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"
#include "utim_stellaris_gptm.h"

#define TOP      9999u /* time-out every 10000 cycles on the chip (0.8 ms) */
#define TOP2     4999u
#define SLACK    200u /* cycles of interrupt entry and dispatch, either way */
#define MAX_EVTS 16u

static const utim_clock_desc_t g0_clk[1] = {LM3S_GPTM_CLOCK_DESC};
UTIM_STELLARIS_GPTM_DEFINE(g0, "LM3S_GPTM0", LM3S_GPTM_BASE(0), g0_clk);

static const utim_periph_t *g_st; /* SysTick, the reference */
static uint64_t g_ext;            /* SysTick extended past its 24-bit wraps */
static uint32_t g_last;
static volatile unsigned g_n;
static uint64_t g_at[MAX_EVTS];

/* SysTick's count since the start, extended in software: every caller
 * reads it far more often than once per wrap (1.3 s). */
static uint64_t now(void) {
  uint32_t key = utim_port_lock();
  const uint32_t c = (uint32_t)utim_read(g_st);
  g_ext += (c - g_last) & 0xFFFFFFu;
  g_last = c;
  const uint64_t t = g_ext;
  utim_port_unlock(key);
  return t;
}

static void on_ovf(const utim_periph_t *p, void *arg) {
  (void)p;
  (void)arg;
  const unsigned n = g_n;
  if (n < MAX_EVTS) {
    g_at[n] = now();
  }
  g_n = n + 1u;
}

static void gptm0_line(void *arg) {
  (void)arg;
  utim_stellaris_gptm_isr(&g0);
}

/* Spin for @p cycles of the system clock. */
static void wait_cycles(uint64_t cycles) {
  const uint64_t t0 = now();
  while (now() - t0 < cycles) {
  }
}

/* Until @p n events were counted, for at most @p limit cycles. */
static bool wait_events(unsigned n, uint64_t limit) {
  const uint64_t t0 = now();
  while (g_n < n && now() - t0 < limit) {
  }
  return g_n >= n;
}

static void reset_events(void) {
  uint32_t key = utim_port_lock();
  g_n = 0u;
  utim_port_unlock(key);
}

/* The intervals between events 1..n-1 are one period of top + 1 cycles
 * (chip) or top (QEMU), give or take the dispatch. */
static void check_periods(unsigned n, uint32_t top) {
  for (unsigned i = 1; i < n && i < MAX_EVTS; i++) {
    const uint64_t d = g_at[i] - g_at[i - 1u];
    TH_CHECKF(d + SLACK >= top && d <= (uint64_t)top + 1u + SLACK,
              "interval %u: %llu cycles for top %lu", i, (unsigned long long)d, (unsigned long)top);
  }
  if (n >= 2u) {
    th_note("top %lu: %llu cycles between time-outs (chip: %lu)", (unsigned long)top,
            (unsigned long long)(g_at[n - 1u] - g_at[0]) / (n - 1u), (unsigned long)top + 1u);
  }
}

/* Between cases: GPTM 0 stopped (utim_init() clears TAEN: the driver
 * refuses utim_stop(), see below), its top TOP and the callback set again. */
static void halt(void) {
  TH_EQ(utim_init(&g0, LM3S_SYSCLK_HZ, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_property(&g0, UTIM_PROP_TOP, TOP), 0);
  TH_EQ(utim_set_overflow_cb(&g0, on_ovf, NULL), 0);
}

static void t_top(void *arg) {
  (void)arg;
  reset_events();
  TH_EQ(utim_init(&g0, LM3S_SYSCLK_HZ, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_property(&g0, UTIM_PROP_TOP, TOP), 0);
  uint64_t v = 0;
  TH_EQ(utim_get_property(&g0, UTIM_PROP_TOP, &v), 0);
  TH_EQU(v, TOP);
  TH_EQ(utim_set_overflow_cb(&g0, on_ovf, NULL), 0);
  TH_EQ(utim_start(&g0), 0);
  TH_CHECK(wait_events(6u, 7u * (TOP + 1u)));
  halt();
  check_periods(6u, TOP);
  th_note("read: %llu (QEMU 7.2 reads GPTMTAR as 0, so the view is the top)",
          (unsigned long long)utim_read(&g0));
}

static void t_mask(void *arg) {
  (void)arg;
  reset_events();
  TH_EQ(utim_mask(&g0, UTIM_EVT_OVF), 0);
  TH_EQ(utim_start(&g0), 0);
  wait_cycles(3u * (TOP + 1u) + TOP / 2u);
  TH_EQU(g_n, 0u);
  TH_EQU(utim_pending(&g0) & UTIM_EVT_OVF, UTIM_EVT_OVF);
  TH_EQ(utim_unmask(&g0, UTIM_EVT_OVF), 0);
  TH_EQU(g_n, 1u); /* the masked time-outs coalesce into one */
  TH_CHECK(wait_events(3u, 3u * (TOP + 1u)));
  halt();
}

/* utim_stop() is refused (-ENOTSUP): a start after it would reload the
 * count (QEMU and the datasheets), not resume it as utim_stop() promises.
 * The time-outs go on, on their grid. */
static void t_stop(void *arg) {
  (void)arg;
  TH_EQ(utim_start(&g0), 0);
  wait_cycles(TOP / 2u);
  TH_EQ(utim_stop(&g0), -ENOTSUP);
  TH_CHECK((utim_caps(&g0) & UTIM_CAP_STOP) == 0u);
  reset_events();
  TH_CHECK(wait_events(3u, 4u * (TOP + 1u)));
  halt();
  check_periods(3u, TOP);
}

static void t_irq_off(void *arg) {
  (void)arg;
  TH_EQ(utim_start(&g0), 0);
  TH_EQ(utim_set_overflow_cb(&g0, NULL, NULL), 0);
  reset_events();
  wait_cycles(2u * (TOP + 1u) + TOP / 2u);
  TH_EQU(g_n, 0u);
  /* On again: the flag raised meanwhile is stale, so the first callback
   * comes at the next time-out, not at once. */
  const uint64_t t0 = now();
  TH_EQ(utim_set_overflow_cb(&g0, on_ovf, NULL), 0);
  TH_CHECK(wait_events(1u, 2u * (TOP + 1u)));
  TH_CHECKF(g_at[0] - t0 + SLACK >= TOP / 2u,
            "first callback %llu cycles after the interrupt "
            "went on",
            (unsigned long long)(g_at[0] - t0));
  halt();
}

static void t_new_top(void *arg) {
  (void)arg;
  TH_EQ(utim_start(&g0), 0);
  wait_cycles(TOP / 3u);
  reset_events();
  const uint64_t t0 = now();
  TH_EQ(utim_set_property(&g0, UTIM_PROP_TOP, TOP2), 0); /* restarts the count */
  TH_CHECK(wait_events(4u, 5u * (TOP2 + 1u)));
  halt();
  const uint64_t first = g_at[0] - t0;
  TH_CHECKF(first + SLACK >= TOP2 && first <= (uint64_t)TOP2 + 1u + SLACK,
            "first time-out %llu cycles after the new top", (unsigned long long)first);
  check_periods(4u, TOP2);
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  th_note("Stellaris GPTM 0 (drivers/stellaris_gptm) on %s, timed by SysTick at %lu Hz",
          utim_board.name, (unsigned long)LM3S_SYSCLK_HZ);
  g_st = utim_by_name("LM3S_SYSTICK");
  if (g_st == NULL || utim_init(g_st, LM3S_SYSCLK_HZ, UTIM_CLOCK_DEFAULT) != 0 ||
      utim_start(g_st) != 0) {
    th_printf("Bail out! SysTick does not start\n");
    return 1;
  }
  g_last = (uint32_t)utim_read(g_st);
  cortexm_irq_set_raw(LM3S_IRQ_GPTM0A, gptm0_line, NULL);
  cortexm_nvic_enable(LM3S_IRQ_GPTM0A);
  th_run("top: the time-out every top + 1 cycles, as the overflow callback", t_top, NULL);
  th_run("masked overflow: pending, coalesced into one callback at unmask", t_mask, NULL);
  th_run("stop refused (a start would reload the count): time-outs go on", t_stop, NULL);
  th_run("overflow interrupt off and on: the stale flag dropped", t_irq_off, NULL);
  th_run("a new top restarts the count", t_new_top, NULL);
  return th_finish();
}
