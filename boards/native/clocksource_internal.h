/**
 * @file clocksource_internal.h
 * @brief What the files of the Linux clock source share; not part of its
 *        interface (clocksource.h).
 *
 * - clocksource.c: calibration, re-fit, publication of the conversion
 *   utim_now() reads, switching, initialisation and the selection API;
 * - clocksource_probe.c: the candidates and their ratings;
 * - clocksource_report.c: the report and its reason text, the warning
 *   about a UTIM_CLOCKSOURCE value that names no source;
 * - clocksource_drift.c: the drift measurement.
 * The CPU counter's own probe (flags, stated frequency, measurement,
 * cross-CPU check) is the board's (tsc_native.c), shared with the
 * NATIVE_TSC/NATIVE_CNTVCT instance.
 */
#ifndef UTIM_NATIVE_CLOCKSOURCE_INTERNAL_H
#define UTIM_NATIVE_CLOCKSOURCE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "clocksource.h"
#include "native_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @name Modes of utim_cs_fast_t::mode @{ */
#define NATIVE_CS_MODE_NONE    0u /**< not initialised */
#define NATIVE_CS_MODE_COUNTER 1u /**< the CPU counter, converted by mult/shift */
#define NATIVE_CS_MODE_CLOCK   2u /**< clock_gettime(clk) + base_ns */
/** @} */

/** @brief A consistent copy of the published conversion (native_cs_snap_read()). */
typedef struct native_cs_snap {
  uint64_t mult;       /**< ticks -> ns multiplier */
  uint64_t base_ticks; /**< counter at the base point */
  int64_t base_ns;     /**< utim_now() there (an offset in clock mode) */
  uint64_t limit;      /**< fast path while ticks - base_ticks < limit */
  uint32_t shift;      /**< ticks -> ns shift */
  uint32_t mode;       /**< NATIVE_CS_MODE_* */
  int32_t clk;         /**< clockid_t in clock mode */
  uint32_t seq;        /**< the sequence count it was read at */
} native_cs_snap_t;

/** @brief What became of UTIM_CLOCKSOURCE (why it was not honoured). */
typedef enum native_cs_env {
  NATIVE_CS_ENV_UNSET = 0,    /**< unset, empty or "auto" */
  NATIVE_CS_ENV_HONOURED = 1, /**< it chose the source */
  NATIVE_CS_ENV_UNKNOWN = 2,  /**< no candidate has that name */
  NATIVE_CS_ENV_ABSENT = 3,   /**< that candidate is not present here */
  NATIVE_CS_ENV_FAILED = 4,   /**< that counter could not be calibrated */
} native_cs_env_t;

/** @brief Everything but the published conversion; guarded by native_cs_lock. */
typedef struct native_cs_state {
  utim_cs_report_t rep;       /**< ratings and checks, filled once by probing */
  int cur;                    /**< utim_cs_id_t in use */
  int how;                    /**< utim_cs_how_t */
  int counter;                /**< the CPU counter's utim_cs_id_t, -1 when none */
  bool calibrated;            /**< the counter's rate is known */
  uint64_t hz;                /**< calibrated counter frequency */
  native_cpu_sample_t anchor; /**< first calibration sample: start of the long baseline */
  int64_t steer;              /**< utim_now() is steered to CLOCK_MONOTONIC_RAW + steer */
  uint64_t refit_ticks;       /**< ticks between re-fits */
  utim_ns_t cal_window;       /**< first calibration window */
  utim_ns_t cal_bracket;      /**< widest bracket of its samples, ns */
  uint64_t refits;            /**< re-fits since the source was chosen */
  utim_ns_t last_offset;      /**< offset found at the last re-fit */
  native_cs_env_t env;        /**< what happened to UTIM_CLOCKSOURCE */
  const char *env_value;      /**< its value (NULL when unset) */
} native_cs_state_t;

/** @brief The clock source's state (clocksource.c). */
extern native_cs_state_t native_cs;
/** @brief Guards native_cs and serialises publications (clocksource.c). */
extern pthread_mutex_t native_cs_lock;
/** @brief Candidate names, by utim_cs_id_t: the instance names (clocksource.c). */
extern const char *const native_cs_names[UTIM_CS_COUNT];
/** @brief The clock_gettime candidates' clocks, from UTIM_CS_MONOTONIC on (clocksource.c). */
extern const clockid_t native_cs_clocks[3];

/** @brief @p v as int64_t, saturated. */
static inline int64_t native_cs_sat_i64(uint64_t v) {
  return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

/**
 * @brief A consistent copy of the published conversion (clocksource.c).
 * @return false when a publication interfered (read again)
 */
bool native_cs_snap_read(native_cs_snap_t *s);

/**
 * @brief Rate every candidate into native_cs.rep and set native_cs.counter
 *        (clocksource_probe.c); runs the board's CPU counter probe.
 */
void native_cs_probe(void);

/**
 * @brief The candidate named @p name: the instance name, or without
 *        "NATIVE_", in any case (clocksource_probe.c).
 * @return its utim_cs_id_t, or -1
 */
int native_cs_find(const char *name);

/** @brief Whether @p a and @p b are equal ignoring ASCII case (clocksource_probe.c). */
bool native_cs_ieq(const char *a, const char *b);

/** @brief The highest-rated candidate (clocksource_probe.c). */
int native_cs_best(void);

/**
 * @brief Fill @p r->reason from @p r and native_cs (clocksource_report.c).
 * @param r a report with every other field filled
 */
void native_cs_compose_reason(utim_cs_report_t *r);

/**
 * @brief Tell on stderr, once per process (it is called once), that
 *        UTIM_CLOCKSOURCE was not honoured (native_cs.env UNKNOWN, ABSENT
 *        or FAILED): its value quoted and escaped, why,
 *        the source used instead and the names that are valid here
 *        (clocksource_report.c).
 */
void native_cs_warn_env(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_CLOCKSOURCE_INTERNAL_H */
