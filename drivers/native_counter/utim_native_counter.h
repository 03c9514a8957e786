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
 * that brackets its own reads (calibration, benchmarks); both come from
 * utim_native_hw.h.
 */
#ifndef UTIM_NATIVE_COUNTER_H
#define UTIM_NATIVE_COUNTER_H

#include <stdint.h>

#include "utim/utim.h"
#include "utim_native_hw.h"

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
 * Written by init and utim_native_counter_set_shift() only, read lock-free
 * by every read: @c seq is the sequence count of utim_seqlock.h over the
 * other fields.
 */
typedef struct utim_native_counter_rt {
  uint32_t seq;   /**< sequence count (odd while the fields are rewritten) */
  uint32_t shift; /**< raw count is shifted right by this before use (set by the board) */
  uint64_t base;  /**< shifted raw value at utim_init() */
  uint64_t div;   /**< divider chosen by utim_init(), 0 before */
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

/** @brief Counter width of every native counter instance, bits. */
#define UTIM_NATIVE_COUNTER_WIDTH 64
/** @brief Minimum compare distance (no compare channels: the smallest legal value). */
#define UTIM_NATIVE_COUNTER_MIN_DISTANCE 1
/**
 * @brief Capability bits of an instance on source @p src: a clock_gettime()
 *        clock is emulated by the kernel; the CPU's counter is read directly.
 *        None has an overflow interrupt, a write or a stop.
 */
#define UTIM_NATIVE_COUNTER_CAPS(src) ((src) == UTIM_NATIVE_SRC_CLOCK ? UTIM_CAP_EMULATED : 0u)

/**
 * @brief Define a native counter instance: `static const utim_periph_t
 *        inst` with its core state, run-time state and configuration, and
 *        `enum { inst##_WIDTH, inst##_CHANNELS, inst##_MIN_DISTANCE }`.
 *
 * Width (64), channels (0), direction (up), capabilities and minimum
 * distance come from the driver; the board names what only it knows.
 * @param inst   identifier of the instance
 * @param pname  platform name string, e.g. "NATIVE_MONOTONIC"
 * @param source utim_native_src_t
 * @param clock  clockid_t read for UTIM_NATIVE_SRC_CLOCK (ignored otherwise: pass 0)
 * @param clk_table identifier of the clock-input array (utim_clock_desc_t[], one input)
 */
#define UTIM_NATIVE_COUNTER_DEFINE(inst, pname, source, clock, clk_table)                          \
  _Static_assert((source) >= UTIM_NATIVE_SRC_TSC && (source) <= UTIM_NATIVE_SRC_CLOCK,             \
                 #inst ": a utim_native_src_t");                                                   \
  _Static_assert(sizeof(clk_table) / sizeof((clk_table)[0]) == 1u, #inst ": one clock input");     \
  enum {                                                                                           \
    inst##_WIDTH = UTIM_NATIVE_COUNTER_WIDTH,                                                      \
    inst##_CHANNELS = 0,                                                                           \
    inst##_MIN_DISTANCE = UTIM_NATIVE_COUNTER_MIN_DISTANCE                                         \
  };                                                                                               \
  UTIM_STATE_DEFINE(inst##_state, 0);                                                              \
  static utim_native_counter_rt_t inst##_rt;                                                       \
  static const utim_native_counter_cfg_t inst##_cfg = {                                            \
      .common = {.state = &inst##_state,                                                           \
                 .name = (pname),                                                                  \
                 .clocks = (clk_table),                                                            \
                 .nclocks = 1u,                                                                    \
                 .min_distance = UTIM_NATIVE_COUNTER_MIN_DISTANCE},                                \
      .rt = &inst##_rt,                                                                            \
      .src = (source),                                                                             \
      .clock_id = (clock)};                                                                        \
  static const utim_periph_t inst = {                                                              \
      .drv = &utim_native_counter_driver,                                                          \
      .dev = &inst##_cfg.common,                                                                   \
      .props = UTIM_PROPS(UTIM_NATIVE_COUNTER_WIDTH, 0, 0, UTIM_NATIVE_COUNTER_CAPS(source))}

/**
 * @brief Set the right shift applied to the raw count of @p p (board only,
 *        before the instance is used: a CPU counter above 2^32 - 1 Hz is
 *        offered at hz >> shift, so its clock input fits 32 bits).
 * @param p     a native counter instance
 * @param shift bits to shift the raw count right by (0 to 63)
 */
void utim_native_counter_set_shift(const utim_periph_t *p, unsigned shift);

/**
 * @brief Driver property (get): the source's raw value now (before the
 *        board's shift, the init offset and the divider): TSC cycles,
 *        CNTVCT ticks, or clock_gettime() nanoseconds.
 */
#define UTIM_NATIVE_COUNTER_PROP_RAW (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): the source, a utim_native_src_t value. */
#define UTIM_NATIVE_COUNTER_PROP_SOURCE (UTIM_PROP_DRIVER_BASE + 1u)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_COUNTER_H */
