/*
 * Linux time source: picks the best reliable counter (or the one the user
 * names; ratings in clocksource_probe.c), calibrates a CPU counter against
 * CLOCK_MONOTONIC_RAW and publishes a mult/shift conversion that utim_now()
 * reads without locks (utim_seqlock.h). Re-fits happen on the slow path of
 * utim_now() itself, once a second of ticks has passed since the base point,
 * so no background thread is needed and an idle process costs nothing.
 *
 * The first calibration is the board's one probe of the CPU counter
 * (tsc_native.c), so the NATIVE_TSC instance and utim_now() share one
 * measured frequency. Lock order: the port lock, then native_cs_lock:
 * native_cs_lock is never held while the port lock is taken (the fork()
 * handlers take the port lock first), and a thread holding the port lock
 * may wait for it (a callback calling this API; utim_now() only try-locks
 * it); fork() handlers keep it usable in a child.
 */
/* For clockid_t and clock_gettime; the build may define it already. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT: a feature-test macro is reserved by design
#endif

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocksource_internal.h"
#include "utim/port.h"

/* Re-fit period in ticks of the counter: one second. */
#define REFIT_SECONDS 1u
/* Largest slew of the offset correction: 1 / 10000 = 100 ppm. */
#define SLEW_DIV 10000
/* Brackets tried per sample of a switch (the narrowest wins). */
#define SWITCH_TRIES 16u
/* Brackets tried per re-fit sample: it runs on a read path. */
#define REFIT_TRIES 4u
/*
 * Monotonicity across a publication (a re-fit or a switch) is enforced by
 * publish() itself: inside the write section it reads the old time line,
 * then the new one, and raises the new one to the old one's value when it is
 * below (no fixed forward step, so frequent publications add no offset).
 * A re-fit whose publication comes more than REFIT_MAX_LAG_NS after its
 * sample is redone, so that raise stays within ~200 ppm (slope change) x
 * 20 us = 4 ns. Forced re-fits (utim_clocksource_refit()) are skipped while
 * the base point is younger than REFIT_MIN_AGE_NS: each re-fit may still
 * lose or gain a ns of rounding, which at most 1000 re-fits a second keeps
 * far below the 100 ppm the slew removes.
 */
#define REFIT_MAX_LAG_NS 20000
#define REFIT_MIN_AGE_NS 1000000

_Alignas(64) utim_cs_fast_t utim_cs_fast_data;

const char *const native_cs_names[UTIM_CS_COUNT] = {
    "NATIVE_TSC", "NATIVE_CNTVCT", "NATIVE_MONOTONIC", "NATIVE_MONOTONIC_RAW", "NATIVE_BOOTTIME",
};

const clockid_t native_cs_clocks[3] = {CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME};

native_cs_state_t native_cs;
pthread_mutex_t native_cs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

/* ---- the published conversion ------------------------------------------------ */

/*
 * A consistent copy of the published state; false when a writer interfered.
 * s->seq lets the caller check later that nothing was published meanwhile.
 */
bool native_cs_snap_read(native_cs_snap_t *s) {
  utim_cs_fast_t *f = &utim_cs_fast_data;
  uint32_t seq = utim_seq_read_begin(&f->seq);
  s->seq = seq;
  s->mult = UTIM_SEQ_LOAD(f->mult);
  s->base_ticks = UTIM_SEQ_LOAD(f->base_ticks);
  s->base_ns = UTIM_SEQ_LOAD(f->base_ns);
  s->limit = UTIM_SEQ_LOAD(f->limit);
  s->shift = UTIM_SEQ_LOAD(f->shift);
  s->mode = UTIM_SEQ_LOAD(f->mode);
  s->clk = UTIM_SEQ_LOAD(f->clk);
  return !utim_seq_read_retry(&f->seq, seq);
}

/*
 * The conversion at any counter value, exactly (128-bit), before the base
 * point too: floor of the exact value on both sides, as the fast path.
 */
static int64_t eval_counter(const native_cs_snap_t *s, uint64_t t) {
  uint64_t d = t - s->base_ticks;
  uint64_t q;
  if (d <= (uint64_t)INT64_MAX) {
    (void)utim_muldiv(d, s->mult, UINT64_C(1) << s->shift, UTIM_ROUND_FLOOR, &q);
    return utim_ns_add(s->base_ns, native_cs_sat_i64(q));
  }
  (void)utim_muldiv(0u - d, s->mult, UINT64_C(1) << s->shift, UTIM_ROUND_CEIL, &q);
  return utim_ns_sub(s->base_ns, native_cs_sat_i64(q));
}

/* The value the line `s` gives now, read from its source (ordered). */
static int64_t eval_now(const native_cs_snap_t *s) {
  if (s->mode == NATIVE_CS_MODE_CLOCK) {
    return utim_ns_add(utim_native_clock_ns((clockid_t)s->clk), s->base_ns);
  }
  return eval_counter(s, utim_native_cpu_count_ordered());
}

/*
 * Publish `n` in place of `cur` (the published conversion, read under
 * native_cs_lock: writers hold it, so there is one at a time). No reading
 * may go back: inside the write section, where no reader completes a read,
 * the old line is read, then the new one, and the new one is raised to the
 * old one's value when below it. Every reading completed before is at most
 * the first value (its source was read before the write section began),
 * every reading after at least the second. n->base_ns gets the raise.
 */
static void publish(const native_cs_snap_t *cur, native_cs_snap_t *n) {
  utim_cs_fast_t *f = &utim_cs_fast_data;
  /* utim_seq_write_begin() as a full barrier, so the odd count is visible to
   * every reader before the old line is read: a seq_cst read-modify-write
   * (ThreadSanitizer does not support fences). */
  (void)__atomic_fetch_add(&f->seq, 1u, __ATOMIC_SEQ_CST);
  if (cur->mode != NATIVE_CS_MODE_NONE) {
    int64_t was = eval_now(cur);
    int64_t is = eval_now(n);
    if (is < was) {
      n->base_ns = utim_ns_add(n->base_ns, was - is);
    }
  }
  UTIM_SEQ_STORE(f->limit, n->limit);
  UTIM_SEQ_STORE(f->mult, n->mult);
  UTIM_SEQ_STORE(f->shift, n->shift);
  UTIM_SEQ_STORE(f->base_ticks, n->base_ticks);
  UTIM_SEQ_STORE(f->base_ns, n->base_ns);
  UTIM_SEQ_STORE(f->clk, n->clk);
  UTIM_SEQ_STORE(f->mode, n->mode);
  utim_seq_write_end(&f->seq);
}

/* ---- re-fit ------------------------------------------------------------------ */

/* The new conversion from sample `s`; false when no slope could be computed. */
static bool refit_compute(const native_cs_snap_t *cur, const native_cpu_sample_t *s,
                          native_cs_snap_t *out) {
  int64_t now = eval_counter(cur, s->ticks);
  int64_t err = now - (s->raw + native_cs.steer);
  uint64_t period = native_cs.refit_ticks;
  uint64_t dt = s->ticks - native_cs.anchor.ticks;
  int64_t dr = s->raw - native_cs.anchor.raw;
  uint64_t ns_per_period;
  if (dt == 0u || dt > (uint64_t)INT64_MAX || dr <= 0 ||
      utim_muldiv((uint64_t)dr, period, dt, UTIM_ROUND_NEAREST, &ns_per_period) != 0) {
    /* No usable baseline (cannot happen after calibration): keep the slope. */
    ns_per_period = (period * cur->mult) >> cur->shift;
  }
  int64_t slew = (int64_t)(ns_per_period / SLEW_DIV);
  int64_t corr = err > slew ? slew : (err < -slew ? -slew : err);
  uint64_t want = (uint64_t)((int64_t)ns_per_period - corr);
  utim_mult_shift_t ms;
  if (want == 0u || utim_mult_shift_calc(&ms, want, period, 2u * period) != 0) {
    return false;
  }
  *out = *cur;
  out->mult = ms.mult;
  out->shift = ms.shift;
  out->base_ticks = s->ticks;
  out->base_ns = now;
  out->limit = period;
  native_cs.last_offset = err;
  return true;
}

/*
 * New base point at a fresh sample, continuous with the current conversion.
 * The slope is the rate measured over the whole time since calibration
 * (its error shrinks as the baseline grows), corrected so the offset to the
 * steering target vanishes over the next period (slewed, at most 100 ppm).
 * Returns whether a new conversion was published.
 */
static bool refit_locked(void) {
  native_cs_snap_t cur;
  while (!native_cs_snap_read(&cur)) {
  }
  uint64_t lag_max = utim_ns_to_ticks((uint64_t)REFIT_MAX_LAG_NS, native_cs.hz);
  for (int attempt = 0; attempt < 3; attempt++) {
    native_cpu_sample_t s = native_cpu_sample(REFIT_TRIES);
    native_cs_snap_t n;
    if (!refit_compute(&cur, &s, &n)) {
      return false;
    }
    /* Preempted since the sample: the continuity bound does not hold, redo. */
    // cppcheck-suppress knownConditionTrueFalse ; constant only without a CPU counter (no re-fits)
    if (utim_native_cpu_count_ordered() - s.ticks > lag_max) {
      continue;
    }
    publish(&cur, &n);
    native_cs.refits++;
    return true;
  }
  return false;
}

utim_ns_t utim_cs_now_slow(void) {
  for (;;) {
    native_cs_snap_t s;
    if (!native_cs_snap_read(&s)) {
      continue;
    }
    if (s.mode == NATIVE_CS_MODE_NONE) {
      (void)utim_clocksource_init();
      continue;
    }
    int64_t v;
    uint64_t t = 0u;
    if (s.mode == NATIVE_CS_MODE_CLOCK) {
      v = utim_native_clock_ns((clockid_t)s.clk) + s.base_ns;
    } else {
      t = utim_native_cpu_count();
      v = eval_counter(&s, t);
    }
    /* A conversion published meanwhile may not match the reading: read again. */
    if (utim_seq_read_retry(&utim_cs_fast_data.seq, s.seq)) {
      continue;
    }
    uint64_t d = t - s.base_ticks;
    if (s.mode == NATIVE_CS_MODE_COUNTER && d >= s.limit && d <= (uint64_t)INT64_MAX &&
        pthread_mutex_trylock(&native_cs_lock) == 0) {
      /* Still due once the lock is ours? Another thread may have re-fitted. */
      native_cs_snap_t again;
      bool done = false;
      if (native_cs_snap_read(&again) && again.mode == NATIVE_CS_MODE_COUNTER &&
          utim_native_cpu_count() - again.base_ticks >= again.limit) {
        done = refit_locked();
      }
      pthread_mutex_unlock(&native_cs_lock);
      if (done) {
        continue;
      }
    }
    return v;
  }
}

/* ---- calibration and switching ----------------------------------------------- */

/* The counter's rate, from the board's probe: two samples about 20 ms apart. */
static int calibrate(void) {
  const native_cpu_probe_t *p = native_cpu_probe();
  const uint64_t hz = p->info.measured_hz;
  if (hz == 0u) {
    return -EIO;
  }
  native_cs.hz = hz;
  native_cs.anchor = p->first;
  native_cs.refit_ticks = hz * REFIT_SECONDS;
  native_cs.cal_window = p->second.raw - p->first.raw;
  native_cs.cal_bracket = (utim_ns_t)p->info.measure_bracket_ns;
  native_cs.calibrated = true;
  return 0;
}

/*
 * Make `id` the published source. With `keep`, utim_now() continues from
 * the value the old source gives now; without (at start), the new source's
 * own time line is used (CLOCK_MONOTONIC_RAW's for a counter). The old time
 * is read first and the new source sampled after, so a delay between the
 * two (the sample's brackets, a preemption) makes the new line start
 * behind, never ahead: publish() then raises it to the old line's value at
 * the moment of publication, so the switch adds no step forward (only the
 * few ns between publish()'s two reads are lost). (Read the other
 * way round, the new line started ahead by that delay: about 1 us per
 * switch to a counter, and the whole preemption when the switching thread
 * was preempted between the two reads.)
 */
static int switch_to(int id, bool keep) {
  native_cs_snap_t cur;
  while (!native_cs_snap_read(&cur)) {
  }
  native_cs_snap_t n = {0};
  if (id == native_cs.counter) {
    if (!native_cs.calibrated && calibrate() != 0) {
      return -EIO;
    }
    int64_t old = keep ? utim_now() : 0;
    native_cpu_sample_t s = native_cpu_sample(SWITCH_TRIES);
    int64_t base = keep ? old : s.raw;
    uint64_t dt = s.ticks - native_cs.anchor.ticks;
    int64_t dr = s.raw - native_cs.anchor.raw;
    utim_mult_shift_t ms;
    if (dt == 0u || dr <= 0 ||
        utim_mult_shift_calc(&ms, (uint64_t)dr, dt, 2u * native_cs.refit_ticks) != 0) {
      return -EIO;
    }
    n.mode = NATIVE_CS_MODE_COUNTER;
    n.mult = ms.mult;
    n.shift = ms.shift;
    n.base_ticks = s.ticks;
    n.base_ns = base;
    n.limit = native_cs.refit_ticks;
    publish(&cur, &n);
    /* Steered to the line as published (raised or not). */
    native_cs.steer = n.base_ns - s.raw;
  } else {
    if (id < UTIM_CS_MONOTONIC || id >= UTIM_CS_COUNT) {
      return -ENOTSUP; /* the other architecture's counter */
    }
    clockid_t c = native_cs_clocks[id - UTIM_CS_MONOTONIC];
    int64_t old = keep ? utim_now() : 0;
    int64_t clock_now = keep ? utim_native_clock_ns(c) : 0;
    n.mode = NATIVE_CS_MODE_CLOCK;
    n.clk = (int32_t)c;
    n.base_ns = utim_ns_sub(old, clock_now);
    n.limit = 0u;
    publish(&cur, &n);
  }
  native_cs.cur = id;
  native_cs.refits = 0u;
  native_cs.last_offset = 0;
  return 0;
}

/*
 * Calibrating can fail only if the clocks misbehave: at start the best
 * clock_gettime clock then serves; later the previous source stays.
 */
static void choose(int id, int how, bool keep) {
  if (switch_to(id, keep) == 0) {
    native_cs.how = how;
    return;
  }
  native_cs.rep.cand[id].rating =
      native_cs.rep.cand[id].rating > 1 ? 1 : native_cs.rep.cand[id].rating;
  native_cs.rep.cand[id].why = "calibration against CLOCK_MONOTONIC_RAW failed";
  native_cs.rep.cand[id].flags &= ~UTIM_CS_F_RELIABLE;
  if (!keep) {
    (void)switch_to(native_cs_best(), false);
    native_cs.how = UTIM_CS_AUTO;
  }
}

/* Around fork(): native_cs_lock is held by the forking thread, so the
 * child's copy is not left held by a thread the child does not have (its
 * selection, report and drift calls would wait for it forever); the child
 * gets a fresh lock. The port lock is taken first, as everywhere else (a
 * callback, which runs with it held, may call this API): taken after, in
 * the port's own prepare handler, which runs after this one when the port
 * registered first, a thread holding the port lock and waiting for this
 * one deadlocked fork(). The port's child handler gives the child its lock
 * back at the depth the port's prepare handler found. */
static uint32_t fork_port_key;

static void fork_prepare(void) {
  fork_port_key = utim_port_lock();
  pthread_mutex_lock(&native_cs_lock);
}

static void fork_parent(void) {
  pthread_mutex_unlock(&native_cs_lock);
  utim_port_unlock(fork_port_key);
}

static void fork_child(void) {
  (void)pthread_mutex_init(&native_cs_lock, NULL);
  /* After the port's child handler (it registered first), which gave the
   * child the lock at a depth that counts ours; before it, this unlock of
   * the parent's copy does nothing and that handler sets the depth. */
  utim_port_unlock(fork_port_key);
}

static void init_once(void) {
  (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
  pthread_mutex_lock(&native_cs_lock);
  native_cs_probe();
  if (native_cs.counter >= 0) {
    (void)calibrate();
  }
  int id = native_cs_best();
  int how = UTIM_CS_AUTO;
  const char *env = getenv("UTIM_CLOCKSOURCE");
  if (env != NULL && env[0] != '\0' && !native_cs_ieq(env, "auto")) {
    int e = native_cs_find(env);
    native_cs.env_value = env;
    if (e < 0) {
      native_cs.env = NATIVE_CS_ENV_UNKNOWN;
    } else if (native_cs.rep.cand[e].rating <= 0) {
      native_cs.env = NATIVE_CS_ENV_ABSENT;
    } else {
      id = e;
      how = UTIM_CS_ENV;
    }
  }
  choose(id, how, false);
  if (how == UTIM_CS_ENV) {
    /* Honoured only if it is in use: a counter that fails to calibrate is not. */
    native_cs.env = native_cs.cur == id ? NATIVE_CS_ENV_HONOURED : NATIVE_CS_ENV_FAILED;
  }
  /* After the choice, so the warning names the source actually used. Once:
   * this body runs once per process. */
  if (native_cs.env != NATIVE_CS_ENV_UNSET && native_cs.env != NATIVE_CS_ENV_HONOURED) {
    native_cs_warn_env();
  }
  pthread_mutex_unlock(&native_cs_lock);
}

/* ---- public API -------------------------------------------------------------- */

int utim_clocksource_init(void) {
  (void)pthread_once(&cs_once, init_once);
  return 0;
}

int utim_clocksource_select(const char *name) {
  (void)utim_clocksource_init();
  int id;
  int how = UTIM_CS_API;
  if (name == NULL || native_cs_ieq(name, "auto")) {
    how = UTIM_CS_AUTO;
    id = -1;
  } else {
    id = native_cs_find(name);
    if (id < 0) {
      return -ENOENT;
    }
  }
  pthread_mutex_lock(&native_cs_lock);
  if (id < 0) {
    id = native_cs_best();
  }
  int rc = 0;
  if (native_cs.rep.cand[id].rating <= 0) {
    rc = -ENOTSUP;
  } else if (id == native_cs.cur) {
    native_cs.how = how;
  } else {
    choose(id, how, true);
    rc = native_cs.cur == id ? 0 : -EIO;
  }
  pthread_mutex_unlock(&native_cs_lock);
  return rc;
}

const char *utim_clocksource_name(void) {
  (void)utim_clocksource_init();
  pthread_mutex_lock(&native_cs_lock);
  const char *n = native_cs_names[native_cs.cur];
  pthread_mutex_unlock(&native_cs_lock);
  return n;
}

int utim_clocksource_refit(void) {
  (void)utim_clocksource_init();
  if (pthread_mutex_trylock(&native_cs_lock) != 0) {
    return -EBUSY;
  }
  if (native_cs.cur == native_cs.counter) {
    /* Not again while the base point is younger than REFIT_MIN_AGE_NS. */
    native_cs_snap_t s;
    while (!native_cs_snap_read(&s)) {
    }
    uint64_t min_age = utim_ns_to_ticks((uint64_t)REFIT_MIN_AGE_NS, native_cs.hz);
    if (utim_native_cpu_count_ordered() - s.base_ticks >= min_age) {
      (void)refit_locked();
    }
  }
  pthread_mutex_unlock(&native_cs_lock);
  return 0;
}
