/*
 * CMSIS-RTOS2 time services on the sim board: our own port of the timer,
 * generic-wait and kernel-time cases of ARM's CMSIS-RTOS2 validation suite
 * (RV2_Timer, RV2_GenWait, RV2_Kernel), in virtual time, over a binding of
 * the sim machine: one thread (the test), blocking by letting virtual time
 * pass, the timer context run by the blocking thread before it returns (as
 * a timer thread of higher priority would), "in an interrupt" whenever the
 * simulated CPU runs a handler. The manager runs tickless on SIM_MTIME64 at
 * 1 MHz, the kernel tick at 1 kHz.
 */
#include <errno.h>
#include <stdint.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "utim/cmsis_os2.h"

#define SYS_HZ  1000000u
#define TICK_HZ 1000u
#define QLEN    64u

static utim_tm_t g_tm;
static void *g_q[QLEN];
static unsigned g_qhead;
static unsigned g_qtail;

static bool b_in_isr(void *ctx) {
  (void)ctx;
  return sim_in_isr();
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

/* Virtual time passes a kernel tick at a time (timers end on tick
 * boundaries), and the timer context runs at each: as a timer thread of
 * higher priority would, before the delayed thread goes on. */
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

static void setup(void) {
  sim_board_init();
  g_qhead = g_qtail = 0;
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  (void)TH_EQ(utim_init(p, SYS_HZ, UTIM_CLOCK_DEFAULT), 0);
  (void)TH_EQ(utim_start(p), 0);
  (void)TH_EQ(utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKLESS, 0u), 0);
  (void)TH_EQ(utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &binding), 0);
}

static void teardown(void) {
  run_queue();
  (void)utim_tm_deinit(&g_tm);
}

/* ---- kernel time (RV2_Kernel) ---- */

static void t_kernel(void *arg) {
  (void)arg;
  setup();
  TH_EQU(osKernelGetTickFreq(), TICK_HZ);
  TH_EQU(osKernelGetSysTimerFreq(), SYS_HZ);
  TH_EQ(osDelay(1u), osOK); /* on a tick boundary */
  const uint32_t t0 = osKernelGetTickCount();
  const uint32_t s0 = osKernelGetSysTimerCount();
  TH_EQ(osDelay(10u), osOK);
  const uint32_t t1 = osKernelGetTickCount();
  const uint32_t s1 = osKernelGetSysTimerCount();
  TH_EQU(t1 - t0, 10u);
  TH_EQU((s1 - s0) / (SYS_HZ / TICK_HZ), t1 - t0); /* the two deltas agree */
  teardown();
}

/* ---- generic wait (RV2_GenWait) ---- */

static void t_delay(void *arg) {
  (void)arg;
  setup();
  sim_advance(333333u); /* mid-tick */
  const uint32_t t0 = osKernelGetTickCount();
  TH_EQ(osDelay(10u), osOK);
  TH_EQU(osKernelGetTickCount() - t0, 10u);
  TH_EQU(utim_tm_now(&g_tm) % (SYS_HZ / TICK_HZ), 0u); /* returned at the tick's start */
  TH_EQ(osDelay(0u), osErrorParameter);
  const uint32_t t1 = osKernelGetTickCount();
  TH_EQ(osDelayUntil(t1 + 5u), osOK);
  TH_EQU(osKernelGetTickCount(), t1 + 5u);
  TH_EQ(osDelayUntil(osKernelGetTickCount()), osErrorParameter);      /* now */
  TH_EQ(osDelayUntil(osKernelGetTickCount() - 1u), osErrorParameter); /* passed */
  teardown();
}

/* ---- timers (RV2_Timer) ---- */

static unsigned g_calls;
static osTimerId_t g_self;
static unsigned g_restarts;

static void count_cb(void *arg) {
  (void)arg;
  g_calls++;
}

static void restart_cb(void *arg) {
  (void)arg;
  g_calls++;
  if (g_restarts > 0u) {
    g_restarts--;
    (void)osTimerStart(g_self, 3u);
  }
}

static void t_timer_args(void *arg) {
  (void)arg;
  setup();
  TH_CHECK(osTimerNew(NULL, osTimerOnce, NULL, NULL) == NULL);
  TH_CHECK(osTimerNew(count_cb, (osTimerType_t)2, NULL, NULL) == NULL);
  static uint64_t small[4];
  const osTimerAttr_t bad_size = {"t", 0u, small, sizeof small};
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, &bad_size) == NULL);
  const osTimerAttr_t size_no_mem = {"t", 0u, NULL, UTIM_OS2_TIMER_CB_SIZE};
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, &size_no_mem) == NULL);
  static uint64_t cb[UTIM_OS2_TIMER_CB_SIZE / 8u];
  const osTimerAttr_t named = {"my timer", 0u, cb, sizeof cb};
  osTimerId_t t = osTimerNew(count_cb, osTimerOnce, NULL, &named);
  TH_CHECK(t == (osTimerId_t)cb);
  TH_CHECK(osTimerGetName(t) != NULL && osTimerGetName(NULL) == NULL);
  TH_EQ(osTimerStart(NULL, 1u), osErrorParameter);
  TH_EQ(osTimerStart(t, 0u), osErrorParameter);
  TH_EQ(osTimerStop(NULL), osErrorParameter);
  TH_EQ(osTimerStop(t), osErrorResource); /* stopped */
  TH_EQU(osTimerIsRunning(NULL), 0u);
  TH_EQ(osTimerStart(t, 5u), osOK);
  TH_EQU(osTimerIsRunning(t), 1u);
  TH_EQ(osTimerStop(t), osOK);
  TH_EQU(osTimerIsRunning(t), 0u);
  TH_EQ(osTimerDelete(NULL), osErrorParameter);
  TH_EQ(osTimerDelete(t), osOK);
  TH_EQ(osTimerStart(t, 1u), osErrorParameter); /* deleted */
  teardown();
}

static void t_timer_once_periodic(void *arg) {
  (void)arg;
  setup();
  osTimerId_t once = osTimerNew(count_cb, osTimerOnce, NULL, NULL);
  g_calls = 0;
  TH_EQ(osTimerStart(once, 2u), osOK);
  TH_EQ(osDelay(10u), osOK);
  TH_EQU(g_calls, 1u); /* exactly one callback */
  TH_EQU(osTimerIsRunning(once), 0u);
  osTimerId_t per = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  g_calls = 0;
  TH_EQ(osTimerStart(per, 2u), osOK);
  TH_EQ(osDelay(10u), osOK);
  TH_EQU(g_calls, 5u); /* exactly five */
  TH_EQ(osTimerStop(per), osOK);
  TH_EQ(osDelay(10u), osOK);
  TH_EQU(g_calls, 5u); /* none after the stop */
  TH_EQ(osTimerDelete(once), osOK);
  TH_EQ(osTimerDelete(per), osOK);
  /* Restarted from its own callback. */
  g_self = osTimerNew(restart_cb, osTimerOnce, NULL, NULL);
  g_calls = 0;
  g_restarts = 2;
  TH_EQ(osTimerStart(g_self, 3u), osOK);
  TH_EQ(osDelay(20u), osOK);
  TH_EQU(g_calls, 3u);
  TH_EQ(osTimerDelete(g_self), osOK);
  TH_EQU(utim_os2_lost_expiries(), 0u);
  teardown();
}

static void t_pool(void *arg) {
  (void)arg;
  setup();
  osTimerId_t ids[UTIM_OS2_TIMER_POOL + 1u];
  unsigned n = 0;
  while (n <= UTIM_OS2_TIMER_POOL &&
         (ids[n] = osTimerNew(count_cb, osTimerOnce, NULL, NULL)) != NULL) {
    n++;
  }
  TH_EQU(n, UTIM_OS2_TIMER_POOL); /* creation until the resources run out */
  for (unsigned i = 0; i < n; i++) {
    TH_EQ(osTimerDelete(ids[i]), osOK);
  }
  osTimerId_t again = osTimerNew(count_cb, osTimerOnce, NULL, NULL);
  TH_CHECK(again != NULL);
  TH_EQ(osTimerDelete(again), osOK);
  teardown();
}

/* ---- interrupt context ---- */

static int g_isr_delay;
static int g_isr_start;
static int g_isr_stop;
static int g_isr_delete;
static bool g_isr_new_null;
static uint32_t g_isr_running;
static bool g_isr_ran;
static osTimerId_t g_isr_timer;

static void isr_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_isr_ran = true;
  g_isr_delay = osDelay(1u);
  g_isr_start = osTimerStart(g_isr_timer, 1u);
  g_isr_stop = osTimerStop(g_isr_timer);
  g_isr_delete = osTimerDelete(g_isr_timer);
  g_isr_new_null = osTimerNew(count_cb, osTimerOnce, NULL, NULL) == NULL;
  g_isr_running = osTimerIsRunning(g_isr_timer);
  (void)osKernelGetTickCount();
}

static void t_isr(void *arg) {
  (void)arg;
  setup();
  g_isr_timer = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  TH_EQ(osTimerStart(g_isr_timer, 5u), osOK);
  const utim_periph_t *p = utim_by_name("SIM_TIMER16");
  TH_EQ(utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_compare_cb(p, isr_cb, NULL), 0);
  TH_EQ(utim_start(p), 0);
  TH_EQ(utim_set_rel(p, 0u, 100u), 0);
  sim_advance(1000000u);
  TH_CHECK(g_isr_ran);
  TH_EQ(g_isr_delay, osErrorISR);
  TH_EQ(g_isr_start, osErrorISR);
  TH_EQ(g_isr_stop, osErrorISR);
  TH_EQ(g_isr_delete, osErrorISR);
  TH_CHECK(g_isr_new_null);
  TH_EQU(g_isr_running, 0u);
  TH_EQU(osTimerIsRunning(g_isr_timer), 1u); /* untouched by the refused calls */
  (void)utim_set_compare_cb(p, NULL, NULL);
  (void)utim_stop(p);
  TH_EQ(osTimerDelete(g_isr_timer), osOK);
  teardown();
}

int main(void) {
  th_set_putc(th_stdio_putc);
  th_run("kernel: tick and sys-timer frequencies, their deltas agree", t_kernel, NULL);
  th_run("osDelay(10) spans 10 ticks, ends on the tick; osDelayUntil at its tick; errors", t_delay,
         NULL);
  th_run("timers: NULL and invalid arguments, control blocks, stop of a stopped timer",
         t_timer_args, NULL);
  th_run("timers: one-shot of 2 ticks once and periodic of 2 ticks five times across "
         "osDelay(10); restart from its own callback",
         t_timer_once_periodic, NULL);
  th_run("timers: creation until the pool runs out, then again after deletes", t_pool, NULL);
  th_run("interrupt context: the standard's errors", t_isr, NULL);
  return th_finish();
}
