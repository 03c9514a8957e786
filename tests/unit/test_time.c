/*
 * Unit tests of include/utim/time.h (host only).
 *
 * Built two ways (tests/unit/CMakeLists.txt):
 * - test_time: time values, the exact conversions at their edges and on
 *   1,000,000 random inputs against unsigned __int128 arithmetic, mult/shift
 *   and its error bound, and the precise-sleep algorithm over a fake port
 *   (scripted clock and coarse sleep: deterministic, no real time involved);
 * - test_time_portable: the same with src/core/time.c compiled for the
 *   portable 128-bit path (UTIM_TIME_NO_INT128), the one 32-bit targets run.
 * The Linux clock source and sleep of the native board: test_time_native.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "utim/time.h"

#ifndef __SIZEOF_INT128__
#error "the reference arithmetic of this test needs unsigned __int128 (a 64-bit host)"
#endif

__extension__ typedef unsigned __int128 u128_t;

/* Deterministic pseudo-random numbers (xorshift64*), fixed seed. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * UINT64_C(2685821657736338717);
}

/* A value whose bit length is uniform in 0..64, so small and huge values both occur. */
static uint64_t rng_spread(void) {
  unsigned bits = (unsigned)(rng() % 65u);
  return bits == 0u ? 0u : rng() >> (64u - bits);
}

/* ---- reference arithmetic ---------------------------------------------------- */

/* a * b / c rounded by r, saturated; *range = 1 when it did not fit. */
static uint64_t ref_muldiv(uint64_t a, uint64_t b, uint64_t c, utim_round_t r, int *range) {
  u128_t p = (u128_t)a * b;
  u128_t q = p / c;
  u128_t rem = p % c;
  if ((r == UTIM_ROUND_CEIL && rem != 0u) || (r == UTIM_ROUND_NEAREST && rem >= (u128_t)c - rem)) {
    q++;
  }
  if (q > UINT64_MAX) {
    *range = 1;
    return UINT64_MAX;
  }
  *range = 0;
  return (uint64_t)q;
}

static uint64_t ref_sat(uint64_t a, uint64_t b, uint64_t c, utim_round_t r) {
  int range;
  return ref_muldiv(a, b, c, r, &range);
}

static const uint64_t NS = 1000000000u;

/* ---- time values ------------------------------------------------------------- */

static void t_time_values(void *arg) {
  (void)arg;
  TH_EQ(utim_ns_add(UTIM_NS_MAX, 1), UTIM_NS_MAX);
  TH_EQ(utim_ns_add(UTIM_NS_MIN, -1), UTIM_NS_MIN);
  TH_EQ(utim_ns_add(-5, 3), -2);
  TH_EQ(utim_ns_sub(UTIM_NS_MIN, 1), UTIM_NS_MIN);
  TH_EQ(utim_ns_sub(UTIM_NS_MAX, -1), UTIM_NS_MAX);
  TH_EQ(utim_ns_sub(0, UTIM_NS_MIN), UTIM_NS_MAX);
  TH_EQ(utim_ns_sub(-1, UTIM_NS_MAX), UTIM_NS_MIN);
  TH_EQ(utim_ns_sub(10, 3), 7);
  TH_EQ(utim_ns_scale(UTIM_NS_MAX / 2 + 1, 2), UTIM_NS_MAX);
  TH_EQ(utim_ns_scale(UTIM_NS_MIN / 2, 2), UTIM_NS_MIN);
  TH_EQ(utim_ns_scale(UTIM_NS_MIN / 2 - 1, 2), UTIM_NS_MIN);
  TH_EQ(utim_ns_scale(UTIM_NS_MIN, -1), UTIM_NS_MAX);
  TH_EQ(utim_ns_scale(-3, 4), -12);
  TH_EQ(utim_ns_scale(-3, -4), 12);
  TH_EQ(utim_ns_scale(0, UTIM_NS_MIN), 0);
  TH_EQ(utim_us(1), 1000);
  TH_EQ(utim_ms(-1), -1000000);
  TH_EQ(utim_s(3), INT64_C(3000000000));
  TH_EQ(utim_s(INT64_MAX), UTIM_NS_MAX);
  TH_EQ(utim_s(INT64_MIN), UTIM_NS_MIN);
  TH_EQ(utim_ns_to_us(999), 0);
  TH_EQ(utim_ns_to_us(1000), 1);
  TH_EQ(utim_ns_to_us(-1), -1);
  TH_EQ(utim_ns_to_us(-1000), -1);
  TH_EQ(utim_ns_to_us(-1001), -2);
  TH_EQ(utim_ns_to_ms(INT64_C(2999999)), 2);
  TH_EQ(utim_ns_to_s(-INT64_C(1000000000)), -1);
  TH_EQ(utim_ns_to_s(UTIM_NS_MIN), UTIM_NS_MIN / UTIM_NS_PER_S - 1);
  TH_EQ(utim_ns_cmp(1, 2), -1);
  TH_EQ(utim_ns_cmp(2, 2), 0);
  TH_EQ(utim_ns_cmp(UTIM_NS_MAX, UTIM_NS_MIN), 1);
  TH_CHECK(utim_ns_before(-1, 0) && !utim_ns_before(0, 0));
  TH_CHECK(utim_ns_after(1, 0) && !utim_ns_after(0, 0));
  TH_EQ(utim_ns_min(-3, 4), -3);
  TH_EQ(utim_ns_max(-3, 4), 4);
  TH_EQ(utim_ns_abs(UTIM_NS_MIN), UTIM_NS_MAX);
  TH_EQ(utim_ns_abs(-7), 7);
}

/* ---- conversions ------------------------------------------------------------- */

static void t_muldiv_errors(void *arg) {
  (void)arg;
  uint64_t out = 42u;
  TH_EQ(utim_muldiv(1u, 1u, 0u, UTIM_ROUND_FLOOR, &out), -EINVAL);
  TH_EQU(out, 42u);
  TH_EQ(utim_muldiv(1u, 1u, 1u, UTIM_ROUND_FLOOR, NULL), -EINVAL);
  TH_EQ(utim_muldiv(1u, 1u, 1u, (utim_round_t)7, &out), -EINVAL);
  TH_EQU(out, 42u);
  TH_EQ(utim_muldiv(UINT64_MAX, 2u, 1u, UTIM_ROUND_FLOOR, &out), -ERANGE);
  TH_EQU(out, UINT64_MAX);
  /* Fits when floored, not when rounded up. */
  TH_EQ(utim_muldiv(UINT64_MAX, 3u, 3u, UTIM_ROUND_CEIL, &out), 0);
  TH_EQU(out, UINT64_MAX);
  TH_EQ(utim_muldiv(UINT64_MAX, 4u, 3u, UTIM_ROUND_FLOOR, &out), -ERANGE);
  /* 0x1084210842108421 x 31 = 2 x (2^64 - 1) + 1: the quotient is
   * UINT64_MAX with a remainder, so only the floor fits. */
  const uint64_t q_max_rem = UINT64_C(0x1084210842108421);
  TH_EQ(utim_muldiv(q_max_rem, 31u, 2u, UTIM_ROUND_FLOOR, &out), 0);
  TH_EQU(out, UINT64_MAX);
  out = 42u;
  TH_EQ(utim_muldiv(q_max_rem, 31u, 2u, UTIM_ROUND_CEIL, &out), -ERANGE);
  TH_EQU(out, UINT64_MAX);
  out = 42u;
  TH_EQ(utim_muldiv(q_max_rem, 31u, 2u, UTIM_ROUND_NEAREST, &out), -ERANGE);
  TH_EQU(out, UINT64_MAX);
  TH_EQ(utim_muldiv((UINT64_MAX / 2u) * 2u + 1u, 1u, 2u, UTIM_ROUND_CEIL, &out), 0);
  TH_EQU(out, UINT64_C(1) << 63);
  TH_EQ(utim_muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX, UTIM_ROUND_FLOOR, &out), 0);
  TH_EQU(out, UINT64_MAX);
  TH_EQ(utim_muldiv(UINT64_MAX, UINT64_MAX - 1u, UINT64_MAX, UTIM_ROUND_CEIL, &out), 0);
  TH_EQU(out, UINT64_MAX - 1u);
  /* Nearest: halves go up. */
  TH_EQ(utim_muldiv(1u, 1u, 2u, UTIM_ROUND_NEAREST, &out), 0);
  TH_EQU(out, 1u);
  TH_EQ(utim_muldiv(1u, 1u, 3u, UTIM_ROUND_NEAREST, &out), 0);
  TH_EQU(out, 0u);
  TH_EQ(utim_muldiv(2u, 1u, 3u, UTIM_ROUND_NEAREST, &out), 0);
  TH_EQU(out, 1u);
  TH_EQ(utim_muldiv(UINT64_MAX, 1u, UINT64_MAX - 1u, UTIM_ROUND_NEAREST, &out), 0);
  TH_EQU(out, 1u);
}

/* Values worked out by hand, independent of the reference. */
static void t_conversions_known(void *arg) {
  (void)arg;
  TH_EQU(utim_ticks_to_ns(0u, 32768u), 0u);
  TH_EQU(utim_ticks_to_ns(1u, 32768u), 30517u); /* 30517.578125 */
  TH_EQU(utim_ticks_to_ns_ceil(1u, 32768u), 30518u);
  TH_EQU(utim_ticks_to_ns(32768u, 32768u), NS);
  TH_EQU(utim_ticks_to_ns(32767u, 32768u), 999969482u); /* 999969482.421875 */
  TH_EQU(utim_ns_to_ticks(NS, 32768u), 32768u);
  TH_EQU(utim_ns_to_ticks(30517u, 32768u), 0u);
  TH_EQU(utim_ns_to_ticks_ceil(1u, 32768u), 1u);
  TH_EQU(utim_ns_to_ticks_ceil(30518u, 32768u), 2u);
  TH_EQU(utim_ticks_to_ns(UINT64_MAX, 4000000000u), UINT64_C(4611686018427387903));
  TH_EQU(utim_ticks_to_ns_ceil(UINT64_MAX, 4000000000u), UINT64_C(4611686018427387904));
  TH_EQU(utim_ticks_to_ns(UINT64_MAX, NS), UINT64_MAX);
  TH_EQU(utim_ticks_to_ns(UINT64_MAX, 1u), UINT64_MAX); /* saturates */
  TH_EQU(utim_ticks_to_ns(UINT64_C(18446744073), 1u), UINT64_C(18446744073000000000));
  TH_EQU(utim_ticks_to_ns(UINT64_C(18446744074), 1u), UINT64_MAX); /* first that does not fit */
  TH_EQU(utim_ns_to_ticks(UINT64_MAX, 1u), UINT64_C(18446744073));
  TH_EQU(utim_ns_to_ticks_ceil(UINT64_MAX, 1u), UINT64_C(18446744074));
  TH_EQU(utim_ns_to_ticks(UINT64_MAX, 4000000000u), UINT64_MAX); /* saturates */
  TH_EQU(utim_ns_to_ticks(UINT64_C(4611686018427387903), 4000000000u), UINT64_MAX - 3u);
  TH_EQU(utim_ticks_to_ns(1u, 0u), UINT64_MAX);
  TH_EQU(utim_ns_to_ticks(1u, 0u), 0u);
  TH_EQU(utim_ns_to_ticks_ceil(UINT64_MAX, 0u), 0u);
}

/* Each conversion against the reference at one input; returns false on a mismatch. */
static bool check_one(uint64_t v, uint64_t hz) {
  uint64_t got[4] = {utim_ticks_to_ns(v, hz), utim_ticks_to_ns_ceil(v, hz), utim_ns_to_ticks(v, hz),
                     utim_ns_to_ticks_ceil(v, hz)};
  uint64_t want[4] = {ref_sat(v, NS, hz, UTIM_ROUND_FLOOR), ref_sat(v, NS, hz, UTIM_ROUND_CEIL),
                      ref_sat(v, hz, NS, UTIM_ROUND_FLOOR), ref_sat(v, hz, NS, UTIM_ROUND_CEIL)};
  for (unsigned i = 0u; i < 4u; i++) {
    if (got[i] != want[i]) {
      th_note("conversion %u of v=%llu hz=%llu: got %llu, want %llu", i, (unsigned long long)v,
              (unsigned long long)hz, (unsigned long long)got[i], (unsigned long long)want[i]);
      return false;
    }
  }
  return true;
}

static void t_conversions_edges(void *arg) {
  (void)arg;
  static const uint64_t hzs[] = {1u,
                                 2u,
                                 3u,
                                 7u,
                                 1000u,
                                 32768u,
                                 1000000u,
                                 24000000u,
                                 999999999u,
                                 1000000000u,
                                 1000000001u,
                                 2596120000u,
                                 UINT32_MAX,
                                 4000000000u,
                                 UINT64_C(1) << 32,
                                 UINT64_C(1) << 63,
                                 UINT64_MAX};
  unsigned bad = 0u;
  unsigned n = 0u;
  for (size_t h = 0u; h < sizeof hzs / sizeof hzs[0]; h++) {
    uint64_t hz = hzs[h];
    const uint64_t vals[] = {0u,
                             1u,
                             2u,
                             hz - 1u,
                             hz,
                             hz + 1u,
                             NS - 1u,
                             NS,
                             NS + 1u,
                             UINT64_MAX / NS,
                             INT64_MAX,
                             UINT64_C(1) << 63,
                             UINT64_MAX - 1u,
                             UINT64_MAX};
    for (size_t i = 0u; i < sizeof vals / sizeof vals[0]; i++) {
      n++;
      if (!check_one(vals[i], hz)) {
        bad++;
      }
    }
  }
  TH_CHECKF(bad == 0u, "%u of %u edge inputs wrong", bad, n);
}

static void t_conversions_random(void *arg) {
  (void)arg;
  unsigned bad = 0u;
  const unsigned count = 1000000u;
  for (unsigned i = 0u; i < count && bad < 5u; i++) {
    /* Frequencies: half in the 1 Hz .. 4 GHz range of real timers, half anywhere. */
    uint64_t hz = (i & 1u) != 0u ? 1u + rng() % 4000000000u : rng_spread();
    if (hz == 0u) {
      hz = 1u;
    }
    uint64_t v = (i & 2u) != 0u ? rng() : rng_spread();
    if (!check_one(v, hz)) {
      bad++;
    }
  }
  TH_CHECKF(bad == 0u, "wrong conversions among %u random inputs", count);
  /* The general a * b / c with every rounding. */
  bad = 0u;
  for (unsigned i = 0u; i < count && bad < 5u; i++) {
    uint64_t a = rng_spread();
    uint64_t b = rng_spread();
    uint64_t c = rng_spread();
    if (c == 0u) {
      c = 1u;
    }
    utim_round_t r = (utim_round_t)(i % 3u);
    int range;
    uint64_t want = ref_muldiv(a, b, c, r, &range);
    uint64_t got = 0u;
    int rc = utim_muldiv(a, b, c, r, &got);
    if (got != want || rc != (range != 0 ? -ERANGE : 0)) {
      th_note("muldiv(%llu, %llu, %llu, %d) = %llu rc %d, want %llu", (unsigned long long)a,
              (unsigned long long)b, (unsigned long long)c, (int)r, (unsigned long long)got, rc,
              (unsigned long long)want);
      bad++;
    }
  }
  TH_CHECKF(bad == 0u, "wrong utim_muldiv among %u random inputs", count);
}

/* ---- mult/shift -------------------------------------------------------------- */

static void t_mult_shift_known(void *arg) {
  (void)arg;
  utim_mult_shift_t ms;
  TH_EQ(utim_mult_shift_calc(&ms, NS, NS, 1000u), 0);
  TH_EQU(ms.shift, 54u); /* 1000 * 2^55 overflows, 1000 * 2^54 does not */
  TH_EQU(ms.mult, UINT64_C(1) << 54);
  TH_EQU(ms.max_delta, 1023u);
  TH_EQU(utim_mult_shift_apply(&ms, 1000u), 1000u);
  /* Small ratios reach the largest shift. */
  TH_EQ(utim_mult_shift_calc(&ms, 1u, 2u, 3u), 0);
  TH_EQU(ms.shift, 63u);
  TH_EQU(ms.mult, UINT64_C(1) << 62);
  TH_EQU(ms.max_delta, 3u);
  TH_EQU(utim_mult_shift_apply(&ms, 3u), 1u);
  TH_EQ(utim_mult_shift_calc(NULL, 1u, 1u, 1u), -EINVAL);
  TH_EQ(utim_mult_shift_calc(&ms, 0u, 1u, 1u), -EINVAL);
  TH_EQ(utim_mult_shift_calc(&ms, 1u, 0u, 1u), -EINVAL);
  TH_EQ(utim_mult_shift_calc(&ms, 1u, 1u, 0u), -EINVAL);
  TH_EQ(utim_mult_shift_calc(&ms, UINT64_MAX, 1u, 2u), -ERANGE);
  TH_EQ(utim_mult_shift_calc(&ms, UINT64_MAX, 1u, 1u), 0);
  TH_EQU(ms.shift, 0u);
  TH_EQU(ms.mult, UINT64_MAX);
  ms.shift = 0u;
  TH_EQU(utim_mult_shift_error(&ms, 0u), 1u);
  TH_EQU(utim_mult_shift_error(&ms, 1u), 2u);
  TH_EQU(utim_mult_shift_error(&ms, 4u), 3u);
  ms.shift = 63u;
  TH_EQU(utim_mult_shift_error(&ms, UINT64_MAX), 2u);
}

/* One ratio: optimal shift, and the documented error bound over random deltas. */
static bool check_ratio(uint64_t to, uint64_t from, uint64_t max_delta, uint64_t *worst) {
  utim_mult_shift_t ms;
  if (!TH_EQ(utim_mult_shift_calc(&ms, to, from, max_delta), 0)) {
    return false;
  }
  TH_CHECK(ms.max_delta >= max_delta && ms.shift <= 63u);
  if (ms.mult == 0u) {
    return TH_CHECK(ms.mult != 0u);
  }
  TH_EQU(ms.max_delta, UINT64_MAX / ms.mult);
  TH_EQU(ms.mult, ref_sat(to, UINT64_C(1) << ms.shift, from, UTIM_ROUND_NEAREST));
  if (ms.shift < 63u) {
    /* One more bit of shift would not fit: the shift is the best one. */
    uint64_t m2 = ref_sat(to, UINT64_C(1) << (ms.shift + 1u), from, UTIM_ROUND_NEAREST);
    TH_CHECKF(m2 == UINT64_MAX || m2 > UINT64_MAX / max_delta, "shift %u not maximal",
              (unsigned)ms.shift);
  }
  for (unsigned i = 0u; i < 20000u; i++) {
    uint64_t d = i == 0u ? 0u : i == 1u ? 1u : i == 2u ? max_delta : rng() % (max_delta + 1u);
    uint64_t exact = ref_sat(d, to, from, UTIM_ROUND_FLOOR);
    uint64_t got = utim_mult_shift_apply(&ms, d);
    uint64_t err = got > exact ? got - exact : exact - got;
    *worst = err > *worst ? err : *worst;
    if (err > utim_mult_shift_error(&ms, d)) {
      th_note("to %llu from %llu delta %llu: got %llu exact %llu bound %llu",
              (unsigned long long)to, (unsigned long long)from, (unsigned long long)d,
              (unsigned long long)got, (unsigned long long)exact,
              (unsigned long long)utim_mult_shift_error(&ms, d));
      return TH_CHECK(err <= utim_mult_shift_error(&ms, d));
    }
  }
  return !th_test_failed();
}

static void t_mult_shift_bounds(void *arg) {
  (void)arg;
  static const uint64_t hzs[] = {1u,          32768u,      1000000u,   24000000u,  999999999u,
                                 1000000000u, 2596120000u, UINT32_MAX, 4000000000u};
  for (size_t h = 0u; h < sizeof hzs / sizeof hzs[0]; h++) {
    uint64_t worst = 0u;
    th_context("hz %llu", (unsigned long long)hzs[h]);
    /* ticks -> ns over 2 s of ticks, and ns -> ticks over 2 s of ns. */
    (void)check_ratio(NS, hzs[h], 2u * hzs[h], &worst);
    (void)check_ratio(hzs[h], NS, 2u * NS, &worst);
    if (hzs[h] == 2596120000u) {
      th_note("2.59612 GHz ticks->ns over 2 s: worst error %llu ns", (unsigned long long)worst);
    }
  }
  /* A calibration-style ratio: ns and ticks elapsed over a 20 ms window. */
  uint64_t worst = 0u;
  th_context("calibration ratio");
  (void)check_ratio(20000123u, 51922401u, UINT64_C(2) * 2596120000u, &worst);
  /* The 1 s bound of the re-fitted fast path stays within 1 ns at 2.6 GHz. */
  utim_mult_shift_t ms;
  TH_EQ(utim_mult_shift_calc(&ms, NS, 2596120000u, UINT64_C(2) * 2596120000u), 0);
  TH_CHECKF(utim_mult_shift_error(&ms, 2596120000u) <= 2u, "error bound %llu at 1 s",
            (unsigned long long)utim_mult_shift_error(&ms, 2596120000u));
}

/* ---- the sleep algorithm over a fake port ------------------------------------ */

/*
 * The fake port: a clock that moves only when the algorithm spins (relax:
 * +25 ns of time and CPU) or sleeps (block: to the target plus a scripted
 * oversleep, +1000 ns of CPU); early returns and errors on request.
 */
#define RELAX_NS  25
#define BLOCK_CPU 1000

static struct {
  utim_ns_t now;
  int64_t cpu;
  utim_ns_t oversleep; /* added to the target by each coarse sleep */
  utim_ns_t early_by;  /* > 0: the next coarse sleep returns -EINTR this much early */
  int rc;              /* != 0: the coarse sleep returns this at once */
  unsigned blocks;
} fk;

static utim_ns_t fake_now(void) {
  return fk.now;
}

static void fake_relax(void) {
  fk.now += RELAX_NS;
  fk.cpu += RELAX_NS;
}

static int fake_block(utim_ns_t t) {
  fk.blocks++;
  fk.cpu += BLOCK_CPU;
  if (fk.rc != 0) {
    return fk.rc;
  }
  if (fk.early_by > 0) {
    if (t - fk.early_by > fk.now) {
      fk.now = t - fk.early_by;
    }
    fk.early_by = 0;
    return -EINTR;
  }
  if (t > fk.now) {
    fk.now = t;
  }
  fk.now += fk.oversleep;
  return 0;
}

static int64_t fake_cpu(void) {
  return fk.cpu;
}

static const utim_sleep_ops_t fake_ops = {fake_now, fake_block, fake_cpu, fake_relax};
static const utim_sleep_ops_t fake_ops_nocpu = {fake_now, fake_block, NULL, fake_relax};

static utim_sleep_cfg_t test_cfg(void) {
  utim_sleep_cfg_t c = utim_sleep_cfg_default();
  c.initial_margin = 100000;
  c.min_margin = 0;
  c.max_margin = 10 * UTIM_NS_PER_MS;
  c.headroom = 2000;
  c.min_block = 0;
  c.percentile = 950u;
  c.decay_shift = 3u;
  c.track_cpu = 1u;
  return c;
}

static void fake_reset(void) {
  memset(&fk, 0, sizeof fk);
  fk.now = 1000000000;
  fk.cpu = 5000;
}

/* One 1 ms sleep; checks what holds for every sleep and returns its result. */
static utim_sleep_result_t sleep_1ms(utim_sleeper_t *s) {
  utim_sleep_result_t r;
  int64_t cpu0 = fk.cpu;
  utim_ns_t d = fk.now + UTIM_NS_PER_MS;
  TH_EQ(utim_sleeper_until(s, d, &r), 0);
  TH_CHECKF(r.wake >= d && fk.now >= d, "woke early: wake %lld deadline %lld", (long long)r.wake,
            (long long)d);
  TH_EQ(r.miss, r.wake - r.deadline);
  TH_EQ(r.cpu, fk.cpu - cpu0);
  TH_EQ(s->last.wake, r.wake);
  return r;
}

static void t_sleep_converges(void *arg) {
  (void)arg;
  fake_reset();
  fk.oversleep = 50000;
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  TH_EQ(s.margin, 100000);
  utim_sleep_result_t r = sleep_1ms(&s);
  TH_EQ(r.blocks, 1);
  TH_EQ(r.margin, 100000);
  TH_EQ(r.oversleep, 50000);
  TH_EQ(r.late, 0);
  TH_CHECK(r.miss >= 0 && r.miss < RELAX_NS);
  /* Woke 50 us before the deadline: spun the other 50 us. */
  TH_EQ(r.spin, 50000 + r.miss);
  TH_EQ(r.cpu, BLOCK_CPU + r.spin);
  /* Target p95 + headroom = 52 us; the margin moves 1/8 of the gap down per call. */
  TH_EQ(s.margin, 100000 - (48000 >> 3));
  (void)sleep_1ms(&s);
  TH_EQ(s.margin, 94000 - (42000 >> 3));
  utim_ns_t prev = s.margin;
  for (int i = 0; i < 200; i++) {
    r = sleep_1ms(&s);
    TH_CHECK(r.late == 0u && r.miss < RELAX_NS);
    TH_CHECKF(s.margin <= prev && s.margin >= 52000, "margin %lld after %lld", (long long)s.margin,
              (long long)prev);
    prev = s.margin;
  }
  TH_EQ(s.margin, 52000);
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(&s, &st), 0);
  TH_EQU(st.calls, 202u);
  TH_EQU(st.blocked_calls, 202u);
  TH_EQU(st.late_calls, 0u);
  TH_EQU(st.cpu_calls, 202u);
  TH_EQ(st.oversleep_max, 50000);
  TH_EQ(st.margin, 52000);
  TH_CHECK(st.miss_max < RELAX_NS);
}

static void t_sleep_percentile_and_decay(void *arg) {
  (void)arg;
  fake_reset();
  fk.oversleep = 50000;
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  for (int i = 0; i < 200; i++) {
    (void)sleep_1ms(&s);
  }
  TH_EQ(s.margin, 52000);
  utim_sleeper_reset_stats(&s);

  /* One overshoot in 32 is below the 95th percentile: late once, margin kept. */
  fk.oversleep = 80000;
  utim_sleep_result_t r = sleep_1ms(&s);
  TH_EQ(r.late, 1);
  TH_EQ(r.miss, 80000 - 52000);
  TH_EQ(r.spin, 0);
  TH_EQ(s.margin, 52000);
  /* A second one makes it the percentile: the margin rises at once. */
  r = sleep_1ms(&s);
  TH_EQ(r.late, 1);
  TH_EQ(r.miss, 28000);
  TH_EQ(s.margin, 82000);
  r = sleep_1ms(&s);
  TH_EQ(r.late, 0);
  TH_CHECK(r.miss < RELAX_NS);
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(&s, &st), 0);
  TH_EQU(st.calls, 3u);
  TH_EQU(st.late_calls, 2u);
  TH_EQ(st.miss_max, 28000);
  TH_EQ(st.miss_sum, 56000 + r.miss);
  TH_EQ(st.oversleep_max, 80000);

  /*
   * Sleeps go well again: the margin holds while the three overshoots are
   * among the two largest of the window, and decays once they have left it.
   */
  fk.oversleep = 50000;
  int calls = 0;
  while (s.margin == 82000 && calls < 100) {
    r = sleep_1ms(&s);
    TH_CHECK(r.late == 0u);
    calls++;
  }
  TH_EQ(calls, 31);
  TH_EQ(s.margin, 82000 - (30000 >> 3));
  utim_ns_t prev = s.margin;
  for (int i = 0; i < 200; i++) {
    (void)sleep_1ms(&s);
    TH_CHECK(s.margin <= prev && s.margin >= 52000);
    prev = s.margin;
  }
  TH_EQ(s.margin, 52000);
}

static void t_sleep_clamps(void *arg) {
  (void)arg;
  fake_reset();
  fk.oversleep = 50000;
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  c.max_margin = 10000;
  c.initial_margin = 1000000; /* clamped to max_margin */
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  TH_EQ(s.margin, 10000);
  utim_sleep_result_t r = sleep_1ms(&s);
  TH_EQ(r.late, 1);
  TH_EQ(r.miss, 40000);
  TH_EQ(s.margin, 10000);
  c = test_cfg();
  c.min_margin = 70000;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  for (int i = 0; i < 100; i++) {
    r = sleep_1ms(&s);
  }
  TH_EQ(s.margin, 70000);
  TH_EQ(r.spin, 20000 + r.miss);
}

static void t_sleep_special_cases(void *arg) {
  (void)arg;
  fake_reset();
  fk.oversleep = 50000;
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  utim_sleep_result_t r;

  /* A deadline that has passed: no sleep at all, the miss is how late the call was. */
  TH_EQ(utim_sleeper_until(&s, fk.now - 5000, &r), 0);
  TH_EQ(r.miss, 5000);
  TH_EQ(r.blocks, 0);
  TH_EQ(r.spin, 0);
  TH_EQ(fk.blocks, 0);
  TH_EQ(s.margin, 100000);

  /* Shorter than the margin: spin only, the margin learns nothing. */
  TH_EQ(utim_sleeper_for(&s, 10000, &r), 0);
  TH_EQ(r.deadline, r.start + 10000);
  TH_EQ(r.blocks, 0);
  TH_EQ(r.oversleep, -1);
  TH_CHECK(r.wake >= r.deadline && r.miss < RELAX_NS);
  TH_EQ(s.wcount, 0);

  /* Interrupted: sleeps again toward the same target; one oversleep sample. */
  fk.early_by = 300000;
  TH_EQ(utim_sleeper_for(&s, UTIM_NS_PER_MS, &r), 0);
  TH_EQ(r.blocks, 2);
  TH_EQ(r.oversleep, 50000);
  TH_EQ(s.wcount, 1);
  TH_EQ(r.blocked, UTIM_NS_PER_MS - 100000 + 50000);
  TH_CHECK(r.wake >= r.deadline && r.miss < RELAX_NS);

  /* A coarse sleep that cannot sleep: the call spins the whole way. */
  fk.rc = -ENOTSUP;
  utim_ns_t m = s.margin;
  TH_EQ(utim_sleeper_for(&s, UTIM_NS_PER_MS, &r), 0);
  TH_EQ(r.blocks, 1);
  TH_EQ(r.oversleep, -1);
  TH_EQ(r.spin, UTIM_NS_PER_MS + r.miss);
  TH_CHECK(r.wake >= r.deadline && r.miss < RELAX_NS);
  TH_EQ(s.margin, m);
  TH_EQ(s.wcount, 1);
  fk.rc = 0;

  /* min_block: a coarse sleep shorter than it is not worth a system call. */
  c.min_block = 2 * UTIM_NS_PER_MS;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  unsigned b0 = fk.blocks;
  TH_EQ(utim_sleeper_for(&s, UTIM_NS_PER_MS, &r), 0);
  TH_EQ(fk.blocks, b0);
  TH_EQ(r.blocks, 0);

  /* Waking exactly at the target is an oversleep of 0, and it is learnt. */
  c.min_block = 0;
  fk.oversleep = 0;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  TH_EQ(utim_sleeper_for(&s, UTIM_NS_PER_MS, &r), 0);
  TH_EQ(r.blocks, 1);
  TH_EQ(r.oversleep, 0);
  TH_EQ(s.wcount, 1);
  TH_EQ(r.spin, 100000 + r.miss);
}

static void t_sleep_calibrate(void *arg) {
  (void)arg;
  fake_reset();
  fk.oversleep = 30000;
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  utim_ns_t t0 = fk.now;
  TH_EQ(utim_sleeper_calibrate(&s, 8u, 20000), 0);
  TH_EQ(fk.blocks, 8);
  TH_EQ(fk.now - t0, 8 * (20000 + 30000));
  TH_EQ(s.wcount, 8);
  TH_EQ(s.margin, 32000); /* set at once, not decayed toward */
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(&s, &st), 0);
  TH_EQU(st.calls, 0u);
  TH_EQ(st.margin, 32000);
  /* A 100 us sleep now uses the coarse sleep. */
  utim_sleep_result_t r;
  TH_EQ(utim_sleeper_for(&s, 100000, &r), 0);
  TH_EQ(r.blocks, 1);
  TH_EQ(r.spin, 2000 + r.miss);
  /* Interrupted probes teach nothing; errors and bad arguments. */
  fk.early_by = 5000;
  TH_EQ(utim_sleeper_calibrate(&s, 1u, 20000), -EINTR);
  TH_EQ(s.wcount, 9);
  fk.rc = -ENOTSUP;
  TH_EQ(utim_sleeper_calibrate(&s, 4u, 20000), -ENOTSUP);
  fk.rc = 0;
  TH_EQ(s.wcount, 9); /* a failed call keeps the history */
  TH_EQ(s.margin, 32000);
  /* After a change of scheduling the probes replace the history: 4 probes
   * of 5 us oversleep are not outvoted by the 9 older samples of 30 us
   * (they were: the margin stayed at 32 us). */
  fk.oversleep = 5000;
  TH_EQ(utim_sleeper_calibrate(&s, 4u, 20000), 0);
  TH_EQ(s.wcount, 4);
  TH_EQ(s.margin, 7000);
  TH_EQ(utim_sleeper_calibrate(&s, 0u, 20000), -EINVAL);
  TH_EQ(utim_sleeper_calibrate(&s, 1u, 0), -EINVAL);
  TH_EQ(utim_sleeper_calibrate(NULL, 1u, 1), -EINVAL);
  static const utim_sleep_ops_t no_block = {fake_now, NULL, fake_cpu, fake_relax};
  TH_EQ(utim_sleeper_init(&s, &no_block, &c), 0);
  TH_EQ(utim_sleeper_calibrate(&s, 1u, 1), -ENOTSUP);
}

static void t_sleep_cpu_unknown(void *arg) {
  (void)arg;
  fake_reset();
  fk.oversleep = 1000;
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  TH_EQ(utim_sleeper_init(&s, &fake_ops_nocpu, &c), 0);
  utim_sleep_result_t r;
  TH_EQ(utim_sleeper_for(&s, UTIM_NS_PER_MS, &r), 0);
  TH_EQ(r.cpu, -1);
  c.track_cpu = 0u;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), 0);
  TH_EQ(utim_sleeper_for(&s, UTIM_NS_PER_MS, &r), 0);
  TH_EQ(r.cpu, -1);
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(&s, &st), 0);
  TH_EQU(st.calls, 1u);
  TH_EQU(st.cpu_calls, 0u);
  TH_EQ(st.cpu_sum, 0);
  TH_EQ(st.elapsed_sum, r.wake - r.start);
}

static void t_sleep_errors(void *arg) {
  (void)arg;
  fake_reset();
  utim_sleeper_t s;
  utim_sleep_cfg_t c = test_cfg();
  static const utim_sleep_ops_t no_now = {NULL, fake_block, fake_cpu, fake_relax};
  TH_EQ(utim_sleeper_init(NULL, &fake_ops, &c), -EINVAL);
  TH_EQ(utim_sleeper_init(&s, NULL, &c), -EINVAL);
  TH_EQ(utim_sleeper_init(&s, &no_now, &c), -EINVAL);
  c.percentile = 0u;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), -EINVAL);
  c = test_cfg();
  c.percentile = 1001u;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), -EINVAL);
  c = test_cfg();
  c.max_margin = c.min_margin - 1;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), -EINVAL);
  c = test_cfg();
  c.headroom = -1;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), -EINVAL);
  c = test_cfg();
  c.decay_shift = 16u;
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &c), -EINVAL);
  /* The defaults are valid; NULL means the defaults. */
  utim_sleep_cfg_t d = utim_sleep_cfg_default();
  TH_EQ(utim_sleeper_init(&s, &fake_ops, &d), 0);
  TH_EQ(utim_sleeper_init(&s, &fake_ops, NULL), 0);
  TH_EQ(s.margin, d.initial_margin);
  TH_EQ(utim_sleeper_for(&s, -1, NULL), -EINVAL);
  TH_EQ(utim_sleeper_for(NULL, 1, NULL), -EINVAL);
  TH_EQ(utim_sleeper_until(NULL, 0, NULL), -EINVAL);
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(NULL, &st), -EINVAL);
  TH_EQ(utim_sleeper_stats(&s, NULL), -EINVAL);
  TH_EQU(fk.blocks, 0u);
}

int main(void) {
  th_set_putc(th_stdio_putc);
#if defined(UTIM_TIME_NO_INT128)
  th_note("time.c built for the portable 128-bit path");
#endif
  th_run("time values saturate and round down", t_time_values, NULL);
  th_run("muldiv errors, saturation and rounding", t_muldiv_errors, NULL);
  th_run("conversions: known values", t_conversions_known, NULL);
  th_run("conversions: edges against 128-bit reference", t_conversions_edges, NULL);
  th_run("conversions: 1,000,000 random against 128-bit reference", t_conversions_random, NULL);
  th_run("mult/shift: known values and errors", t_mult_shift_known, NULL);
  th_run("mult/shift: optimal shift and error bound", t_mult_shift_bounds, NULL);
  th_run("sleep: margin converges to the oversleep percentile", t_sleep_converges, NULL);
  th_run("sleep: percentile rises at once, decays when sleeps go well",
         t_sleep_percentile_and_decay, NULL);
  th_run("sleep: margin clamps", t_sleep_clamps, NULL);
  th_run("sleep: past deadline, short, interrupted, no coarse sleep", t_sleep_special_cases, NULL);
  th_run("sleep: calibration of the margin", t_sleep_calibrate, NULL);
  th_run("sleep: CPU time unknown", t_sleep_cpu_unknown, NULL);
  th_run("sleep: invalid arguments", t_sleep_errors, NULL);
  return th_finish();
}
