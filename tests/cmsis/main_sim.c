/*
 * The CMSIS-RTOS2 validation cases (os2_suite.c) on the sim board, in
 * virtual time, over a binding of the sim machine: one thread (the test),
 * blocking by letting virtual time pass a kernel tick at a time, the timer
 * context run by the blocking thread at each step (as a timer thread of
 * higher priority would run before the delayed thread goes on), "in an
 * interrupt" whenever the simulated CPU runs a handler. The manager runs
 * tickless on SIM_MTIME64 at 1 MHz, the kernel tick at 1 kHz.
 */
#include <errno.h>
#include <stdint.h>

#include "board_sim.h"
#include "harness.h"
#include "os2_suite.h"
#include "sim.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"

#define SYS_HZ  1000000u
#define TICK_HZ 1000u
#define QLEN    64u

static utim_tm_t g_tm;
static void *g_q[QLEN];
static unsigned g_qhead;
static unsigned g_qtail;

static bool b_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}

static int b_defer(void *ctx, void *timer) {
  (void)ctx;
  if (g_qtail - g_qhead >= QLEN) {
    return -ENOSPC;
  }
  g_q[g_qtail++ % QLEN] = timer;
  return 0;
}

static void run_queue(void) {
  while (g_qhead != g_qtail) {
    utim_os2_run_deferred(g_q[g_qhead++ % QLEN]);
  }
}

static int b_block_until(void *ctx, utim_tm_t *tm, uint64_t deadline) {
  (void)ctx;
  const uint64_t per_tick = SYS_HZ / TICK_HZ;
  for (;;) {
    const uint64_t now = utim_tm_now(tm);
    run_queue();
    if (now >= deadline) {
      return 0;
    }
    const uint64_t to_tick = per_tick - now % per_tick;
    const uint64_t step = deadline - now < to_tick ? deadline - now : to_tick;
    sim_advance(step * (1000000000u / SYS_HZ));
  }
}

static const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};

static bool setup(void) {
  sim_board_init();
  g_qhead = g_qtail = 0;
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  return p != NULL && utim_init(p, SYS_HZ, UTIM_CLOCK_DEFAULT) == 0 && utim_start(p) == 0 &&
         utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKLESS, 0u) == 0 &&
         utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &binding) == 0;
}

static void teardown(void) {
  run_queue();
  (void)utim_tm_deinit(&g_tm);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  const os2_suite_env_t env = {"sim", TICK_HZ, setup, teardown, &g_tm};
  return os2_suite_run(&env);
}
