/**
 * @file utim_native_counter.h
 * @brief hAPI driver for free-running counters of a Linux host: the CPU's
 *        own counter (x86-64 TSC, aarch64 CNTVCT_EL0) and clock_gettime()
 *        clocks (CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME).
 *
 * An instance is a 64-bit up-counter without compare channels, overflow
 * interrupt, write or stop: the sources can be read, not programmed, and the
 * driver does not pretend otherwise. utim_init() restarts the count from 0
 * (the driver subtracts the raw value seen at init) and the counter runs at
 * once; every later read is (raw - raw at init) / divider.
 *
 * The count wraps at 2^64 only when the divider is 1; with a divider d it
 * would wrap after 2^64 raw ticks at (2^64 - 1) / d, which is centuries away
 * for every source here (2^64 ns is 584 years).
 *
 * @par Read ordering (TSC)
 * utim_read() on the TSC uses `lfence; rdtsc`. A plain `rdtsc` may execute
 * before earlier loads complete, so a read placed after an observation (a
 * flag set by another thread, the return of a call) can return a value from
 * before it: callers of utim_read() compare counter values across such
 * program points (the core does, after arming), so the uAPI read is the
 * ordered one. The unordered utim_native_rdtsc() stays available for code
 * that brackets its own reads (calibration, benchmarks).
 */
#ifndef UTIM_NATIVE_COUNTER_H
#define UTIM_NATIVE_COUNTER_H

#include <stdatomic.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Where an instance's raw count comes from. */
typedef enum utim_native_src {
  UTIM_NATIVE_SRC_TSC = 0,    /**< x86-64 time-stamp counter, read with lfence; rdtsc */
  UTIM_NATIVE_SRC_CNTVCT = 1, /**< aarch64 virtual counter CNTVCT_EL0, read after isb */
  UTIM_NATIVE_SRC_CLOCK = 2,  /**< clock_gettime() of utim_native_counter_cfg_t::clock_id, in ns */
} utim_native_src_t;

/**
 * @brief Run-time state of one counter instance (RAM, 32 bytes).
 *
 * Written by init only, read lock-free by every read: @c seq is a sequence
 * lock (odd while init rewrites the fields).
 */
typedef struct utim_native_counter_rt {
  atomic_uint seq;       /**< sequence lock */
  unsigned shift;        /**< raw count is shifted right by this before use (set by the board) */
  _Atomic uint64_t base; /**< shifted raw value at utim_init() */
  _Atomic uint64_t div;  /**< divider chosen by utim_init(), 0 before */
} utim_native_counter_rt_t;

/** @brief Device configuration of a native counter instance. */
typedef struct utim_native_counter_cfg {
  utim_dev_t common;            /**< common head; must be first */
  utim_native_counter_rt_t *rt; /**< run-time state */
  uint8_t src;                  /**< utim_native_src_t */
  int clock_id;                 /**< clockid_t for UTIM_NATIVE_SRC_CLOCK */
} utim_native_counter_cfg_t;

/** @brief The native counter driver. */
extern const utim_driver_t utim_native_counter_driver;

/**
 * @brief Driver property (get): the source's raw value now (before the
 *        board's shift, the init offset and the divider): TSC cycles,
 *        CNTVCT ticks, or clock_gettime() nanoseconds.
 */
#define UTIM_NATIVE_COUNTER_PROP_RAW (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): the source, a utim_native_src_t value. */
#define UTIM_NATIVE_COUNTER_PROP_SOURCE (UTIM_PROP_DRIVER_BASE + 1u)

#if defined(__x86_64__)
/** @brief Raw `rdtsc`: cheapest read, may execute ahead of earlier instructions. */
static inline uint64_t utim_native_rdtsc(void) {
  uint32_t lo;
  uint32_t hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
}

/**
 * @brief `lfence; rdtsc`: the TSC is read only after every earlier
 *        instruction has completed locally (Linux's rdtsc_ordered()).
 */
static inline uint64_t utim_native_rdtsc_ordered(void) {
  uint32_t lo;
  uint32_t hi;
  __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((uint64_t)hi << 32) | lo;
}
#endif

#if defined(__aarch64__)
/** @brief CNTVCT_EL0 after an isb, so it is not read ahead of earlier instructions. */
static inline uint64_t utim_native_cntvct(void) {
  uint64_t v;
  __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
  return v;
}

/** @brief CNTFRQ_EL0: the frequency of CNTVCT_EL0 in Hz, as firmware programmed it. */
static inline uint64_t utim_native_cntfrq(void) {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
  return v;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_COUNTER_H */
