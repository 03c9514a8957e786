/**
 * @file time.h
 * @brief Time values in nanoseconds, exact tick <-> ns conversions, the
 *        mult/shift fast conversion, and precise sleep.
 *
 * Everything here is freestanding, integer-only and portable to 32-bit
 * targets (a 64 x 64 -> 128-bit product is computed with 32-bit halves where
 * the compiler has no 128-bit integer type).
 *
 * @par Time values
 * A time is a signed 64-bit count of nanoseconds (utim_ns_t): a point in time
 * on the port's time line (utim_port_now_ns(), utim_now() on Linux) or a
 * duration. Its range is about +/- 292 years; the helpers below saturate at
 * UTIM_NS_MIN / UTIM_NS_MAX instead of wrapping.
 *
 * @par Tick <-> ns conversions
 * utim_ticks_to_ns() and friends compute a * b / c with a 128-bit
 * intermediate, so they are exact for every 64-bit input: the result is the
 * exact quotient rounded as documented (floor unless the name says ceil),
 * and a result that does not fit in 64 bits saturates to UINT64_MAX
 * (utim_muldiv() reports that case as -ERANGE).
 *
 * @par Precise sleep
 * utim_sleep_until() / utim_sleep_for() sleep in two phases: a coarse,
 * CPU-free sleep of the port (utim_port_block_until(): a kernel sleep on
 * Linux, an alarm + WFI on an MCU) until a margin before the deadline, then
 * a spin on the time source with utim_port_relax() until the deadline. The
 * margin adapts to the oversleep of the coarse sleep observed in the recent
 * calls: it follows a high percentile of it (rising at once when a sleep
 * overshoots, decaying gradually when sleeps go well). Each sleeper keeps the
 * result of its last call and cumulative statistics (miss = wake time -
 * deadline, spin time, CPU time where the port can tell).
 */
#ifndef UTIM_TIME_H
#define UTIM_TIME_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- time values ------------------------------------------------------------- */

/** @brief A time point or a duration in nanoseconds (signed, 64 bits). */
typedef int64_t utim_ns_t;

/** @brief Largest time value (about 292 years). */
#define UTIM_NS_MAX INT64_MAX
/** @brief Smallest time value. */
#define UTIM_NS_MIN INT64_MIN
/** @brief Nanoseconds per microsecond. */
#define UTIM_NS_PER_US INT64_C(1000)
/** @brief Nanoseconds per millisecond. */
#define UTIM_NS_PER_MS INT64_C(1000000)
/** @brief Nanoseconds per second. */
#define UTIM_NS_PER_S INT64_C(1000000000)

/** @brief @p a + @p b, saturated to [UTIM_NS_MIN, UTIM_NS_MAX]. */
static inline utim_ns_t utim_ns_add(utim_ns_t a, utim_ns_t b) {
  if (b > 0 && a > UTIM_NS_MAX - b) {
    return UTIM_NS_MAX;
  }
  if (b < 0 && a < UTIM_NS_MIN - b) {
    return UTIM_NS_MIN;
  }
  return a + b;
}

/** @brief @p a - @p b, saturated to [UTIM_NS_MIN, UTIM_NS_MAX]. */
static inline utim_ns_t utim_ns_sub(utim_ns_t a, utim_ns_t b) {
  if (b < 0 && a > UTIM_NS_MAX + b) {
    return UTIM_NS_MAX;
  }
  if (b > 0 && a < UTIM_NS_MIN + b) {
    return UTIM_NS_MIN;
  }
  return a - b;
}

/** @brief @p a * @p k, saturated to [UTIM_NS_MIN, UTIM_NS_MAX]. */
static inline utim_ns_t utim_ns_scale(utim_ns_t a, int64_t k) {
  if (a == 0 || k == 0) {
    return 0;
  }
  bool neg = (a < 0) != (k < 0);
  /* Magnitudes as unsigned, so that INT64_MIN has one too. */
  uint64_t ua = a < 0 ? 0u - (uint64_t)a : (uint64_t)a;
  uint64_t uk = k < 0 ? 0u - (uint64_t)k : (uint64_t)k;
  uint64_t lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  if (ua > lim / uk) {
    return neg ? UTIM_NS_MIN : UTIM_NS_MAX;
  }
  uint64_t m = ua * uk;
  return neg ? (utim_ns_t)(0u - m) : (utim_ns_t)m;
}

/** @brief @p us microseconds as nanoseconds (saturated). */
static inline utim_ns_t utim_us(int64_t us) {
  return utim_ns_scale(us, UTIM_NS_PER_US);
}

/** @brief @p ms milliseconds as nanoseconds (saturated). */
static inline utim_ns_t utim_ms(int64_t ms) {
  return utim_ns_scale(ms, UTIM_NS_PER_MS);
}

/** @brief @p s seconds as nanoseconds (saturated). */
static inline utim_ns_t utim_s(int64_t s) {
  return utim_ns_scale(s, UTIM_NS_PER_S);
}

/** @brief @p a divided by @p unit (> 0), rounded toward minus infinity. */
static inline int64_t utim_ns_div_floor(utim_ns_t a, int64_t unit) {
  int64_t q = a / unit;
  return (a % unit != 0 && a < 0) ? q - 1 : q;
}

/** @brief Whole microseconds in @p a, rounded toward minus infinity. */
static inline int64_t utim_ns_to_us(utim_ns_t a) {
  return utim_ns_div_floor(a, UTIM_NS_PER_US);
}

/** @brief Whole milliseconds in @p a, rounded toward minus infinity. */
static inline int64_t utim_ns_to_ms(utim_ns_t a) {
  return utim_ns_div_floor(a, UTIM_NS_PER_MS);
}

/** @brief Whole seconds in @p a, rounded toward minus infinity. */
static inline int64_t utim_ns_to_s(utim_ns_t a) {
  return utim_ns_div_floor(a, UTIM_NS_PER_S);
}

/** @brief -1, 0 or 1 as @p a is before, equal to or after @p b. */
static inline int utim_ns_cmp(utim_ns_t a, utim_ns_t b) {
  return a > b ? 1 : (a < b ? -1 : 0); /* no bool arithmetic: C++ includes it too */
}

/** @brief Whether time @p a is strictly before time @p b. */
static inline bool utim_ns_before(utim_ns_t a, utim_ns_t b) {
  return a < b;
}

/** @brief Whether time @p a is strictly after time @p b. */
static inline bool utim_ns_after(utim_ns_t a, utim_ns_t b) {
  return a > b;
}

/** @brief The earlier of two times. */
static inline utim_ns_t utim_ns_min(utim_ns_t a, utim_ns_t b) {
  return a < b ? a : b;
}

/** @brief The later of two times. */
static inline utim_ns_t utim_ns_max(utim_ns_t a, utim_ns_t b) {
  return a > b ? a : b;
}

/** @brief |@p a|, with |UTIM_NS_MIN| saturated to UTIM_NS_MAX. */
static inline utim_ns_t utim_ns_abs(utim_ns_t a) {
  if (a == UTIM_NS_MIN) {
    return UTIM_NS_MAX;
  }
  return a < 0 ? -a : a;
}

/* ---- exact conversions ------------------------------------------------------- */

/** @brief Rounding of utim_muldiv(). */
typedef enum utim_round {
  UTIM_ROUND_FLOOR = 0,   /**< toward zero (the results are non-negative) */
  UTIM_ROUND_CEIL = 1,    /**< away from zero: the smallest integer >= the exact value */
  UTIM_ROUND_NEAREST = 2, /**< nearest integer, halves rounded up */
} utim_round_t;

/**
 * @brief @p a * @p b / @p c, exact (128-bit intermediate), rounded by @p r.
 * @param a   first factor
 * @param b   second factor
 * @param c   divisor
 * @param r   rounding
 * @param[out] out the result; UINT64_MAX when it does not fit
 * @retval 0 success
 * @retval -EINVAL @p c is 0, @p out is NULL or @p r is not a utim_round_t
 *                 (@p out is not written)
 * @retval -ERANGE the rounded result exceeds UINT64_MAX (@p out = UINT64_MAX)
 */
int utim_muldiv(uint64_t a, uint64_t b, uint64_t c, utim_round_t r, uint64_t *out);

/**
 * @brief Duration of @p ticks of a @p hz counter in ns: floor(ticks * 10^9 / hz).
 *
 * Exact for every 64-bit input; never early (rounded down, so a duration
 * measured in ticks is never reported longer than it was).
 * @return the duration, UINT64_MAX when it does not fit (possible only for
 *         @p hz < 10^9) or when @p hz is 0
 */
uint64_t utim_ticks_to_ns(uint64_t ticks, uint64_t hz);

/** @brief As utim_ticks_to_ns(), rounded up: ceil(ticks * 10^9 / hz). */
uint64_t utim_ticks_to_ns_ceil(uint64_t ticks, uint64_t hz);

/**
 * @brief Whole ticks of a @p hz counter in @p ns: floor(ns * hz / 10^9).
 * @return the tick count; UINT64_MAX when it does not fit (possible only for
 *         @p hz > 10^9); 0 when @p hz is 0
 */
uint64_t utim_ns_to_ticks(uint64_t ns, uint64_t hz);

/**
 * @brief Ticks of a @p hz counter covering at least @p ns: ceil(ns * hz / 10^9).
 *
 * Use this to arm a timeout: the alarm is then never early.
 * @return the tick count, saturated to UINT64_MAX; 0 when @p hz is 0
 */
uint64_t utim_ns_to_ticks_ceil(uint64_t ns, uint64_t hz);

/* ---- mult/shift fast conversion ---------------------------------------------- */

/**
 * @brief Conversion of a bounded count by one multiply and one shift:
 *        out = (delta * mult) >> shift, for delta <= max_delta.
 *
 * The fast read path of a calibrated counter converts the ticks elapsed since
 * a base point this way and moves the base point before max_delta is
 * reached. Filled by utim_mult_shift_calc().
 */
typedef struct utim_mult_shift {
  uint64_t mult;      /**< multiplier, mult / 2^shift ~ to / from */
  uint64_t max_delta; /**< largest delta with delta * mult < 2^64 */
  uint32_t shift;     /**< right shift, 0 to 63 */
  uint32_t reserved;  /**< zero */
} utim_mult_shift_t;

/**
 * @brief Compute the mult/shift pair converting counts of one unit into
 *        another at the ratio @p to / @p from (e.g. to = 10^9, from = hz for
 *        ticks -> ns; or ns and ticks elapsed over a calibration window).
 *
 * Chooses the largest shift (best precision) for which
 * mult = round(to * 2^shift / from) keeps @p max_delta * mult below 2^64.
 * For delta <= max_delta the result r of utim_mult_shift_apply() and the
 * exact value e = delta * to / from satisfy
 * e - delta / 2^(shift+1) - 1 < r <= e + delta / 2^(shift+1)
 * (see utim_mult_shift_error()).
 *
 * @param[out] ms  the result (max_delta is set to the largest delta allowed,
 *                 which is >= @p max_delta)
 * @param to       numerator of the ratio (> 0)
 * @param from     denominator of the ratio (> 0)
 * @param max_delta largest delta the caller will convert (> 0)
 * @retval 0 success
 * @retval -EINVAL @p ms is NULL or an argument is 0
 * @retval -ERANGE no shift keeps @p max_delta * mult in 64 bits
 */
int utim_mult_shift_calc(utim_mult_shift_t *ms, uint64_t to, uint64_t from, uint64_t max_delta);

/** @brief (@p delta * mult) >> shift; valid for @p delta <= ms->max_delta. */
static inline uint64_t utim_mult_shift_apply(const utim_mult_shift_t *ms, uint64_t delta) {
  return (delta * ms->mult) >> ms->shift;
}

/**
 * @brief Bound on |utim_mult_shift_apply(ms, delta) - floor(delta * to / from)|
 *        for the ratio @p ms was computed for: ceil(delta / 2^(shift+1)) + 1.
 */
uint64_t utim_mult_shift_error(const utim_mult_shift_t *ms, uint64_t delta);

/* ---- precise sleep ----------------------------------------------------------- */

/** @brief Number of recent coarse-sleep oversleeps the margin is computed from. */
#define UTIM_SLEEP_WINDOW 32u

/**
 * @brief What the sleep algorithm needs from the platform. The port's
 *        sleeper (utim_port_sleeper()) uses utim_port_sleep_ops: the hooks
 *        utim_port_now_ns(), utim_port_block_until(), utim_port_cpu_ns()
 *        and utim_port_relax() of utim/port.h; tests pass their own.
 */
typedef struct utim_sleep_ops {
  /** @brief Current time on the time line of the deadlines (monotonic). */
  utim_ns_t (*now)(void);
  /**
   * @brief Coarse sleep until @p t (see utim_port_block_until() for the
   *        contract); NULL when the platform has none (spin only).
   */
  int (*block_until)(utim_ns_t t);
  /** @brief CPU time of the calling thread in ns (or < 0); NULL when unknown. */
  int64_t (*cpu_ns)(void);
  /** @brief One iteration of the spin (a pause instruction); NULL for none. */
  void (*relax)(void);
} utim_sleep_ops_t;

/** @brief Tuning of a sleeper; utim_sleep_cfg_default() gives the defaults. */
typedef struct utim_sleep_cfg {
  utim_ns_t initial_margin; /**< margin before any oversleep was seen */
  utim_ns_t min_margin;     /**< the margin never goes below this (>= 0) */
  utim_ns_t max_margin;     /**< ... nor above this (>= min_margin) */
  utim_ns_t headroom;       /**< added to the oversleep percentile (>= 0) */
  utim_ns_t min_block;      /**< no coarse sleep shorter than this (>= 0) */
  uint16_t percentile;      /**< oversleep percentile followed, in permille (1 to 1000) */
  uint8_t decay_shift; /**< margin moves down by 1 / 2^decay_shift of the gap per call (0-15) */
  uint8_t track_cpu;   /**< 1: measure CPU time per call (costs two reads of it) */
} utim_sleep_cfg_t;

/** @brief Outcome of one sleep. */
typedef struct utim_sleep_result {
  utim_ns_t deadline;  /**< the deadline asked for */
  utim_ns_t start;     /**< time at the call */
  utim_ns_t wake;      /**< first time read at or after the deadline (the wake-up) */
  utim_ns_t miss;      /**< wake - deadline (>= 0) */
  utim_ns_t margin;    /**< margin used for this call */
  utim_ns_t oversleep; /**< coarse-sleep wake - its target; -1 when it did not block */
  utim_ns_t blocked;   /**< time spent in the coarse sleep */
  utim_ns_t spin;      /**< time spent spinning */
  int64_t cpu;         /**< CPU time of the call in ns; -1 when unknown */
  uint32_t blocks;     /**< coarse-sleep calls (several after early returns) */
  uint32_t late;       /**< 1 when the coarse sleep itself woke after the deadline */
} utim_sleep_result_t;

/** @brief Statistics accumulated over the calls of a sleeper. */
typedef struct utim_sleep_stats {
  uint64_t calls;          /**< sleeps completed */
  uint64_t blocked_calls;  /**< sleeps that used the coarse sleep */
  uint64_t late_calls;     /**< sleeps whose coarse sleep overshot the deadline */
  uint64_t cpu_calls;      /**< sleeps whose CPU time is known */
  utim_ns_t miss_sum;      /**< sum of the misses */
  utim_ns_t miss_max;      /**< largest miss */
  utim_ns_t elapsed_sum;   /**< sum of (wake - start) */
  utim_ns_t cpu_sum;       /**< sum of the known CPU times */
  utim_ns_t cpu_elapsed;   /**< sum of (wake - start) over the calls with known CPU time */
  utim_ns_t spin_sum;      /**< sum of the spin times */
  utim_ns_t oversleep_max; /**< largest coarse-sleep oversleep */
  utim_ns_t margin;        /**< current margin */
} utim_sleep_stats_t;

/**
 * @brief State of the sleep algorithm for one thread of execution (the
 *        margin, its history and the statistics). Not shared between
 *        threads that sleep at the same time. About 500 bytes.
 */
typedef struct utim_sleeper {
  const utim_sleep_ops_t *ops;         /**< platform hooks */
  utim_sleep_cfg_t cfg;                /**< tuning */
  utim_ns_t margin;                    /**< current margin */
  utim_ns_t window[UTIM_SLEEP_WINDOW]; /**< recent oversleeps (ring) */
  uint32_t wcount;                     /**< samples in the window */
  uint32_t whead;                      /**< next slot of the ring */
  utim_sleep_result_t last;            /**< result of the last call */
  utim_sleep_stats_t stats;            /**< accumulated statistics */
} utim_sleeper_t;

/** @brief The default tuning (initial margin 100 us, p95 + 2 us, 0.5 us .. 10 ms). */
utim_sleep_cfg_t utim_sleep_cfg_default(void);

/**
 * @brief Prepare a sleeper.
 * @param s   the sleeper
 * @param ops platform hooks (must outlive the sleeper; ops->now is required)
 * @param cfg tuning, NULL for utim_sleep_cfg_default()
 * @retval 0 success
 * @retval -EINVAL @p s or @p ops is NULL, ops->now is NULL, or @p cfg is out of range
 */
int utim_sleeper_init(utim_sleeper_t *s, const utim_sleep_ops_t *ops, const utim_sleep_cfg_t *cfg);

/**
 * @brief Sleep until time @p deadline: coarse sleep until deadline - margin,
 *        then spin until the deadline; then adapt the margin.
 *
 * Returns at once (miss = now - deadline) when the deadline has passed. An
 * early return of the coarse sleep (-EINTR, spurious) sleeps again; any other
 * error of it switches the call to spinning. The call never returns before
 * the deadline.
 * @param s        the sleeper
 * @param deadline time point on the ops->now() time line
 * @param[out] res result of this call, or NULL (it is also kept in s->last)
 * @retval 0 the deadline was reached
 * @retval -EINVAL @p s is NULL or not initialised
 */
int utim_sleeper_until(utim_sleeper_t *s, utim_ns_t deadline, utim_sleep_result_t *res);

/**
 * @brief Sleep for @p duration from now (utim_sleeper_until(now + duration)).
 * @retval 0 the deadline was reached
 * @retval -EINVAL @p s is NULL or not initialised, or @p duration < 0
 */
int utim_sleeper_for(utim_sleeper_t *s, utim_ns_t duration, utim_sleep_result_t *res);

/**
 * @brief Learn the margin now: @p n coarse sleeps of @p probe ns (no spin),
 *        whose oversleeps replace the window's history; the margin is then set
 *        at once to their percentile plus headroom (clamped). When every probe
 *        is interrupted nothing changes; when the coarse sleep fails, the
 *        margin is kept and the window holds the probes taken before. The
 *        statistics are not touched. Useful at start, since sleeps shorter
 *        than the margin never teach it anything, and after a change of
 *        scheduling policy.
 * @retval 0 success
 * @retval -EINVAL @p s is NULL or not initialised, @p n is 0 or @p probe <= 0
 * @retval -ENOTSUP the platform has no coarse sleep (or it failed with this)
 * @return another negative errno of the coarse sleep when it failed with
 *         one (-EINTR excepted): the probes taken before are kept
 * @retval -EINTR every probe was interrupted (nothing learnt)
 */
int utim_sleeper_calibrate(utim_sleeper_t *s, unsigned n, utim_ns_t probe);

/**
 * @brief Copy the statistics of @p s.
 * @retval 0 success
 * @retval -EINVAL @p s or @p out is NULL
 */
int utim_sleeper_stats(const utim_sleeper_t *s, utim_sleep_stats_t *out);

/** @brief Reset the statistics of @p s (the margin and its history are kept). */
void utim_sleeper_reset_stats(utim_sleeper_t *s);

/* ---- sleeping with the port's sleeper ----------------------------------------- */

/**
 * @brief Sleep until @p deadline (utim_port_now_ns() time line) with the
 *        calling thread's sleeper (utim_port_sleeper(), see utim/port.h);
 *        utim_port_sleeper()->last holds the result.
 * @retval 0 the deadline was reached (at once when it has passed)
 * @retval -EINVAL the port has no sleeper
 */
int utim_sleep_until(utim_ns_t deadline);

/**
 * @brief Sleep for @p duration ns with the calling thread's sleeper.
 * @retval 0 the deadline was reached
 * @retval -EINVAL @p duration < 0, or the port has no sleeper
 */
int utim_sleep_for(utim_ns_t duration);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TIME_H */
