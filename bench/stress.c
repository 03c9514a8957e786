/**
 * @file stress.c
 * @brief The randomized timer stress benchmark (see stress.h for the method).
 */
#include "stress.h"

#include <errno.h>
#include <stddef.h>

#include "utim/port.h"

/* Modular time: a difference of 2^63 or more is "behind". */
#define HALF64 ((uint64_t)1 << 63)
/* Overhead and spin calibration samples. */
#define SPIN_CAL_STEPS 1000u
/* The random CPU delay's longest run, in TUT ticks, unless the caller sets one (RIOT: 16). */
#define SPIN_TARGET_TICKS 16u

/* ---- random numbers (splitmix64: the same seed, the same run on every board) ---- */

static uint64_t rnd(bench_stress_t *s) {
  uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0; the modulo bias is below 2^-40 for the sizes used). */
static uint64_t rnd_below(bench_stress_t *s, uint64_t n) {
  return rnd(s) % n;
}

static unsigned log2_floor(uint64_t v) {
  return 63u - (unsigned)__builtin_clzll(v);
}

/* A random CPU delay: up to spin_max utim_port_relax() steps. */
static void spin(bench_stress_t *s) {
  const uint64_t n = rnd_below(s, (uint64_t)s->cfg.spin_max + 1u);
  for (uint64_t i = 0; i < n; i++) {
    utim_port_relax();
  }
}

static uint64_t ref_read(const bench_stress_t *s) {
  return utim_read(s->cfg.ref);
}

/* Reference ticks since @p t0 (the reference wraps far less often than a run's longest wait). */
static uint64_t ref_since(const bench_stress_t *s, uint64_t t0) {
  return (ref_read(s) - t0) & utim_max(s->cfg.ref);
}

/* ---- the callbacks ------------------------------------------------------------- */

/* Whether the armed value has been reached now (exact: the TUT's own count,
 * or the manager's time). */
static bool reached(const bench_stress_t *s) {
  if (s->cfg.api == BENCH_STRESS_UAPI) {
    const uint64_t max = utim_max(s->cfg.tut);
    return ((utim_read(s->cfg.tut) - s->target) & max) <= (max >> 1);
  }
  return utim_tm_now(s->cfg.tm) - s->target < HALF64;
}

/* A callback's first instructions (interrupt context, under the port lock). */
static void record(bench_stress_t *s) {
  const uint64_t t = ref_read(s);
  if (!s->armed) {
    /* A load and a store, not a read-modify-write (Cortex-M0 has none):
     * callbacks run one at a time, under the port lock. The first arming of
     * a rescheduled operation may fire before the re-arming when the thread
     * is held off longer than its lead (preempted, on a real-time board):
     * correct, and counted apart; anything else is unexpected. */
    atomic_uint *c = s->first_pending ? &s->first_fired_cb : &s->unexpected_cb;
    s->first_pending = false;
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1u,
                          memory_order_relaxed);
    return;
  }
  s->t_cb = t;
  s->cb_early = !reached(s);
  s->armed = false;
  atomic_store_explicit(&s->fired, true, memory_order_release);
}

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  bench_stress_t *s = arg;
  (void)p;
  if (ch == s->cfg.ch) {
    record(s);
  }
}

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
static void on_timer(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  record(arg);
}

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_wake_fn
static void on_wake(utim_tm_t *tm, unsigned id, void *arg) {
  (void)tm;
  (void)id;
  record(arg);
}

/* ---- set-up ----------------------------------------------------------------------- */

static void stat_add(bench_stress_stat_t *st, double x) {
  const int64_t xi = (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
  if (st->n == 0u || xi < st->min) {
    st->min = xi;
  }
  if (st->n == 0u || xi > st->max) {
    st->max = xi;
  }
  st->n++;
  const double d = x - st->mean;
  st->mean += d / (double)st->n;
  st->m2 += d * (x - st->mean);
}

double bench_stress_var(const bench_stress_stat_t *st) {
  return st->n < 2u ? 0.0 : st->m2 / (double)(st->n - 1u);
}

bool bench_stress_sic(const bench_stress_t *s, const bench_stress_stat_t *st) {
  if (st->n == 0u) {
    return false;
  }
  const double m = st->mean < 0 ? -st->mean : st->mean;
  return m > s->limit_mean || bench_stress_var(st) > s->limit_var;
}

const char *bench_stress_fn_name(bench_stress_fn_t fn) {
  static const char *const names[BENCH_STRESS_NFN] = {"set_rel", "set_abs", "tm_start",
                                                      "tm_start_at", "task_delay"};
  return (unsigned)fn < BENCH_STRESS_NFN ? names[fn] : "?";
}

bool bench_stress_has_fn(const bench_stress_t *s, bench_stress_fn_t fn) {
  return s->cfg.api == BENCH_STRESS_UAPI ? fn <= BENCH_STRESS_SET_ABS
                                         : fn >= BENCH_STRESS_TM_START && fn < BENCH_STRESS_NFN;
}

/* Reference ticks per TUT tick. */
static double ref_per_tick(const bench_stress_t *s) {
  return (double)s->ref_hz / (double)s->tut_hz;
}

/* Calibrate the random delay: spin_max steps last about SPIN_TARGET_TICKS
 * ticks of the TUT (or one manager tick, when longer) unless the caller chose; spin_ticks: its
 * longest run in TUT ticks, with margin (what a rescheduled first arming must outlast). */
static void calibrate_spin(bench_stress_t *s) {
  const uint64_t t0 = ref_read(s);
  for (unsigned i = 0; i < SPIN_CAL_STEPS; i++) {
    utim_port_relax();
  }
  double step_ticks = (double)ref_since(s, t0) / ref_per_tick(s) / SPIN_CAL_STEPS;
  if (step_ticks <= 0.0) {
    step_ticks = 1.0 / SPIN_CAL_STEPS; /* below the reference's resolution */
  }
  if (s->cfg.spin_max == 0u) {
    /* At least one manager tick when it is ticked: the operations would be
     * phase-locked to the tick otherwise. */
    const double target = s->tick > SPIN_TARGET_TICKS ? (double)s->tick : SPIN_TARGET_TICKS;
    const double steps = target / step_ticks;
    s->cfg.spin_max = steps > 1e6 ? 1000000u : steps < 1.0 ? 1u : (uint32_t)steps;
  }
  s->spin_ticks = (uint64_t)(2.0 * step_ticks * s->cfg.spin_max) + 8u;
}

int bench_stress_init(bench_stress_t *s, const bench_stress_cfg_t *cfg) {
  if (s == NULL || cfg == NULL || cfg->tut == NULL || cfg->ref == NULL || cfg->wait == NULL ||
      cfg->limit == 0u || cfg->min_abs > cfg->limit || utim_freq(cfg->tut) == 0u ||
      utim_freq(cfg->ref) == 0u) {
    return -EINVAL;
  }
  if (cfg->api == BENCH_STRESS_UAPI ? cfg->ch >= utim_channels(cfg->tut)
                                    : cfg->tm == NULL || cfg->tasks == NULL || !cfg->tm->running ||
                                          cfg->tasks->n == 0u || cfg->tasks->tm != cfg->tm) {
    return -EINVAL;
  }
  *s = (bench_stress_t){.cfg = *cfg};
  s->rng = cfg->seed;
  s->tut_hz = utim_freq(cfg->tut);
  s->ref_hz = utim_freq(cfg->ref);
  s->tick = cfg->api == BENCH_STRESS_TM && cfg->tm->mode == UTIM_TM_TICKED ? cfg->tm->tick : 1u;
  s->limit = cfg->limit;
  if (cfg->api == BENCH_STRESS_UAPI) {
    s->limit = cfg->limit < (utim_max(cfg->tut) >> 1) ? cfg->limit : utim_max(cfg->tut) >> 1;
    s->can_stop = (utim_caps(cfg->tut) & UTIM_CAP_STOP) != 0u;
  }
  if (s->cfg.min_abs > s->limit || s->limit == 0u) {
    return -EINVAL;
  }
  atomic_init(&s->fired, false);
  atomic_init(&s->unexpected_cb, 0u);
  atomic_init(&s->first_fired_cb, 0u);
  int rc;
  if (cfg->api == BENCH_STRESS_UAPI) {
    rc = utim_set_compare_cb(cfg->tut, on_compare, s);
  } else {
    utim_tm_timer_init(&s->timer, on_timer, s);
    const uint32_t key = utim_port_lock();
    cfg->tasks->hook = on_wake;
    cfg->tasks->hook_arg = s;
    utim_port_unlock(key);
    rc = 0;
  }
  if (rc != 0) {
    return rc;
  }
  calibrate_spin(s);
  /* SIC! limits: |mean| beyond two steps of expiry (a TUT tick, or the
   * manager's tick); a standard deviation beyond twice the quantisation of
   * that step in reference ticks (uniform: step / sqrt(12)) plus two ticks. */
  const double step = ref_per_tick(s) * (double)s->tick;
  s->limit_mean = 2.0 * (step > 1.0 ? step : 1.0);
  const double q = step > 1.0 ? step * 0.28867513459481287 : 0.0; /* 1 / sqrt(12) */
  s->limit_var = (2.0 * q + 2.0) * (2.0 * q + 2.0);
  return 0;
}

/* Read the armed-against time and the reference before an arming: the
 * reference first, so the measured span contains the whole arming. */
static uint64_t read_base(const bench_stress_t *s, uint64_t *t0) {
  *t0 = ref_read(s);
  return s->cfg.api == BENCH_STRESS_UAPI ? utim_read(s->cfg.tut) : utim_tm_now(s->cfg.tm);
}

void bench_stress_overhead(bench_stress_t *s, unsigned n) {
  bench_stress_stat_t st = {0};
  for (unsigned i = 0; i < n; i++) {
    spin(s);
    uint64_t t0 = 0;
    (void)read_base(s, &t0);
    const uint32_t key = utim_port_lock();
    const uint64_t t1 = ref_read(s); /* as the callback's first read */
    utim_port_unlock(key);
    stat_add(&st, (double)((t1 - t0) & utim_max(s->cfg.ref)));
  }
  s->overhead_mean = st.mean;
  s->overhead_var = bench_stress_var(&st);
  const double lim = 2.0 + st.mean / 2.0;
  s->overhead_warning = s->overhead_var > lim * lim;
}

/* Arm with @p fn for @p v ticks from @p base (the count or time read just
 * before); returns the arming call's result. */
static int arm(bench_stress_t *s, bench_stress_fn_t fn, uint64_t base, uint64_t v) {
  const utim_periph_t *p = s->cfg.tut;
  switch (fn) {
  case BENCH_STRESS_SET_REL:
    return utim_set_rel(p, s->cfg.ch, v);
  case BENCH_STRESS_SET_ABS:
    return utim_set_abs(p, s->cfg.ch, (base + v) & utim_max(p));
  case BENCH_STRESS_TM_START:
    return utim_tm_start(s->cfg.tm, &s->timer, v, 0u);
  case BENCH_STRESS_TM_START_AT:
    return utim_tm_start_at(s->cfg.tm, &s->timer, base + v, 0u);
  case BENCH_STRESS_TASK_DELAY:
  default:
    return utim_tm_task_delay(s->cfg.tasks, 0u, v);
  }
}

/* Take back whatever may still be armed (after a lost or refused arming). */
static void disarm(bench_stress_t *s) {
  if (s->cfg.api == BENCH_STRESS_UAPI) {
    (void)utim_clear(s->cfg.tut, s->cfg.ch);
  } else {
    (void)utim_tm_stop(s->cfg.tm, &s->timer);
    (void)utim_tm_task_clear(s->cfg.tasks, 0u);
  }
}

/* Draw the interval for @p fn: a log2 bucket uniformly, a value in it uniformly. */
static uint64_t draw(bench_stress_t *s, bench_stress_fn_t fn) {
  const uint64_t lo_min = fn == BENCH_STRESS_SET_ABS && s->cfg.min_abs > 1u ? s->cfg.min_abs : 1u;
  const unsigned lb = log2_floor(lo_min);
  const unsigned hb = log2_floor(s->limit);
  const unsigned b = lb + (unsigned)rnd_below(s, (uint64_t)(hb - lb) + 1u);
  const uint64_t lo = (uint64_t)1 << b;
  const uint64_t hi = b < 63u && (lo << 1) - 1u < s->limit ? (lo << 1) - 1u : s->limit;
  const uint64_t v = lo + rnd_below(s, hi - lo + 1u);
  return v < lo_min ? lo_min : v;
}

/* Wait for the callback, or until it is lost; returns whether it came. */
static bool wait_fired(bench_stress_t *s, uint64_t t0, double bound) {
  while (!atomic_load_explicit(&s->fired, memory_order_acquire)) {
    if ((double)ref_since(s, t0) > bound) {
      const uint32_t key = utim_port_lock();
      const bool came = atomic_load_explicit(&s->fired, memory_order_acquire);
      s->armed = false;
      utim_port_unlock(key);
      return came;
    }
    s->cfg.wait(s->cfg.wait_ctx);
  }
  return true;
}

/* One operation. */
static void one(bench_stress_t *s) {
  const utim_periph_t *p = s->cfg.tut;
  const bench_stress_fn_t fn =
      s->cfg.api == BENCH_STRESS_UAPI
          ? (bench_stress_fn_t)rnd_below(s, 2u)
          : (bench_stress_fn_t)(BENCH_STRESS_TM_START + (unsigned)rnd_below(s, 3u));
  const uint64_t coin = rnd(s);
  bool resched = (coin & 1u) != 0u;
  const bool stopped = s->can_stop && (coin & 2u) != 0u;
  uint64_t v = draw(s, fn);
  /* Rescheduled: first armed this much later, so that it outlasts the
   * random delay before the real arming; where the counter's range leaves
   * no room for that, the operation is not rescheduled. */
  const uint64_t gap = v + s->spin_ticks;
  const uint64_t cap = s->cfg.api == BENCH_STRESS_UAPI ? utim_max(p) >> 1 : HALF64 >> 2;
  if (resched && (gap > cap || v > cap - gap)) {
    resched = false;
  }
  if (stopped) {
    (void)utim_stop(p);
    spin(s);
  }
  if (resched) {
    uint64_t t = 0;
    const uint32_t k = utim_port_lock();
    s->first_pending = true;
    utim_port_unlock(k);
    const uint64_t base = read_base(s, &t);
    (void)arm(s, fn, base, v + gap);
  }
  spin(s);
  /* The value it fires at, and its distance from the base read. */
  uint64_t eff = v;
  if (fn == BENCH_STRESS_SET_REL && eff < utim_min_distance(p)) {
    eff = utim_min_distance(p); /* stretched, as documented */
  }
  uint64_t t0 = 0;
  uint32_t key = utim_port_lock();
  const uint64_t base = read_base(s, &t0);
  s->target = s->cfg.api == BENCH_STRESS_UAPI ? (base + eff) & utim_max(p) : base + eff;
  s->armed = true;
  s->first_pending = false;
  atomic_store_explicit(&s->fired, false, memory_order_relaxed);
  /* Armed under the same lock: a rescheduled operation's first arming that
   * comes due now (the thread held off past its lead) waits behind the lock
   * and is then replaced by this one, instead of firing between the lines
   * above and the re-arming and being taken for this arming's callback
   * (seen under ASan: counted as the real one, then the real one came as
   * an unexpected callback). */
  const int rc = arm(s, fn, base, v);
  utim_port_unlock(key);
  if (stopped) {
    spin(s);
    t0 = ref_read(s);
    (void)utim_start(p);
  }
  s->ops++;
  const unsigned c = BENCH_STRESS_CAT(fn, resched, stopped);
  if (rc != 0) {
    key = utim_port_lock();
    s->armed = false;
    utim_port_unlock(key);
    disarm(s);
    s->refused++;
    s->last_error = rc;
    return;
  }
  const double expect = (double)eff * ref_per_tick(s);
  const double bound =
      expect + (double)s->tick * ref_per_tick(s) + s->overhead_mean + (double)s->cfg.lost_ref;
  if (!wait_fired(s, t0, bound)) {
    disarm(s);
    s->lost++;
    return;
  }
  if (s->cb_early) {
    s->early++;
  }
  const double d = (double)((s->t_cb - t0) & utim_max(s->cfg.ref)) - expect - s->overhead_mean;
  stat_add(&s->cat[c], d);
  stat_add(&s->bucket[log2_floor(v)], d);
  if (fn == BENCH_STRESS_TASK_DELAY) {
    uint32_t w[1];
    (void)utim_tm_tasks_to_wake(s->cfg.tasks, w, 1u);
  }
}

void bench_stress_run(bench_stress_t *s, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) {
    one(s);
  }
  /* Callbacks counted under the port lock: read once more after this. */
  const uint32_t key = utim_port_lock();
  s->unexpected = atomic_load_explicit(&s->unexpected_cb, memory_order_relaxed);
  s->first_fired = atomic_load_explicit(&s->first_fired_cb, memory_order_relaxed);
  utim_port_unlock(key);
}

void bench_stress_finish(bench_stress_t *s) {
  disarm(s);
  if (s->cfg.api == BENCH_STRESS_UAPI) {
    (void)utim_set_compare_cb(s->cfg.tut, NULL, NULL);
  } else {
    const uint32_t key = utim_port_lock();
    s->cfg.tasks->hook = NULL;
    s->cfg.tasks->hook_arg = NULL;
    utim_port_unlock(key);
  }
  bench_stress_run(s, 0u);
}
