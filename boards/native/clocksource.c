/*
 * Linux time source: rates the counters the machine offers, picks the best
 * reliable one (or the one the user names), calibrates a CPU counter against
 * CLOCK_MONOTONIC_RAW and publishes a mult/shift conversion that utim_now()
 * reads without locks (sequence lock). Re-fits happen on the slow path of
 * utim_now() itself, once a second of ticks has passed since the base point,
 * so no background thread is needed and an idle process costs nothing.
 *
 * No heap and no stdio: files are read with open/read into stack buffers and
 * the reason text is built by hand.
 */
/* For pthread_attr_setaffinity_np, CPU_* macros; the build may define it already. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT: a feature-test macro is reserved by design
#endif

#include "clocksource.h"

#include "board_native.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define CS_X86 1
#else
#define CS_X86 0
#endif
#if defined(__aarch64__)
#define CS_ARM64 1
#else
#define CS_ARM64 0
#endif

/* Mode values of utim_cs_fast_t. */
#define MODE_NONE    0u
#define MODE_COUNTER 1u
#define MODE_CLOCK   2u

/* Re-fit period in ticks of the counter: one second. */
#define REFIT_SECONDS 1u
/* Largest slew of the offset correction: 1 / 10000 = 100 ppm. */
#define SLEW_DIV 10000
/* Length of the first calibration. */
#define CAL_WINDOW_NS (20 * UTIM_NS_PER_MS)
/* Brackets tried per calibration sample (the narrowest wins). */
#define CAL_TRIES 16
/* Brackets tried per re-fit sample: it runs on a read path. */
#define REFIT_TRIES 4
/*
 * Monotonicity across a re-fit: readers that still use the old slope just
 * after the base point may get up to |slope change| x (publish - base point)
 * more than the new line gives. The slope changes by at most ~200 ppm
 * (slew plus rate update) and a re-fit whose publication comes more than
 * REFIT_MAX_LAG_NS after its sample is redone, so 200 ppm x 20 us = 4 ns of
 * forward step at each re-fit keeps every later reading at or above every
 * earlier one. A source switch steps forward by SWITCH_GUARD_NS likewise.
 */
#define REFIT_GUARD_NS   5
#define REFIT_MAX_LAG_NS 20000
#define SWITCH_GUARD_NS  1000
/*
 * Readings exchanged per CPU pair in the cross-CPU check, its time limit per
 * pair, and the fewest that still count as a check (a busy machine may not
 * schedule both threads often enough for all of them).
 */
#define SYNC_ROUNDS     1000u
#define SYNC_MIN_ROUNDS 100u
#define SYNC_LIMIT_NS   (50 * UTIM_NS_PER_MS)
/* CPUs checked at most (the first usable one against each of the others). */
#define SYNC_MAX_CPUS 256

_Alignas(64) utim_cs_fast_t utim__cs_fast;

static const char *const cs_names[UTIM_CS_COUNT] = {
    "NATIVE_TSC", "NATIVE_CNTVCT", "NATIVE_MONOTONIC", "NATIVE_MONOTONIC_RAW", "NATIVE_BOOTTIME",
};

/* One bracketed reading of the counter against CLOCK_MONOTONIC_RAW. */
typedef struct cs_sample {
  uint64_t ticks; /* counter at the middle of the bracket */
  int64_t raw;    /* CLOCK_MONOTONIC_RAW read inside the bracket */
  uint64_t width; /* bracket width in ticks */
} cs_sample_t;

/* Everything but the published conversion; guarded by cs_lock. */
static struct {
  utim_cs_report_t rep;  /* ratings and checks, filled once by probing */
  int cur;               /* utim_cs_id_t in use */
  int how;               /* utim_cs_how_t */
  int counter;           /* the CPU counter's utim_cs_id_t, -1 when none */
  bool calibrated;       /* the counter's rate is known */
  uint64_t hz;           /* calibrated counter frequency */
  cs_sample_t anchor;    /* first calibration sample: start of the long baseline */
  int64_t steer;         /* utim_now() is steered to CLOCK_MONOTONIC_RAW + steer */
  uint64_t refit_ticks;  /* ticks between re-fits */
  utim_ns_t cal_window;  /* first calibration window */
  utim_ns_t cal_bracket; /* widest bracket of its samples, ns */
  uint64_t refits;       /* re-fits since the source was chosen */
  utim_ns_t last_offset; /* offset found at the last re-fit */
  const char *env_note;  /* what happened to UTIM_CLOCKSOURCE, NULL when unset */
  const char *env_value; /* its value */
} cs;

/* The clock_gettime candidates, from UTIM_CS_MONOTONIC on. */
static const clockid_t clks[3] = {CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME};

static pthread_mutex_t cs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

/* ---- raw reads --------------------------------------------------------------- */

/*
 * The counter read after every earlier instruction has completed, for the
 * calibration brackets and the cross-CPU check.
 */
static inline uint64_t counter_ordered(void) {
#if CS_X86
  uint32_t lo;
  uint32_t hi;
  __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((uint64_t)hi << 32) | lo;
#elif CS_ARM64
  uint64_t v;
  __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
  return v;
#else
  /* No CPU counter here (never used as one): a ns clock keeps the code uniform. */
  return (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
#endif
}

static inline void cpu_relax(void) {
#if CS_X86
  __asm__ volatile("pause" ::: "memory");
#elif CS_ARM64
  __asm__ volatile("yield" ::: "memory");
#endif
}

/* Narrowest of `tries` counter / CLOCK_MONOTONIC_RAW / counter brackets. */
static cs_sample_t take_sample(int tries) {
  cs_sample_t best = {0u, 0, UINT64_MAX};
  for (int i = 0; i < tries; i++) {
    uint64_t t1 = counter_ordered();
    int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    uint64_t t2 = counter_ordered();
    uint64_t w = t2 - t1;
    if (w < best.width) {
      best.ticks = t1 + w / 2u;
      best.raw = r;
      best.width = w;
    }
  }
  return best;
}

/* ---- the published conversion ------------------------------------------------ */

typedef struct cs_snap {
  uint64_t mult;
  uint64_t base_ticks;
  int64_t base_ns;
  uint64_t limit;
  uint32_t shift;
  uint32_t mode;
  int32_t clk;
  uint32_t seq;
} cs_snap_t;

/*
 * A consistent copy of the published state; false when a writer interfered.
 * s->seq lets the caller check later that nothing was published meanwhile.
 */
static bool snap_read(cs_snap_t *s) {
  utim_cs_fast_t *f = &utim__cs_fast;
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

/* Writers hold cs_lock, so there is one at a time. */
static void publish(const cs_snap_t *s) {
  utim_cs_fast_t *f = &utim__cs_fast;
  utim_seq_write_begin(&f->seq);
  UTIM_SEQ_STORE(f->limit, s->limit);
  UTIM_SEQ_STORE(f->mult, s->mult);
  UTIM_SEQ_STORE(f->shift, s->shift);
  UTIM_SEQ_STORE(f->base_ticks, s->base_ticks);
  UTIM_SEQ_STORE(f->base_ns, s->base_ns);
  UTIM_SEQ_STORE(f->clk, s->clk);
  UTIM_SEQ_STORE(f->mode, s->mode);
  utim_seq_write_end(&f->seq);
}

static int64_t sat_i64(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/*
 * The conversion at any counter value, exactly (128-bit), before the base
 * point too: floor of the exact value on both sides, as the fast path.
 */
static int64_t eval_counter(const cs_snap_t *s, uint64_t t) {
  uint64_t d = t - s->base_ticks;
  uint64_t q;
  if (d <= (uint64_t)INT64_MAX) {
    (void)utim_muldiv(d, s->mult, UINT64_C(1) << s->shift, UTIM_ROUND_FLOOR, &q);
    return utim_ns_add(s->base_ns, sat_i64(q));
  }
  (void)utim_muldiv(0u - d, s->mult, UINT64_C(1) << s->shift, UTIM_ROUND_CEIL, &q);
  return utim_ns_sub(s->base_ns, sat_i64(q));
}

/* ---- re-fit ------------------------------------------------------------------ */

/* The new conversion from sample `s`; false when no slope could be computed. */
static bool refit_compute(const cs_snap_t *cur, const cs_sample_t *s, cs_snap_t *out) {
  int64_t now = eval_counter(cur, s->ticks);
  int64_t err = now - (s->raw + cs.steer);
  uint64_t period = cs.refit_ticks;
  uint64_t dt = s->ticks - cs.anchor.ticks;
  int64_t dr = s->raw - cs.anchor.raw;
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
  out->base_ns = now + REFIT_GUARD_NS;
  out->limit = period;
  cs.last_offset = err;
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
  cs_snap_t cur;
  while (!snap_read(&cur)) {
  }
  uint64_t lag_max = utim_ns_to_ticks((uint64_t)REFIT_MAX_LAG_NS, cs.hz);
  for (int attempt = 0; attempt < 3; attempt++) {
    cs_sample_t s = take_sample(REFIT_TRIES);
    cs_snap_t n;
    if (!refit_compute(&cur, &s, &n)) {
      return false;
    }
    /* Preempted since the sample: the continuity bound does not hold, redo. */
    if (counter_ordered() - s.ticks > lag_max) {
      continue;
    }
    publish(&n);
    cs.refits++;
    return true;
  }
  return false;
}

utim_ns_t utim__now_slow(void) {
  for (;;) {
    cs_snap_t s;
    if (!snap_read(&s)) {
      continue;
    }
    if (s.mode == MODE_NONE) {
      (void)utim_clocksource_init();
      continue;
    }
    int64_t v;
    uint64_t t = 0u;
    if (s.mode == MODE_CLOCK) {
      v = utim_native_clock_ns((clockid_t)s.clk) + s.base_ns;
    } else {
      t = utim_native_cpu_count();
      v = eval_counter(&s, t);
    }
    /* A conversion published meanwhile may not match the reading: read again. */
    if (utim_seq_read_retry(&utim__cs_fast.seq, s.seq)) {
      continue;
    }
    uint64_t d = t - s.base_ticks;
    if (s.mode == MODE_COUNTER && d >= s.limit && d <= (uint64_t)INT64_MAX &&
        pthread_mutex_trylock(&cs_lock) == 0) {
      /* Still due once the lock is ours? Another thread may have re-fitted. */
      cs_snap_t again;
      bool done = false;
      if (snap_read(&again) && again.mode == MODE_COUNTER &&
          utim_native_cpu_count() - again.base_ticks >= again.limit) {
        done = refit_locked();
      }
      pthread_mutex_unlock(&cs_lock);
      if (done) {
        continue;
      }
    }
    return v;
  }
}

/* ---- probing ----------------------------------------------------------------- */

/* Read a small file into buf (NUL-terminated); length or -1. */
static ssize_t read_file(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return -1;
  }
  size_t len = 0u;
  while (len + 1u < cap) {
    ssize_t n = read(fd, buf + len, cap - 1u - len);
    if (n <= 0) {
      break;
    }
    len += (size_t)n;
  }
  close(fd);
  buf[len] = '\0';
  return (ssize_t)len;
}

/* Whether the whitespace-separated list `line` (up to its end of line) has `word`. */
static bool has_word(const char *line, const char *word) {
  size_t wl = strlen(word);
  const char *p = line;
  while (*p != '\0' && *p != '\n') {
    while (*p == ' ' || *p == '\t') {
      p++;
    }
    const char *start = p;
    while (*p != '\0' && *p != '\n' && *p != ' ' && *p != '\t') {
      p++;
    }
    if ((size_t)(p - start) == wl && strncmp(start, word, wl) == 0) {
      return true;
    }
  }
  return false;
}

/* The "flags" line of the first CPU in /proc/cpuinfo, or NULL. */
static const char *cpuinfo_flags(char *buf, size_t cap) {
  if (read_file("/proc/cpuinfo", buf, cap) <= 0) {
    return NULL;
  }
  for (const char *p = buf; p != NULL && *p != '\0';) {
    if (strncmp(p, "flags", 5u) == 0) {
      const char *colon = strchr(p, ':');
      return colon != NULL ? colon + 1 : NULL;
    }
    p = strchr(p, '\n');
    if (p != NULL) {
      p++;
    }
  }
  return NULL;
}

static bool ieq(const char *a, const char *b) {
  while (*a != '\0' && *b != '\0') {
    int ca = (unsigned char)*a;
    int cb = (unsigned char)*b;
    ca = (ca >= 'a' && ca <= 'z') ? ca - 'a' + 'A' : ca;
    cb = (cb >= 'a' && cb <= 'z') ? cb - 'a' + 'A' : cb;
    if (ca != cb) {
      return false;
    }
    a++;
    b++;
  }
  return *a == *b;
}

/* Candidate named `name`: the full instance name or without "NATIVE_", any case. */
static int find_candidate(const char *name) {
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (ieq(name, cs_names[i]) || ieq(name, cs_names[i] + 7)) {
      return i;
    }
  }
  return -1;
}

#if CS_X86
/* Nominal TSC frequency from CPUID, and where it came from. */
static uint64_t tsc_nominal_hz(uint8_t *src) {
  unsigned a;
  unsigned b;
  unsigned c;
  unsigned d;
  unsigned max_leaf = __get_cpuid_max(0u, NULL);
  if (max_leaf >= 0x15u) {
    __cpuid_count(0x15u, 0u, a, b, c, d);
    if (a != 0u && b != 0u && c != 0u) {
      *src = UTIM_CS_FREQ_CPUID_15;
      return (uint64_t)c * b / a;
    }
  }
  __cpuid(1u, a, b, c, d);
  if ((c & (1u << 31)) != 0u) { /* running under a hypervisor */
    __cpuid(0x40000000u, a, b, c, d);
    if (a >= 0x40000010u) {
      __cpuid(0x40000010u, a, b, c, d);
      if (a != 0u) {
        *src = UTIM_CS_FREQ_HYPERVISOR;
        return (uint64_t)a * 1000u;
      }
    }
  }
  if (max_leaf >= 0x16u) {
    __cpuid_count(0x16u, 0u, a, b, c, d);
    if ((a & 0xffffu) != 0u) {
      *src = UTIM_CS_FREQ_CPUID_16;
      return (uint64_t)(a & 0xffffu) * 1000000u;
    }
  }
  *src = UTIM_CS_FREQ_UNKNOWN;
  return 0u;
}

static bool tsc_invariant_bit(void) {
  unsigned a;
  unsigned b;
  unsigned c;
  unsigned d;
  if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u) {
    return false;
  }
  __cpuid(0x80000007u, a, b, c, d);
  return (d & (1u << 8)) != 0u;
}
#endif

/* ---- cross-CPU check --------------------------------------------------------- */

typedef struct sync_ctx {
  uint64_t last;    /* last reading, by either side */
  uint32_t turn;    /* whose turn: 0 or 1 */
  uint32_t abort;   /* set on time-out */
  int64_t deadline; /* CLOCK_MONOTONIC time-out */
  uint64_t back[2]; /* largest step back each side saw */
  uint32_t done[2]; /* rounds each side completed */
} sync_ctx_t;

typedef struct sync_arg {
  sync_ctx_t *ctx;
  uint32_t side;
} sync_arg_t;

/*
 * Each side waits for its turn, reads the counter and compares it with the
 * other side's last reading: with synchronised counters a reading taken
 * after seeing another can never be lower.
 */
static void *sync_thread(void *arg) {
  const sync_arg_t *a = arg;
  sync_ctx_t *c = a->ctx;
  for (uint32_t i = 0u; i < SYNC_ROUNDS; i++) {
    unsigned spins = 0u;
    while (__atomic_load_n(&c->turn, __ATOMIC_ACQUIRE) != a->side) {
      if (__atomic_load_n(&c->abort, __ATOMIC_RELAXED) != 0u) {
        return NULL;
      }
      cpu_relax();
      /* The other side may be waiting for a CPU: give ours up now and then. */
      if ((++spins & 0xffu) == 0u) {
        (void)sched_yield();
        if (utim_native_clock_ns(CLOCK_MONOTONIC) > c->deadline) {
          __atomic_store_n(&c->abort, 1u, __ATOMIC_RELAXED);
          return NULL;
        }
      }
    }
    uint64_t prev = __atomic_load_n(&c->last, __ATOMIC_RELAXED);
    uint64_t t = counter_ordered();
    if (t < prev && prev - t > c->back[a->side]) {
      c->back[a->side] = prev - t;
    }
    __atomic_store_n(&c->last, t, __ATOMIC_RELAXED);
    c->done[a->side] = i + 1u;
    __atomic_store_n(&c->turn, 1u - a->side, __ATOMIC_RELEASE);
  }
  return NULL;
}

/* One pair of CPUs; 1 ok, 0 went back, -1 could not run. *rounds: the fewest exchanged. */
static int sync_pair(int cpu0, int cpu1, uint64_t *back, uint32_t *rounds) {
  sync_ctx_t ctx = {0};
  ctx.last = counter_ordered();
  ctx.deadline = utim_native_clock_ns(CLOCK_MONOTONIC) + SYNC_LIMIT_NS;
  sync_arg_t args[2] = {{&ctx, 0u}, {&ctx, 1u}};
  pthread_t th[2];
  int cpus[2] = {cpu0, cpu1};
  int started = 0;
  for (int i = 0; i < 2; i++) {
    pthread_attr_t attr;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[i], &set);
    if (pthread_attr_init(&attr) != 0) {
      break;
    }
    int rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
    if (rc == 0) {
      rc = pthread_create(&th[i], &attr, sync_thread, &args[i]);
    }
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      break;
    }
    started++;
  }
  if (started < 2) {
    __atomic_store_n(&ctx.abort, 1u, __ATOMIC_RELAXED);
  }
  for (int i = 0; i < started; i++) {
    pthread_join(th[i], NULL);
  }
  uint64_t b = ctx.back[0] > ctx.back[1] ? ctx.back[0] : ctx.back[1];
  if (b > *back) {
    *back = b;
  }
  if (b != 0u) {
    return 0; /* a step back is a failure however few readings showed it */
  }
  uint32_t done = ctx.done[0] < ctx.done[1] ? ctx.done[0] : ctx.done[1];
  *rounds = done < *rounds ? done : *rounds;
  return (started < 2 || done < SYNC_MIN_ROUNDS) ? -1 : 1;
}

/* The first usable CPU against every other; sets the SYNC flags of candidate `id`. */
static void sync_check(int id) {
  cpu_set_t set;
  utim_cs_candidate_t *c = &cs.rep.cand[id];
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    c->flags |= UTIM_CS_F_SYNC_SKIPPED;
    return;
  }
  int first = -1;
  int checked = 0;
  int result = 1;
  uint64_t back = 0u;
  uint32_t rounds = SYNC_ROUNDS;
  for (int cpu = 0; cpu < CPU_SETSIZE && checked < SYNC_MAX_CPUS; cpu++) {
    if (!CPU_ISSET(cpu, &set)) {
      continue;
    }
    if (first < 0) {
      first = cpu;
      checked = 1;
      continue;
    }
    int r = sync_pair(first, cpu, &back, &rounds);
    if (r < 0) {
      result = -1;
      break;
    }
    checked++;
    if (r == 0) {
      result = 0;
      break;
    }
  }
  cs.rep.cpus_checked = (uint32_t)checked;
  cs.rep.sync_rounds = rounds;
  cs.rep.sync_backwards = back;
  if (result == 0) {
    c->flags |= UTIM_CS_F_SYNC_FAIL;
  } else if (result < 0 || checked < 2) {
    c->flags |= UTIM_CS_F_SYNC_SKIPPED;
  } else {
    c->flags |= UTIM_CS_F_SYNC_OK;
  }
}

/* ---- rating ------------------------------------------------------------------ */

static void rate_counter(int id, const char *kernel_name) {
  utim_cs_candidate_t *c = &cs.rep.cand[id];
  bool inv = (c->flags & UTIM_CS_F_INVARIANT) != 0u ||
             ((c->flags & UTIM_CS_F_CONSTANT) != 0u && (c->flags & UTIM_CS_F_NONSTOP) != 0u);
  if (id == UTIM_CS_CNTVCT) {
    inv = true; /* the architected generic timer runs at a constant rate */
  }
  if (strcmp(cs.rep.kernel_cs, kernel_name) == 0) {
    c->flags |= UTIM_CS_F_KERNEL;
  }
  if (!inv) {
    c->rating = 50;
    c->why = "counter not invariant (no invariant bit, not constant+nonstop)";
  } else if ((c->flags & UTIM_CS_F_SYNC_FAIL) != 0u) {
    c->rating = 50;
    c->why = "counter goes back between CPUs";
  } else if ((c->flags & UTIM_CS_F_KERNEL) == 0u) {
    c->rating = 150;
    c->why = "the kernel does not use this counter as its clocksource";
  } else {
    /*
     * A cross-CPU check that could not run (one usable CPU, or no second
     * thread got scheduled in time) does not demote the counter: the kernel
     * checked TSC synchronisation at boot before choosing it.
     */
    bool known = (c->flags & UTIM_CS_F_FREQ_KNOWN) != 0u;
    bool synced = (c->flags & UTIM_CS_F_SYNC_OK) != 0u;
    c->rating = known ? 400 : 390;
    c->flags |= UTIM_CS_F_RELIABLE;
    if (synced) {
      c->why = known ? "invariant, monotonic across CPUs, kernel clocksource, frequency known"
                     : "invariant, monotonic across CPUs, kernel clocksource, frequency measured";
    } else {
      c->why = known ? "invariant, kernel clocksource (cross-CPU check not run), frequency known"
                     : "invariant, kernel clocksource (cross-CPU check not run), frequency "
                       "measured";
    }
  }
}

static void probe(void) {
  char buf[16384];
  cs.counter = -1;
  cs.rep.chosen = UTIM_CS_MONOTONIC;
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    cs.rep.cand[i].name = cs_names[i];
    cs.rep.cand[i].why = "not present on this machine";
  }
  if (read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, 64u) > 0) {
    size_t n = strcspn(buf, "\n");
    n = n < sizeof(cs.rep.kernel_cs) - 1u ? n : sizeof(cs.rep.kernel_cs) - 1u;
    memcpy(cs.rep.kernel_cs, buf, n);
    cs.rep.kernel_cs[n] = '\0';
  }

  static const int32_t clk_rating[3] = {300, 290, 280};
  static const char *const clk_why[3] = {
      "always reliable; NTP-disciplined; vDSO read",
      "always reliable; not NTP-disciplined; vDSO read",
      "always reliable; counts suspend; vDSO read",
  };
  for (int i = 0; i < 3; i++) {
    struct timespec ts;
    utim_cs_candidate_t *c = &cs.rep.cand[UTIM_CS_MONOTONIC + i];
    if (clock_gettime(clks[i], &ts) == 0) {
      c->flags = UTIM_CS_F_PRESENT | UTIM_CS_F_RELIABLE | UTIM_CS_F_FREQ_KNOWN;
      c->rating = clk_rating[i];
      c->hz = (uint64_t)UTIM_NS_PER_S;
      c->freq_src = UTIM_CS_FREQ_NS;
      c->why = clk_why[i];
    }
  }

#if CS_X86
  utim_cs_candidate_t *t = &cs.rep.cand[UTIM_CS_TSC];
  cs.counter = UTIM_CS_TSC;
  t->flags = UTIM_CS_F_PRESENT;
  if (tsc_invariant_bit()) {
    t->flags |= UTIM_CS_F_INVARIANT;
  }
  const char *fl = cpuinfo_flags(buf, sizeof(buf));
  if (fl != NULL && has_word(fl, "constant_tsc")) {
    t->flags |= UTIM_CS_F_CONSTANT;
  }
  if (fl != NULL && has_word(fl, "nonstop_tsc")) {
    t->flags |= UTIM_CS_F_NONSTOP;
  }
  t->hz = tsc_nominal_hz(&t->freq_src);
  if (t->hz != 0u) {
    t->flags |= UTIM_CS_F_FREQ_KNOWN;
  }
#elif CS_ARM64
  utim_cs_candidate_t *t = &cs.rep.cand[UTIM_CS_CNTVCT];
  uint64_t frq;
  __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(frq));
  cs.counter = UTIM_CS_CNTVCT;
  t->flags = UTIM_CS_F_PRESENT | UTIM_CS_F_INVARIANT;
  t->hz = frq;
  t->freq_src = UTIM_CS_FREQ_CNTFRQ;
  if (frq != 0u) {
    t->flags |= UTIM_CS_F_FREQ_KNOWN;
  }
#endif
}

/* ---- calibration and switching ----------------------------------------------- */

/* First rate of the counter: two samples CAL_WINDOW_NS apart (the sync check runs in between). */
static int calibrate(void) {
  const int id = cs.counter;
  cs_sample_t a = take_sample(CAL_TRIES);
  if ((cs.rep.cand[id].flags &
       (UTIM_CS_F_SYNC_OK | UTIM_CS_F_SYNC_FAIL | UTIM_CS_F_SYNC_SKIPPED)) == 0u) {
    sync_check(id);
  }
  int64_t end = a.raw + CAL_WINDOW_NS;
  for (int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW); r < end;
       r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW)) {
    struct timespec ts = {0, (long)(end - r)};
    (void)nanosleep(&ts, NULL);
  }
  cs_sample_t b = take_sample(CAL_TRIES);
  uint64_t dt = b.ticks - a.ticks;
  int64_t dr = b.raw - a.raw;
  uint64_t hz;
  if (dt == 0u || dr <= 0 ||
      utim_muldiv(dt, (uint64_t)UTIM_NS_PER_S, (uint64_t)dr, UTIM_ROUND_NEAREST, &hz) != 0 ||
      hz == 0u) {
    return -EIO;
  }
  cs.hz = hz;
  cs.anchor = a;
  cs.refit_ticks = hz * REFIT_SECONDS;
  cs.cal_window = dr;
  uint64_t wmax = a.width > b.width ? a.width : b.width;
  cs.cal_bracket = (utim_ns_t)utim_ticks_to_ns_ceil(wmax, hz);
  cs.calibrated = true;
  return 0;
}

/*
 * Make `id` the published source. With `keep`, utim_now() continues from
 * the value the old source gives now; without (at start), the new source's
 * own time line is used (CLOCK_MONOTONIC_RAW's for a counter).
 */
static int switch_to(int id, bool keep) {
  cs_snap_t n = {0};
  if (id == cs.counter) {
    if (!cs.calibrated && calibrate() != 0) {
      return -EIO;
    }
    cs_sample_t s = take_sample(CAL_TRIES);
    /* Old time now; read after the sample, so the new line starts no earlier. */
    int64_t base = keep ? utim_now() + SWITCH_GUARD_NS : s.raw;
    uint64_t dt = s.ticks - cs.anchor.ticks;
    int64_t dr = s.raw - cs.anchor.raw;
    utim_mult_shift_t ms;
    if (dt == 0u || dr <= 0 ||
        utim_mult_shift_calc(&ms, (uint64_t)dr, dt, 2u * cs.refit_ticks) != 0) {
      return -EIO;
    }
    cs.steer = base - s.raw;
    n.mode = MODE_COUNTER;
    n.mult = ms.mult;
    n.shift = ms.shift;
    n.base_ticks = s.ticks;
    n.base_ns = base;
    n.limit = cs.refit_ticks;
  } else {
    if (id < UTIM_CS_MONOTONIC || id >= UTIM_CS_COUNT) {
      return -ENOTSUP; /* the other architecture's counter */
    }
    clockid_t c = clks[id - UTIM_CS_MONOTONIC];
    int64_t old = keep ? utim_now() : 0;
    n.mode = MODE_CLOCK;
    n.clk = (int32_t)c;
    n.base_ns = keep ? old + SWITCH_GUARD_NS - utim_native_clock_ns(c) : 0;
    n.limit = 0u;
  }
  publish(&n);
  cs.cur = id;
  cs.refits = 0u;
  cs.last_offset = 0;
  return 0;
}

static int best_candidate(void) {
  int best = UTIM_CS_MONOTONIC;
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (cs.rep.cand[i].rating > cs.rep.cand[best].rating) {
      best = i;
    }
  }
  return best;
}

/*
 * Calibrating can fail only if the clocks misbehave: at start the best
 * clock_gettime clock then serves; later the previous source stays.
 */
static void choose(int id, int how, bool keep) {
  if (switch_to(id, keep) == 0) {
    cs.how = how;
    return;
  }
  cs.rep.cand[id].rating = cs.rep.cand[id].rating > 1 ? 1 : cs.rep.cand[id].rating;
  cs.rep.cand[id].why = "calibration against CLOCK_MONOTONIC_RAW failed";
  cs.rep.cand[id].flags &= ~UTIM_CS_F_RELIABLE;
  if (!keep) {
    (void)switch_to(best_candidate(), false);
    cs.how = UTIM_CS_AUTO;
  }
}

static void init_once(void) {
  pthread_mutex_lock(&cs_lock);
  probe();
  if (cs.counter >= 0) {
    /* The sync check runs inside the calibration window when there is one. */
    if ((cs.rep.cand[cs.counter].flags & (UTIM_CS_F_INVARIANT | UTIM_CS_F_CONSTANT)) != 0u) {
      (void)calibrate();
    } else {
      sync_check(cs.counter);
    }
    rate_counter(cs.counter, cs.counter == UTIM_CS_TSC ? "tsc" : "arch_sys_counter");
  }
  int id = best_candidate();
  int how = UTIM_CS_AUTO;
  const char *env = getenv("UTIM_CLOCKSOURCE");
  if (env != NULL && env[0] != '\0' && !ieq(env, "auto")) {
    int e = find_candidate(env);
    cs.env_value = env;
    if (e < 0) {
      cs.env_note = "ignored: no candidate has that name";
    } else if (cs.rep.cand[e].rating <= 0) {
      cs.env_note = "ignored: that source is not present here";
    } else {
      cs.env_note = "honoured";
      id = e;
      how = UTIM_CS_ENV;
    }
  }
  choose(id, how, false);
  pthread_mutex_unlock(&cs_lock);
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
  if (name == NULL || ieq(name, "auto")) {
    how = UTIM_CS_AUTO;
    id = -1;
  } else {
    id = find_candidate(name);
    if (id < 0) {
      return -ENOENT;
    }
  }
  pthread_mutex_lock(&cs_lock);
  if (id < 0) {
    id = best_candidate();
  }
  int rc = 0;
  if (cs.rep.cand[id].rating <= 0) {
    rc = -ENOTSUP;
  } else if (id == cs.cur) {
    cs.how = how;
  } else {
    choose(id, how, true);
    rc = cs.cur == id ? 0 : -EIO;
  }
  pthread_mutex_unlock(&cs_lock);
  return rc;
}

const char *utim_clocksource_name(void) {
  (void)utim_clocksource_init();
  pthread_mutex_lock(&cs_lock);
  const char *n = cs_names[cs.cur];
  pthread_mutex_unlock(&cs_lock);
  return n;
}

int utim_clocksource_refit(void) {
  (void)utim_clocksource_init();
  if (pthread_mutex_trylock(&cs_lock) != 0) {
    return -EBUSY;
  }
  if (cs.cur == cs.counter) {
    (void)refit_locked();
  }
  pthread_mutex_unlock(&cs_lock);
  return 0;
}

/* ---- the reason text --------------------------------------------------------- */

typedef struct sbuf {
  char *p;
  size_t cap;
  size_t len;
} sbuf_t;

static void put_s(sbuf_t *b, const char *s) {
  while (*s != '\0') {
    if (b->len + 1u < b->cap) {
      b->p[b->len++] = *s;
    }
    s++;
  }
  b->p[b->len < b->cap ? b->len : b->cap - 1u] = '\0';
}

static void put_u(sbuf_t *b, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0u);
  char out[24];
  for (int i = 0; i < n; i++) {
    out[i] = tmp[n - 1 - i];
  }
  out[n] = '\0';
  put_s(b, out);
}

static void put_i(sbuf_t *b, int64_t v) {
  if (v < 0) {
    put_s(b, "-");
    put_u(b, 0u - (uint64_t)v);
  } else {
    put_u(b, (uint64_t)v);
  }
}

static const char *freq_src_name(unsigned s) {
  switch (s) {
  case UTIM_CS_FREQ_CPUID_15:
    return "CPUID 0x15";
  case UTIM_CS_FREQ_CPUID_16:
    return "CPUID 0x16";
  case UTIM_CS_FREQ_HYPERVISOR:
    return "hypervisor leaf 0x40000010";
  case UTIM_CS_FREQ_CNTFRQ:
    return "CNTFRQ_EL0";
  case UTIM_CS_FREQ_NS:
    return "ns clock";
  default:
    return "unknown";
  }
}

static void compose_reason(utim_cs_report_t *r) {
  sbuf_t b = {r->reason, sizeof(r->reason), 0u};
  const utim_cs_candidate_t *c = &r->cand[r->chosen];
  static const char *const how[3] = {"chosen automatically", "chosen by UTIM_CLOCKSOURCE",
                                     "chosen by utim_clocksource_select()"};
  put_s(&b, c->name);
  put_s(&b, " (rating ");
  put_i(&b, c->rating);
  put_s(&b, ") ");
  put_s(&b, how[r->how]);
  put_s(&b, ": ");
  put_s(&b, c->why);
  if (r->chosen == cs.counter) {
    put_s(&b, "; ");
    if ((c->flags & UTIM_CS_F_INVARIANT) != 0u) {
      put_s(&b, "invariant bit, ");
    }
    if ((c->flags & UTIM_CS_F_CONSTANT) != 0u) {
      put_s(&b, "constant_tsc, ");
    }
    if ((c->flags & UTIM_CS_F_NONSTOP) != 0u) {
      put_s(&b, "nonstop_tsc, ");
    }
    put_s(&b, "kernel clocksource ");
    put_s(&b, r->kernel_cs[0] != '\0' ? r->kernel_cs : "unknown");
    put_s(&b, (c->flags & UTIM_CS_F_SYNC_OK) != 0u     ? ", monotonic across "
              : (c->flags & UTIM_CS_F_SYNC_FAIL) != 0u ? ", went back across "
                                                       : ", cross-CPU check not run on ");
    put_u(&b, r->cpus_checked);
    put_s(&b, " CPUs (");
    put_u(&b, r->sync_rounds);
    put_s(&b, " readings per pair); nominal ");
    put_u(&b, c->hz);
    put_s(&b, " Hz (");
    put_s(&b, freq_src_name(c->freq_src));
    put_s(&b, "); calibrated ");
    put_u(&b, r->hz);
    put_s(&b, " Hz against CLOCK_MONOTONIC_RAW over ");
    put_i(&b, r->cal_window / UTIM_NS_PER_US);
    put_s(&b, " us (bracket ");
    put_i(&b, r->cal_bracket);
    put_s(&b, " ns); ns = ticks * ");
    put_u(&b, r->ms.mult);
    put_s(&b, " >> ");
    put_u(&b, r->ms.shift);
  } else {
    put_s(&b, "; kernel clocksource ");
    put_s(&b, r->kernel_cs[0] != '\0' ? r->kernel_cs : "unknown");
  }
  if (cs.env_note != NULL) {
    put_s(&b, "; UTIM_CLOCKSOURCE=");
    put_s(&b, cs.env_value);
    put_s(&b, " ");
    put_s(&b, cs.env_note);
  }
  put_s(&b, ". Others:");
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (i == r->chosen) {
      continue;
    }
    put_s(&b, " ");
    put_s(&b, r->cand[i].name);
    put_s(&b, " ");
    put_i(&b, r->cand[i].rating);
    put_s(&b, " (");
    put_s(&b, r->cand[i].why);
    put_s(&b, ")");
  }
  put_s(&b, ".");
}

int utim_clocksource_report(utim_cs_report_t *out) {
  if (out == NULL) {
    return -EINVAL;
  }
  (void)utim_clocksource_init();
  pthread_mutex_lock(&cs_lock);
  *out = cs.rep;
  out->chosen = cs.cur;
  out->how = cs.how;
  out->refits = cs.refits;
  out->last_offset = cs.last_offset;
  cs_snap_t s;
  while (!snap_read(&s)) {
  }
  out->ms.mult = s.mult;
  out->ms.shift = s.shift;
  out->ms.max_delta = s.mult != 0u ? UINT64_MAX / s.mult : UINT64_MAX;
  out->ms.reserved = 0u;
  if (cs.cur == cs.counter) {
    out->hz = cs.hz;
    out->cal_window = cs.cal_window;
    out->cal_bracket = cs.cal_bracket;
    const utim_cs_candidate_t *c = &cs.rep.cand[cs.cur];
    if (c->hz != 0u) {
      uint64_t diff = cs.hz > c->hz ? cs.hz - c->hz : c->hz - cs.hz;
      uint64_t q;
      (void)utim_muldiv(diff, (uint64_t)UTIM_NS_PER_S, c->hz, UTIM_ROUND_NEAREST, &q);
      out->cal_ppb = cs.hz >= c->hz ? sat_i64(q) : -sat_i64(q);
    }
  } else {
    out->hz = (uint64_t)UTIM_NS_PER_S;
  }
  compose_reason(out);
  pthread_mutex_unlock(&cs_lock);
  return 0;
}

/* ---- drift ------------------------------------------------------------------- */

/* Narrowest of a few utim_now() / CLOCK_MONOTONIC_RAW / utim_now() brackets: offset and width. */
static void offset_sample(int64_t *offset, int64_t *width) {
  int64_t best_w = INT64_MAX;
  for (int i = 0; i < 8; i++) {
    int64_t n1 = utim_now();
    int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    int64_t n2 = utim_now();
    if (n2 - n1 < best_w) {
      best_w = n2 - n1;
      *offset = n1 + (n2 - n1) / 2 - r;
    }
  }
  *width = best_w;
}

int utim_clocksource_drift(utim_ns_t duration, utim_ns_t period, utim_cs_drift_t *out) {
  if (out == NULL || duration < 0 || period <= 0) {
    return -EINVAL;
  }
  (void)utim_clocksource_init();
  *out = (utim_cs_drift_t){0};
  pthread_mutex_lock(&cs_lock);
  uint64_t refits0 = cs.refits;
  pthread_mutex_unlock(&cs_lock);
  int64_t off;
  int64_t w;
  offset_sample(&off, &w);
  out->offset_start = off;
  out->bracket = w;
  int64_t start = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
  int64_t end = start + duration;
  for (;;) {
    int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    if (r >= end) {
      break;
    }
    int64_t step = end - r < period ? end - r : period;
    struct timespec ts = {(time_t)(step / UTIM_NS_PER_S), (long)(step % UTIM_NS_PER_S)};
    (void)nanosleep(&ts, NULL);
    offset_sample(&off, &w);
    out->samples++;
    out->bracket = w > out->bracket ? w : out->bracket;
    utim_ns_t dev = utim_ns_abs(off - out->offset_start);
    out->max_dev = dev > out->max_dev ? dev : out->max_dev;
  }
  offset_sample(&off, &w);
  out->samples++;
  out->offset_end = off;
  out->elapsed = utim_native_clock_ns(CLOCK_MONOTONIC_RAW) - start;
  out->drift = out->offset_end - out->offset_start;
  out->max_dev = utim_ns_max(out->max_dev, utim_ns_abs(out->drift));
  out->bracket = w > out->bracket ? w : out->bracket;
  if (out->elapsed > 0) {
    uint64_t q;
    (void)utim_muldiv((uint64_t)utim_ns_abs(out->drift), (uint64_t)UTIM_NS_PER_S,
                      (uint64_t)out->elapsed, UTIM_ROUND_NEAREST, &q);
    out->drift_ppb = out->drift < 0 ? -sat_i64(q) : sat_i64(q);
  }
  pthread_mutex_lock(&cs_lock);
  out->refits = (uint32_t)(cs.refits - refits0);
  pthread_mutex_unlock(&cs_lock);
  return 0;
}
