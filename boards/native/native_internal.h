/**
 * @file native_internal.h
 * @brief Functions shared between the files of the native board; not part
 *        of its public interface (board_native.h).
 */
#ifndef UTIM_NATIVE_INTERNAL_H
#define UTIM_NATIVE_INTERNAL_H

#include "board_native.h"
#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One reading of the CPU counter bracketed by two CLOCK_MONOTONIC_RAW reads' worth. */
typedef struct native_cpu_sample {
  uint64_t ticks; /**< counter at the middle of the narrowest counter/clock/counter bracket */
  int64_t raw;    /**< CLOCK_MONOTONIC_RAW read inside it, ns */
  uint64_t width; /**< its width in counter ticks (UINT64_MAX: no CPU counter) */
} native_cpu_sample_t;

/** @brief Everything the one probe of the CPU counter found (tsc_native.c). */
typedef struct native_cpu_probe {
  native_tsc_info_t info;     /**< what native_tsc_info() shows; info.measured_hz is the rate */
  native_cpu_sample_t first;  /**< the measurement's first sample */
  native_cpu_sample_t second; /**< its second, about 20 ms later */
  int sync;                   /**< cross-CPU check: 1 passed, 0 went back, -1 not run */
  uint32_t sync_cpus;         /**< CPUs in it */
  uint32_t sync_rounds;       /**< readings exchanged per CPU pair (the fewest) */
  uint64_t sync_backwards;    /**< largest step back seen, ticks (0 = none) */
} native_cpu_probe_t;

/**
 * @brief Probe the CPU counter once per process (flags, stated frequency,
 *        a 20 ms measurement against CLOCK_MONOTONIC_RAW, the cross-CPU
 *        check), for the board's CPU counter instance and the clock source
 *        alike; later calls, from any thread, return the same result.
 * @return the probe's result; info.hz is 0 when there is no CPU counter or
 *         nothing worked
 */
const native_cpu_probe_t *native_cpu_probe(void);

/**
 * @brief The narrowest of @p tries counter / CLOCK_MONOTONIC_RAW / counter
 *        brackets (calibration and re-fit samples).
 * @param tries brackets to try
 */
native_cpu_sample_t native_cpu_sample(unsigned tries);

/**
 * @brief Route the interrupts of @p alarms to the interrupt thread's line
 *        and start the thread (irq_native.c). Called once, by
 *        native_board_init().
 * @param alarms alarm instances whose handlers the thread runs
 * @param n      their number
 */
void native_irq_start(const utim_periph_t *const *alarms, unsigned n);

/**
 * @brief Record the alarm probe's results for native_irq_info() (irq_native.c).
 * @param write_ns median cost of arming a kernel timer (timerfd_settime()), ns
 * @param max_hz   fastest frequency the alarm instances offer as a result
 */
void native_irq_set_probe(uint64_t write_ns, uint32_t max_hz);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_INTERNAL_H */
