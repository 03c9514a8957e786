/**
 * @file os2_suite.c
 * @brief The CMSIS-RTOS2 time services' validation cases (os2_suite.h): our
 *        own port of RV2_Kernel (tick and sys-timer), RV2_GenWait (osDelay,
 *        osDelayUntil) and RV2_Timer (arguments, control blocks, one-shot
 *        and periodic counts across a delay, restart from the callback,
 *        stop of a stopped timer, creation until resources run out, calls
 *        from an interrupt), through the standard's functions only.
 *
 * Counts are exact, as in ARM's suite: they hold because a delay returns
 * only after the callbacks of every timer due by its end have run (each
 * binding guarantees it, see utim/cmsis_os2.h). The interrupt case calls
 * the functions from a raw time-manager callback, which runs in the
 * manager's interrupt on every platform.
 */
#include "os2_suite.h"

#include <errno.h>
#include <stddef.h>

#include "harness.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"

static const os2_suite_env_t *env;

static bool begin(void) {
  return TH_CHECK(env->setup());
}

static void end(void) {
  TH_EQU(utim_os2_lost_expiries(), 0u);
  env->teardown();
}

/* Busy-wait (no delay) until the system timer has gone @p counts on. */
static void spin_sys(uint32_t counts) {
  const uint32_t s0 = osKernelGetSysTimerCount();
  while (osKernelGetSysTimerCount() - s0 < counts) {
    utim_port_relax();
  }
}

/* ---- kernel time (RV2_Kernel) ---- */

static void c_kernel(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  TH_EQU(osKernelGetTickFreq(), env->tick_hz);
  const uint32_t per_tick = osKernelGetSysTimerFreq() / env->tick_hz;
  TH_CHECK(per_tick >= 1u && per_tick * env->tick_hz == osKernelGetSysTimerFreq());
  TH_EQ(osDelay(1u), osOK); /* on a tick boundary */
  const uint32_t t0 = osKernelGetTickCount();
  const uint32_t s0 = osKernelGetSysTimerCount();
  TH_EQ(osDelay(10u), osOK);
  const uint32_t t1 = osKernelGetTickCount();
  const uint32_t s1 = osKernelGetSysTimerCount();
  TH_EQU(t1 - t0, 10u);
  /* The two deltas agree: the reads are not at the same instant after each
   * delay, so to the nearest tick. */
  TH_EQU((s1 - s0 + per_tick / 2u) / per_tick, t1 - t0);
  end();
}

/* The tick count against the 64-bit division it stands for, across the
 * manager's time set back, a jump of more than 2^32 counts, and small
 * steps, none through the wrap of the manager's time (c_tick_wrap). Not
 * from ARM's suite: utim's cached tick base (os2_time.c). */
static void c_tick_base(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const uint64_t per_tick = osKernelGetSysTimerFreq() / env->tick_hz;
  static const int64_t jumps[] = {
      (int64_t)1 << 35, -7, (int64_t)1 << 33, 3, -((int64_t)1 << 34), 1, 0};
  for (unsigned i = 0; i < sizeof jumps / sizeof jumps[0]; i++) {
    const uint64_t now = utim_tm_now(env->tm);
    TH_EQ(utim_tm_set_time(env->tm, now + (uint64_t)(jumps[i] * (int64_t)per_tick)), 0);
    /* Read the tick between two reads of the manager's time: it is one of
     * theirs (the time moves on meanwhile). */
    const uint64_t a = utim_tm_now(env->tm) / per_tick;
    const uint32_t t = osKernelGetTickCount();
    const uint64_t b = utim_tm_now(env->tm) / per_tick;
    TH_CHECKF(t - (uint32_t)a <= (uint32_t)(b - a), "step %u: tick %lu not in [%lu, %lu]", i,
              (unsigned long)t, (unsigned long)(uint32_t)a, (unsigned long)(uint32_t)b);
  }
  end();
}

/* Through the wrap of the manager's 64-bit time (modular: a delay across it
 * is whole) the tick count goes on, and osDelayUntil() ends at its tick
 * (the count restarted from 0 there, and osDelayUntil() ended with it
 * elsewhere). Not from ARM's suite. */
static void c_tick_wrap(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const uint64_t per_tick = osKernelGetSysTimerFreq() / env->tick_hz;
  const uint64_t before = UINT64_MAX - 5u * per_tick / 2u; /* 2.5 ticks before the wrap */
  TH_EQ(utim_tm_set_time(env->tm, before), 0);
  const uint32_t t0 = osKernelGetTickCount();
  TH_EQ(utim_tm_set_time(env->tm, before + 5u * per_tick), 0);
  const uint32_t t1 = osKernelGetTickCount();
  /* 5 ticks on, give or take the time passing between the calls */
  TH_CHECKF(t1 - t0 >= 4u && t1 - t0 <= 6u, "tick %lu, then %lu 5 ticks on", (unsigned long)t0,
            (unsigned long)t1);
  TH_EQ(utim_tm_set_time(env->tm, before), 0);
  const uint32_t t2 = osKernelGetTickCount();
  TH_EQ(osDelayUntil(t2 + 4u), osOK);
  TH_EQU(osKernelGetTickCount(), t2 + 4u);
  end();
}

/* ---- generic wait (RV2_GenWait) ---- */

static void c_delay(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const uint32_t per_tick = osKernelGetSysTimerFreq() / env->tick_hz;
  TH_EQ(osDelay(1u), osOK);
  spin_sys(per_tick / 3u); /* mid-tick */
  const uint32_t t0 = osKernelGetTickCount();
  TH_EQ(osDelay(10u), osOK);
  TH_EQU(osKernelGetTickCount() - t0, 10u);
  TH_EQ(osDelay(0u), osErrorParameter);
  const uint32_t t1 = osKernelGetTickCount();
  TH_EQ(osDelayUntil(t1 + 5u), osOK);
  TH_EQU(osKernelGetTickCount(), t1 + 5u);
  TH_EQ(osDelayUntil(osKernelGetTickCount()), osErrorParameter);      /* now */
  TH_EQ(osDelayUntil(osKernelGetTickCount() - 1u), osErrorParameter); /* passed */
  end();
}

/* ---- timers (RV2_Timer) ---- */

static volatile unsigned g_calls;
static osTimerId_t g_self;
static unsigned g_restarts;

static void count_cb(void *arg) {
  (void)arg;
  g_calls = g_calls + 1u;
}

static void restart_cb(void *arg) {
  (void)arg;
  g_calls = g_calls + 1u;
  if (g_restarts > 0u) {
    g_restarts--;
    (void)osTimerStart(g_self, 3u);
  }
}

/* Control block memory of a caller: pointer-aligned. */
static void *g_cb[UTIM_OS2_TIMER_CB_SIZE / sizeof(void *)];
static void *g_small[4];
/* Memory at a pointer's alignment but off the 8-byte one (on a 32-bit
 * target): the block sits inside it, the id is still the memory. */
static uint64_t g_cb_off[UTIM_OS2_TIMER_CB_SIZE / 8u + 1u];

/* Before utim_os2_init(): no call touches the kernel binding (there is
 * none), whatever the id; a zeroed control block is not a timer. */
static void c_no_kernel(void *arg) {
  (void)arg;
  static uint64_t zeroed[UTIM_OS2_TIMER_CB_SIZE / 8u];
  osTimerId_t ids[] = {NULL, zeroed, (char *)zeroed + 1};
  for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    th_context("id %u", i);
    TH_EQ(osTimerStart(ids[i], 1u), osError);
    TH_EQ(osTimerStop(ids[i]), osError);
    TH_EQ(osTimerDelete(ids[i]), osError);
    TH_EQU(osTimerIsRunning(ids[i]), 0u);
    TH_CHECK(osTimerGetName(ids[i]) == NULL);
  }
  th_context("%s", "");
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, NULL) == NULL);
  TH_EQ(osDelay(1u), osError);
  TH_EQ(osDelayUntil(1u), osError);
  TH_EQU(osKernelGetTickCount(), 0u);
  TH_EQU(osKernelGetSysTimerCount(), 0u);
  uint64_t at = 0;
  TH_EQ(utim_os2_timer_expiry(zeroed, &at), -EINVAL);
}

static void c_timer_args(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  TH_CHECK(osTimerNew(NULL, osTimerOnce, NULL, NULL) == NULL);
  TH_CHECK(osTimerNew(count_cb, (osTimerType_t)2, NULL, NULL) == NULL);
  const osTimerAttr_t bad_size = {"t", 0u, g_small, sizeof g_small};
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, &bad_size) == NULL);
  const osTimerAttr_t size_no_mem = {"t", 0u, NULL, UTIM_OS2_TIMER_CB_SIZE};
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, &size_no_mem) == NULL);
  const osTimerAttr_t named = {"my timer", 0u, g_cb, sizeof g_cb};
  osTimerId_t t = osTimerNew(count_cb, osTimerOnce, NULL, &named);
  TH_CHECK(t == (osTimerId_t)g_cb);
  TH_CHECK(osTimerGetName(t) == named.name);
  TH_CHECK(osTimerGetName(NULL) == NULL);
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
  TH_CHECK(osTimerGetName(t) == NULL);
  void *off = (char *)g_cb_off + sizeof(void *);
  const osTimerAttr_t misaligned = {"t", 0u, (char *)g_cb_off + 1, UTIM_OS2_TIMER_CB_SIZE};
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, &misaligned) == NULL);
  const osTimerAttr_t offset = {"offset", 0u, off, UTIM_OS2_TIMER_CB_SIZE};
  t = osTimerNew(count_cb, osTimerPeriodic, NULL, &offset);
  TH_CHECK(t == off);
  TH_EQ(osTimerStart(t, 1u), osOK);
  TH_EQU(osTimerIsRunning(t), 1u);
  /* Its memory again while it runs: refused, and it runs on, unchanged. */
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, &offset) == NULL);
  TH_EQU(osTimerIsRunning(t), 1u);
  TH_CHECK(osTimerGetName(t) == offset.name);
  TH_EQ(osTimerDelete(t), osOK);
  TH_EQ(osTimerStop(t), osErrorParameter);
  /* Deleted, or created and not running: the memory may be set up again. */
  t = osTimerNew(count_cb, osTimerOnce, NULL, &offset);
  TH_CHECK(t == off);
  TH_CHECK(osTimerNew(count_cb, osTimerPeriodic, NULL, &offset) == off);
  TH_EQ(osTimerDelete(t), osOK);
  end();
}

static void c_timer_counts(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  osTimerId_t once = osTimerNew(count_cb, osTimerOnce, NULL, NULL);
  TH_CHECK(once != NULL);
  g_calls = 0;
  TH_EQ(osTimerStart(once, 2u), osOK);
  TH_EQ(osDelay(10u), osOK);
  TH_EQU(g_calls, 1u); /* exactly one callback */
  TH_EQU(osTimerIsRunning(once), 0u);
  osTimerId_t per = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  TH_CHECK(per != NULL);
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
  end();
}

/* A start of n kernel ticks puts the expiry n ticks of the manager's time
 * ahead (up to one of its ticks less on a ticked manager): the conversion
 * over the whole 32-bit range, both sides of 2^16 (where Armv6-M takes a
 * 32-bit multiply instead of the library's 64-bit one). */
static void c_timer_span(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const uint64_t ratio = osKernelGetSysTimerFreq() / osKernelGetTickFreq();
  static const uint32_t n[] = {1u, 100u, 0xFFFFu, 0x10000u, 70000u, 0x7FFFFFFFu, 0xFFFFFFFFu};
  osTimerId_t t = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  TH_CHECK(t != NULL);
  for (unsigned i = 0; i < sizeof n / sizeof n[0]; i++) {
    th_context("%lu ticks", (unsigned long)n[i]);
    const uint64_t d = n[i] * ratio;
    const uint64_t before = utim_tm_now(env->tm);
    TH_EQ(osTimerStart(t, n[i]), osOK);
    const uint64_t after = utim_tm_now(env->tm);
    uint64_t at = 0;
    TH_EQ(utim_os2_timer_expiry(t, &at), 0);
    TH_CHECK(at > before + d - ratio && at <= after + d);
  }
  th_context("%s", "");
  TH_EQ(osTimerDelete(t), osOK);
  end();
}

static void c_pool(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
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
  end();
}

/* ---- interrupt context ---- */

static struct {
  volatile bool ran;
  int delay;
  int delay_until;
  int start;
  int stop;
  int del;
  bool new_null;
  uint32_t running;
  uint32_t tick_ok;
  osTimerId_t timer;
} g_isr;

static void isr_cb(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  (void)arg;
  g_isr.delay = osDelay(1u);
  g_isr.delay_until = osDelayUntil(osKernelGetTickCount() + 2u);
  g_isr.start = osTimerStart(g_isr.timer, 1u);
  g_isr.stop = osTimerStop(g_isr.timer);
  g_isr.del = osTimerDelete(g_isr.timer);
  g_isr.new_null = osTimerNew(count_cb, osTimerOnce, NULL, NULL) == NULL;
  g_isr.running = osTimerIsRunning(g_isr.timer);
  g_isr.tick_ok = osKernelGetTickFreq() == env->tick_hz && osTimerGetName(g_isr.timer) != NULL;
  g_isr.ran = true;
}

static utim_tm_timer_t g_raw;

static void c_isr(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  g_isr.ran = false;
  static const osTimerAttr_t attr = {"isr target", 0u, NULL, 0u};
  g_isr.timer = osTimerNew(count_cb, osTimerPeriodic, NULL, &attr);
  TH_EQ(osTimerStart(g_isr.timer, 50u), osOK);
  utim_tm_timer_init(&g_raw, isr_cb, NULL);
  const uint64_t per_tick = osKernelGetSysTimerFreq() / env->tick_hz;
  TH_EQ(utim_tm_start(env->tm, &g_raw, 3u * per_tick, 0u), 0);
  TH_EQ(osDelay(6u), osOK);
  TH_CHECK(g_isr.ran);
  TH_EQ(g_isr.delay, osErrorISR);
  TH_EQ(g_isr.delay_until, osErrorISR);
  TH_EQ(g_isr.start, osErrorISR);
  TH_EQ(g_isr.stop, osErrorISR);
  TH_EQ(g_isr.del, osErrorISR);
  TH_CHECK(g_isr.new_null);
  TH_EQU(g_isr.running, 0u);
  TH_EQU(g_isr.tick_ok, 1u);                 /* the calls allowed from an interrupt answer */
  TH_EQU(osTimerIsRunning(g_isr.timer), 1u); /* untouched by the refused calls */
  TH_EQ(osTimerDelete(g_isr.timer), osOK);
  end();
}

int os2_suite_run(const os2_suite_env_t *e) {
  env = e;
  th_printf("TAP version 13\n");
  th_note("CMSIS-RTOS2 time services, %s binding, kernel tick %lu Hz, control block %u bytes",
          e->binding, (unsigned long)e->tick_hz, (unsigned)UTIM_OS2_TIMER_CB_SIZE);
  /* First: nothing has set the layer up yet in this program. */
  th_run("no kernel set up: every call answers osError, 0 or NULL", c_no_kernel, NULL);
  th_run("kernel: tick and sys-timer frequencies, their deltas agree", c_kernel, NULL);
  th_run("kernel: the tick count follows the manager's time set back and forth", c_tick_base, NULL);
  th_run("kernel: the tick count goes on through the wrap of the manager's time", c_tick_wrap,
         NULL);
  th_run("osDelay(10) spans 10 ticks; osDelayUntil at its tick; errors", c_delay, NULL);
  th_run("timers: invalid arguments, control blocks (a running timer's refused), stop of a "
         "stopped one",
         c_timer_args, NULL);
  th_run("timers: one-shot of 2 ticks once, periodic of 2 five times across osDelay(10), "
         "self-restart",
         c_timer_counts, NULL);
  th_run("timers: a start of 1 to 2^32-1 ticks expires that many ticks ahead", c_timer_span, NULL);
  th_run("timers: creation until the pool runs out, then again after deletes", c_pool, NULL);
  th_run("interrupt context: the standard's errors, the allowed calls answer", c_isr, NULL);
  os2_suite_more(e);
  if (e->more_cases != NULL) {
    e->more_cases();
  }
  return th_finish();
}
