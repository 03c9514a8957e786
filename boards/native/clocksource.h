/**
 * @file clocksource.h
 * @brief Linux time source of utim: choice of the best counter, calibration,
 *        and utim_now(), the fast nanosecond read path.
 *
 * @par Candidates
 * Every counter the native board offers is a candidate, named as its
 * instance: "NATIVE_TSC" (x86-64), "NATIVE_CNTVCT" (aarch64),
 * "NATIVE_MONOTONIC", "NATIVE_MONOTONIC_RAW", "NATIVE_BOOTTIME". Each gets a
 * rating from what the machine tells about it; the highest rating wins:
 *
 * | rating | meaning                                                                    |
 * |--------|----------------------------------------------------------------------------|
 * | 400    | CPU counter: invariant, monotonic across CPUs, kernel's, frequency known   |
 * | 390    | the same, frequency measured (no CPUID/hypervisor/CNTFRQ value)            |
 * | 300    | CLOCK_MONOTONIC (always reliable; read through the vDSO)                   |
 * | 290    | CLOCK_MONOTONIC_RAW                                                        |
 * | 280    | CLOCK_BOOTTIME                                                             |
 * | 150    | CPU counter that passes the checks but the kernel does not use it          |
 * | 50     | CPU counter not invariant or not monotonic across CPUs                     |
 * | 0      | not present on this machine (cannot be selected)                           |
 *
 * The checks for the CPU counter are: the invariant bit (CPUID 0x80000007
 * EDX[8]) or constant_tsc + nonstop_tsc in /proc/cpuinfo; the kernel's
 * current clocksource (/sys/devices/system/clocksource/clocksource0/);
 * a cross-CPU check (a thread pinned to the first usable CPU and one pinned
 * to each other CPU pass readings back and forth; a reading lower than the
 * one it follows fails the check); and whether the frequency is known
 * (stated by the hypervisor leaf 0x40000010, CPUID 0x15/0x16 or CNTFRQ_EL0,
 * and within 0.1 % of the measurement) or only measured. All of it comes
 * from the board's one probe of the CPU counter (native_tsc_info()), which
 * the NATIVE_TSC/NATIVE_CNTVCT instance uses too.
 *
 * @par Calibration and conversion
 * A CPU counter is calibrated against CLOCK_MONOTONIC_RAW: each sample is
 * the best (narrowest) of several counter / clock_gettime / counter
 * brackets, two samples about 20 ms apart (the board's probe) give the
 * first rate. Ticks are converted with one 64-bit multiply and shift over the ticks since a base
 * point (utim_mult_shift_t). Once a second of ticks has passed since the base
 * point, the next read re-fits: it takes a new sample, measures the rate over
 * the whole time since calibration (so the rate estimate keeps improving) and
 * moves the base point, continuously, with a slope that also removes the
 * offset to CLOCK_MONOTONIC_RAW over the next second (slewed by at most
 * 100 ppm, never stepped, so utim_now() stays monotonic).
 *
 * @par Time line
 * utim_now() counts ns from an unspecified epoch: when a CPU counter is
 * chosen at start, it follows CLOCK_MONOTONIC_RAW; when a clock_gettime
 * clock is chosen at start, it equals that clock. Switching the source at run
 * time keeps utim_now() continuous (the new source is offset to the value the
 * old one had) and monotonic: no reading after the switch is below one
 * before it, whatever the threads do meanwhile.
 *
 * @par Choosing by hand
 * The environment variable UTIM_CLOCKSOURCE=NAME (read once, at the first
 * use) or utim_clocksource_select() at run time override the automatic
 * choice with any present candidate, reliable or not; "auto" (or NULL)
 * returns to the automatic choice. A UTIM_CLOCKSOURCE value that names no
 * candidate, one not present on this machine, or a CPU counter whose
 * calibration fails, leaves the automatic choice in place and says so once
 * on stderr, with the value in quotes (a stray space shows), why, and the
 * names that are valid here; the report then calls it "ignored".
 * utim_clocksource_report() tells what was chosen, how and why.
 */
#ifndef UTIM_NATIVE_CLOCKSOURCE_H
#define UTIM_NATIVE_CLOCKSOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "utim/time.h"
#include "utim_native_hw.h"
#include "utim_seqlock.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Identifiers of the candidates, in report order. */
typedef enum utim_cs_id {
  UTIM_CS_TSC = 0,           /**< "NATIVE_TSC": x86-64 rdtsc */
  UTIM_CS_CNTVCT = 1,        /**< "NATIVE_CNTVCT": aarch64 CNTVCT_EL0 */
  UTIM_CS_MONOTONIC = 2,     /**< "NATIVE_MONOTONIC": clock_gettime(CLOCK_MONOTONIC) */
  UTIM_CS_MONOTONIC_RAW = 3, /**< "NATIVE_MONOTONIC_RAW": clock_gettime(CLOCK_MONOTONIC_RAW) */
  UTIM_CS_BOOTTIME = 4,      /**< "NATIVE_BOOTTIME": clock_gettime(CLOCK_BOOTTIME) */
  UTIM_CS_COUNT = 5,         /**< number of candidates */
} utim_cs_id_t;

/**
 * @name Candidate flags (utim_cs_candidate_t::flags)
 * @{
 */
#define UTIM_CS_F_PRESENT   (1u << 0) /**< exists on this CPU and kernel */
#define UTIM_CS_F_INVARIANT (1u << 1) /**< CPUID 0x80000007 EDX[8] (invariant TSC) */
#define UTIM_CS_F_CONSTANT  (1u << 2) /**< constant_tsc in /proc/cpuinfo */
#define UTIM_CS_F_NONSTOP   (1u << 3) /**< nonstop_tsc in /proc/cpuinfo */
#define UTIM_CS_F_KERNEL    (1u << 4) /**< the kernel's current clocksource is this counter */
#define UTIM_CS_F_SYNC_OK   (1u << 5) /**< the cross-CPU check passed */
#define UTIM_CS_F_SYNC_FAIL (1u << 6) /**< the cross-CPU check saw time go back */
#define UTIM_CS_F_SYNC_SKIPPED                                                                     \
  (1u << 7) /**< the cross-CPU check could not run (one CPU, no threads) */
#define UTIM_CS_F_FREQ_KNOWN (1u << 8) /**< nominal frequency from CPUID/hypervisor/CNTFRQ */
#define UTIM_CS_F_RELIABLE   (1u << 9) /**< every check passed */
/** @} */

/** @brief Where a candidate's nominal frequency comes from. */
typedef enum utim_cs_freq_src {
  UTIM_CS_FREQ_UNKNOWN = 0,    /**< none: the frequency is measured */
  UTIM_CS_FREQ_CPUID_15 = 1,   /**< CPUID 0x15 (crystal ratio) */
  UTIM_CS_FREQ_CPUID_16 = 2,   /**< CPUID 0x16 (base frequency in MHz) */
  UTIM_CS_FREQ_HYPERVISOR = 3, /**< hypervisor leaf 0x40000010 (kHz) */
  UTIM_CS_FREQ_CNTFRQ = 4,     /**< CNTFRQ_EL0 */
  UTIM_CS_FREQ_NS = 5,         /**< a clock_gettime clock: 1 GHz by definition */
} utim_cs_freq_src_t;

/** @brief How the current source was chosen. */
typedef enum utim_cs_how {
  UTIM_CS_AUTO = 0, /**< automatic: highest rating */
  UTIM_CS_ENV = 1,  /**< UTIM_CLOCKSOURCE environment variable */
  UTIM_CS_API = 2,  /**< utim_clocksource_select() */
} utim_cs_how_t;

/** @brief One candidate as rated on this machine. */
typedef struct utim_cs_candidate {
  const char *name;    /**< instance name, e.g. "NATIVE_TSC" */
  const char *why;     /**< why this rating, e.g. "kernel does not use the TSC" */
  uint64_t hz;         /**< nominal frequency, 0 when unknown */
  uint32_t flags;      /**< UTIM_CS_F_* */
  int32_t rating;      /**< see the table in the file comment; 0 = absent */
  uint8_t freq_src;    /**< utim_cs_freq_src_t */
  uint8_t reserved[3]; /**< zero */
} utim_cs_candidate_t;

/** @brief What was chosen, how, why, and the calibration. */
typedef struct utim_cs_report {
  utim_cs_candidate_t cand[UTIM_CS_COUNT]; /**< every candidate, by utim_cs_id_t */
  int32_t chosen;                          /**< utim_cs_id_t of the source in use */
  int32_t how;                             /**< utim_cs_how_t */
  char kernel_cs[32];                      /**< the kernel's current clocksource ("" unknown) */
  uint32_t cpus_checked;                   /**< CPUs in the cross-CPU check */
  uint32_t sync_rounds;                    /**< readings exchanged per CPU pair */
  uint64_t sync_backwards;                 /**< largest step back seen, in ticks (0 = none) */
  uint64_t hz;                             /**< calibrated frequency of the source, Hz */
  utim_mult_shift_t ms;                    /**< current ticks -> ns conversion */
  utim_ns_t cal_window;                    /**< length of the first calibration, ns */
  utim_ns_t cal_bracket;                   /**< widest bracket of its two samples, ns */
  int64_t cal_ppb;                         /**< calibrated vs nominal frequency, ppb (0 unknown) */
  uint64_t refits;                         /**< re-fits since the source was chosen */
  utim_ns_t last_offset;                   /**< utim_now() - target at the last re-fit, ns */
  char reason[1024];                       /**< printable summary of all the above */
} utim_cs_report_t;

/** @brief Result of utim_clocksource_drift(). */
typedef struct utim_cs_drift {
  utim_ns_t elapsed;      /**< CLOCK_MONOTONIC_RAW time measured over */
  utim_ns_t offset_start; /**< utim_now() - CLOCK_MONOTONIC_RAW at the start */
  utim_ns_t offset_end;   /**< ... at the end */
  utim_ns_t drift;        /**< offset_end - offset_start */
  utim_ns_t max_dev;      /**< largest |offset - offset_start| seen at any sample */
  utim_ns_t bracket;      /**< widest read bracket of the samples (their uncertainty) */
  int64_t drift_ppb;      /**< drift / elapsed in parts per billion */
  uint32_t samples;       /**< samples taken */
  uint32_t refits;        /**< re-fits during the measurement */
} utim_cs_drift_t;

/**
 * @brief Probe, rate and choose (UTIM_CLOCKSOURCE honoured), calibrate.
 *        Idempotent and thread-safe; utim_now() calls it on first use. Takes
 *        about 20 ms when a CPU counter is calibrated.
 * @retval 0 success (a clock_gettime clock is always available)
 */
int utim_clocksource_init(void);

/**
 * @brief Use the candidate named @p name from now on (calibrating it if it
 *        is a CPU counter not calibrated yet), or return to the automatic
 *        choice with NULL or "auto". Names are compared ignoring case.
 * @retval 0 success
 * @retval -ENOENT no candidate has that name
 * @retval -ENOTSUP the candidate is not present on this machine (rating 0)
 * @retval -EIO calibrating the counter failed (the previous source stays in use)
 */
int utim_clocksource_select(const char *name);

/** @brief Name of the source in use (initialises on first use). */
const char *utim_clocksource_name(void);

/**
 * @brief Fill @p out with the choice, the ratings, the calibration and a
 *        printable reason.
 * @retval 0 success
 * @retval -EINVAL @p out is NULL
 */
int utim_clocksource_report(utim_cs_report_t *out);

/**
 * @brief Re-fit the conversion now (it also happens by itself, once a second
 *        of ticks has passed, at the next utim_now()). At most one forced
 *        re-fit per millisecond takes effect, so calling it in a loop
 *        cannot pile up offset.
 * @retval 0 re-fitted, nothing to fit (a clock_gettime source), or the
 *         last re-fit is less than 1 ms old (nothing done)
 * @retval -EBUSY another thread is re-fitting
 */
int utim_clocksource_refit(void);

/**
 * @brief Measure the drift of utim_now() against CLOCK_MONOTONIC_RAW over
 *        @p duration, sampling (and so re-fitting as usual) every @p period.
 *        Blocks the calling thread for @p duration (the end point saturates:
 *        UTIM_NS_MAX means practically forever).
 * @retval 0 success
 * @retval -EINVAL @p out is NULL, @p duration < 0 or @p period <= 0
 */
int utim_clocksource_drift(utim_ns_t duration, utim_ns_t period, utim_cs_drift_t *out);

/* ---- the fast read path ------------------------------------------------------ */

/**
 * @brief Published conversion state read by utim_now() (internal; the
 *        fields after seq are protected by it, utim_seqlock.h).
 */
typedef struct utim_cs_fast {
  uint32_t seq;        /**< sequence count, odd while a writer is active */
  uint32_t shift;      /**< ticks -> ns shift */
  uint64_t mult;       /**< ticks -> ns multiplier */
  uint64_t base_ticks; /**< counter value at the base point */
  int64_t base_ns;     /**< utim_now() at the base point */
  uint64_t limit;      /**< fast path only for ticks - base_ticks < limit (0: never) */
  uint32_t mode;       /**< 0: not initialised, 1: CPU counter, 2: clock_gettime(clk) */
  int32_t clk;         /**< the clockid_t in mode 2 (base_ns is then an offset) */
} utim_cs_fast_t;

/** @brief The published conversion (internal, read by utim_now()). */
extern utim_cs_fast_t utim_cs_fast_data;

/** @brief utim_now() when the fast path does not apply (internal). */
utim_ns_t utim_cs_now_slow(void);

/**
 * @brief Current time in ns on utim's monotonic time line (see the file
 *        comment): a counter read, six loads, a multiply and a shift when
 *        a CPU counter is in use; a clock_gettime() call otherwise.
 *
 * The CPU counter is read without a fence (like the kernel's vDSO read path
 * it may be reordered with the loads around it, by a few ns at most); use
 * it for time stamps and deadlines, not to order memory accesses.
 */
static inline utim_ns_t utim_now(void) {
#if UTIM_NATIVE_HAVE_CPU_COUNTER
  utim_cs_fast_t *f = &utim_cs_fast_data;
  uint32_t seq = utim_seq_read_begin(&f->seq);
  uint64_t t = utim_native_cpu_count();
  uint64_t d = t - UTIM_SEQ_LOAD(f->base_ticks);
  uint64_t lim = UTIM_SEQ_LOAD(f->limit);
  uint64_t mult = UTIM_SEQ_LOAD(f->mult);
  uint32_t shift = UTIM_SEQ_LOAD(f->shift);
  int64_t base = UTIM_SEQ_LOAD(f->base_ns);
  if (__builtin_expect(d < lim && !utim_seq_read_retry(&f->seq, seq), 1)) {
    return base + (int64_t)((d * mult) >> shift);
  }
#endif
  return utim_cs_now_slow();
}

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_CLOCKSOURCE_H */
