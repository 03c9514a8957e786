/**
 * @file tm_suite.c
 * @brief The time manager's semantics suite (tm_suite.h): the promises of
 *        utim/tm.h checked on every instance of a board that can carry the
 *        manager, in each mode it can run in, through the uAPI, the manager
 *        and board_test.h only.
 *
 * Each case starts the manager, drives it with real callbacks (sim: virtual
 * time; Cortex-M boards: QEMU with -icount, so a run is deterministic and a
 * second run must print the same bytes) and checks, against the system time
 * each callback reads:
 * - one-shot timers: never early, exactly once, at most one tick plus the
 *   board's callback latency late, also for 0, 1 and 2 ticks and for
 *   timeouts longer than the counter's range;
 * - periodic timers: each expiry on the grid start + k x period, the
 *   coalesced ones counted by utim_tm_overrun(), nothing after a stop from
 *   the callback;
 * - stop and restart from task context and from callbacks (a callback
 *   stopping another timer due at the same moment, restarting itself);
 * - task delays: the hook and the wake bitmap for each delay that ended,
 *   nothing for a cleared one;
 * - set_time: the time jumps, pending timers keep their remaining time.
 */
#include "tm_suite.h"

#include <stddef.h>

#include "board_test.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/utim.h"

/* ---- the instance and mode a case runs on --------------------------------- */

/** Mode numbers: tickless and ticked on channel 0, ticked on the overflow. */
enum { M_TICKLESS, M_TICKED, M_OVERFLOW, M_COUNT };

static const char *const mode_name[M_COUNT] = {"tickless", "ticked", "ticked on the overflow"};

typedef struct run {
  const utim_periph_t *p;
  unsigned mode;
} run_t;

static utim_tm_t tm;
static uint32_t hz;
static uint64_t tick;      /* 0 tickless */
static uint64_t bound;     /* ticks a callback may come after its expiry */
static uint64_t tolerance; /* longest interrupt-off time the mode takes, ticks (tm.h) */

/* A wait the suite may take on @p p: a wrap of the counter, when it is short. */
static uint64_t range_of(const utim_periph_t *p) {
  return utim_width(p) < 64u ? utim_max(p) + 1u : 0u;
}

/* Whether the manager runs on @p p in mode @p mode on this board. */
static bool mode_runs(const utim_periph_t *p, unsigned mode) {
  if (mode != M_OVERFLOW) {
    return utim_channels(p) > 0u;
  }
  uint64_t v = 0;
  if (utim_get_property(p, UTIM_PROP_OVF_PENDING, &v) != 0) {
    return false;
  }
  /* Without a top the tick is a wrap: only counters that wrap often. */
  return (utim_caps(p) & UTIM_CAP_TOP) != 0u || (range_of(p) != 0u && range_of(p) <= 65536u);
}

/* The mode's tick: 0.5 ms (at least the minimum distance, at most half a
 * range) on a channel; on the overflow 0.5 ms with a top, else a wrap. */
static uint64_t tick_of(const utim_periph_t *p, unsigned mode) {
  if (mode == M_TICKLESS) {
    return 0u;
  }
  if (mode == M_OVERFLOW && (utim_caps(p) & UTIM_CAP_TOP) == 0u) {
    return range_of(p);
  }
  uint64_t t = hz / 2000u;
  const uint64_t half = utim_max(p) >> 1;
  t = t > half ? half : t;
  return t < utim_min_distance(p) + 1u ? utim_min_distance(p) + 1u : t;
}

static bool begin(const run_t *r) {
  th_context("%s %s", utim_name(r->p), mode_name[r->mode]);
  /* 4 MHz, or 16 MHz when a tick is a wrap: a 16-bit counter then wraps
   * every 4 ms, which keeps the runs under QEMU short. */
  const bool wrap_tick = r->mode == M_OVERFLOW && (utim_caps(r->p) & UTIM_CAP_TOP) == 0u;
  const uint32_t want = wrap_tick ? 16000000u : 4000000u;
  if (!TH_EQ(utim_closest_freq(r->p, want, UTIM_CLOCK_DEFAULT, &hz), 0) ||
      !TH_EQ(utim_init(r->p, hz, UTIM_CLOCK_DEFAULT), 0) || !TH_EQ(utim_start(r->p), 0)) {
    return false;
  }
  tick = tick_of(r->p, r->mode);
  bound = tick + tb_latency_ticks(r->p);
  /* Half the counter's range on a channel, less than a tick on the overflow. */
  tolerance = r->mode == M_OVERFLOW ? tick - 1u : utim_max(r->p) >> 1;
  const unsigned ch = r->mode == M_OVERFLOW ? UTIM_TM_OVERFLOW : 0u;
  return TH_EQ(
      utim_tm_init(&tm, r->p, ch, r->mode == M_TICKLESS ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, tick),
      0);
}

static void end(const run_t *r) {
  TH_EQ(utim_tm_deinit(&tm), 0);
  (void)utim_stop(r->p);
}

/* ---- per-timer records ------------------------------------------------------- */

#define NREC 10u

typedef struct rec {
  utim_tm_timer_t t;   /* first */
  uint64_t due;        /* expected (next) expiry, system time */
  uint64_t period;     /* 0: one-shot */
  uint64_t late_max;   /* ticks */
  uint64_t first_seen; /* system time of the first callback */
  uint64_t coalesced;  /* periodic: utim_tm_overrun() summed */
  uint64_t restart;    /* restart itself this far ahead once (0: no) */
  struct rec *victim;  /* stopped by this one's callback */
  unsigned calls;
  unsigned early;       /* callbacks before their expiry */
  unsigned grid_misses; /* periodic: an expiry off the grid */
  unsigned stop_after;  /* periodic: stop itself at this many calls (0: never) */
} rec_t;

static rec_t recs[NREC];
/* The port lock's key where it is not held (task context, recs_reset()),
 * and the callbacks that found it so: tm.h runs them with the lock held
 * (the Cortex-M boards ran them unlocked, so an interrupt of a higher
 * priority reading the time could tear the manager's time extension). */
static uint32_t key_free;
static unsigned unlocked_cbs;

static void rec_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  rec_t *r = (rec_t *)(void *)t;
  (void)arg;
  const uint32_t key = utim_port_lock();
  if (key == key_free) {
    unlocked_cbs++;
  }
  utim_port_unlock(key);
  const uint64_t now = utim_tm_now(m);
  if (r->calls == 0u) {
    r->first_seen = now;
  }
  r->calls++;
  if (r->period != 0u) {
    /* This expiry: the grid point the overruns lead to. */
    const uint64_t ov = utim_tm_overrun(m);
    r->coalesced += ov;
    r->due += ov * r->period;
    uint64_t next = 0;
    if (utim_tm_expiry(m, t, &next) != 0 || next != r->due + r->period) {
      r->grid_misses++;
    }
  }
  if (now - r->due >= ((uint64_t)1 << 63)) {
    r->early++;
  } else if (now - r->due > r->late_max) {
    r->late_max = now - r->due;
  }
  if (r->period != 0u) {
    r->due += r->period;
    if (r->stop_after != 0u && r->calls >= r->stop_after) {
      (void)utim_tm_stop(m, t);
    }
  }
  if (r->victim != NULL) {
    (void)utim_tm_stop(m, &r->victim->t);
  }
  if (r->restart != 0u) {
    (void)utim_tm_start(m, t, r->restart, 0u);
    r->due = now + r->restart;
    r->restart = 0u;
  }
}

static void recs_reset(void) {
  key_free = utim_port_lock();
  utim_port_unlock(key_free);
  unlocked_cbs = 0;
  for (unsigned i = 0; i < NREC; i++) {
    rec_t *r = &recs[i];
    r->due = 0u;
    r->period = 0u;
    r->calls = 0u;
    r->early = 0u;
    r->late_max = 0u;
    r->first_seen = 0u;
    r->grid_misses = 0u;
    r->coalesced = 0u;
    r->stop_after = 0u;
    r->victim = NULL;
    r->restart = 0u;
    utim_tm_timer_init(&r->t, rec_cb, NULL);
  }
}

/* Start recs[i] @p ticks from now, then every @p period. A periodic timer
 * is started at an absolute time (utim_tm_start_at()), so its grid is known
 * exactly; a one-shot relative (utim_tm_start()), its expiry read back while
 * pending. One due at once may have run already (utim_set_rel(p, ch, 0)
 * delivers before it returns) and is judged against the time read before
 * the start, which is no later than its expiry. */
static bool rec_start(unsigned i, uint64_t ticks, uint64_t period) {
  rec_t *r = &recs[i];
  r->period = period;
  const uint32_t key = utim_port_lock();
  r->due = utim_tm_now(&tm) + ticks;
  int rc = 0;
  if (period != 0u) {
    rc = utim_tm_start_at(&tm, &r->t, r->due, period);
  } else {
    rc = utim_tm_start(&tm, &r->t, ticks, 0u);
    if (rc == 0 && r->calls == 0u) {
      (void)TH_EQ(utim_tm_expiry(&tm, &r->t, &r->due), 0);
    }
  }
  utim_port_unlock(key);
  return TH_EQ(rc, 0);
}

/* ---- cases ------------------------------------------------------------------------ */

static void c_oneshot(void *arg) {
  const run_t *run = arg;
  if (!begin(run)) {
    return;
  }
  recs_reset();
  const uint64_t range = range_of(run->p);
  uint64_t d[NREC] = {0u, 1u, 2u, 7u, tick + 3u, 3u * tick + 5u, hz / 200u, hz / 50u, 0u, 0u};
  unsigned n = 8u;
  /* Longer than the counter's range (re-armed on the way), where a wrap is
   * short enough to wait for. */
  if (range != 0u && range <= (uint64_t)hz) {
    d[n++] = range + range / 3u + 11u;
    d[n++] = 2u * range + 1u;
  }
  uint64_t longest = 0;
  for (unsigned i = 0; i < n; i++) {
    if (!rec_start(i, d[i], 0u)) {
      end(run);
      return;
    }
    longest = d[i] > longest ? d[i] : longest;
  }
  tb_wait_ticks(run->p, longest + 2u * bound + 10u);
  uint64_t late = 0;
  for (unsigned i = 0; i < n; i++) {
    const rec_t *r = &recs[i];
    TH_CHECKF(r->calls == 1u && r->early == 0u && r->late_max <= bound,
              "timer %u (%llu ticks): %u callbacks, %u early, %llu ticks late (bound %llu)", i,
              (unsigned long long)d[i], r->calls, r->early, (unsigned long long)r->late_max,
              (unsigned long long)bound);
    TH_CHECK(!utim_tm_pending(&r->t));
    late = r->late_max > late ? r->late_max : late;
  }
  TH_CHECKF(unlocked_cbs == 0u, "%u callbacks ran without the port lock", unlocked_cbs);
  th_note("%s %s at %lu Hz, tick %llu: %u one-shots, latest %llu ticks after its expiry",
          utim_name(run->p), mode_name[run->mode], (unsigned long)hz, (unsigned long long)tick, n,
          (unsigned long long)late);
  end(run);
}

static void c_periodic(void *arg) {
  const run_t *run = arg;
  if (!begin(run)) {
    return;
  }
  recs_reset();
  /* A period of a few ticks (tickless: 2 ms), another not a multiple of it. */
  const uint64_t p0 = tick != 0u ? 3u * tick : hz / 500u;
  const uint64_t p1 = tick != 0u ? 2u * tick + tick / 2u + 1u : hz / 700u + 3u;
  recs[0].stop_after = 12u;
  recs[1].stop_after = 9u;
  if (!rec_start(0, p0, p0) || !rec_start(1, 5u, p1)) {
    end(run);
    return;
  }
  const uint64_t span = 14u * p0 + 10u * p1 + 4u * bound;
  tb_wait_ticks(run->p, span);
  for (unsigned i = 0; i < 2u; i++) {
    const rec_t *r = &recs[i];
    TH_CHECKF(r->calls == r->stop_after && r->grid_misses == 0u && r->early == 0u &&
                  r->late_max <= bound,
              "periodic %u: %u callbacks (stop after %u), %u off the grid, %u early, %llu ticks "
              "late (bound %llu), %llu coalesced",
              i, r->calls, r->stop_after, r->grid_misses, r->early, (unsigned long long)r->late_max,
              (unsigned long long)bound, (unsigned long long)r->coalesced);
    TH_CHECK(!utim_tm_pending(&r->t));
  }
  /* A periodic timer held off by a critical section of several periods
   * (within the interrupt-off time the mode takes): one callback for them,
   * the rest counted as coalesced, back on the grid. */
  recs_reset();
  uint64_t p2 = tick != 0u ? 2u * tick : hz / 1000u + 1u;
  p2 = p2 > tolerance / 4u ? tolerance / 4u : p2;
  recs[2].stop_after = 4u;
  if (rec_start(2, p2, p2)) {
    const uint32_t key = utim_port_lock();
    tb_wait_ticks(run->p, 3u * p2 + p2 / 2u);
    utim_port_unlock(key);
    tb_wait_ticks(run->p, 5u * (p2 > tick ? p2 : tick) + 2u * bound);
    const rec_t *r = &recs[2];
    TH_CHECKF(r->calls == 4u && r->coalesced >= 2u && r->grid_misses == 0u && r->early == 0u,
              "held off: %u callbacks, %llu coalesced, %u off the grid, %u early", r->calls,
              (unsigned long long)r->coalesced, r->grid_misses, r->early);
  }
  th_note("%s %s: periods %llu and %llu ticks on their grid; %llu expiries coalesced while held "
          "off",
          utim_name(run->p), mode_name[run->mode], (unsigned long long)p0, (unsigned long long)p1,
          (unsigned long long)recs[2].coalesced);
  end(run);
}

static void c_stop_restart(void *arg) {
  const run_t *run = arg;
  if (!begin(run)) {
    return;
  }
  recs_reset();
  const uint64_t u = tick != 0u ? 4u * tick : hz / 250u; /* a unit of a few ticks */
  /* 0: stopped before its expiry. 1: restarted before its expiry (once
   * expires, for the new setting). 2 stops 3, both due at the same moment
   * (2 was started first, so it runs first). 4 restarts itself once. */
  recs[2].victim = &recs[3];
  recs[4].restart = u;
  bool ok = rec_start(0, 2u * u, 0u) && rec_start(1, 2u * u, 0u) && rec_start(2, 3u * u, 0u) &&
            rec_start(3, 3u * u, 0u) && rec_start(4, u, 0u);
  if (ok) {
    tb_wait_ticks(run->p, u);
    TH_EQ(utim_tm_stop(&tm, &recs[0].t), 1); /* pending: it says so */
    TH_CHECK(!utim_tm_pending(&recs[0].t));
    ok = rec_start(1, 3u * u, 0u);
  }
  if (!ok) {
    end(run);
    return;
  }
  tb_wait_ticks(run->p, 5u * u + 2u * bound);
  TH_CHECKF(recs[0].calls == 0u, "stopped timer: %u callbacks", recs[0].calls);
  TH_CHECKF(recs[1].calls == 1u && recs[1].early == 0u && recs[1].late_max <= bound,
            "restarted timer: %u callbacks, %u early, %llu late", recs[1].calls, recs[1].early,
            (unsigned long long)recs[1].late_max);
  TH_CHECKF(recs[2].calls == 1u && recs[3].calls == 0u,
            "stop from a callback: stopper %u callbacks, stopped %u", recs[2].calls, recs[3].calls);
  TH_CHECKF(recs[4].calls == 2u && recs[4].early == 0u && recs[4].late_max <= bound,
            "self-restart: %u callbacks, %u early, %llu late", recs[4].calls, recs[4].early,
            (unsigned long long)recs[4].late_max);
  end(run);
}

/* ---- task delays ----------------------------------------------------------------- */

#define NTASK 5u

static utim_tm_tasks_t tasks;
static utim_tm_timer_t task_timers[NTASK];
static uint32_t task_wake[UTIM_TM_TASK_WORDS(NTASK)];
static uint64_t task_due[NTASK];
static unsigned task_hooks[NTASK];
static unsigned task_early;

static void wake_hook(utim_tm_t *m, unsigned id, void *arg) {
  (void)arg;
  if (utim_tm_now(m) - task_due[id] >= ((uint64_t)1 << 63)) {
    task_early++;
  }
  task_hooks[id]++;
}

static void c_tasks(void *arg) {
  const run_t *run = arg;
  if (!begin(run)) {
    return;
  }
  task_early = 0u;
  if (!TH_EQ(utim_tm_tasks_init(&tasks, &tm, task_timers, task_wake, NTASK, wake_hook, NULL), 0)) {
    end(run);
    return;
  }
  const uint64_t u = tick != 0u ? 2u * tick : hz / 500u;
  for (unsigned i = 0; i < NTASK; i++) {
    task_hooks[i] = 0u;
    task_due[i] = utim_tm_now(&tm) + (i + 1u) * u;
    TH_EQ(utim_tm_task_delay(&tasks, i, (i + 1u) * u), 0);
  }
  TH_EQ(utim_tm_task_clear(&tasks, 2u), 0);
  tb_wait_ticks(run->p, (uint64_t)NTASK * u + 2u * bound);
  uint32_t got[UTIM_TM_TASK_WORDS(NTASK)] = {0};
  TH_EQ(utim_tm_tasks_to_wake(&tasks, got, UTIM_TM_TASK_WORDS(NTASK)), NTASK - 1u);
  TH_EQU(got[0], 0x1bu);
  TH_EQ(utim_tm_tasks_to_wake(&tasks, got, UTIM_TM_TASK_WORDS(NTASK)), 0);
  for (unsigned i = 0; i < NTASK; i++) {
    TH_CHECKF(task_hooks[i] == (i == 2u ? 0u : 1u), "task %u: %u wake-ups", i, task_hooks[i]);
  }
  TH_EQ(task_early, 0);
  end(run);
}

static void c_set_time(void *arg) {
  const run_t *run = arg;
  if (!begin(run)) {
    return;
  }
  recs_reset();
  const uint64_t d = tick != 0u ? 10u * tick : hz / 100u;
  if (!rec_start(0, d, 0u)) {
    end(run);
    return;
  }
  uint64_t before = 0;
  uint64_t after = 0;
  TH_EQ(utim_tm_remaining(&tm, &recs[0].t, &before), 0);
  const uint64_t t_new = ((uint64_t)1 << 40) + 12345u;
  TH_EQ(utim_tm_set_time(&tm, t_new), 0);
  const uint64_t now = utim_tm_now(&tm);
  TH_CHECKF(now - t_new < bound, "time %llu after set_time(%llu)", (unsigned long long)now,
            (unsigned long long)t_new);
  TH_EQ(utim_tm_remaining(&tm, &recs[0].t, &after), 0);
  TH_CHECKF(after <= before && before - after < bound, "remaining %llu, then %llu",
            (unsigned long long)before, (unsigned long long)after);
  /* The callback compares with the expiry in the new time. */
  TH_EQ(utim_tm_expiry(&tm, &recs[0].t, &recs[0].due), 0);
  tb_wait_ticks(run->p, d + 2u * bound);
  TH_CHECKF(recs[0].calls == 1u && recs[0].early == 0u && recs[0].late_max <= bound,
            "%u callbacks, %u early, %llu late", recs[0].calls, recs[0].early,
            (unsigned long long)recs[0].late_max);
  end(run);
}

/* ---- the run ----------------------------------------------------------------------- */

typedef struct tm_case {
  const char *name;
  th_test_t fn;
} tm_case_t;

static const tm_case_t cases[] = {
    {"one-shot: never early, exactly once", c_oneshot},
    {"periodic: on the grid, overruns, stop", c_periodic},
    {"stop and restart, from tasks and callbacks", c_stop_restart},
    {"task delays", c_tasks},
    {"set_time keeps remaining times", c_set_time},
};

/* Every (instance, mode) pair the board can run; sized for the boards' tables. */
#define MAX_RUNS 48u
static run_t runs[MAX_RUNS];

int tm_suite_run(void) {
  th_printf("TAP version 13\n");
  th_note("time manager semantics, board %s: timer %u bytes, manager %u bytes", tb_board_name(),
          (unsigned)sizeof(utim_tm_timer_t), (unsigned)sizeof(utim_tm_t));
  unsigned n = 0;
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    for (unsigned m = 0; m < M_COUNT && n < MAX_RUNS; m++) {
      if (mode_runs(p, m)) {
        runs[n].p = p;
        runs[n].mode = m;
        n++;
      }
    }
  }
  for (unsigned r = 0; r < n; r++) {
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      char name[96];
      (void)th_snprintf(name, sizeof name, "%s: %s %s", cases[c].name, utim_name(runs[r].p),
                        mode_name[runs[r].mode]);
      th_run(name, cases[c].fn, &runs[r]);
    }
  }
  return th_finish();
}
