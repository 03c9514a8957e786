/*
 * test_os2_ticked_sim: the CMSIS layer on a manager ticked on a compare
 * channel (sim), with a binding that ends a delay at the manager's one-shot
 * at the deadline, as the Cortex-M and POSIX bindings do: osDelay(n) and a
 * timer of n ticks end n kernel ticks on, on the kernel tick boundaries,
 * for a manager ticked on a channel and on a counter's overflow set up
 * mid-count; a manager tick that does not divide the kernel tick is
 * refused.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"

#define SYS_HZ 1000000u

static utim_tm_t g_tm;
static utim_os2_deferred_t g_q[64];
static unsigned g_qh, g_qt;
static uint64_t g_defer_at[64];

static bool b_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}
static int b_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  if (g_qt - g_qh >= 64u) {
    return -ENOSPC;
  }
  g_defer_at[g_qt % 64u] = utim_tm_now(&g_tm);
  g_q[g_qt++ % 64u] = d;
  return 0;
}
static void run_queue(void) {
  while (g_qh != g_qt) {
    utim_os2_run_deferred(g_q[g_qh++ % 64u]);
  }
}
static volatile bool g_woke;
static void on_wake(utim_tm_t *tm, utim_tm_timer_t *t, void *a) {
  (void)tm;
  (void)t;
  (void)a;
  g_woke = true;
}
static int b_block_until(void *ctx, utim_tm_t *tm, uint64_t deadline) {
  (void)ctx;
  static utim_tm_timer_t w;
  g_woke = false;
  utim_tm_timer_init(&w, on_wake, NULL);
  int rc = utim_tm_start_at(tm, &w, deadline, 0u);
  if (rc != 0) {
    return rc;
  }
  while (!g_woke) {
    sim_advance(1000u); /* 1 count */
  }
  run_queue();
  return 0;
}
static const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};

static void cb(void *a) {
  (void)a;
}

/* advance to the start of a kernel tick (reported time multiple of ratio) */
static void to_boundary(uint32_t ratio) {
  while (utim_tm_now(&g_tm) % ratio != 0u) {
    sim_advance(1000u);
  }
}

typedef struct ticked_case {
  const char *what;
  const char *inst;
  unsigned ch;      /* a channel, or UTIM_TM_OVERFLOW */
  uint32_t sys_hz;  /* the counter's rate */
  uint64_t tick;    /* the manager's tick, counts */
  uint32_t tick_hz; /* the kernel tick */
  uint64_t pre_ns;  /* virtual time before the manager's set-up: mid-count */
} ticked_case_t;

static void ticked_case(void *arg) {
  const ticked_case_t *tc = arg;
  const char *what = tc->what;
  const uint64_t tick = tc->tick;
  sim_board_init();
  g_qh = g_qt = 0;
  const utim_periph_t *p = utim_by_name(tc->inst);
  int rc = p != NULL ? utim_init(p, tc->sys_hz, UTIM_CLOCK_DEFAULT) : -ENODEV;
  rc = rc ? rc : utim_start(p);
  sim_advance(tc->pre_ns);
  rc = rc ? rc : utim_tm_init(&g_tm, p, tc->ch, UTIM_TM_TICKED, tick);
  rc = rc ? rc : utim_os2_init(&g_tm, tc->sys_hz, tc->tick_hz, &binding);
  if (!TH_CHECKF(rc == 0, "%s: set-up %d", what, rc)) {
    return;
  }
  const uint32_t ratio = tc->sys_hz / tc->tick_hz;
  for (uint32_t n = 1; n <= 3; n++) {
    to_boundary(ratio);
    const uint32_t k0 = osKernelGetTickCount();
    const uint64_t t0 = utim_tm_now(&g_tm);
    osDelay(n);
    const uint32_t k1 = osKernelGetTickCount();
    const uint64_t t1 = utim_tm_now(&g_tm);
    TH_CHECKF(k1 - k0 == n,
              "%s: osDelay(%u) from tick %u at time %llu: tick count +%u, %llu counts", what, n, k0,
              (unsigned long long)t0, k1 - k0, (unsigned long long)(t1 - t0));
  }
  /* a timer of 1 tick from the start of a tick */
  osTimerId_t t = osTimerNew(cb, osTimerOnce, NULL, NULL);
  to_boundary(ratio);
  const uint32_t k0 = osKernelGetTickCount();
  osTimerStart(t, 1u);
  while (g_qt == g_qh) {
    sim_advance(1000u);
  }
  const uint64_t at = g_defer_at[g_qh % 64u];
  run_queue();
  TH_CHECKF(at / ratio - k0 == 1u, "%s: osTimerStart(1) from tick %u expired in tick %llu", what,
            k0, (unsigned long long)(at / ratio));
  osTimerDelete(t);
  /* osDelayUntil */
  to_boundary(ratio);
  const uint32_t k2 = osKernelGetTickCount();
  osDelayUntil(k2 + 2u);
  const uint64_t t2 = utim_tm_now(&g_tm);
  TH_CHECKF(osKernelGetTickCount() == k2 + 2u && t2 % ratio < tick,
            "%s: osDelayUntil(%u) ended at time %llu (%llu into its tick)", what, k2 + 2u,
            (unsigned long long)t2, (unsigned long long)(t2 % ratio));
  (void)utim_tm_deinit(&g_tm);
}

/* A manager tick that does not divide the kernel tick is refused: its tick
 * points would drift across the kernel's boundaries. */
static void t_refused(void *arg) {
  (void)arg;
  sim_board_init();
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (!TH_CHECK(p != NULL && utim_init(p, SYS_HZ, UTIM_CLOCK_DEFAULT) == 0 && utim_start(p) == 0 &&
                utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKED, 5u) == 0)) {
    return;
  }
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, SYS_HZ / 4u, &binding), -EINVAL); /* 5 into 4 */
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, SYS_HZ / 10u, &binding), 0);      /* 5 into 10 */
  (void)utim_tm_deinit(&g_tm);
}

/* utim_tm_set_time() on a manager ticked at the kernel tick, called 300
 * counts into a tick: to a time 300 into a tick (a whole number of ticks
 * on) the tick points stay on the kernel's boundaries; to a multiple of
 * the tick they fall 300 counts into each kernel tick, as the header says
 * (its wording before said a multiple of the tick kept them: osDelay(1)
 * then returned in the call's own tick, osDelayUntil() 700 counts late). */
static void t_set_time_phase(void *arg) {
  (void)arg;
  static const uint64_t to[] = {5300u, 5000u};
  for (unsigned i = 0; i < 2u; i++) {
    sim_board_init();
    g_qh = g_qt = 0;
    const utim_periph_t *p = utim_by_name("SIM_MTIME64");
    if (!TH_CHECK(p != NULL && utim_init(p, SYS_HZ, UTIM_CLOCK_DEFAULT) == 0 &&
                  utim_start(p) == 0 && utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKED, 1000u) == 0)) {
      return;
    }
    sim_advance(300000u); /* 300 counts into tick 0 */
    TH_EQ(utim_tm_set_time(&g_tm, to[i]), 0);
    TH_EQ(utim_os2_init(&g_tm, SYS_HZ, 1000u, &binding), 0);
    TH_EQU(osKernelGetTickCount(), 5u);
    TH_EQ(osDelay(1u), osOK);
    const uint32_t k1 = osKernelGetTickCount();
    TH_EQ(osDelayUntil(k1 + 2u), osOK);
    const uint64_t into = utim_tm_now(&g_tm) % 1000u;
    if (i == 0u) {
      TH_EQU(k1, 6u); /* on the grid: the tick count went 1 on */
      TH_EQU(into, 0u);
    } else {
      TH_EQU(k1, 5u); /* off it: osDelay(1) ended 700 counts on, in tick 5 */
      TH_EQU(into, 700u);
    }
    (void)utim_tm_deinit(&g_tm);
  }
}

int main(void) {
  th_set_putc(th_stdio_putc);
  static const ticked_case_t cases[] = {
      {"channel, tick = kernel tick", "SIM_MTIME64", 0u, SYS_HZ, 1000u, 1000u, 0u},
      {"channel, tick = a quarter kernel tick", "SIM_MTIME64", 0u, SYS_HZ, 250u, 1000u, 0u},
      /* SIM_TIMER8 at 128 kHz: a wrap every 2 ms, the kernel tick; set up
       * mid-count (before 2026-11-26 its time zero was the set-up, the
       * wraps that count before each kernel tick boundary, and osDelay(1)
       * returned in the call's own tick). */
      {"overflow, set up mid-count", "SIM_TIMER8", UTIM_TM_OVERFLOW, 128000u, 256u, 500u, 777000u},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    th_run(cases[i].what, ticked_case, (void *)(uintptr_t)&cases[i]);
  }
  th_run("a manager tick not dividing the kernel tick is refused", t_refused, NULL);
  th_run("utim_tm_set_time() keeps the tick points on the kernel's only in phase", t_set_time_phase,
         NULL);
  return th_finish();
}
