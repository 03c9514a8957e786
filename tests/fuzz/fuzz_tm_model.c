/*
 * The model of the time manager fuzz target (fuzz_tm.c; see there for the
 * input and the checks): its timers, the time reference, starts, the
 * timers' callbacks and the checks after each operation.
 */
#include "fuzz_tm_model.h"

/* ---- the model ----------------------------------------------------------------- */

mt_t timers[NT];
utim_tm_t tm;
utim_tm_t tm2; /* for refused inits */
const utim_periph_t *inst;
uint32_t hz;
unsigned tm_ch;
utim_tm_mode_t tm_mode;
uint64_t tm_tick;
bool running; /* model: the manager runs */
bool check_late;
uint64_t late_bound; /* ticks */
uint64_t crit_max_ns;
uint64_t period_ticks; /* the manager's interrupt period (checkpoint or tick) */
uint64_t budget_unit;  /* the budget's unit: that, or a carry period of 2^16 */
uint64_t periods_used; /* virtual time let pass, in ticks / period_ticks units */
uint64_t n_calls;
unsigned n_inits; /* utim_tm_init() calls of the input */
bool trace;
const char *op_name = "setup";
unsigned op_no;

/* The time reference: internal time n0 read between virtual times s0a and
 * s0b; the last internal time read. */
uint64_t ref_n0;
uint64_t ref_s0a;
uint64_t ref_s0b;
uint64_t last_internal;

/* A stall for the next operation's manager call. */
uint64_t stall_k;
uint64_t stall_ns;

void fail(const char *what, const mt_t *m) {
  fprintf(stderr,
          "fuzz_tm: %s: timer %d (expiry %llu, due %llu, period %llu, exact %d) on %s ch %u "
          "%s tick %llu, %u Hz (op %u %s, t=%llu ns, tm last %llu)\n",
          what, m != NULL ? (int)m->id : -1, m != NULL ? (unsigned long long)m->expiry : 0ull,
          m != NULL ? (unsigned long long)m->due : 0ull,
          m != NULL ? (unsigned long long)m->period : 0ull, m != NULL ? (int)m->exact : 0,
          utim_name(inst), tm_ch, tm_mode == UTIM_TM_TICKED ? "ticked" : "tickless",
          (unsigned long long)tm_tick, hz, op_no, op_name, (unsigned long long)sim_now(),
          (unsigned long long)tm.last);
  abort();
}

uint64_t ticks_of_ns(uint64_t ns) {
  return (uint64_t)(((unsigned __int128)ns * hz) / 1000000000u);
}

uint64_t ns_of_ticks(uint64_t ticks) {
  const unsigned __int128 ns = ((unsigned __int128)ticks * 1000000000u + hz - 1u) / hz;
  return ns > UINT64_MAX / 4u ? UINT64_MAX / 4u : (uint64_t)ns;
}

/* Internal time: the reported time minus the offset, read together. */
uint64_t internal_raw(void) {
  const uint32_t key = utim_port_lock();
  const uint64_t n = utim_tm_now(&tm) - tm.offset;
  utim_port_unlock(key);
  return n;
}

/* Internal time, checked: never back, and with virtual time since the
 * reference read (within the prescaler's phase and the read's own span). */

uint64_t internal_now(void) {
  /* Under the lock: the manager's interrupt, delivered at the unlock, reads
   * a later time than this one. */
  const uint32_t key = utim_port_lock();
  const uint64_t sa = sim_now();
  const uint64_t n = internal_raw();
  const uint64_t sb = sim_now();
  const uint64_t r = check_now(sa, n, sb);
  utim_port_unlock(key);
  return r;
}

uint64_t check_now(uint64_t sa, uint64_t n, uint64_t sb) {
  if (!running) {
    return n;
  }
  if (trace) {
    fprintf(stderr, "fuzz_tm:   read %llu at %llu..%llu ns%s\n", (unsigned long long)n,
            (unsigned long long)sa, (unsigned long long)sb, sim_in_isr() ? " (isr)" : "");
  }
  if (n - last_internal >= HALF) {
    fprintf(stderr, "fuzz_tm: internal %llu after %llu (offset %llu)\n", (unsigned long long)n,
            (unsigned long long)last_internal, (unsigned long long)tm.offset);
    fail("the time went back", NULL);
  }
  last_internal = n;
  const uint64_t lo = ticks_of_ns(sa > ref_s0b ? sa - ref_s0b : 0u);
  const uint64_t hi = ticks_of_ns(sb - ref_s0a);
  const uint64_t d = n - ref_n0;
  if (d + 3u < lo || d > hi + 3u) {
    fprintf(stderr, "fuzz_tm: internal %llu, since reference %llu, virtual %llu..%llu\n",
            (unsigned long long)n, (unsigned long long)d, (unsigned long long)lo,
            (unsigned long long)hi);
    fail("the time is off virtual time", NULL);
  }
  return n;
}

void arm_stall(void) {
  if (stall_ns != 0u) {
    sim_inject(stall_k, stall_ns);
  }
}

void end_stall(void) {
  sim_inject(0u, 0u);
  stall_ns = 0u;
}

void model_drop_all(void) {
  for (unsigned i = 0; i < NT; i++) {
    timers[i].pending = false;
    timers[i].action = ACT_NONE;
  }
}

bool short_ticks(uint64_t ticks) {
  return ticks < 8u || ns_of_ticks(ticks) < PACE_SAFE_NS;
}

/* The manager anew on the instance (which runs), with the reference. */
void manager_init(void) {
  const int rc = utim_tm_init(&tm, inst, tm_ch, tm_mode, tm_tick);
  if (rc != 0) {
    fail("utim_tm_init() of a valid set-up failed", NULL);
  }
  running = true;
  n_inits++;
  model_drop_all();
  ref_s0a = sim_now();
  ref_n0 = internal_raw();
  ref_s0b = sim_now();
  last_internal = ref_n0;
}

void manager_deinit_model(void) {
  running = false;
  model_drop_all();
}

/* ---- starts --------------------------------------------------------------------- */

/* Start @p m (kind K_*, distance @p d, period @p period) and its model. */
void model_start(mt_t *m, unsigned kind, uint64_t d, uint64_t period, bool in_cb) {
  if (!running) {
    return;
  }
  if (period != 0u && short_ticks(period)) {
    check_late = false; /* pacing may hold its chain back */
  }
  /* Virtual time from before our read: an interrupt at its unlock delays
   * the manager's read. */
  uint64_t s0 = 0;
  uint64_t before = 0;
  unsigned inits0 = 0;
  do {
    /* A callback at our read's unlock may start the manager anew: its
     * time is then another. */
    inits0 = n_inits;
    s0 = sim_now();
    before = internal_now();
  } while (inits0 != n_inits);
  if (!running) {
    /* A callback at our read's unlock ended the manager: refused. */
    if (utim_tm_start(&tm, &m->t, d, period) != -EINVAL || utim_tm_pending(&m->t)) {
      fail("a start on a manager ended by a callback was not refused", m);
    }
    return;
  }
  const mt_t keep = *m;
  const uint64_t calls0 = m->calls;
  m->pending = true;
  m->period = period;
  m->action = keep.action;
  m->start_ns = s0;
  const uint64_t gen = ++m->gen;
  int rc = 0;
  if (kind == K_REL) {
    m->expiry = before + d;
    m->due = m->expiry;
    m->exact = false;
    if (!in_cb) {
      arm_stall();
    }
    rc = utim_tm_start(&tm, &m->t, d, period);
  } else {
    /* Absolute: its expiry is exactly when - offset. The past at most
     * 2^62 back, so the manager's later read cannot make it "ahead". */
    const uint64_t when_int = kind == K_AT_AHEAD ? before + d : before - (d >> 1);
    m->expiry = when_int;
    m->due = kind == K_AT_AHEAD ? when_int : before;
    m->exact = true;
    if (!in_cb) {
      arm_stall();
    }
    rc = utim_tm_start_at(&tm, &m->t, when_int + tm.offset, period);
  }
  if (!in_cb) {
    end_stall();
  }
  const uint64_t s1 = sim_now();
  if (rc != 0) {
    fprintf(stderr, "fuzz_tm: start kind %u, d %llu, period %llu, our time %llu: %d\n", kind,
            (unsigned long long)d, (unsigned long long)period, (unsigned long long)before, rc);
    *m = keep;
    fail("a valid start was refused", m);
  }
  if (!running) {
    return; /* a callback inside the call ended the manager */
  }
  const uint64_t after = internal_now();
  if (m->calls == calls0 && m->pending && m->gen == gen) {
    uint64_t e = 0;
    if (utim_tm_expiry(&tm, &m->t, &e) != 0) {
      fail("a started timer is not pending", m);
    }
    e -= tm.offset;
    if (m->exact ? e != m->expiry : e - m->expiry > ticks_of_ns(s1 - s0) + 3u) {
      fprintf(stderr, "fuzz_tm: manager's expiry %llu\n", (unsigned long long)e);
      fail(kind == K_REL ? "a start's expiry is not now + ticks"
                         : "an absolute start's expiry is not when",
           m);
    }
    m->expiry = e;
    m->exact = true;
    m->due = kind == K_AT_PAST ? before : e;
  }
  (void)after;
}

/* ---- callbacks ---------------------------------------------------------------------- */

void cb(utim_tm_t *mgr, utim_tm_timer_t *t, void *arg) {
  mt_t *m = arg;
  if (mgr != &tm || (void *)t != (void *)m) {
    fail("callback with the wrong manager or timer", m);
  }
  if (!running) {
    fail("callback after the manager's deinit", m);
  }
  const uint64_t now = internal_now();
  n_calls++;
  if (!m->pending) {
    fail("callback of a timer that is stopped, expired or replaced", m);
  }
  if (now - m->expiry >= HALF) {
    fail("callback before its expiry", m);
  }
  if (check_late && now - m->due < HALF && now - m->due > late_bound) {
    fail("callback later than the mode's bound", m);
  }
  m->calls++;
  if (m->period != 0u) {
    const uint32_t ov = utim_tm_overrun(mgr);
    const uint64_t last = m->expiry + (uint64_t)ov * m->period;
    if (now - last >= HALF) {
      fail("overrun counts grid points not yet reached", m);
    }
    uint64_t e = 0;
    if (utim_tm_expiry(mgr, t, &e) != 0) {
      fail("a periodic timer is not pending in its callback", m);
    }
    e -= tm.offset;
    const uint64_t want = last + m->period;
    /* Saturated (UINT32_MAX): at least that many points, the next one on
     * the grid. */
    const bool off =
        ov == UINT32_MAX
            ? e - want >= HALF || (m->exact && (e - m->expiry) % m->period != 0u)
            : (m->exact ? e != want : e - want > ticks_of_ns(sim_now() - m->start_ns) + 3u);
    if (off) {
      fprintf(stderr, "fuzz_tm: overrun %u, next expiry %llu, grid says %llu\n", ov,
              (unsigned long long)e, (unsigned long long)want);
      fail("periodic timer off its grid", m);
    }
    if (ov < UINT32_MAX && e - tm.now_at - 1u >= HALF - 1u) {
      fprintf(stderr, "fuzz_tm: overrun %u, next expiry %llu, served up to %llu\n", ov,
              (unsigned long long)e, (unsigned long long)tm.now_at);
      fail("overrun misses grid points passed (next expiry not after the time served)", m);
    }
    m->expiry = e;
    m->due = e;
    m->exact = true;
  } else {
    m->pending = false;
  }
  unsigned act = m->action;
  m->action = ACT_NONE;
  if (n_calls >= MAX_CALLBACKS && m->period != 0u) {
    act = ACT_STOP_SELF;
  }
  mt_t *o = &timers[(m->id + 1u) % NT];
  const uint64_t a = m->act_arg;
  switch (act) {
  case ACT_STOP_SELF: {
    const int rc = utim_tm_stop(mgr, t);
    if (rc != (m->pending ? 1 : 0)) {
      fail("stop from its own callback: wrong return", m);
    }
    m->pending = false;
    break;
  }
  case ACT_STOP_OTHER: {
    const int rc = utim_tm_stop(mgr, &o->t);
    if (rc != (o->pending ? 1 : 0)) {
      fail("stop of another timer from a callback: wrong return", o);
    }
    o->pending = false;
    break;
  }
  case ACT_RESTART_SELF:
    model_start(m, K_REL, a & 0xffffu, (a >> 16) & 1u ? (a >> 17) + 1u : 0u, true);
    break;
  case ACT_START_OTHER:
    model_start(o, (unsigned)(a % 3u), (a >> 2) & 0xffffffu, (a >> 26) & 1u ? (a >> 27) + 1u : 0u,
                true);
    break;
  case ACT_SET_TIME:
    if (utim_tm_set_time(mgr, a << 20) != 0) {
      fail("set_time from a callback failed", m);
    }
    break;
  case ACT_DEINIT:
    if (utim_tm_deinit(mgr) != 0) {
      fail("deinit from a callback failed", m);
    }
    manager_deinit_model();
    break;
  case ACT_REINIT:
    if (utim_tm_deinit(mgr) != 0) {
      fail("deinit from a callback failed", m);
    }
    manager_deinit_model();
    manager_init();
    break;
  case ACT_START_AT_PAST_SELF:
    model_start(m, K_AT_PAST, (a & 0xfffu) << 1, (a >> 12) + 1u, true);
    break;
  default:
    break;
  }
}

/* ---- checks after each operation ------------------------------------------------ */

void check_all(void) {
  for (unsigned i = 0; i < NT; i++) {
    const mt_t *m = &timers[i];
    if (utim_tm_pending(&m->t) != m->pending) {
      fail("pending differs from the model", m);
    }
  }
  if (!running) {
    return;
  }
  const uint64_t now = internal_now();
  if (!check_late) {
    return;
  }
  for (unsigned i = 0; i < NT; i++) {
    const mt_t *m = &timers[i];
    if (m->pending && now - m->due < HALF && now - m->due > late_bound) {
      fail("lost: no callback although its expiry passed by more than the bound", m);
    }
  }
}
