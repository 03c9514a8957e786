/**
 * @file utim_native_hw.h
 * @brief The "hardware" of a Linux host as the native drivers and the native
 *        board read it: the CPU's own counter (x86-64 TSC, aarch64
 *        CNTVCT_EL0) and the kernel's clocks in nanoseconds.
 *
 * Header-only, in drivers/native_hw/ below both the native drivers and the
 * native board (see utim_seqlock.h for why there), so there is one copy of
 * each read: one clock_gettime-to-ns conversion, one ordered and one
 * unordered counter read per architecture.
 *
 * utim_native_clock_ns() needs clock_gettime() declared: a file that calls
 * it defines _GNU_SOURCE or _POSIX_C_SOURCE >= 199309L before its first
 * system header (every native source does). Without them (strict ISO C,
 * e.g. -std=c11, in a user's file that includes board_native.h or
 * clocksource.h) it is left out and the rest of the header still compiles.
 */
#ifndef UTIM_NATIVE_HW_H
#define UTIM_NATIVE_HW_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Nanoseconds in a second. */
#define UTIM_NATIVE_NS_PER_S 1000000000

#ifdef CLOCK_MONOTONIC /* <time.h> declares the POSIX clocks (see the file's comment) */
/**
 * @brief clock_gettime(@p id) in ns, or 0 when the clock cannot be read
 *        (never for the clocks the native board uses: they exist on every
 *        kernel it supports; 0 rather than an uninitialised value).
 * @param id a POSIX clock, e.g. CLOCK_MONOTONIC
 */
static inline int64_t utim_native_clock_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    return 0;
  }
  return (int64_t)ts.tv_sec * UTIM_NATIVE_NS_PER_S + ts.tv_nsec;
}
#endif

#if defined(__x86_64__)
/** @brief 1 where the CPU has a counter utim reads directly (x86-64, aarch64), else 0. */
#define UTIM_NATIVE_HAVE_CPU_COUNTER 1

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

/** @brief The CPU counter, unordered (utim_native_rdtsc()). */
static inline uint64_t utim_native_cpu_count(void) {
  return utim_native_rdtsc();
}

/** @brief The CPU counter, after every earlier instruction (utim_native_rdtsc_ordered()). */
static inline uint64_t utim_native_cpu_count_ordered(void) {
  return utim_native_rdtsc_ordered();
}

#elif defined(__aarch64__)
/** @brief 1 where the CPU has a counter utim reads directly (x86-64, aarch64), else 0. */
#define UTIM_NATIVE_HAVE_CPU_COUNTER 1

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

/** @brief The CPU counter, unordered (CNTVCT_EL0 without an isb). */
static inline uint64_t utim_native_cpu_count(void) {
  uint64_t v;
  __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}

/** @brief The CPU counter, after every earlier instruction (utim_native_cntvct()). */
static inline uint64_t utim_native_cpu_count_ordered(void) {
  return utim_native_cntvct();
}

#else
/** @brief 1 where the CPU has a counter utim reads directly (x86-64, aarch64), else 0. */
#define UTIM_NATIVE_HAVE_CPU_COUNTER 0

/** @brief No CPU counter on this architecture: 0 (never used as a time source, see above). */
static inline uint64_t utim_native_cpu_count(void) {
  return 0u;
}

/** @brief No CPU counter on this architecture: 0 (never used as a time source, see above). */
static inline uint64_t utim_native_cpu_count_ordered(void) {
  return 0u;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_HW_H */
