/*
 * test_os2_seq_sim: the CMSIS layer's expiry numbers (white-box: it includes
 * os2_time.c) after 2^31 and more expiries of other timers, set where they
 * would leave them (running them would take hours). A timer idle for that
 * long has nothing waiting: its delete notes nothing, and the next timer set
 * up in its block runs. Before 2026-11-26 its old number read as waiting
 * (after the last one run, modulo 2^32): the delete took an entry in gone[]
 * that dropped the new timer's expiries.
 */
#include "../../src/cmsis/os2_time.c" // NOLINT(bugprone-suspicious-include): white-box

#include "board_sim.h"
#include "harness.h"
#include "sim.h"

static utim_tm_t g_tm;
static utim_os2_deferred_t g_q[8];
static unsigned g_qh;
static unsigned g_qt;
static unsigned g_fired;

static bool r_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}

static int r_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  if (g_qt - g_qh >= 8u) {
    return -ENOSPC;
  }
  g_q[g_qt++ % 8u] = d;
  return 0;
}

static int r_block(void *ctx, utim_tm_t *m, uint64_t deadline) {
  (void)ctx;
  while ((int64_t)(deadline - utim_tm_now(m)) > 0) {
    sim_advance(1000u);
  }
  while (g_qh != g_qt) {
    utim_os2_run_deferred(g_q[g_qh++ % 8u]);
  }
  return 0;
}

static const utim_os2_binding_t g_binding = {r_in_isr, r_block, r_defer, NULL};

static void cb(void *arg) {
  (void)arg;
  g_fired++;
}

static void t_idle_2_31(void *arg) {
  const uint32_t idle = (uint32_t)(uintptr_t)arg;
  sim_board_init();
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (!TH_CHECK(p != NULL && utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT) == 0 &&
                utim_start(p) == 0 && utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKLESS, 0u) == 0 &&
                utim_os2_init(&g_tm, 1000000u, 1000u, &g_binding) == 0)) {
    return;
  }
  g_fired = 0u;
  osTimerId_t a = osTimerNew(cb, osTimerOnce, NULL, NULL);
  TH_EQ(osTimerStart(a, 1u), osOK);
  TH_EQ(osDelay(3u), osOK);
  TH_EQU(g_fired, 1u);
  /* That many expiries of other timers since, all run, none waiting. */
  seq_run += idle;
  seq_out = seq_run;
  TH_EQ(osTimerDelete(a), osOK);
  TH_EQU(gone_n, 0u);
  osTimerId_t b = osTimerNew(cb, osTimerOnce, NULL, NULL);
  TH_CHECK(b == a); /* the pool's first free block */
  TH_EQ(osTimerStart(b, 2u), osOK);
  TH_EQ(osDelay(5u), osOK);
  TH_EQU(g_fired, 2u);
  TH_EQ(osTimerDelete(b), osOK);
  TH_EQ(utim_tm_deinit(&g_tm), 0);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  th_run("a timer idle for 2^31 + 5 expiries of others: its delete notes nothing", t_idle_2_31,
         (void *)(uintptr_t)0x80000005u);
  th_run("a timer idle for 2^32 - 1 expiries of others: its delete notes nothing", t_idle_2_31,
         (void *)(uintptr_t)0xFFFFFFFFu);
  return th_finish();
}
