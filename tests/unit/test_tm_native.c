/**
 * @file test_tm_native.c
 * @brief The time manager on the native board's NATIVE_ALARM, in real time,
 *        tickless and ticked: the checks that hold however late a shared
 *        machine runs the interrupt thread (never early, exactly once per
 *        one-shot, nothing after a stop returns, periodic callbacks never
 *        before their grid point and never more than the grid points that
 *        passed, a restart from the timer's own callback, task delays), and
 *        in a child of fork(). Lateness is measured by utim-bench, not
 *        asserted here.
 *
 * The callbacks run on the board's interrupt thread with the port lock
 * held; what they record is read by the test thread under the same lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "board_native.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/utim.h"

#define NONE   16u                /* one-shot timers */
#define NPER   2u                 /* periodic timers */
#define NTIMER (NONE + NPER + 1u) /* and one stopped before it expires */

typedef struct rec {
  utim_tm_timer_t t; /* first */
  uint64_t expiry;   /* the system time it was started for (first expiry) */
  uint64_t period;
  uint64_t calls;
  uint64_t credit;   /* periodic: grid points accounted (1 + overrun per callback) */
  uint64_t early;    /* callbacks before their expiry or grid point */
  unsigned restarts; /* restarts left from its own callback */
} rec_t;

static utim_tm_t tm;
static rec_t recs[NTIMER];
static uint32_t hz;

static void sleep_ms(unsigned ms) {
  struct timespec ts = {.tv_sec = (time_t)(ms / 1000u), .tv_nsec = (long)(ms % 1000u) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static uint64_t ms_ticks(unsigned ms) {
  return (uint64_t)hz * ms / 1000u;
}

static void cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)arg;
  rec_t *r = (rec_t *)(void *)t;
  const uint64_t now = utim_tm_now(m);
  r->calls++;
  if (r->period == 0u) {
    r->early += now < r->expiry ? 1u : 0u;
    if (r->restarts > 0u) {
      r->restarts--;
      r->expiry = now + ms_ticks(2);
      (void)utim_tm_start(m, t, ms_ticks(2), 0u);
    }
  } else {
    /* This callback stands for grid point credit + 1 (and overrun more). */
    r->early += now < r->expiry + r->credit * r->period ? 1u : 0u;
    r->credit += 1u + utim_tm_overrun(m);
  }
}

/* Wake-ups of the task delays, recorded by the hook. */
static utim_tm_tasks_t tasks;
static utim_tm_timer_t task_timers[3];
static uint32_t task_wake[UTIM_TM_TASK_WORDS(3)];
static uint64_t task_due[3];
static uint64_t task_early;
static unsigned task_hooks;

static void wake_hook(utim_tm_t *m, unsigned id, void *arg) {
  (void)arg;
  task_early += utim_tm_now(m) < task_due[id] ? 1u : 0u;
  task_hooks++;
}

static void run_mode(utim_tm_mode_t mode) {
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  if (p == NULL) {
    TH_CHECKF(false, "the native board has no NATIVE_ALARM");
    return;
  }
  TH_EQ(utim_closest_freq(p, 1000000u, UTIM_CLOCK_DEFAULT, &hz), 0);
  TH_EQ(utim_init(p, hz, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_start(p), 0);
  const uint64_t tick = ms_ticks(1);
  if (!TH_EQ(utim_tm_init(&tm, p, 0, mode, tick), 0)) {
    return;
  }
  uint32_t key = utim_port_lock();
  for (unsigned i = 0; i < NTIMER; i++) {
    recs[i] = (rec_t){0};
    utim_tm_timer_init(&recs[i].t, cb, NULL);
  }
  for (unsigned i = 0; i < NTIMER; i++) {
    rec_t *r = &recs[i];
    r->period = i >= NONE && i < NONE + NPER ? ms_ticks(3u + 4u * (i - NONE)) : 0u;
    r->restarts = i == 0u ? 2u : 0u;
    /* The one stopped below: far enough that no stall of the machine lets
     * it expire first. */
    const uint64_t d = i == NTIMER - 1u ? ms_ticks(1000) : ms_ticks(1u + (i * 7u) % 30u);
    r->expiry = utim_tm_now(&tm) + d;
    TH_EQ(utim_tm_start(&tm, &r->t, d, r->period), 0);
  }
  utim_port_unlock(key);
  /* The last one-shot is stopped before its expiry (at least 1 ms ahead). */
  rec_t *stopped = &recs[NTIMER - 1u];
  TH_EQ(utim_tm_stop(&tm, &stopped->t), 1); /* it was pending */
  TH_EQ(utim_tm_tasks_init(&tasks, &tm, task_timers, task_wake, 3u, wake_hook, NULL), 0);
  key = utim_port_lock();
  for (unsigned id = 0; id < 3u; id++) {
    /* Task 2 is cleared below: far enough not to wake first. */
    const unsigned ms = id == 2u ? 1000u : 5u * (id + 1u);
    task_due[id] = utim_tm_now(&tm) + ms_ticks(ms);
    TH_EQ(utim_tm_task_delay(&tasks, id, ms_ticks(ms)), 0);
  }
  task_early = 0;
  task_hooks = 0;
  utim_port_unlock(key);
  TH_EQ(utim_tm_task_clear(&tasks, 2u), 0);

  /* Every one-shot and both restarts are due within 40 ms; give the
   * machine a generous margin. */
  for (unsigned waited = 0; waited < 2000u; waited += 10u) {
    sleep_ms(10);
    key = utim_port_lock();
    unsigned done = 0;
    for (unsigned i = 0; i < NONE; i++) {
      done += recs[i].calls >= (i == 0u ? 3u : 1u) ? 1u : 0u;
    }
    utim_port_unlock(key);
    if (done == NONE && waited >= 60u) {
      break;
    }
  }
  for (unsigned i = NONE; i < NONE + NPER; i++) {
    TH_EQ(utim_tm_stop(&tm, &recs[i].t), 1); /* periodic: pending */
  }
  key = utim_port_lock();
  uint64_t calls_at_stop[NTIMER];
  for (unsigned i = 0; i < NTIMER; i++) {
    calls_at_stop[i] = recs[i].calls;
  }
  const uint64_t end = utim_tm_now(&tm);
  utim_port_unlock(key);
  sleep_ms(20);

  key = utim_port_lock();
  for (unsigned i = 0; i < NTIMER; i++) {
    const rec_t *r = &recs[i];
    th_context("%s timer %u", mode == UTIM_TM_TICKED ? "ticked" : "tickless", i);
    TH_EQU(r->early, 0);
    TH_CHECKF(r->calls == calls_at_stop[i],
              "%" PRIu64 " callbacks after the stop, %" PRIu64 " before",
              r->calls - calls_at_stop[i], calls_at_stop[i]);
    if (i < NONE) {
      TH_EQU(r->calls, i == 0u ? 3u : 1u);
    } else if (i < NONE + NPER) {
      /* Never more grid points than passed by the stop. */
      const uint64_t passed = (end - r->expiry) / r->period + 1u;
      TH_CHECKF(r->calls >= 1u && r->credit <= passed,
                "%" PRIu64 " callbacks accounting for %" PRIu64 " grid points, %" PRIu64 " passed",
                r->calls, r->credit, passed);
    } else {
      TH_EQU(r->calls, 0);
    }
  }
  th_context("%s task delays", mode == UTIM_TM_TICKED ? "ticked" : "tickless");
  TH_EQU(task_early, 0);
  TH_EQU(task_hooks, 2);
  utim_port_unlock(key);
  uint32_t woke[1] = {0};
  TH_EQU(utim_tm_tasks_to_wake(&tasks, woke, 1u), 2);
  TH_EQU(woke[0], 3u);
  th_note("%s at %u Hz: periodic timers %" PRIu64 " and %" PRIu64 " callbacks",
          mode == UTIM_TM_TICKED ? "ticked" : "tickless", hz, recs[NONE].calls,
          recs[NONE + 1u].calls);
  TH_EQ(utim_tm_deinit(&tm), 0);
}

static void t_tickless(void *arg) {
  (void)arg;
  run_mode(UTIM_TM_TICKLESS);
}

static void t_ticked(void *arg) {
  (void)arg;
  run_mode(UTIM_TM_TICKED);
}

/* In a child of fork(), a timer started on the manager the parent set up
 * fires: the child has only the forking thread, and the board gives it an
 * interrupt thread of its own (it had none, and the child's alarms never
 * fired). The child reports by its exit status: 0 fired, 1 not within 2 s,
 * 2 the start was refused. */
static volatile sig_atomic_t child_fired;

static void child_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
  child_fired = 1;
}

#if defined(__SANITIZE_THREAD__)
#define TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif

static void t_fork(void *arg) {
  (void)arg;
#ifdef TEST_TSAN
  th_skip("ThreadSanitizer ends a forked child that starts a thread: the child has no interrupt "
          "thread there (board_native.h)");
  return;
#endif
#ifdef UTIM_TEST_QEMU_USER
  th_skip("qemu-user (7.2) aborts when a forked child starts a thread (its plugin vCPU hook "
          "asserts): not a defect of the board, not testable under the emulator");
  return;
#endif
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  if (p == NULL) {
    TH_CHECKF(false, "the native board has no NATIVE_ALARM");
    return;
  }
  if (!TH_EQ(utim_closest_freq(p, 1000000u, UTIM_CLOCK_DEFAULT, &hz), 0) ||
      !TH_EQ(utim_init(p, hz, UTIM_CLOCK_DEFAULT), 0) || !TH_EQ(utim_start(p), 0) ||
      !TH_EQ(utim_tm_init(&tm, p, 0, UTIM_TM_TICKLESS, 0u), 0)) {
    return;
  }
  static utim_tm_timer_t t;
  utim_tm_timer_init(&t, child_cb, NULL);
  (void)fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    if (utim_tm_start(&tm, &t, ms_ticks(2), 0u) != 0) {
      _exit(2);
    }
    for (unsigned waited = 0; waited < 2000u && child_fired == 0; waited++) {
      sleep_ms(1);
    }
    _exit(child_fired != 0 ? 0 : 1);
  }
  if (TH_CHECK(pid > 0)) {
    int status = -1;
    TH_EQ(waitpid(pid, &status, 0), pid);
    TH_CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child's timer: exit status %d (1: did not fire within 2 s, 2: start refused)",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  TH_EQ(utim_tm_deinit(&tm), 0);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  native_board_init();
  th_printf("TAP version 13\n");
  th_run("time manager on NATIVE_ALARM, tickless", t_tickless, NULL);
  th_run("time manager on NATIVE_ALARM, ticked (1 ms)", t_ticked, NULL);
  th_run("time manager on NATIVE_ALARM in a child of fork()", t_fork, NULL);
  return th_finish();
}
