/**
 * @file os2_suite_more.c
 * @brief More of ARM's CMSIS-RTOS2 validation suite (os2_suite.h): the
 *        assertions of RV2_Timer, RV2_GenWait and RV2_Kernel on the time
 *        subset that os2_suite.c leaves out (restart from the callback for
 *        another span, stop of stopped timers, deletes of running ones, the
 *        polled one-shot and periodic, unnamed timers, osDelayUntil 20 and a
 *        second on, osDelay(100), the values the calls allowed in an
 *        interrupt return there, the generic waits refused there first), and
 *        the standard's edges the suite does not reach: a start of a running
 *        timer restarts it, a timer's state in its own callback, passed
 *        ticks of every age, the 32-bit tick count and system timer across
 *        their wraps. Our own code, through the standard's functions (and
 *        utim_tm_set_time() to reach the wraps).
 */
#include <stddef.h>

#include "harness.h"
#include "os2_suite.h"
#include "utim/cmsis_os2.h"

static const os2_suite_env_t *env;

static bool begin(void) {
  return TH_CHECK(env->setup());
}

static void end(void) {
  TH_EQU(utim_os2_lost_expiries(), 0u);
  env->teardown();
}

static volatile unsigned g_calls;
static osTimerId_t g_self;
static utim_tm_timer_t g_raw;

static void count_cb(void *arg) {
  (void)arg;
  g_calls = g_calls + 1u;
}

static osStatus_t g_cb_status;
static uint32_t g_cb_running;

/* Restarts its own one-shot for 4 ticks, and notes what the start said and
 * whether the timer runs again (TC_osTimerStart_2). */
static void restart4_cb(void *arg) {
  (void)arg;
  g_calls = g_calls + 1u;
  g_cb_status = osTimerStart(g_self, 4u);
  g_cb_running = osTimerIsRunning(g_self);
}

/* Kernel time (TC_osKernelGetTickCount_1, TC_osKernelGetSysTimerCount_1):
 * non-zero after the first tick, 100 ticks across osDelay(100), the system
 * timer within a tick of them. */
static void c_kernel_100(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const uint32_t per_tick = osKernelGetSysTimerFreq() / osKernelGetTickFreq();
  TH_CHECK(osKernelGetSysTimerFreq() > 0u && osKernelGetTickFreq() > 0u);
  TH_EQ(osDelay(1u), osOK);
  TH_CHECK(osKernelGetTickCount() > 0u);
  TH_CHECK(osKernelGetSysTimerCount() > 0u);
  TH_EQ(osDelay(1u), osOK);
  const uint32_t t0 = osKernelGetTickCount();
  const uint32_t s0 = osKernelGetSysTimerCount();
  TH_EQ(osDelay(100u), osOK);
  const uint32_t t1 = osKernelGetTickCount();
  const uint32_t s1 = osKernelGetSysTimerCount();
  TH_EQU(t1 - t0, 100u);
  const uint32_t ticks = (s1 - s0) / per_tick;
  TH_CHECKF(ticks >= 99u && ticks <= 101u, "system timer: %lu ticks", (unsigned long)ticks);
  end();
}

/* TC_GenWaitBasic: osDelayUntil 20 and a second's worth of ticks on (ARM's
 * 1000 at its 1 kHz), each ending at its tick; passed ticks of every age. */
static void c_delay_until(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  TH_EQ(osDelay(1u), osOK);
  uint32_t t = osKernelGetTickCount();
  TH_EQ(osDelayUntil(t + 20u), osOK);
  TH_EQU(osKernelGetTickCount(), t + 20u);
  t = osKernelGetTickCount();
  TH_EQ(osDelayUntil(t + env->tick_hz), osOK);
  TH_EQU(osKernelGetTickCount(), t + env->tick_hz);
  /* In the past, by 1 to 2^31 ticks (2^31 ahead is 2^31 behind). */
  static const uint32_t back[] = {2u, 1000u, 0x7FFFFFFFu, 0x80000000u};
  for (unsigned i = 0; i < sizeof back / sizeof back[0]; i++) {
    th_context("%lu ticks back", (unsigned long)back[i]);
    t = osKernelGetTickCount();
    TH_EQ(osDelayUntil(t - back[i]), osErrorParameter);
    TH_CHECK(osKernelGetTickCount() - t <= 1u); /* refused at once */
  }
  th_context("%s", "");
  end();
}

/* The 32-bit tick count and system timer count wrap as the standard's
 * uint32_t do: delays, osDelayUntil and a timer across either wrap keep
 * their counts (the manager's time set just before each). */
static void c_count_wrap32(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const uint64_t r = osKernelGetSysTimerFreq() / osKernelGetTickFreq();
  const uint64_t k32 = (uint64_t)1 << 32;
  /* The tick count: a third into tick 2^32 - 3. */
  TH_EQ(utim_tm_set_time(env->tm, (k32 - 3u) * r + r / 3u), 0);
  const uint32_t t0 = osKernelGetTickCount();
  TH_CHECKF(t0 == 0xFFFFFFFDu || t0 == 0xFFFFFFFEu, "tick %lu", (unsigned long)t0);
  TH_EQ(osDelay(5u), osOK);
  const uint32_t t1 = osKernelGetTickCount();
  TH_EQU(t1 - t0, 5u);
  TH_CHECKF(t1 < 5u, "tick %lu after the wrap", (unsigned long)t1);
  TH_EQ(utim_tm_set_time(env->tm, (k32 - 2u) * r + r / 3u), 0);
  const uint32_t t2 = osKernelGetTickCount();
  TH_EQ(osDelayUntil(t2 + 4u), osOK); /* 2 or 3: past the wrap */
  TH_EQU(osKernelGetTickCount(), t2 + 4u);
  TH_EQ(utim_tm_set_time(env->tm, (k32 - 2u) * r + r / 3u), 0);
  osTimerId_t t = osTimerNew(count_cb, osTimerOnce, NULL, NULL);
  g_calls = 0;
  TH_EQ(osTimerStart(t, 3u), osOK);
  TH_EQ(osDelay(2u), osOK);
  TH_EQU(g_calls, 0u);
  TH_EQ(osDelay(2u), osOK);
  TH_EQU(g_calls, 1u);
  TH_EQ(osTimerDelete(t), osOK);
  /* The system timer: its 32 bits wrap 2.5 ticks on. */
  TH_EQ(utim_tm_set_time(env->tm, k32 * 7u - 5u * r / 2u), 0);
  TH_EQ(osDelay(1u), osOK);
  const uint32_t k0 = osKernelGetTickCount();
  const uint32_t s0 = osKernelGetSysTimerCount();
  TH_EQ(osDelay(10u), osOK);
  const uint32_t k1 = osKernelGetTickCount();
  const uint32_t s1 = osKernelGetSysTimerCount();
  TH_CHECKF(s1 < s0, "system timer %lu then %lu: not across its wrap", (unsigned long)s0,
            (unsigned long)s1);
  TH_EQU(k1 - k0, 10u);
  TH_EQU((s1 - s0 + r / 2u) / r, 10u);
  end();
}

/* TC_osTimerGetName_1, TC_osTimerNew_1/2: an unnamed timer (attributes
 * with a NULL name, or none) has no name; a named one from the pool keeps
 * its name; either type is created and deleted. */
static void c_timer_names(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  const osTimerAttr_t unnamed = {NULL, 0u, NULL, 0u};
  const osTimerAttr_t named = {"Timer", 0u, NULL, 0u};
  osTimerId_t a = osTimerNew(count_cb, osTimerOnce, NULL, &unnamed);
  osTimerId_t b = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  osTimerId_t c = osTimerNew(count_cb, osTimerOnce, NULL, &named);
  TH_CHECK(a != NULL && b != NULL && c != NULL);
  TH_CHECK(osTimerGetName(a) == NULL);
  TH_CHECK(osTimerGetName(b) == NULL);
  TH_CHECK(osTimerGetName(c) == named.name);
  TH_EQ(osTimerDelete(a), osOK);
  TH_EQ(osTimerDelete(b), osOK);
  TH_EQ(osTimerDelete(c), osOK);
  TH_CHECK(osTimerGetName(c) == NULL);
  end();
}

/* TC_osTimerStart_2: a one-shot restarted from its callback for another
 * span is running again, the start said osOK, and it fires once more. */
static void c_timer_restart_cb(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  g_self = osTimerNew(restart4_cb, osTimerOnce, NULL, NULL);
  TH_CHECK(g_self != NULL);
  g_calls = 0;
  g_cb_status = osError;
  g_cb_running = 0u;
  TH_EQ(osTimerStart(g_self, 2u), osOK);
  TH_EQ(osDelay(3u), osOK);
  TH_EQU(g_calls, 1u);
  TH_EQ(g_cb_status, osOK);
  TH_EQU(g_cb_running, 1u);
  TH_EQU(osTimerIsRunning(g_self), 1u);
  TH_EQ(osTimerDelete(g_self), osOK); /* before its third expiry */
  TH_EQ(osDelay(5u), osOK);
  TH_EQU(g_calls, 1u);
  end();
}

/* A start of a running timer restarts it: the span counts from the new
 * start, a periodic takes the new period; a refused start (0 ticks)
 * leaves it running as it was. */
static void c_timer_restart(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  osTimerId_t once = osTimerNew(count_cb, osTimerOnce, NULL, NULL);
  osTimerId_t per = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  TH_CHECK(once != NULL && per != NULL);
  TH_EQ(osDelay(1u), osOK);
  g_calls = 0;
  TH_EQ(osTimerStart(once, 4u), osOK);
  TH_EQ(osDelay(3u), osOK);
  TH_EQ(osTimerStart(once, 4u), osOK); /* now due 7 ticks from the first start */
  TH_EQ(osDelay(3u), osOK);
  TH_EQU(g_calls, 0u);
  TH_EQU(osTimerIsRunning(once), 1u);
  TH_EQ(osDelay(2u), osOK);
  TH_EQU(g_calls, 1u);
  TH_EQU(osTimerIsRunning(once), 0u);
  /* Periodic of 4, restarted at 3 with a period of 2. */
  g_calls = 0;
  TH_EQ(osTimerStart(per, 4u), osOK);
  TH_EQ(osDelay(3u), osOK);
  TH_EQ(osTimerStart(per, 2u), osOK);
  TH_EQ(osTimerStart(per, 0u), osErrorParameter);
  TH_EQU(osTimerIsRunning(per), 1u);
  TH_EQ(osDelay(9u), osOK); /* expiries 2, 4, 6, 8 ticks after the restart */
  TH_EQU(g_calls, 4u);
  TH_EQ(osTimerStop(per), osOK);
  TH_EQ(osTimerDelete(once), osOK);
  TH_EQ(osTimerDelete(per), osOK);
  end();
}

/* TC_osTimerStop_2, TC_osTimerIsRunning_1, TC_osTimerDelete_1: stop of a
 * stopped timer of either type, running states, and deletes of stopped and
 * running timers of either type, whose callbacks then never run. */
static void c_timer_stop_delete(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  static const osTimerType_t types[] = {osTimerOnce, osTimerPeriodic};
  for (unsigned i = 0; i < 2u; i++) {
    th_context("type %u", (unsigned)types[i]);
    osTimerId_t t = osTimerNew(count_cb, types[i], NULL, NULL);
    TH_CHECK(t != NULL);
    TH_EQU(osTimerIsRunning(t), 0u);
    TH_EQ(osTimerStart(t, 10u), osOK);
    TH_EQU(osTimerIsRunning(t), 1u);
    TH_EQ(osTimerStop(t), osOK);
    TH_EQU(osTimerIsRunning(t), 0u);
    TH_EQ(osTimerStop(t), osErrorResource);
    TH_EQ(osTimerDelete(t), osOK); /* stopped */
    t = osTimerNew(count_cb, types[i], NULL, NULL);
    g_calls = 0;
    TH_EQ(osTimerStart(t, 2u), osOK);
    TH_EQ(osTimerDelete(t), osOK); /* running */
    TH_EQU(osTimerIsRunning(t), 0u);
    TH_EQ(osTimerStop(t), osErrorParameter);
    TH_EQ(osTimerDelete(t), osErrorParameter);
    TH_EQ(osDelay(5u), osOK);
    TH_EQU(g_calls, 0u);
  }
  th_context("%s", "");
  end();
}

/* TC_TimerOneShot, TC_TimerPeriodic: polled with osDelay(1), a one-shot of
 * 10 ticks fires once within 20 and never again; a periodic of 10 fires
 * three times within 40 (on its 30th tick). */
static void c_timer_poll(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  osTimerId_t t = osTimerNew(count_cb, osTimerOnce, NULL, NULL);
  TH_EQU(osTimerIsRunning(t), 0u);
  TH_EQ(osTimerStop(t), osErrorResource);
  g_calls = 0;
  uint32_t k0 = osKernelGetTickCount();
  TH_EQ(osTimerStart(t, 10u), osOK);
  TH_EQU(osTimerIsRunning(t), 1u);
  while (osKernelGetTickCount() - k0 < 20u && g_calls == 0u) {
    TH_EQ(osDelay(1u), osOK);
  }
  /* Seen on its tenth tick, or by the end of the osDelay(1) spanning it
   * (tickless, a delay counts its ticks from the call, not from a tick
   * boundary: counting the calls instead drifted by their own time, two
   * ticks in thirty under qemu-user). */
  uint32_t seen = osKernelGetTickCount() - k0;
  TH_CHECKF(seen == 10u || seen == 11u, "one-shot of 10 seen %lu ticks on", (unsigned long)seen);
  for (unsigned i = 0; i < 20u; i++) {
    TH_EQ(osDelay(1u), osOK);
  }
  TH_EQU(g_calls, 1u);
  TH_EQ(osTimerStop(t), osErrorResource);
  TH_EQ(osTimerDelete(t), osOK);
  t = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL);
  TH_EQU(osTimerIsRunning(t), 0u);
  TH_EQ(osTimerStop(t), osErrorResource);
  g_calls = 0;
  k0 = osKernelGetTickCount();
  TH_EQ(osTimerStart(t, 10u), osOK);
  TH_EQU(osTimerIsRunning(t), 1u);
  while (osKernelGetTickCount() - k0 < 40u && g_calls <= 2u) {
    TH_EQ(osDelay(1u), osOK);
  }
  seen = osKernelGetTickCount() - k0;
  TH_CHECKF(seen == 30u || seen == 31u, "third call of a periodic of 10 seen %lu ticks on",
            (unsigned long)seen);
  TH_EQU(g_calls, 3u);
  TH_EQ(osTimerStop(t), osOK);
  TH_EQ(osTimerStop(t), osErrorResource);
  TH_EQ(osTimerDelete(t), osOK);
  end();
}

/* In its own callback a one-shot is no longer running (it expired: its stop
 * answers osErrorResource) and a periodic is (its stop answers osOK, and no
 * callback follows), as RTX5 marks a one-shot stopped at its expiry. */
static struct {
  osTimerId_t self;
  unsigned calls;
  uint32_t running;
  osStatus_t stop;
} g_own;

static void own_cb(void *arg) {
  (void)arg;
  g_own.calls++;
  g_own.running = osTimerIsRunning(g_own.self);
  g_own.stop = osTimerStop(g_own.self);
}

static void c_timer_own_cb(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  static const osTimerType_t types[] = {osTimerOnce, osTimerPeriodic};
  static const uint32_t running[] = {0u, 1u};
  static const osStatus_t stop[] = {osErrorResource, osOK};
  for (unsigned i = 0; i < 2u; i++) {
    th_context("type %u", (unsigned)types[i]);
    g_own.self = osTimerNew(own_cb, types[i], NULL, NULL);
    g_own.calls = 0;
    g_own.running = 2u;
    g_own.stop = osError;
    TH_EQ(osTimerStart(g_own.self, 2u), osOK);
    TH_EQ(osDelay(7u), osOK);
    TH_EQU(g_own.calls, 1u);
    TH_EQU(g_own.running, running[i]);
    TH_EQ(g_own.stop, stop[i]);
    TH_EQU(osTimerIsRunning(g_own.self), 0u);
    TH_EQ(osTimerDelete(g_own.self), osOK);
  }
  th_context("%s", "");
  end();
}

/* The values the calls allowed in an interrupt give there (RV2_Kernel's
 * Irq_* handlers, Irq_osTimerGetName_1), and the generic waits refused
 * before their arguments are looked at (TC_GenWaitInterrupts). */
static struct {
  volatile bool ran;
  uint32_t tick, sys, sys_hz, tick_hz;
  const char *name;
  int delay0, delay_until10, start_null, new_periodic_null;
  osTimerId_t timer;
} g_isr2;

static void isr2_cb(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  (void)arg;
  g_isr2.tick = osKernelGetTickCount();
  g_isr2.sys = osKernelGetSysTimerCount();
  g_isr2.sys_hz = osKernelGetSysTimerFreq();
  g_isr2.tick_hz = osKernelGetTickFreq();
  g_isr2.name = osTimerGetName(g_isr2.timer);
  g_isr2.delay0 = osDelay(0u);
  g_isr2.delay_until10 = osDelayUntil(10u);
  g_isr2.start_null = osTimerStart(NULL, 10u);
  g_isr2.new_periodic_null = osTimerNew(count_cb, osTimerPeriodic, NULL, NULL) == NULL;
  g_isr2.ran = true;
}

static void c_isr_values(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  static const osTimerAttr_t attr = {"Timer", 0u, NULL, 0u};
  g_isr2.ran = false;
  g_isr2.timer = osTimerNew(count_cb, osTimerOnce, NULL, &attr);
  TH_EQ(osDelay(1u), osOK);
  const uint32_t before = osKernelGetTickCount();
  utim_tm_timer_init(&g_raw, isr2_cb, NULL);
  TH_EQ(
      utim_tm_start(env->tm, &g_raw, (uint64_t)2u * (osKernelGetSysTimerFreq() / env->tick_hz), 0u),
      0);
  TH_EQ(osDelay(4u), osOK);
  TH_CHECK(g_isr2.ran);
  TH_CHECK(g_isr2.tick > 0u && g_isr2.tick - before >= 1u && g_isr2.tick - before <= 3u);
  TH_CHECK(g_isr2.sys > 0u);
  TH_EQU(g_isr2.sys_hz, osKernelGetSysTimerFreq());
  TH_EQU(g_isr2.tick_hz, env->tick_hz);
  TH_CHECK(g_isr2.name == attr.name);
  TH_EQ(g_isr2.delay0, osErrorISR);
  TH_EQ(g_isr2.delay_until10, osErrorISR);
  TH_EQ(g_isr2.start_null, osErrorISR);
  TH_CHECK(g_isr2.new_periodic_null);
  TH_EQ(osTimerDelete(g_isr2.timer), osOK);
  end();
}

/* TC_TimerAllocation: once the pool is out, one more is refused again;
 * after a delay every one deletes. */
static void c_pool_again(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  osTimerId_t ids[UTIM_OS2_TIMER_POOL];
  unsigned n = 0;
  while (n < UTIM_OS2_TIMER_POOL &&
         (ids[n] = osTimerNew(count_cb, osTimerOnce, NULL, NULL)) != NULL) {
    n++;
  }
  TH_EQU(n, UTIM_OS2_TIMER_POOL);
  TH_CHECK(osTimerNew(count_cb, osTimerOnce, NULL, NULL) == NULL);
  TH_CHECK(osTimerNew(count_cb, osTimerPeriodic, NULL, NULL) == NULL);
  TH_EQ(osDelay(10u), osOK);
  for (unsigned i = 0; i < n; i++) {
    TH_EQ(osTimerDelete(ids[i]), osOK);
  }
  end();
}

void os2_suite_more(const os2_suite_env_t *e) {
  env = e;
  th_run("kernel: tick count and system timer across osDelay(100)", c_kernel_100, NULL);
  th_run("osDelayUntil 20 and a second of ticks on; passed ticks refused", c_delay_until, NULL);
  th_run("kernel: tick count and system timer across their 32-bit wraps", c_count_wrap32, NULL);
  th_run("timers: unnamed and named timers' names, of either type", c_timer_names, NULL);
  th_run("timers: a one-shot restarted from its callback runs again", c_timer_restart_cb, NULL);
  th_run("timers: a start of a running timer restarts it", c_timer_restart, NULL);
  th_run("timers: stop of stopped timers, deletes of stopped and running ones", c_timer_stop_delete,
         NULL);
  th_run("timers: one-shot of 10 fires once, periodic of 10 on its 30th tick", c_timer_poll, NULL);
  th_run("timers: in its own callback a one-shot is stopped, a periodic runs", c_timer_own_cb,
         NULL);
  th_run("interrupt context: the allowed calls' values, waits refused first", c_isr_values, NULL);
  th_run("timers: the pool out, more refused; every one deletes after a delay", c_pool_again, NULL);
}
