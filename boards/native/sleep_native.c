/*
 * Linux hooks of the precise sleep (include/utim/time.h): the time line is
 * utim_now(), the coarse sleep is clock_nanosleep(TIMER_ABSTIME) on
 * CLOCK_MONOTONIC with the thread's timer slack at 1 ns, and the CPU time is
 * CLOCK_THREAD_CPUTIME_ID. Each thread gets its own sleeper, so the margin
 * adapts to the thread's own wake-up latency (a SCHED_FIFO thread wakes
 * faster than a normal one) and sleeping threads never share state.
 */
/* For prctl PR_SET_TIMERSLACK; the build may define it already. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT: a feature-test macro is reserved by design
#endif

#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <time.h>

#include "clocksource.h"
#include "utim/port.h"
#include "utim/time.h"

/* The timer slack is per thread: set it in each thread that sleeps. */
static _Thread_local bool slack_set;
static _Thread_local bool sleeper_ready;
static _Thread_local utim_sleeper_t sleeper;

utim_ns_t utim_port_now_ns(void) {
  return utim_now();
}

/*
 * utim_now() and CLOCK_MONOTONIC have different epochs and (for a CPU
 * counter) slightly different rates, so the deadline is carried over as a
 * distance from two reads taken back to back; the error is the few ns
 * between the reads plus the rate difference over the sleep (ppm), both far
 * below the margin.
 */
int utim_port_block_until(utim_ns_t t) {
  if (!slack_set) {
    /* Without it a normal thread's sleep may end up to 50 us late by design. */
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    slack_set = true;
  }
  utim_ns_t now = utim_now();
  if (t <= now) {
    return 0;
  }
  utim_ns_t mono = utim_ns_add(utim_native_clock_ns(CLOCK_MONOTONIC), t - now);
  struct timespec ts = {(time_t)(mono / UTIM_NS_PER_S), (long)(mono % UTIM_NS_PER_S)};
  int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
  return rc == 0 ? 0 : -rc;
}

int64_t utim_port_cpu_ns(void) {
  /* 0 is what the helper returns when the clock cannot be read; a thread
   * that is running has used some CPU time. */
  int64_t ns = utim_native_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  return ns > 0 ? ns : -ENOTSUP;
}

/* One sleeper per thread, calibrated to this thread's own wake-up latency. */
utim_sleeper_t *utim_port_sleeper(void) {
  if (!sleeper_ready) {
    (void)utim_clocksource_init();
  }
  return utim_port_sleeper_setup(&sleeper, &sleeper_ready);
}
