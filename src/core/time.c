/*
 * utim time: exact 64-bit conversions through a 128-bit intermediate, the
 * mult/shift calibration math, and the hybrid precise-sleep algorithm over
 * the hooks of a utim_sleep_ops_t. Freestanding; it calls no port function
 * itself, so linking it never requires the sleep hooks of a board.
 */
#include "utim/time.h"

#include <stddef.h>

/* ---- 64 x 64 -> 128 and 128 / 64 --------------------------------------------- */

/*
 * UTIM_TIME_NO_INT128 forces the portable path on a host that has __int128,
 * so the unit tests cover the code a 32-bit target runs.
 */
#if defined(__SIZEOF_INT128__) && !defined(UTIM_TIME_NO_INT128)
#define UTIM_HAVE_INT128 1
#else
#define UTIM_HAVE_INT128 0
#endif

typedef struct u128 {
  uint64_t hi;
  uint64_t lo;
} u128_t;

#if UTIM_HAVE_INT128

__extension__ typedef unsigned __int128 utim_u128_native_t;

static u128_t mul_64x64(uint64_t a, uint64_t b) {
  utim_u128_native_t p = (utim_u128_native_t)a * b;
  u128_t r = {(uint64_t)(p >> 64), (uint64_t)p};
  return r;
}

/* Quotient and remainder of {hi, lo} / d; the caller ensures hi < d. */
static uint64_t div_128by64(u128_t n, uint64_t d, uint64_t *rem) {
  utim_u128_native_t v = ((utim_u128_native_t)n.hi << 64) | n.lo;
  *rem = (uint64_t)(v % d);
  return (uint64_t)(v / d);
}

#else

static u128_t mul_64x64(uint64_t a, uint64_t b) {
  /* Schoolbook product of 32-bit digits; the middle sum is carried by hand. */
  uint64_t a0 = a & 0xffffffffu;
  uint64_t a1 = a >> 32;
  uint64_t b0 = b & 0xffffffffu;
  uint64_t b1 = b >> 32;
  uint64_t p00 = a0 * b0;
  uint64_t p01 = a0 * b1;
  uint64_t p10 = a1 * b0;
  uint64_t p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  u128_t r;
  r.lo = (mid << 32) | (p00 & 0xffffffffu);
  r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return r;
}

static unsigned clz64(uint64_t x) {
  unsigned n = 0u;
  while ((x & (UINT64_C(1) << 63)) == 0u) {
    x <<= 1;
    n++;
  }
  return n;
}

/*
 * Quotient and remainder of {hi, lo} / d with hi < d (the quotient fits in
 * 64 bits): Knuth's algorithm D on 32-bit digits, after normalising d so its
 * top bit is set (Hacker's Delight, divlu). Each estimated quotient digit is
 * at most 2 too large; the loops correct it.
 */
static uint64_t div_128by64(u128_t n, uint64_t d, uint64_t *rem) {
  const uint64_t b = UINT64_C(1) << 32;
  unsigned s = clz64(d);
  uint64_t v = d << s;
  uint64_t vn1 = v >> 32;
  uint64_t vn0 = v & 0xffffffffu;
  uint64_t un32 = s == 0u ? n.hi : (n.hi << s) | (n.lo >> (64u - s));
  uint64_t un10 = n.lo << s;
  uint64_t un1 = un10 >> 32;
  uint64_t un0 = un10 & 0xffffffffu;

  uint64_t q1 = un32 / vn1;
  uint64_t rhat = un32 - q1 * vn1;
  while (q1 >= b || q1 * vn0 > ((rhat << 32) | un1)) {
    q1--;
    rhat += vn1;
    if (rhat >= b) {
      break;
    }
  }
  uint64_t un21 = (un32 << 32) + un1 - q1 * v;

  uint64_t q0 = un21 / vn1;
  rhat = un21 - q0 * vn1;
  while (q0 >= b || q0 * vn0 > ((rhat << 32) | un0)) {
    q0--;
    rhat += vn1;
    if (rhat >= b) {
      break;
    }
  }
  *rem = ((un21 << 32) + un0 - q0 * v) >> s;
  return (q1 << 32) | q0;
}

#endif

/* ---- exact conversions ------------------------------------------------------- */

int utim_muldiv(uint64_t a, uint64_t b, uint64_t c, utim_round_t r, uint64_t *out) {
  if (c == 0u || out == NULL ||
      (r != UTIM_ROUND_FLOOR && r != UTIM_ROUND_CEIL && r != UTIM_ROUND_NEAREST)) {
    return -EINVAL;
  }
  u128_t p = mul_64x64(a, b);
  if (p.hi >= c) {
    *out = UINT64_MAX;
    return -ERANGE;
  }
  uint64_t rem;
  uint64_t q = div_128by64(p, c, &rem);
  bool up = false;
  if (r == UTIM_ROUND_CEIL) {
    up = rem != 0u;
  } else if (r == UTIM_ROUND_NEAREST) {
    /* rem >= c / 2 exactly, without forming 2 * rem. */
    up = rem >= c - rem;
  }
  if (up) {
    if (q == UINT64_MAX) {
      *out = UINT64_MAX;
      return -ERANGE;
    }
    q++;
  }
  *out = q;
  return 0;
}

/* Saturating wrapper: a result that does not fit is UINT64_MAX already. */
static uint64_t muldiv_sat(uint64_t a, uint64_t b, uint64_t c, utim_round_t r) {
  uint64_t out = UINT64_MAX;
  (void)utim_muldiv(a, b, c, r, &out);
  return out;
}

uint64_t utim_ticks_to_ns(uint64_t ticks, uint64_t hz) {
  return hz == 0u ? UINT64_MAX : muldiv_sat(ticks, (uint64_t)UTIM_NS_PER_S, hz, UTIM_ROUND_FLOOR);
}

uint64_t utim_ticks_to_ns_ceil(uint64_t ticks, uint64_t hz) {
  return hz == 0u ? UINT64_MAX : muldiv_sat(ticks, (uint64_t)UTIM_NS_PER_S, hz, UTIM_ROUND_CEIL);
}

uint64_t utim_ns_to_ticks(uint64_t ns, uint64_t hz) {
  return muldiv_sat(ns, hz, (uint64_t)UTIM_NS_PER_S, UTIM_ROUND_FLOOR);
}

uint64_t utim_ns_to_ticks_ceil(uint64_t ns, uint64_t hz) {
  return muldiv_sat(ns, hz, (uint64_t)UTIM_NS_PER_S, UTIM_ROUND_CEIL);
}

/* ---- mult/shift -------------------------------------------------------------- */

int utim_mult_shift_calc(utim_mult_shift_t *ms, uint64_t to, uint64_t from, uint64_t max_delta) {
  if (ms == NULL || to == 0u || from == 0u || max_delta == 0u) {
    return -EINVAL;
  }
  /*
   * The precision of the conversion is 2^-shift relative to the result, so
   * the largest shift whose multiplier still lets max_delta * mult fit in 64
   * bits wins. The search runs once per calibration; 64 steps are cheap.
   */
  for (unsigned i = 0u; i < 64u; i++) {
    unsigned s = 63u - i;
    uint64_t mult;
    if (utim_muldiv(to, UINT64_C(1) << s, from, UTIM_ROUND_NEAREST, &mult) != 0 || mult == 0u) {
      continue;
    }
    if (max_delta <= UINT64_MAX / mult) {
      ms->mult = mult;
      ms->shift = s;
      ms->max_delta = UINT64_MAX / mult;
      ms->reserved = 0u;
      return 0;
    }
  }
  return -ERANGE;
}

uint64_t utim_mult_shift_error(const utim_mult_shift_t *ms, uint64_t delta) {
  unsigned s = ms->shift + 1u;
  uint64_t q = s >= 64u ? 0u : delta >> s;
  uint64_t rest = s >= 64u ? delta : delta & ((UINT64_C(1) << s) - 1u);
  return q + (rest != 0u ? 1u : 0u) + 1u;
}

/* ---- precise sleep ----------------------------------------------------------- */

utim_sleep_cfg_t utim_sleep_cfg_default(void) {
  utim_sleep_cfg_t c;
  c.initial_margin = 100 * UTIM_NS_PER_US;
  c.min_margin = 500;
  c.max_margin = 10 * UTIM_NS_PER_MS;
  c.headroom = 2 * UTIM_NS_PER_US;
  c.min_block = 2 * UTIM_NS_PER_US;
  c.percentile = 950u;
  c.decay_shift = 3u;
  c.track_cpu = 1u;
  return c;
}

static bool cfg_valid(const utim_sleep_cfg_t *c) {
  return c->min_margin >= 0 && c->max_margin >= c->min_margin && c->initial_margin >= 0 &&
         c->headroom >= 0 && c->min_block >= 0 && c->percentile >= 1u && c->percentile <= 1000u &&
         c->decay_shift <= 15u && c->track_cpu <= 1u;
}

static utim_ns_t clamp_margin(const utim_sleep_cfg_t *c, utim_ns_t m) {
  return utim_ns_min(utim_ns_max(m, c->min_margin), c->max_margin);
}

int utim_sleeper_init(utim_sleeper_t *s, const utim_sleep_ops_t *ops, const utim_sleep_cfg_t *cfg) {
  if (s == NULL || ops == NULL || ops->now == NULL) {
    return -EINVAL;
  }
  utim_sleep_cfg_t c = cfg != NULL ? *cfg : utim_sleep_cfg_default();
  if (!cfg_valid(&c)) {
    return -EINVAL;
  }
  s->ops = ops;
  s->cfg = c;
  s->margin = clamp_margin(&c, c.initial_margin);
  for (unsigned i = 0u; i < UTIM_SLEEP_WINDOW; i++) {
    s->window[i] = 0;
  }
  s->wcount = 0u;
  s->whead = 0u;
  s->last = (utim_sleep_result_t){0};
  utim_sleeper_reset_stats(s);
  return 0;
}

/*
 * The oversleep percentile of the window: sorting a copy of at most 32
 * samples costs well under a microsecond and runs after the deadline, so it
 * never delays a wake-up.
 */
static utim_ns_t window_percentile(const utim_sleeper_t *s) {
  utim_ns_t v[UTIM_SLEEP_WINDOW];
  uint32_t n = s->wcount;
  if (n == 0u) {
    return 0;
  }
  for (uint32_t i = 0u; i < n; i++) {
    utim_ns_t x = s->window[i];
    uint32_t j = i;
    while (j > 0u && v[j - 1u] > x) {
      v[j] = v[j - 1u];
      j--;
    }
    v[j] = x;
  }
  /* Nearest-rank percentile: the smallest sample >= p permille of them. */
  uint32_t rank = (n * s->cfg.percentile + 999u) / 1000u;
  return v[rank > 0u ? rank - 1u : 0u];
}

/*
 * The margin follows the percentile (plus headroom) of the window: it rises
 * at once when the percentile rises, so the next sleeps stop missing, and
 * falls by a fraction of the gap per call when sleeps go well, so one quiet
 * stretch does not drop the protection at once. A single outlier moves the
 * percentile only when it is frequent enough to matter, and leaves the
 * window after UTIM_SLEEP_WINDOW sleeps.
 */
static void window_push(utim_sleeper_t *s, utim_ns_t oversleep) {
  s->window[s->whead] = oversleep;
  s->whead = (s->whead + 1u) % UTIM_SLEEP_WINDOW;
  if (s->wcount < UTIM_SLEEP_WINDOW) {
    s->wcount++;
  }
}

static void adapt_margin(utim_sleeper_t *s, utim_ns_t oversleep) {
  window_push(s, oversleep);
  utim_ns_t target = clamp_margin(&s->cfg, utim_ns_add(window_percentile(s), s->cfg.headroom));
  utim_ns_t m = s->margin;
  if (target >= m) {
    m = target;
  } else {
    utim_ns_t step = (m - target) >> s->cfg.decay_shift;
    m -= step > 0 ? step : 1;
  }
  s->margin = m;
}

static int64_t read_cpu(const utim_sleeper_t *s) {
  if (s->cfg.track_cpu == 0u || s->ops->cpu_ns == NULL) {
    return -1;
  }
  int64_t c = s->ops->cpu_ns();
  return c < 0 ? -1 : c;
}

static void account(utim_sleeper_t *s, const utim_sleep_result_t *r) {
  utim_sleep_stats_t *st = &s->stats;
  st->calls++;
  st->blocked_calls += r->blocks != 0u ? 1u : 0u;
  st->late_calls += r->late;
  st->miss_sum = utim_ns_add(st->miss_sum, r->miss);
  st->miss_max = utim_ns_max(st->miss_max, r->miss);
  st->elapsed_sum = utim_ns_add(st->elapsed_sum, r->wake - r->start);
  st->spin_sum = utim_ns_add(st->spin_sum, r->spin);
  st->oversleep_max = utim_ns_max(st->oversleep_max, r->oversleep);
  if (r->cpu >= 0) {
    st->cpu_calls++;
    st->cpu_sum = utim_ns_add(st->cpu_sum, r->cpu);
    st->cpu_elapsed = utim_ns_add(st->cpu_elapsed, r->wake - r->start);
  }
  st->margin = s->margin;
}

int utim_sleeper_until(utim_sleeper_t *s, utim_ns_t deadline, utim_sleep_result_t *res) {
  if (s == NULL || s->ops == NULL || s->ops->now == NULL) {
    return -EINVAL;
  }
  const utim_sleep_ops_t *ops = s->ops;
  int64_t cpu0 = read_cpu(s);
  utim_sleep_result_t r = {0};
  r.deadline = deadline;
  r.margin = s->margin;
  r.oversleep = -1;
  r.start = ops->now();
  utim_ns_t t = r.start;

  /*
   * Coarse phase. The wake target is computed once: re-sleeping after an
   * early return aims at the same point, and the oversleep sample is taken
   * only from the sleep that reached it, so interrupted sleeps do not teach
   * the margin anything.
   */
  utim_ns_t target = utim_ns_sub(deadline, r.margin);
  bool coarse = ops->block_until != NULL;
  while (coarse && t < target && utim_ns_sub(target, t) >= s->cfg.min_block) {
    r.blocks++;
    int rc = ops->block_until(target);
    utim_ns_t after = ops->now();
    r.blocked = utim_ns_add(r.blocked, after - t);
    t = after;
    if (t >= target) {
      r.oversleep = t - target;
      r.late = t > deadline ? 1u : 0u;
      break;
    }
    if (rc != 0 && rc != -EINTR) {
      coarse = false; /* the hook cannot sleep: spin the rest */
    }
  }

  /* Fine phase: spin on the time source up to the deadline. */
  utim_ns_t spin0 = t;
  while (t < deadline) {
    if (ops->relax != NULL) {
      ops->relax();
    }
    t = ops->now();
  }
  r.wake = t;
  r.spin = t - spin0;
  r.miss = utim_ns_sub(t, deadline); /* saturates for a deadline far in the past */

  if (r.oversleep >= 0) {
    adapt_margin(s, r.oversleep);
  }
  int64_t cpu1 = read_cpu(s);
  r.cpu = (cpu0 >= 0 && cpu1 >= cpu0) ? cpu1 - cpu0 : -1;
  account(s, &r);
  s->last = r;
  if (res != NULL) {
    *res = r;
  }
  return 0;
}

int utim_sleeper_for(utim_sleeper_t *s, utim_ns_t duration, utim_sleep_result_t *res) {
  if (s == NULL || s->ops == NULL || s->ops->now == NULL || duration < 0) {
    return -EINVAL;
  }
  return utim_sleeper_until(s, utim_ns_add(s->ops->now(), duration), res);
}

/*
 * Sleeps shorter than the margin never use the coarse sleep, so they never
 * teach the margin anything: a sleeper whose callers only sleep briefly
 * would keep its initial guess for ever. Probing once fills the window.
 * The probes replace the window's history (they used to join it, and fewer
 * than UTIM_SLEEP_WINDOW of them were outvoted by the samples from before a
 * change of scheduling policy). No copy of the history is kept to put back
 * (the window is 256 bytes, too much for a small stack).
 */
int utim_sleeper_calibrate(utim_sleeper_t *s, unsigned n, utim_ns_t probe) {
  if (s == NULL || s->ops == NULL || s->ops->now == NULL || n == 0u || probe <= 0) {
    return -EINVAL;
  }
  if (s->ops->block_until == NULL) {
    return -ENOTSUP;
  }
  unsigned got = 0u;
  for (unsigned i = 0u; i < n; i++) {
    utim_ns_t target = utim_ns_add(s->ops->now(), probe);
    int rc = s->ops->block_until(target);
    utim_ns_t t = s->ops->now();
    if (rc != 0 && rc != -EINTR) {
      return rc;
    }
    if (t >= target) {
      if (got == 0u) {
        s->wcount = 0u; /* the first probe that teaches ends the history */
        s->whead = 0u;
      }
      window_push(s, t - target);
      got++;
    }
  }
  if (got == 0u) {
    return -EINTR;
  }
  s->margin = clamp_margin(&s->cfg, utim_ns_add(window_percentile(s), s->cfg.headroom));
  s->stats.margin = s->margin;
  return 0;
}

int utim_sleeper_stats(const utim_sleeper_t *s, utim_sleep_stats_t *out) {
  if (s == NULL || out == NULL) {
    return -EINVAL;
  }
  *out = s->stats;
  out->margin = s->margin;
  return 0;
}

void utim_sleeper_reset_stats(utim_sleeper_t *s) {
  if (s == NULL) {
    return;
  }
  s->stats = (utim_sleep_stats_t){0};
  s->stats.oversleep_max = -1;
  s->stats.margin = s->margin;
}
