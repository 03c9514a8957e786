/**
 * @file sleep_test.c
 * @brief The precise-sleep test, common to every board (see sleep_test.h).
 */
#include "sleep_test.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"

static const sleep_test_board_t *g_b;

/* The record of one call, checked against the times read around it. */
static void check_result(const utim_sleep_result_t *r, utim_ns_t before, utim_ns_t after,
                         utim_ns_t deadline) {
  TH_EQ(r->deadline, deadline);
  TH_CHECKF(r->start >= before, "start %lld before the call at %lld", (long long)r->start,
            (long long)before);
  TH_CHECKF(r->wake >= r->deadline, "woke %lld ns early", (long long)(r->deadline - r->wake));
  TH_CHECKF(after >= r->deadline, "returned %lld ns early", (long long)(r->deadline - after));
  TH_CHECK(r->wake <= after);
  TH_EQ(r->miss, r->wake - r->deadline);
  TH_CHECK(r->miss >= 0);
  TH_CHECK(r->spin >= 0 && r->blocked >= 0);
  TH_CHECK(r->spin <= r->wake - r->start);
  TH_CHECK(r->blocked <= r->wake - r->start);
  TH_CHECK(r->late <= 1u);
  TH_CHECK(r->blocks == 0u || r->margin >= 0);
  if (r->blocks == 0u) {
    TH_EQ(r->blocked, 0);
    TH_EQ(r->oversleep, -1);
  }
  if (r->late != 0u) {
    TH_CHECK(r->oversleep >= 0);
  }
  if (g_b->miss_allowance > 0) {
    TH_CHECKF(r->miss <= g_b->miss_allowance, "miss %lld ns > allowance %lld ns",
              (long long)r->miss, (long long)g_b->miss_allowance);
  }
  if (g_b->cpu_known) {
    TH_CHECK(r->cpu >= 0);
  }
  if (g_b->cpu_within) {
    TH_CHECKF(r->cpu <= r->wake - r->start, "cpu %lld ns of %lld ns", (long long)r->cpu,
              (long long)(r->wake - r->start));
  }
}

/* Coarse-sleep expectations for a sleep of d ns that ended with record r. */
static void check_coarse(const utim_sleep_result_t *r, utim_ns_t d) {
  if (!g_b->coarse || g_b->coarse_from <= 0 || d < g_b->coarse_from) {
    return;
  }
  TH_CHECKF(r->blocks > 0u, "a %lld ns sleep did not use the coarse sleep (margin %lld)",
            (long long)d, (long long)r->margin);
  TH_CHECK(r->blocked > 0);
  if (g_b->cpu_free_coarse && d >= UTIM_NS_PER_MS) {
    TH_CHECKF(r->cpu < (r->wake - r->start) / 2, "cpu %lld ns of a %lld ns sleep",
              (long long)r->cpu, (long long)(r->wake - r->start));
  }
}

static void t_sleeper(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  TH_CHECK(s != NULL);
  TH_CHECK(utim_port_sleeper() == s);
  utim_ns_t a = utim_port_now_ns();
  utim_ns_t b = utim_port_now_ns();
  TH_CHECK(b >= a);
  if (s != NULL) {
    TH_CHECK(s->ops != NULL && s->ops->now != NULL);
    TH_EQ(s->ops->block_until != NULL, g_b->coarse);
  }
}

static void t_sleep_for(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  if (s == NULL) {
    TH_SKIP("no sleeper");
  }
  for (unsigned i = 0; i < g_b->ndurations; i++) {
    utim_ns_t d = g_b->durations[i];
    th_context("sleep_for(%lld)", (long long)d);
    for (unsigned k = 0; k < g_b->repeat; k++) {
      utim_ns_t before = utim_port_now_ns();
      TH_EQ(utim_sleep_for(d), 0);
      utim_ns_t after = utim_port_now_ns();
      const utim_sleep_result_t r = s->last;
      /* The deadline is taken from the time line inside the call. */
      TH_CHECK(r.deadline >= before + d && r.deadline <= after);
      check_result(&r, before, after, r.deadline);
      TH_CHECK(after - before >= d);
      check_coarse(&r, d);
    }
  }
}

/* Absolute deadlines on a grid: none is early and the grid does not drift. */
static void t_sleep_until_grid(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  if (s == NULL) {
    TH_SKIP("no sleeper");
  }
  for (unsigned i = 0; i < g_b->ndurations; i++) {
    utim_ns_t period = g_b->durations[i];
    if (period <= 0) {
      continue;
    }
    th_context("period %lld", (long long)period);
    utim_ns_t base = utim_port_now_ns();
    for (unsigned k = 1; k <= g_b->repeat; k++) {
      utim_ns_t deadline = base + (utim_ns_t)k * period;
      utim_ns_t before = utim_port_now_ns();
      TH_EQ(utim_sleep_until(deadline), 0);
      utim_ns_t after = utim_port_now_ns();
      check_result(&s->last, before, after, deadline);
    }
  }
}

static void t_passed(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  if (s == NULL) {
    TH_SKIP("no sleeper");
  }
  utim_ns_t now = utim_port_now_ns();
  TH_EQ(utim_sleep_until(now - 1000), 0);
  utim_sleep_result_t r = s->last;
  check_result(&r, now, utim_port_now_ns(), now - 1000);
  TH_EQ(r.blocks, 0);
  TH_EQ(r.spin, 0);
  TH_CHECK(r.miss >= 1000);

  now = utim_port_now_ns();
  TH_EQ(utim_sleep_until(now - UTIM_NS_PER_S), 0);
  r = s->last;
  TH_EQ(r.blocks, 0);
  TH_CHECK(r.wake >= now && r.miss >= UTIM_NS_PER_S);

  now = utim_port_now_ns();
  TH_EQ(utim_sleep_for(0), 0);
  r = s->last;
  check_result(&r, now, utim_port_now_ns(), r.deadline);
  TH_EQ(r.blocks, 0);
}

static void t_invalid(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  if (s == NULL) {
    TH_SKIP("no sleeper");
  }
  utim_sleep_stats_t st0;
  utim_sleep_stats_t st1;
  TH_EQ(utim_sleeper_stats(s, &st0), 0);
  utim_sleep_result_t last = s->last;
  TH_EQ(utim_sleep_for(-1), -EINVAL);
  TH_EQ(utim_sleep_for(-UTIM_NS_PER_S), -EINVAL);
  TH_EQ(utim_sleep_for(UTIM_NS_MIN), -EINVAL);
  TH_EQ(utim_sleeper_stats(s, &st1), 0);
  TH_EQU(st1.calls, st0.calls);
  TH_EQ(s->last.deadline, last.deadline);
  TH_EQ(s->last.wake, last.wake);
}

/* The statistics add up over a known series of calls. */
static void t_stats(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  if (s == NULL) {
    TH_SKIP("no sleeper");
  }
  utim_sleeper_reset_stats(s);
  utim_ns_t miss_sum = 0;
  utim_ns_t miss_max = 0;
  uint64_t blocked = 0;
  unsigned n = 0;
  for (unsigned i = 0; i < g_b->ndurations; i++) {
    TH_EQ(utim_sleep_for(g_b->durations[i]), 0);
    miss_sum += s->last.miss;
    miss_max = utim_ns_max(miss_max, s->last.miss);
    blocked += s->last.blocks != 0u ? 1u : 0u;
    n++;
  }
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(s, &st), 0);
  TH_EQU(st.calls, n);
  TH_EQ(st.miss_sum, miss_sum);
  TH_EQ(st.miss_max, miss_max);
  TH_EQU(st.blocked_calls, blocked);
  TH_EQ(st.margin, s->margin);
  TH_CHECK(st.margin >= s->cfg.min_margin && st.margin <= s->cfg.max_margin);
  if (g_b->cpu_known) {
    TH_EQU(st.cpu_calls, n);
  }
  if (g_b->cpu_within) {
    TH_CHECK(st.cpu_sum <= st.cpu_elapsed);
  }
  th_note("%u sleeps: margin %lld ns, mean miss %lld ns, max miss %lld ns, %llu used the coarse "
          "sleep, cpu %lld of %lld ns (%llu calls known)",
          n, (long long)st.margin, (long long)(n > 0u ? st.miss_sum / (utim_ns_t)n : 0),
          (long long)st.miss_max, (unsigned long long)st.blocked_calls, (long long)st.cpu_sum,
          (long long)st.cpu_elapsed, (unsigned long long)st.cpu_calls);
}

void sleep_test_run(const sleep_test_board_t *b) {
  g_b = b;
  th_run("port sleeper", t_sleeper, NULL);
  th_run("sleep_for: never early, consistent record", t_sleep_for, NULL);
  th_run("sleep_until: grid of absolute deadlines", t_sleep_until_grid, NULL);
  th_run("passed deadlines return at once", t_passed, NULL);
  th_run("negative durations: -EINVAL, nothing recorded", t_invalid, NULL);
  th_run("statistics add up", t_stats, NULL);
}
