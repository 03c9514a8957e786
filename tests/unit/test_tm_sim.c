/**
 * @file test_tm_sim.c
 * @brief The time manager (src/tm) on every sim instance with a channel (8 to
 *        64 bits, chained ones included), tickless and ticked, in virtual
 *        time. This file: argument errors, the channel's arming (checkpoint,
 *        re-arm on a start, a wrap during init), timeouts beyond the wheel's
 *        levels, the system time against virtual time (also read across
 *        interrupt-off periods shorter than half a counter range), and main.
 *        tm_sim_model.c: the seeded random runs of timers and task delays
 *        against models; tm_sim.c: the fixture both use (tm_sim.h).
 *
 * Usage: test_tm_sim [--seed N] [--ops N]; TM_TRACE=1 in the environment
 * prints the operations before the first violation of the random run.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "tm_sim.h"
#include "utim/port.h"

/* ---- argument errors --------------------------------------------------------- */

static void noop_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
}

static void t_errors(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_TIMER16");
  sim_reset();
  utim_tm_t m;
  /* An instance never initialised (this is the program's first case): its
   * channel could never be armed, and a manager on it never fired. */
  if (utim_freq(p) == 0u) {
    TH_EQ(utim_tm_init(&m, p, 0, UTIM_TM_TICKLESS, 0), -EINVAL);
    TH_CHECK(!m.running);
  }
  TH_EQ(utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_start(p), 0);
  TH_EQ(utim_tm_init(NULL, p, 0, UTIM_TM_TICKLESS, 0), -EINVAL);
  TH_EQ(utim_tm_init(&m, NULL, 0, UTIM_TM_TICKLESS, 0), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, utim_channels(p), UTIM_TM_TICKLESS, 0), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, 0, (utim_tm_mode_t)7, 0), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, 0, UTIM_TM_TICKED, 0), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, 0, UTIM_TM_TICKED, (utim_max(p) >> 1) + 1u), -EINVAL);
  /* On the overflow: ticked only, one tick per wrap without a top. */
  TH_EQ(utim_tm_init(&m, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKLESS, utim_max(p) + 1u), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, utim_max(p)), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, 1u), -EINVAL);
  TH_EQ(utim_tm_init(&m, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, utim_max(p) + 2u), -EINVAL);
  /* No pending-wrap query (the chain of two sim timers): not supported. */
  const utim_periph_t *chain = utim_by_name("SIM_CHAIN32");
  TH_EQ(utim_tm_init(&m, chain, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, utim_max(chain) + 1u), -ENOTSUP);
  TH_CHECK(!m.running);
  TH_EQU(utim_tm_now(&m), 0);
  utim_tm_timer_t t;
  utim_tm_timer_init(&t, noop_cb, NULL);
  TH_EQ(utim_tm_start(&m, &t, 10, 0), -EINVAL); /* not running */
  TH_EQ(utim_tm_init(&m, p, 0, UTIM_TM_TICKLESS, 0), 0);
  TH_EQ(utim_tm_start(&m, &t, ((uint64_t)1 << 62) + 1u, 0), -EINVAL);
  TH_EQ(utim_tm_start(&m, &t, 10, ((uint64_t)1 << 62) + 1u), -EINVAL);
  TH_EQ(utim_tm_start_at(&m, &t, utim_tm_now(&m) + ((uint64_t)1 << 62) + 5u, 0), -EINVAL);
  TH_CHECK(!utim_tm_pending(&t));
  utim_tm_timer_t nocb;
  utim_tm_timer_init(&nocb, NULL, NULL);
  TH_EQ(utim_tm_start(&m, &nocb, 10, 0), -EINVAL);
  uint64_t v = 0;
  TH_EQ(utim_tm_expiry(&m, &t, &v), -ENOENT);
  TH_EQ(utim_tm_remaining(&m, &t, &v), -ENOENT);
  TH_EQ(utim_tm_stop(&m, &t), 0); /* not pending: fine, and said */
  TH_EQ(utim_tm_start(&m, &t, 1000u, 0), 0);
  TH_EQ(utim_tm_remaining(&m, &t, &v), 0);
  TH_CHECKF(v <= 1000u && v >= 990u, "remaining %" PRIu64, v);
  /* A new system time moves no expiry: the remaining time stays. */
  TH_EQ(utim_tm_set_time(&m, 5000000u), 0);
  uint64_t v2 = 0;
  TH_EQ(utim_tm_remaining(&m, &t, &v2), 0);
  TH_CHECKF(v2 <= v && v2 + 5u >= v, "remaining %" PRIu64 " then %" PRIu64, v, v2);
  TH_EQ(utim_tm_expiry(&m, &t, &v), 0);
  TH_CHECKF(v - utim_tm_now(&m) == v2 || v - utim_tm_now(&m) + 1u == v2, "expiry %" PRIu64, v);
  /* Stop says whether a setting ended: 1 once, then 0. */
  TH_EQ(utim_tm_stop(&m, &t), 1);
  TH_CHECK(!utim_tm_pending(&t));
  TH_EQ(utim_tm_stop(&m, &t), 0);
  TH_EQ(utim_tm_stop(NULL, &t), -EINVAL);
  TH_EQ(utim_tm_start(&m, &t, 1000u, 0), 0);
  /* Every call's NULL arguments get the documented answer and change
   * nothing: the pending setting, the time, the task table. */
  uint64_t exp0 = 0;
  TH_EQ(utim_tm_expiry(&m, &t, &exp0), 0);
  TH_EQ(utim_tm_start(NULL, &t, 5u, 0), -EINVAL);
  TH_EQ(utim_tm_start(&m, NULL, 5u, 0), -EINVAL);
  TH_EQ(utim_tm_start_at(NULL, &t, 5u, 0), -EINVAL);
  TH_EQ(utim_tm_start_at(&m, NULL, 5u, 0), -EINVAL);
  TH_EQ(utim_tm_start_at(&m, &t, 5u, ((uint64_t)1 << 62) + 1u), -EINVAL);
  TH_EQ(utim_tm_start(&m, &t, ((uint64_t)1 << 62) + 1u, 0), -EINVAL);
  TH_EQ(utim_tm_stop(&m, NULL), -EINVAL);
  TH_EQ(utim_tm_expiry(NULL, &t, &v), -EINVAL);
  TH_EQ(utim_tm_expiry(&m, NULL, &v), -EINVAL);
  TH_EQ(utim_tm_expiry(&m, &t, NULL), -EINVAL);
  TH_EQ(utim_tm_remaining(NULL, &t, &v), -EINVAL);
  TH_EQ(utim_tm_remaining(&m, NULL, &v), -EINVAL);
  TH_EQ(utim_tm_remaining(&m, &t, NULL), -EINVAL);
  TH_EQ(utim_tm_set_time(NULL, 1u), -EINVAL);
  TH_EQU(utim_tm_now(NULL), 0u);
  TH_CHECK(!utim_tm_pending(NULL));
  TH_EQU(utim_tm_overrun(NULL), 0u);
  utim_tm_timer_init(NULL, noop_cb, NULL);
  TH_EQ(utim_tm_deinit(NULL), -EINVAL);
  uint64_t exp1 = 0;
  TH_CHECK(utim_tm_pending(&t));
  TH_EQ(utim_tm_expiry(&m, &t, &exp1), 0);
  TH_EQU(exp1, exp0);
  /* The task interface's. */
  utim_tm_tasks_t ts;
  utim_tm_timer_t tt[2];
  uint32_t wake[1] = {0u};
  TH_EQ(utim_tm_tasks_init(NULL, &m, tt, wake, 2u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init(&ts, NULL, tt, wake, 2u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init(&ts, &m, NULL, wake, 2u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init(&ts, &m, tt, NULL, 2u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init(&ts, &m, tt, wake, 2u, NULL, NULL), 0);
  TH_EQ(utim_tm_task_delay(&ts, 1u, 0u), 0);
  TH_EQ(utim_tm_task_delay(&ts, 0u, 500u), 0);
  TH_EQ(utim_tm_task_delay(NULL, 0u, 5u), -EINVAL);
  TH_EQ(utim_tm_task_delay(&ts, 0u, ((uint64_t)1 << 62) + 1u), -EINVAL);
  TH_EQ(utim_tm_task_clear(NULL, 0u), -EINVAL);
  sim_advance(1000u); /* task 1's delay of 0 ends at the next interrupt */
  uint32_t out[2] = {0u, 0u};
  TH_EQU(utim_tm_tasks_to_wake(NULL, out, 1u), 0u);
  TH_EQU(utim_tm_tasks_to_wake(&ts, NULL, 1u), 0u);
  TH_EQU(utim_tm_tasks_now(NULL), 0u);
  TH_EQ(utim_tm_tasks_set_time(NULL, 1u), -EINVAL);
  TH_CHECK(utim_tm_pending(&tt[0]));
  TH_EQU(utim_tm_tasks_to_wake(&ts, out, 2u), 1u);
  TH_EQU(out[0], 2u);
  TH_EQU(out[1], 0u);
  TH_EQ(utim_tm_task_clear(&ts, 0u), 0);
  TH_CHECK(!utim_tm_pending(&tt[0]));
  /* A manager that is not running: every call refuses. */
  TH_EQ(utim_tm_deinit(&m), 0);
  TH_CHECK(!utim_tm_pending(&t));
  TH_EQ(utim_tm_deinit(&m), -EINVAL);
  TH_EQ(utim_tm_start_at(&m, &t, 5u, 0), -EINVAL);
  TH_EQ(utim_tm_stop(&m, &t), -EINVAL);
  TH_EQ(utim_tm_expiry(&m, &t, &v), -EINVAL);
  TH_EQ(utim_tm_remaining(&m, &t, &v), -EINVAL);
  TH_EQ(utim_tm_set_time(&m, 1u), -EINVAL);
  TH_EQU(utim_tm_now(&m), 0u);
  TH_EQ(utim_tm_tasks_init(&ts, &m, tt, wake, 2u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_task_delay(&ts, 0u, 5u), -EINVAL);
  TH_EQ(utim_tm_tasks_set_time(&ts, 1u), -EINVAL);
  TH_CHECK(!utim_tm_pending(&t));
}

/* ---- the checkpoint on a counter that does not move between two reads -------- */

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "not ok - checkpoint arming: no progress after 10 s (livelock)\n";
  (void)!write(1, msg, sizeof msg - 1u);
  _exit(1);
}

/* Calls @p body with a tickless manager on channel 0 of each sim instance
 * that has a compare channel (the harness's context named after it); stops
 * when a set-up fails or @p body returns false. */
static void each_tickless(bool (*body)(const utim_periph_t *p)) {
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    if (utim_channels(p) == 0u) {
      continue;
    }
    th_context("%s", utim_name(p));
    if (!setup(p, 0u, UTIM_TM_TICKLESS, 0) || !body(p)) {
      return;
    }
  }
}

/* Regression: the manager armed its checkpoint (no timer pending) exactly
 * half a range ahead, which utim_set_abs() refuses as passed; its fallback,
 * an arming at once, then found nothing due and armed the same checkpoint
 * again, for ever. It showed whenever no tick passed between the manager's
 * read and the core's (a slow counter, or here accesses that cost no time). */
static bool checkpoint_on(const utim_periph_t *p) {
  (void)p;
  sim_set_access_cost(0u);
  signal(SIGALRM, on_alarm);
  alarm(10u);
  const uint64_t a0 = sim_accesses();
  sim_advance(1000000u);
  (void)utim_tm_now(&tm);
  alarm(0u);
  const uint64_t accesses = sim_accesses() - a0;
  sim_set_access_cost(10u);
  TH_CHECKF(accesses < 2000u, "%" PRIu64 " register accesses in 1 ms with nothing pending",
            accesses);
  TH_EQ(utim_tm_deinit(&tm), 0);
  return true;
}

static void t_checkpoint(void *arg) {
  (void)arg;
  each_tickless(checkpoint_on);
}

/* A start re-arms the channel only when its expiry comes before the moment
 * the channel is armed for: a later start makes a time read's register
 * accesses and no more (no search, no second read, no write), an earlier
 * one writes the channel. Time stands still (access cost 0), so the counts
 * are exact on every sim shape with a channel. */
static bool rearm_on(const utim_periph_t *p) {
  const uint64_t d = (utim_max(p) >> 1) / 4u; /* all three within the checkpoint */
  if (!TH_CHECKF(d / 2u > utim_min_distance(p), "shape too small for the case")) {
    return false;
  }
  utim_tm_timer_t a;
  utim_tm_timer_t b;
  utim_tm_timer_t c;
  utim_tm_timer_init(&a, noop_cb, NULL);
  utim_tm_timer_init(&b, noop_cb, NULL);
  utim_tm_timer_init(&c, noop_cb, NULL);
  sim_set_access_cost(0u);
  uint64_t a0 = sim_accesses();
  const uint64_t t0 = utim_tm_now(&tm);
  const uint64_t read = sim_accesses() - a0;
  TH_EQ(utim_tm_start(&tm, &a, d, 0u), 0);
  a0 = sim_accesses();
  TH_EQ(utim_tm_start(&tm, &b, 2u * d, 0u), 0);
  const uint64_t later = sim_accesses() - a0;
  a0 = sim_accesses();
  TH_EQ(utim_tm_start(&tm, &c, d / 2u, 0u), 0);
  const uint64_t earlier = sim_accesses() - a0;
  sim_set_access_cost(10u);
  TH_CHECKF(later == read, "a later start made %" PRIu64 " register accesses, a read %" PRIu64,
            later, read);
  TH_CHECKF(earlier > read, "an earlier start made %" PRIu64 " register accesses, a read %" PRIu64,
            earlier, read);
  uint64_t at = 0;
  TH_EQ(utim_tm_expiry(&tm, &c, &at), 0);
  TH_EQU(at, t0 + d / 2u);
  TH_EQ(utim_tm_deinit(&tm), 0);
  return true;
}

static void t_rearm(void *arg) {
  (void)arg;
  each_tickless(rearm_on);
}

/* A wrap while the manager starts on the overflow is in its time: one
 * period less half a tick of virtual time injected before each register
 * access of utim_tm_init() in turn, the time read just after is at most
 * about one period. (A wrap dropped between the manager's read of the
 * counter and the driver's clearing of an older flag would leave the count
 * below the one read: a time before zero, near 2^64.) */
static void t_init_wrap(void *arg) {
  (void)arg;
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    if ((utim_caps(p) & UTIM_CAP_OVERFLOW) == 0u || utim_max(p) > 0xFFFFFFFFu) {
      continue;
    }
    const uint64_t tick = mode_tick(p, 2u);
    unsigned tried = 0;
    for (unsigned off = 0; off < 32u; off++) {
      th_context("%s, a wrap before access %u of the init", utim_name(p), off);
      if (!setup_inst(p)) {
        return;
      }
      sim_inject(off, ns_of(tick) - ns_of(1u) / 2u);
      const int rc = utim_tm_init(&tm, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, tick);
      sim_inject(0u, 0u);
      if (rc != 0) {
        break; /* the instance cannot carry the manager on its overflow */
      }
      const uint64_t t = utim_tm_now(&tm);
      tried++;
      if (!TH_CHECKF(t <= tick + 2u, "time %" PRIu64 " just after init, period %" PRIu64, t,
                     tick)) {
        break;
      }
      TH_EQ(utim_tm_deinit(&tm), 0);
    }
    if (tried > 0u) {
      th_note("%s: %u injection points", utim_name(p), tried);
    }
  }
}

/* ---- timeouts beyond the wheel's levels --------------------------------------- */

/* Far timeouts end to end on SIM_MTIME64 (64-bit counter, 10 MHz): beyond
 * the wheel's levels (its far list: 2^48 ticks ahead with the 64-bit
 * targets' geometry, 2^50 with the 32-bit one) and across the wrap of the
 * reported time (set_time() puts it 2^40 ticks before 2^64). Each one-shot
 * calls back once, never early, at its expiry tickless and by the next tick
 * ticked; a periodic one of 2^49 + 5 ticks stays on its grid. */
#define NFAR 8u
static unsigned far_calls[NFAR];
static uint64_t far_at[NFAR]; /* reported time in its last callback */

static void far_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  const unsigned i = (unsigned)(uintptr_t)arg;
  far_calls[i] += 1u + utim_tm_overrun(m);
  far_at[i] = utim_tm_now(m);
}

static void far_in_mode(const utim_periph_t *p, utim_tm_mode_t mode, uint64_t tick) {
  static const uint64_t d[NFAR - 1u] = {
      ((uint64_t)1 << 47) - 3u,  ((uint64_t)1 << 48),      ((uint64_t)1 << 48) + 12345u,
      ((uint64_t)1 << 50) - 1u,  ((uint64_t)1 << 50) + 7u, ((uint64_t)1 << 52) + 3u,
      ((uint64_t)1 << 56) + 99u,
  };
  const uint64_t period = ((uint64_t)1 << 49) + 5u;
  th_context("%s, %s", utim_name(p), mode == UTIM_TM_TICKLESS ? "tickless" : "ticked");
  if (!setup(p, 0u, mode, tick)) {
    return;
  }
  const uint64_t late = mode == UTIM_TM_TICKLESS ? 1u : tick + 1u;
  TH_EQ(utim_tm_set_time(&tm, 0u - ((uint64_t)1 << 40)), 0);
  utim_tm_timer_t t[NFAR];
  uint64_t e[NFAR];
  memset(far_calls, 0, sizeof far_calls);
  for (unsigned i = 0; i < NFAR; i++) {
    utim_tm_timer_init(&t[i], far_cb, (void *)(uintptr_t)i);
  }
  for (unsigned i = 0; i + 1u < NFAR; i++) {
    /* Odd ones absolute: the expiry in reported time, past its wrap. */
    const int rc = (i & 1u) != 0u ? utim_tm_start_at(&tm, &t[i], utim_tm_now(&tm) + d[i], 0u)
                                  : utim_tm_start(&tm, &t[i], d[i], 0u);
    TH_EQ(rc, 0);
    TH_EQ(utim_tm_expiry(&tm, &t[i], &e[i]), 0);
    TH_CHECKF(e[i] - utim_tm_now(&tm) - d[i] + 2u <= 2u, "timer %u: expiry %" PRIu64, i, e[i]);
  }
  TH_EQ(utim_tm_start(&tm, &t[NFAR - 1u], period, period), 0);
  TH_EQ(utim_tm_expiry(&tm, &t[NFAR - 1u], &e[NFAR - 1u]), 0);
  const uint64_t first = e[NFAR - 1u];
  /* In order of expiry (d[] is sorted): 1.5 ticks before, nothing; then
   * exactly one call, not early, within the mode's lateness. (Ticked, a
   * timer due within the tick of the one before comes with it.) */
  for (unsigned i = 0; i + 1u < NFAR; i++) {
    uint64_t left = 0;
    if (utim_tm_remaining(&tm, &t[i], &left) == 0) {
      sim_advance(ns_of(left) - ns_of(1u) * 3u / 2u);
      TH_EQU(far_calls[i], 0u);
      TH_CHECK(utim_tm_pending(&t[i]));
      sim_advance(ns_of(late + 1u));
    }
    TH_EQU(far_calls[i], 1u);
    TH_CHECKF(far_at[i] - e[i] <= late, "timer %u: called at %" PRIu64 ", expiry %" PRIu64, i,
              far_at[i], e[i]);
    TH_CHECK(!utim_tm_pending(&t[i]));
  }
  /* The periodic one: every expiry passed counted (the last one possibly
   * not served yet, ticked), the next on its grid. */
  const uint64_t passed = (utim_tm_now(&tm) - first) / period + 1u;
  const unsigned calls = far_calls[NFAR - 1u];
  TH_CHECKF(calls == passed || calls + 1u == passed,
            "periodic: %u calls, %" PRIu64 " expiries passed", calls, passed);
  uint64_t next = 0;
  TH_EQ(utim_tm_expiry(&tm, &t[NFAR - 1u], &next), 0);
  TH_EQU(next, first + calls * period);
  TH_EQ(utim_tm_stop(&tm, &t[NFAR - 1u]), 1);
  TH_EQ(utim_tm_deinit(&tm), 0);
}

static void t_far(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (p == NULL) {
    TH_CHECK(!"the sim board has no SIM_MTIME64");
    return;
  }
  far_in_mode(p, UTIM_TM_TICKLESS, 0u);
  /* A tick of 2^44 ticks keeps the ticked run to a few thousand ticks. */
  far_in_mode(p, UTIM_TM_TICKED, (uint64_t)1 << 44);
}

/* ---- a callback that ends the manager; past absolute starts; a refused clear -- */

static unsigned n_stray;

static void stray_cmp(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  n_stray++;
}

static void deinit_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  (void)arg;
  TH_EQ(utim_tm_deinit(m), 0);
}

/* utim_tm_deinit() from a callback: the channel stays cleared (the
 * manager's interrupt used to arm it again after its callbacks), the other
 * timer is no longer pending. Tickless and ticked. */
static void t_deinit_in_cb(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_TIMER16");
  for (unsigned mode = 0; mode < 2u; mode++) {
    th_context("%s", mode_names[mode]);
    if (!setup(p, 0u, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, mode_tick(p, mode))) {
      return;
    }
    utim_tm_timer_t a;
    utim_tm_timer_t b;
    utim_tm_timer_init(&a, deinit_cb, NULL);
    utim_tm_timer_init(&b, deinit_cb, NULL);
    TH_EQ(utim_tm_start(&tm, &a, 100u, 0u), 0);
    TH_EQ(utim_tm_start(&tm, &b, 3000u, 0u), 0);
    sim_advance(ns_of(100u + 2u * mode_tick(p, mode) + 50u));
    TH_CHECK(!tm.running);
    TH_CHECK(!utim_tm_pending(&b));
    /* The instance is the user's again: nothing of the manager's may fire. */
    n_stray = 0;
    TH_EQ(utim_set_compare_cb(p, stray_cmp, NULL), 0);
    sim_advance(ns_of(4u * (utim_max(p) + 1u)));
    TH_EQU(n_stray, 0u);
    TH_EQ(utim_set_compare_cb(p, NULL, NULL), 0);
  }
  th_context("%s", "");
}

/* A callback that ends the manager and starts it anew, then starts a
 * timer of 100 ticks on it: the interrupt it runs in went on advancing the
 * new manager's wheel (time 0) to the old one's time, and served the timer
 * about 100 ticks early; ticked, it also armed the new manager's channel a
 * second time, a tick point later. */
static uint64_t renew_started;
static uint64_t renew_fired;
static unsigned renew_calls;

static void renewed_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  (void)arg;
  renew_calls++;
  renew_fired = utim_tm_now(m);
}

static utim_tm_timer_t renewed;

static void renew_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  (void)arg;
  const utim_periph_t *p = m->p;
  const unsigned ch = m->ch;
  const utim_tm_mode_t mode = m->mode;
  const uint64_t tick = m->tick;
  TH_EQ(utim_tm_deinit(m), 0);
  TH_EQ(utim_tm_init(m, p, ch, mode, tick), 0);
  renew_started = utim_tm_now(m);
  utim_tm_timer_init(&renewed, renewed_cb, NULL);
  TH_EQ(utim_tm_start(m, &renewed, 100u, 0u), 0);
}

static void t_init_in_cb(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_TIMER16");
  for (unsigned mode = 0; mode < 2u; mode++) {
    th_context("%s", mode_names[mode]);
    if (!setup(p, 0u, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, mode_tick(p, mode))) {
      return;
    }
    const uint64_t late = mode == 0u ? 2u : mode_tick(p, mode) + 2u;
    utim_tm_timer_t a;
    utim_tm_timer_init(&a, renew_cb, NULL);
    renew_calls = 0u;
    sim_advance(ns_of(5000u)); /* the old manager's time runs well ahead */
    TH_EQ(utim_tm_start(&tm, &a, 10u, 0u), 0);
    sim_advance(ns_of(10u + 100u + 3u * mode_tick(p, mode) + 50u));
    TH_CHECK(tm.running);
    TH_EQU(renew_calls, 1u);
    TH_CHECKF(renew_fired >= renew_started + 100u && renew_fired <= renew_started + 100u + late,
              "started at %" PRIu64 " for 100 ticks, served at %" PRIu64, renew_started,
              renew_fired);
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
  th_context("%s", "");
}

static unsigned n_past;
static uint32_t past_overrun;

static void past_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  (void)arg;
  n_past++;
  past_overrun = utim_tm_overrun(m);
}

/* A periodic utim_tm_start_at() in the past keeps the grid of its `when`:
 * one callback at once for the points passed (overrun: their number less
 * one), then the next point of that grid (it used to take a new grid from
 * the start, with no overrun). A one-shot in the past calls back once. */
static void t_past_grid(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  for (unsigned mode = 0; mode < 2u; mode++) {
    th_context("%s", mode_names[mode]);
    /* Ticked: a tick of 20 ticks, less than the 50 to the next grid point. */
    if (!setup(p, 0u, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, mode == 0u ? 0u : 20u)) {
      return;
    }
    sim_advance(ns_of(10000u));
    utim_tm_timer_t t;
    utim_tm_timer_init(&t, past_cb, NULL);
    n_past = 0;
    const uint64_t when = utim_tm_now(&tm) - 250u;
    TH_EQ(utim_tm_start_at(&tm, &t, when, 100u), 0);
    sim_advance(ns_of(25u));
    TH_EQU(n_past, 1u);
    TH_EQU(past_overrun, 2u); /* when + 100, when + 200 */
    uint64_t at = 0;
    TH_EQ(utim_tm_expiry(&tm, &t, &at), 0);
    TH_EQU(at, when + 300u);
    sim_advance(ns_of(100u));
    TH_EQU(n_past, 2u);
    TH_EQU(past_overrun, 0u);
    TH_EQ(utim_tm_stop(&tm, &t), 1);
    n_past = 0;
    TH_EQ(utim_tm_start_at(&tm, &t, utim_tm_now(&tm) - 5u, 0u), 0);
    sim_advance(ns_of(25u));
    TH_EQU(n_past, 1u);
    TH_CHECK(!utim_tm_pending(&t));
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
  th_context("%s", "");
}

/* A start 2^63 back (start_at()'s farthest past) that time has moved past
 * by its service: its periodic callback still coalesces the points passed
 * (now - expiry read as "ahead" modulo 2^64 made it call back once per
 * point, overrun 0: a million callbacks in one tick of 2^20 ticks), and
 * until then it is due (utim_tm_remaining() read some 2^63 ticks). */
static unsigned n_half;
static uint32_t half_overrun[2];

static void half_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)arg;
  if (n_half < 2u) {
    half_overrun[n_half] = utim_tm_overrun(m);
  }
  if (++n_half >= 1000u) {
    (void)utim_tm_stop(m, t); /* not to hang when it fails */
  }
}

static void t_past_half(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  const uint64_t tick = (uint64_t)1 << 20;
  if (!setup(p, 0u, UTIM_TM_TICKED, tick)) {
    return;
  }
  sim_advance(ns_of(tick + 10u));
  utim_tm_timer_t t;
  utim_tm_timer_init(&t, half_cb, NULL);
  n_half = 0;
  TH_EQ(utim_tm_start_at(&tm, &t, utim_tm_now(&tm) + HALF + 2u, 1u), 0);
  sim_advance(ns_of(10u));
  TH_EQU(n_half, 0u);
  uint64_t left = 1;
  TH_EQ(utim_tm_remaining(&tm, &t, &left), 0);
  TH_EQU(left, 0u);
  sim_advance(ns_of(tick));
  TH_EQU(n_half, 1u);
  TH_EQU(half_overrun[0], UINT32_MAX);
  sim_advance(ns_of(tick));
  TH_EQU(n_half, 2u);
  TH_EQU(half_overrun[1], (uint32_t)(tick - 1u));
  TH_EQ(utim_tm_remaining(&tm, &t, &left), 0);
  TH_CHECKF(left <= tick, "remaining %" PRIu64, left);
  TH_EQ(utim_tm_deinit(&tm), 0);
}

/* utim_tm_task_clear() on a manager that no longer runs: -EINVAL, and the
 * wake bit is kept (it used to be cleared by the refused call). */
static void t_clear_refused(void *arg) {
  (void)arg;
  if (!setup(utim_by_name("SIM_TIMER16"), 0u, UTIM_TM_TICKLESS, 0u)) {
    return;
  }
  utim_tm_tasks_t ts;
  utim_tm_timer_t timers[4];
  uint32_t wake[UTIM_TM_TASK_WORDS(4u)];
  TH_EQ(utim_tm_tasks_init(&ts, &tm, timers, wake, 4u, NULL, NULL), 0);
  TH_EQ(utim_tm_task_delay(&ts, 2u, 10u), 0);
  sim_advance(ns_of(40u));
  TH_EQU(wake[0], 1u << 2);
  TH_EQ(utim_tm_deinit(&tm), 0);
  TH_EQ(utim_tm_task_clear(&ts, 2u), -EINVAL);
  uint32_t out = 0;
  TH_EQU(utim_tm_tasks_to_wake(&ts, &out, 1u), 1u);
  TH_EQU(out, 1u << 2);
}

/* ---- system time ------------------------------------------------------------ */

/* The time in tickless mode or on the overflow, against virtual time. */
static void time_in_mode(const utim_periph_t *p, unsigned mode) {
  th_context("%s %s", utim_name(p), mode_names[mode]);
  if (!setup(p, mode == 2u ? UTIM_TM_OVERFLOW : 0u, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED,
             mode_tick(p, mode))) {
    return;
  }
  rng_state = 99u;
  const uint64_t half_ns = half_range_ns(p);
  uint64_t prev = 0;
  /* 4 full counter ranges or 50 ms, whichever is longer (capped at 2 s). */
  uint64_t span = ns_of(utim_max(p) > ((uint64_t)1 << 40) ? 0u : (utim_max(p) + 1u) * 4u);
  span = span < 50000000u ? 50000000u : (span > 2000000000u ? 2000000000u : span);
  const uint64_t end = sim_now() + span;
  unsigned checks = 0;
  while (sim_now() < end) {
    const uint64_t r = rnd() % 4u;
    if (r == 0u) {
      /* Interrupts held off for up to 90 % of half a range (the tolerance). */
      const uint32_t key = utim_port_lock();
      sim_advance(rnd() % (half_ns - half_ns / 10u));
      const uint64_t t = utim_tm_now(&tm);
      utim_port_unlock(key);
      TH_CHECKF(t >= prev, "time went back: %" PRIu64 " then %" PRIu64, prev, t);
      prev = t;
    } else {
      sim_advance(rnd() % (half_ns * 3u));
    }
    /* Bracketed: an interrupt let in by the read's own unlock runs after
     * the counter was read and before the call returns. */
    const uint64_t ref0 = ref_ticks();
    const uint64_t t = utim_tm_now(&tm);
    const uint64_t ref = ref_ticks();
    if (!TH_CHECKF(t >= prev && t + 2u >= ref0 && t <= ref + 2u,
                   "time %" PRIu64 " (previous %" PRIu64 "), virtual time says %" PRIu64
                   " to %" PRIu64,
                   t, prev, ref0, ref)) {
      break;
    }
    prev = t;
    checks++;
  }
  th_note("%s %s: %u reads over %" PRIu64 " ms, counter range %" PRIu64 " ticks at %u Hz",
          utim_name(p), mode_names[mode], checks, span / 1000000u, utim_max(p), hz);
  TH_EQ(utim_tm_deinit(&tm), 0);
}

static void t_time(void *arg) {
  const utim_periph_t *p = arg;
  for (unsigned mode = 0; mode < N_MODES; mode += 2u) {
    if (mode_runs(p, mode)) {
      time_in_mode(p, mode);
    }
  }
}

int main(int argc, char **argv) {
  if (th_seed_ops_args(argc, argv, "test_tm_sim", &opt_seed, &opt_ops) != 0) {
    return 2;
  }
  th_set_putc(th_stdio_putc);
  sim_board_init();
  th_printf("TAP version 13\n");
  th_note("seed %llu, %llu operations per instance and mode (repeat: test_tm_sim --seed %llu "
          "--ops %llu); timer %zu bytes, manager %zu bytes",
          opt_seed, opt_ops, opt_seed, opt_ops, sizeof(utim_tm_timer_t), sizeof(utim_tm_t));
  th_run("argument errors of every call (nothing changed by them), remaining time across set_time",
         t_errors, NULL);
  th_run("checkpoint arming, counter still between reads", t_checkpoint, NULL);
  th_run("a start re-arms the channel only when it comes first", t_rearm, NULL);
  th_run("a wrap during an overflow manager's init is in its time", t_init_wrap, NULL);
  th_run("timeouts beyond the wheel's levels and across the reported time's wrap", t_far, NULL);
  th_run("a callback that ends the manager leaves its channel cleared", t_deinit_in_cb, NULL);
  th_run("a callback that starts the manager anew: its timers are not early", t_init_in_cb, NULL);
  th_run("a periodic start in the past keeps its grid and counts the points passed", t_past_grid,
         NULL);
  th_run("a periodic start 2^63 back coalesces the points passed and reads due", t_past_half, NULL);
  th_run("a task clear refused (manager ended) keeps the wake bit", t_clear_refused, NULL);
  th_run("a paced ticked manager arms no more than half a range ahead", t_tick_paced_range, NULL);
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    if (utim_channels(p) == 0u) {
      continue;
    }
    char name[96];
    (void)th_snprintf(name, sizeof name, "system time: %s", utim_name(p));
    th_run(name, t_time, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name, "timers against a model: %s", utim_name(p));
    th_run(name, t_random, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name, "task delays: %s", utim_name(p));
    th_run(name, t_tasks, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name,
                      "a chain of expiries shorter than the interrupt leaves the program time: %s",
                      utim_name(p));
    th_run(name, t_chain, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name, "a periodic timer the CPU keeps up with is not paced: %s",
                      utim_name(p));
    th_run(name, t_chain_kept_up, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name,
                      "a tick shorter than the interrupt leaves the program time: %s",
                      utim_name(p));
    th_run(name, t_tick_chain, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name,
                      "a short tick whose interrupt grows costlier leaves the program time: %s",
                      utim_name(p));
    th_run(name, t_tick_cost_grows, (void *)(uintptr_t)p);
    (void)th_snprintf(name, sizeof name,
                      "a tick of the minimum distance arming within it leaves the program time: %s",
                      utim_name(p));
    th_run(name, t_tick_min_distance, (void *)(uintptr_t)p);
  }
  return th_finish();
}
