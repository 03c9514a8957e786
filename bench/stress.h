/**
 * @file stress.h
 * @brief The randomized timer stress benchmark (`utim-bench stress` and its
 *        firmware): the method of RIOT's tests/bench_timers, portable (no
 *        heap, no stdio), on any board.
 *
 * One thread of execution arms a channel of the timer under test (TUT) with
 * random timeouts, through the uAPI (utim_set_rel(), utim_set_abs()) or
 * through the time manager (utim_tm_start(), utim_tm_start_at(),
 * utim_tm_task_delay()), and a reference timer (another instance, at another
 * frequency) measures when each callback runs. Per operation:
 *
 * - the function, the interval and the variant are drawn at random: the
 *   interval per log2 bucket (a bucket uniformly, then a value uniformly in
 *   it) from 1 up to the limit; **rescheduled**: armed once for a later
 *   moment first, then re-armed for the real one while the first is still
 *   armed; **stopped** (uAPI only): the counter is stopped before arming and
 *   started after a random delay, so the timeout must count from the start;
 * - random CPU delay loops (utim_port_relax() steps) after the stop, before
 *   the arming and before the start avoid phase-locking the benchmark to the
 *   timers' ticks;
 * - the difference = reference ticks from just before the arming (or the
 *   start) to the callback's first instruction, minus the interval in
 *   reference ticks, minus the benchmark's own overhead (estimated at set-up
 *   by the same reads without a timer: bench_stress_overhead());
 *   positive: late; it is accumulated per category (function x rescheduled x
 *   stopped) and per log2 interval;
 * - **early**: the callback ran while the timer under test (or the time
 *   manager's time) had not yet reached the armed value: counted apart, the
 *   exact test, independent of the reference; **lost**: no callback within
 *   the bound (the interval plus bench_stress_cfg_t::lost_ref); the channel
 *   is then cleared; **unexpected**: a callback with no arming outstanding
 *   (a rescheduled operation's first arming that fires before the re-arming,
 *   the thread held off past its lead, is counted apart: first_fired);
 *   **refused**: an arming call that returned an error (an absolute value
 *   passed before the call: -ETIME).
 *
 * A row is marked SIC! when |mean| exceeds two ticks of the TUT (two time
 * manager ticks when it is ticked) or its standard deviation exceeds twice
 * what the quantisation of the TUT's tick in reference ticks explains plus
 * two reference ticks (bench_stress_limits()).
 */
#ifndef UTIM_BENCH_STRESS_H
#define UTIM_BENCH_STRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "utim/tm.h"
#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What the benchmark arms. */
typedef enum bench_stress_api {
  BENCH_STRESS_UAPI = 0, /**< utim_set_rel() and utim_set_abs() on the channel */
  BENCH_STRESS_TM = 1    /**< a time manager's timer start, start_at and a task delay */
} bench_stress_api_t;

/** @brief The arming functions (table rows). */
typedef enum bench_stress_fn {
  BENCH_STRESS_SET_REL = 0,     /**< utim_set_rel() */
  BENCH_STRESS_SET_ABS = 1,     /**< utim_set_abs() */
  BENCH_STRESS_TM_START = 2,    /**< utim_tm_start() */
  BENCH_STRESS_TM_START_AT = 3, /**< utim_tm_start_at() */
  BENCH_STRESS_TASK_DELAY = 4,  /**< utim_tm_task_delay() */
  BENCH_STRESS_NFN = 5          /**< number of functions */
} bench_stress_fn_t;

/** @brief Log2 interval buckets: [2^b, 2^(b+1) - 1] for b = 0 .. 63. */
#define BENCH_STRESS_NBUCKETS 64u

/** @brief Categories: function x rescheduled x stopped. */
#define BENCH_STRESS_NCAT (BENCH_STRESS_NFN * 4u)

/** @brief Category index of a function and its variant. */
#define BENCH_STRESS_CAT(fn, resched, stopped)                                                     \
  ((unsigned)(fn)*4u + ((resched) ? 2u : 0u) + ((stopped) ? 1u : 0u))

/** @brief Running statistics of differences (Welford), in reference ticks. */
typedef struct bench_stress_stat {
  uint64_t n;  /**< samples */
  double mean; /**< their mean */
  double m2;   /**< sum of squared deviations from the mean */
  int64_t min; /**< smallest sample */
  int64_t max; /**< largest sample */
} bench_stress_stat_t;

/** @brief Set-up of one stress run (the caller initialises and starts both timers). */
typedef struct bench_stress_cfg {
  const utim_periph_t *tut; /**< timer under test, initialised and started */
  unsigned ch;              /**< its channel (uAPI) */
  const utim_periph_t *ref; /**< reference timer, initialised and started */
  bench_stress_api_t api;   /**< what is armed */
  /**
   * @brief BENCH_STRESS_TM: a running manager on the TUT (its ticks are the
   *        TUT's), and task delays on it with at least one id; the
   *        benchmark sets the manager's timer callback and the tasks' hook
   *        through bench_stress_init().
   */
  utim_tm_t *tm;
  utim_tm_tasks_t *tasks;  /**< BENCH_STRESS_TM: task delays on @c tm (id 0 is used) */
  uint64_t seed;           /**< random sequence (the same seed, the same operations) */
  uint64_t limit;          /**< longest interval, TUT ticks (capped at utim_max() / 2) */
  uint64_t min_abs;        /**< shortest absolute interval, TUT ticks (passed otherwise) */
  uint32_t spin_max;       /**< longest random CPU delay, utim_port_relax() steps */
  uint64_t lost_ref;       /**< a callback this many reference ticks late is lost */
  void (*wait)(void *ctx); /**< lets time pass while waiting for a callback */
  void *wait_ctx;          /**< its argument */
} bench_stress_cfg_t;

/** @brief State and results of a stress run. */
typedef struct bench_stress {
  bench_stress_cfg_t cfg; /**< the set-up (copied) */
  utim_tm_timer_t timer;  /**< BENCH_STRESS_TM: the timer armed */
  uint64_t rng;           /**< random state */
  uint64_t tick;          /**< TUT ticks of one expiry step (tm tick or 1) */
  uint64_t limit;         /**< the longest interval drawn */
  uint64_t spin_ticks;    /**< TUT ticks a random delay may take, with margin */
  double overhead_mean;   /**< estimated overhead, reference ticks */
  double overhead_var;    /**< its variance */
  double limit_mean;      /**< SIC! above this |mean|, reference ticks */
  double limit_var;       /**< SIC! above this variance */
  uint64_t ops;           /**< operations done */
  uint64_t early;         /**< callbacks before the armed value */
  uint64_t lost;          /**< callbacks that never came */
  uint64_t unexpected;    /**< callbacks with nothing armed (as of the last bench_stress_run()) */
  uint64_t refused;       /**< arming calls that returned an error */
  /** @brief Rescheduled operations whose first arming fired before the
   *         re-arming (the thread held off past its lead: not a timer fault). */
  uint64_t first_fired;
  bench_stress_stat_t cat[BENCH_STRESS_NCAT];        /**< per category */
  bench_stress_stat_t bucket[BENCH_STRESS_NBUCKETS]; /**< per log2 interval */
  uint32_t tut_hz;                                   /**< the TUT's frequency */
  uint32_t ref_hz;                                   /**< the reference's */
  int last_error;                                    /**< the last error of a refused arming */
  bool can_stop;         /**< the TUT can be stopped: stopped variants run */
  bool overhead_warning; /**< the overhead's variance is high */
  /* Shared with the callback: written by it (in interrupt context, under
   * the port lock), published by the release store of fired. */
  uint64_t t_cb;              /**< reference count at the callback's start */
  uint64_t target;            /**< armed value: TUT count (uAPI) or manager time (tm) */
  atomic_uint unexpected_cb;  /**< callbacks with nothing armed, counted by them */
  atomic_uint first_fired_cb; /**< first armings of a rescheduled operation that fired */
  atomic_bool fired;          /**< its callback ran */
  bool armed;                 /**< an arming is outstanding (changed under the port lock) */
  bool cb_early;              /**< the callback saw the armed value not reached */
  bool first_pending;         /**< a rescheduled operation's first arming is out (port lock) */
} bench_stress_t;

/**
 * @brief Set up a run: checks the configuration, installs the callbacks and
 *        computes the SIC! limits; the results start empty.
 * @param s   the run
 * @param cfg its set-up
 * @retval 0 ready
 * @retval -EINVAL a missing timer, channel out of range, no tm for
 *         BENCH_STRESS_TM, limit 0 or min_abs > limit, no wait function
 * @retval other  the error of installing a callback
 */
int bench_stress_init(bench_stress_t *s, const bench_stress_cfg_t *cfg);

/**
 * @brief Estimate the benchmark's own overhead: @p n times the reference
 *        read before an arming and the callback's read, with no timer in
 *        between (with the same random delays); sets overhead_mean,
 *        overhead_var and overhead_warning (the standard deviation exceeds
 *        two reference ticks plus half the mean).
 * @param s the run, after bench_stress_init()
 * @param n samples (at least 2)
 */
void bench_stress_overhead(bench_stress_t *s, unsigned n);

/**
 * @brief Do @p n operations, adding to the results.
 * @param s the run
 * @param n operations
 */
void bench_stress_run(bench_stress_t *s, uint64_t n);

/**
 * @brief Stop a run: clears the channel and removes the callbacks
 *        (the results stay readable).
 * @param s the run
 */
void bench_stress_finish(bench_stress_t *s);

/** @brief Variance of @p st (0 below two samples). */
double bench_stress_var(const bench_stress_stat_t *st);

/** @brief Whether @p st is a SIC! row of run @p s (large |mean| or variance). */
bool bench_stress_sic(const bench_stress_t *s, const bench_stress_stat_t *st);

/** @brief Name of a function ("set_rel", "set_abs", "tm_start", "tm_start_at", "task_delay"). */
const char *bench_stress_fn_name(bench_stress_fn_t fn);

/** @brief Whether the run arms with @p fn (its API's functions). */
bool bench_stress_has_fn(const bench_stress_t *s, bench_stress_fn_t fn);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BENCH_STRESS_H */
