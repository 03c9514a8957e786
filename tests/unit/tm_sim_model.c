/*
 * test_tm_sim's random runs against models (tm_sim.h): timers started,
 * restarted and stopped from task context and from callbacks, time
 * advances, interrupt-off periods and stalls inside the manager's register
 * accesses, against a model of every timer; and task delays against a
 * model of the task table.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sim.h"
#include "tm_sim.h"
#include "utim/port.h"

#define NT 48u /* timers of the random run */

/* ---- the random run against a model ------------------------------------------ */

typedef struct mt {
  utim_tm_timer_t t; /* first */
  unsigned id;
  bool pending;    /* model: a setting is pending */
  uint64_t expiry; /* model: its next expiry (internal ticks) */
  uint64_t due;    /* when its callback is due: the expiry, or the start for a past one */
  uint64_t period;
  uint64_t calls;
  bool exact;      /* model expiry is the manager's (not our read before its read) */
  unsigned action; /* what its next callback does: 0 none, 1 stop self, 2 stop other, 3 restart */
} mt_t;

static mt_t timers[NT];
static utim_tm_mode_t cur_mode;
static uint64_t cur_tick;
static uint64_t late_bound; /* ticks a callback may come after its expiry */
static unsigned violations;
/* Ticks the manager's own read of the time may come after ours in a start:
 * a few register accesses, or a whole injected stall. */
static uint64_t start_slop = 64u;
static const char *last_op = "";
static unsigned long long n_calls;
static unsigned long long n_overruns;

/* The last operations of the random run; with TM_TRACE set in the
 * environment they are printed at the first violation. */
static char trace[8][120];
static unsigned trace_n;

static void violation(const char *what, const mt_t *m, uint64_t now) {
  if (violations == 0u && getenv("TM_TRACE") != NULL) {
    for (unsigned k = 0; k < 8u; k++) {
      fprintf(stderr, "trace: %s\n", trace[(trace_n + k) % 8u]);
    }
  }
  if (violations++ < 6u) {
    TH_CHECKF(false,
              "%s: timer %u, expiry %" PRIu64 ", period %" PRIu64 ", now %" PRIu64
              " (%s, %s; during %s)",
              what, m->id, m->expiry, m->period, now, utim_name(inst),
              cur_mode == UTIM_TM_TICKED ? "ticked" : "tickless", last_op);
  }
}

/* Internal time: the reported time minus the offset (never set here). */
static uint64_t tm_internal(void) {
  return utim_tm_now(&tm);
}

static void rand_start(mt_t *m) {
  const unsigned kind = (unsigned)(rnd() % 8u);
  /* Distances of every magnitude up to 2^34 ticks (beyond 32-bit ranges). */
  const unsigned b = (unsigned)(rnd() % 35u);
  const uint64_t d = b == 0u ? 0u : rnd() >> (64u - b);
  /* Periodic: 64 ticks to 2^20 (the shortest ones overrun under long
   * interrupt-off periods). */
  const uint64_t period = kind < 2u ? 64u + (rnd() >> (64u - 1u - (unsigned)(rnd() % 20u))) : 0u;
  const uint64_t now = tm_internal();
  /* The model first: a timer due at once calls back inside the start call.
   * The manager reads the time a little after us: until synchronised below
   * (or by the first callback) the model's expiry may be a few ticks early. */
  const mt_t keep = *m;
  m->pending = true;
  m->period = period;
  m->expiry = now + d;
  m->exact = false;
  m->action = rnd() % 6u == 0u ? 1u + (unsigned)(rnd() % 3u) : 0u;
  const uint64_t calls0 = m->calls;
  int rc = 0;
  /* Due at its expiry, or for one in the past (start_at) from the start:
   * from our read before the call for a callback inside it, */
  m->due = m->expiry;
  if (kind == 7u) {
    /* Absolute, in the past: due at once, its expiry (and a periodic's
     * grid) where it was asked for. */
    m->expiry = now - (rnd() % 1000u);
    m->due = now;
    rc = utim_tm_start_at(&tm, &m->t, m->expiry, period);
  } else {
    rc = utim_tm_start(&tm, &m->t, d, period);
  }
  if (rc != 0) {
    *m = keep;
    violation("start failed", m, now);
    return;
  }
  /* and after it from a read after it (the manager's read, after a stall
   * inside the call, may be later than ours before). */
  const uint64_t after = tm_internal();
  uint64_t e = 0;
  if (m->calls == calls0 && utim_tm_expiry(&tm, &m->t, &e) == 0) {
    if (e - m->expiry > start_slop) {
      violation("expiry of a start differs from now + ticks", m, e);
    }
    m->expiry = e;
    m->exact = true;
  }
  if (m->calls == calls0) {
    m->due = m->expiry - after >= HALF ? after : m->expiry;
  }
}

static void cb(utim_tm_t *mgr, utim_tm_timer_t *t, void *arg) {
  (void)arg;
  mt_t *m = (mt_t *)(void *)t;
  /* Bracketed: an injected stall may land inside the read. */
  const uint64_t ref0 = ref_ticks();
  const uint64_t now = tm_internal();
  const uint64_t ref = ref_ticks();
  n_calls++;
  if (now + 2u < ref0 || now > ref + 2u) {
    violation("time in a callback off virtual time", m, now);
  }
  if (!m->pending) {
    violation("callback of a timer that is stopped or expired", m, now);
    return;
  }
  if (now - m->expiry >= HALF) {
    violation("callback before its expiry", m, now);
  } else if (now - m->due < HALF && now - m->due > late_bound) {
    violation("callback later than the mode's bound", m, now);
  }
  m->calls++;
  if (m->period != 0u) {
    const uint32_t ov = utim_tm_overrun(mgr);
    n_overruns += ov;
    /* The ov grid points after this one were passed too; the next is after them. */
    const uint64_t last = m->expiry + (uint64_t)ov * m->period;
    if (now - last >= HALF) {
      violation("overrun counts grid points not yet reached", m, now);
    }
    m->expiry = last + m->period;
    uint64_t e = 0;
    if (utim_tm_expiry(mgr, t, &e) != 0 ||
        (m->exact ? e != m->expiry : e - m->expiry > start_slop)) {
      violation("periodic timer off its grid", m, now);
    }
    m->expiry = e;
    m->due = e;
    m->exact = true;
  } else {
    m->pending = false;
  }
  const unsigned act = m->action;
  m->action = 0;
  if (act == 1u) {
    (void)utim_tm_stop(mgr, t);
    m->pending = false;
  } else if (act == 2u) {
    mt_t *o = &timers[(m->id + 1u) % NT];
    (void)utim_tm_stop(mgr, &o->t);
    o->pending = false;
  } else if (act == 3u) {
    rand_start(m);
  }
}

/* Every model-pending timer whose expiry is more than the bound behind now
 * was lost. */
static void check_lost(void) {
  const uint64_t now = tm_internal();
  for (unsigned i = 0; i < NT; i++) {
    const mt_t *m = &timers[i];
    if (m->pending && now - m->due < HALF && now - m->due > late_bound) {
      violation("lost: no callback although its expiry passed", m, now);
    }
  }
}

/* Start the manager on p in mode number `mode` (see mode_names). */
static bool begin_mode(const utim_periph_t *p, unsigned mode) {
  cur_mode = mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED;
  th_context("%s %s", utim_name(p), mode_names[mode]);
  return setup(p, mode == 2u ? UTIM_TM_OVERFLOW : 0u, cur_mode, mode_tick(p, mode));
}

void t_random(void *arg) {
  const utim_periph_t *p = arg;
  for (unsigned mode = 0; mode < N_MODES; mode++) {
    if (!mode_runs(p, mode)) {
      continue;
    }
    if (!begin_mode(p, mode)) {
      return;
    }
    cur_tick = mode_tick(p, mode);
    rng_state = opt_seed * 1000003u + mode;
    const uint64_t crit_max_ns = half_range_ns(p) / 2u;
    /* Two interrupt-off periods back to back (a stall inside a call, then a
     * critical section: an interrupt that comes due just after the first is
     * held off by the second), the interrupt path on sim (about a hundred
     * register accesses of 10 ns, more when many timers expire at once),
     * and one tick. */
    late_bound = cur_tick +
                 (uint64_t)(((unsigned __int128)(2u * crit_max_ns + 20000u) * hz) / 1000000000u) +
                 8u;
    for (unsigned i = 0; i < NT; i++) {
      memset(&timers[i], 0, sizeof timers[i]);
      timers[i].id = i;
      utim_tm_timer_init(&timers[i].t, cb, NULL);
    }
    violations = 0;
    n_calls = 0;
    n_overruns = 0;
    for (unsigned long long op = 0; op < opt_ops && violations == 0u; op++) {
      mt_t *m = &timers[rnd() % NT];
      const unsigned r = (unsigned)(rnd() % 10u);
      (void)snprintf(trace[trace_n++ % 8u], sizeof trace[0],
                     "op %llu kind %u at %" PRIu64 " ns, %" PRIu64 " ticks", op, r, sim_now(),
                     ref_ticks());
      if (r < 4u) {
        last_op = "start";
        rand_start(m);
      } else if (r < 5u) {
        last_op = "stop";
        /* It tells whether there was a setting to end, as the model has it. */
        TH_EQ(utim_tm_stop(&tm, &m->t), m->pending ? 1 : 0);
        m->pending = false;
      } else if (r < 6u) {
        last_op = "interrupts off";
        const uint32_t key = utim_port_lock();
        sim_advance(rnd() % (crit_max_ns + 1u));
        utim_port_unlock(key);
      } else if (r < 7u) {
        /* A race: time passes before one of the register accesses of the
         * next call (a start, so inside the manager's own arming). */
        last_op = "start with a stall";
        const uint64_t stall = rnd() % (crit_max_ns + 1u);
        sim_inject(rnd() % 24u, stall);
        start_slop = 64u + (uint64_t)(((unsigned __int128)stall * hz) / 1000000000u) + 1u;
        rand_start(m);
        start_slop = 64u;
        sim_inject(0u, 0u);
      } else {
        last_op = "advance";
        sim_advance(rnd() % 200000u);
      }
      for (unsigned i = 0; i < NT; i++) {
        if (timers[i].pending != utim_tm_pending(&timers[i].t)) {
          violation("pending differs from the model", &timers[i], tm_internal());
          break;
        }
      }
      check_lost();
    }
    /* The end: nothing new; every one-shot due within 300 ms of virtual
     * time comes (periodic ones stopped first). */
    for (unsigned i = 0; i < NT; i++) {
      timers[i].action = 0;
      if (timers[i].period != 0u) {
        TH_EQ(utim_tm_stop(&tm, &timers[i].t), timers[i].pending ? 1 : 0);
        timers[i].pending = false;
      }
    }
    sim_advance(300000000u);
    check_lost();
    th_note("%s %s: %llu callbacks, %llu coalesced expiries, tick %" PRIu64 ", bound %" PRIu64
            " ticks",
            utim_name(p), mode_names[mode], n_calls, n_overruns, cur_tick, late_bound);
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
}

/* ---- task delays --------------------------------------------------------------- */

#define NTASK 70u /* three bitmap words, the last one partly used */

static utim_tm_tasks_t tasks;
static utim_tm_timer_t task_timers[NTASK];
static uint32_t task_wake[UTIM_TM_TASK_WORDS(NTASK)];
static uint64_t task_due[NTASK];   /* model: internal time its delay ends */
static bool task_delayed[NTASK];   /* model: a delay is pending */
static bool task_woken[NTASK];     /* model: woken, not yet collected */
static unsigned task_hooks[NTASK]; /* hook calls since the last collection */

static void wake_hook(utim_tm_t *m, unsigned id, void *arg) {
  (void)arg;
  const uint64_t now = utim_tm_now(m);
  if (id >= NTASK || !task_delayed[id]) {
    TH_CHECKF(false, "wake of task %u that has no delay", id);
    return;
  }
  TH_CHECKF(now - task_due[id] < HALF, "task %u woken at %" PRIu64 ", its delay ends at %" PRIu64,
            id, now, task_due[id]);
  task_delayed[id] = false;
  task_woken[id] = true;
  task_hooks[id]++;
}

void t_tasks(void *arg) {
  const utim_periph_t *p = arg;
  for (unsigned mode = 0; mode < N_MODES; mode++) {
    if (!mode_runs(p, mode)) {
      continue;
    }
    if (!begin_mode(p, mode)) {
      return;
    }
    TH_EQ(utim_tm_tasks_init(&tasks, &tm, task_timers, task_wake, 0u, NULL, NULL), -EINVAL);
    TH_EQ(utim_tm_tasks_init(&tasks, &tm, task_timers, task_wake, NTASK, wake_hook, NULL), 0);
    TH_EQ(utim_tm_task_delay(&tasks, NTASK, 5u), -EINVAL);
    TH_EQ(utim_tm_task_clear(&tasks, NTASK), -EINVAL);
    memset(task_delayed, 0, sizeof task_delayed);
    memset(task_woken, 0, sizeof task_woken);
    memset(task_hooks, 0, sizeof task_hooks);
    rng_state = opt_seed * 7919u + mode;
    unsigned collected = 0;
    for (unsigned long long round = 0; round < opt_ops / 8u + 100u; round++) {
      const unsigned id = (unsigned)(rnd() % NTASK);
      const unsigned r = (unsigned)(rnd() % 8u);
      if (r < 3u) {
        const uint64_t d = rnd() % 40000u;
        task_due[id] = utim_tm_now(&tm) + d; /* the model first (d = 0 wakes at once) */
        task_delayed[id] = true;
        TH_EQ(utim_tm_task_delay(&tasks, id, d), 0);
      } else if (r < 4u) {
        TH_EQ(utim_tm_task_clear(&tasks, id), 0);
        task_delayed[id] = false;
        task_woken[id] = false;
        task_hooks[id] = 0;
      } else if (r < 5u) {
        uint32_t out[UTIM_TM_TASK_WORDS(NTASK)];
        const unsigned n = utim_tm_tasks_to_wake(&tasks, out, UTIM_TM_TASK_WORDS(NTASK));
        unsigned bits = 0;
        for (unsigned i = 0; i < NTASK; i++) {
          const bool set = (out[i / 32u] >> (i % 32u)) & 1u;
          bits += set ? 1u : 0u;
          TH_CHECKF(set == task_woken[i], "task %u: collected %d, the model says %d", i, set,
                    task_woken[i]);
          TH_CHECKF(!set || task_hooks[i] >= 1u, "task %u collected without a hook call", i);
          task_woken[i] = false;
          task_hooks[i] = 0;
        }
        TH_EQU(n, bits);
        collected += n;
      } else {
        sim_advance(rnd() % 1000000u);
      }
    }
    /* Every delay still pending ends within 40,000 ticks plus a tick. */
    sim_advance(ns_of(40000u + mode_tick(p, mode)) + 1000000u);
    for (unsigned i = 0; i < NTASK; i++) {
      TH_CHECKF(!task_delayed[i], "task %u: its delay never ended", i);
    }
    th_note("%s %s: %u wake-ups collected", utim_name(p), mode_names[mode], collected);
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
}
