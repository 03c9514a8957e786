/**
 * @file timeout.h
 * @brief Internal interfaces of `utim-bench timeout`: the report its parts
 *        share (the alarm measurement in timeout_alarm.c, the cyclictest
 *        runner in timeout_cyclictest.c, the output in timeout_output.c,
 *        the command in cmd_timeout.c).
 */
#ifndef UTIM_BENCH_TIMEOUT_H
#define UTIM_BENCH_TIMEOUT_H

#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_host.h"
#include "board_native.h"
#include "histogram.h"

/** @brief Timeouts measured: 10 us to 1 s, one decade apart. */
#define BENCH_TO_NSIZES 6u

/** @brief Options of `utim-bench timeout`. */
typedef struct bench_to_opts {
  const char *board;                      /**< --board: NULL or "native" here, "sim" handed over */
  unsigned long histogram;                /**< --histogram US: buckets, 0 for none */
  unsigned long fixed;                    /**< --samples, 0 until given */
  bool lng;                               /**< --long */
  bool no_cyclictest;                     /**< --no-cyclictest */
  unsigned long samples[BENCH_TO_NSIZES]; /**< timeouts per row, per size (resolved) */
} bench_to_opts_t;

/** @brief One row: one source at one timeout. */
typedef struct bench_to_row {
  bench_stats_t st;    /**< latency statistics, ns */
  double irq_cpu;      /**< alarm rows: CPU % of the interrupt thread over the row, < 0 unknown */
  unsigned long early; /**< callbacks before the expiry (beyond the phase uncertainty) */
  /**
   * @brief No-spin alarm rows: samples whose callback followed a sleep of the interrupt
   *        thread that ended at its deadline (native_irq_deadline_wake_ns()).
   */
  unsigned long n_split;
  double wake_mean;  /**< over those: mean ns from the expiry to the end of the sleep (kernel) */
  double path_mean;  /**< over those: mean ns from the end of the sleep to the callback (utim) */
  bool measured;     /**< st holds a measurement */
  bench_hist_t hist; /**< with --histogram: the latencies in 1-us buckets */
  int error;         /**< 0, or an errno value explaining why not measured */
  int exit_status;   /**< cyclictest: its exit status when it failed (128 + N: signal N), else 0 */
} bench_to_row_t;

/** @brief Everything `utim-bench timeout` measured and prints. */
typedef struct bench_to_report {
  const bench_to_opts_t *o; /**< the options */
  bench_machine_t m;        /**< the machine */
  native_irq_info_t irq;    /**< the native board's interrupt thread */
  uint32_t hz;              /**< NATIVE_ALARM's frequency */
  int64_t tick_ns;          /**< its tick */
  int64_t phase_ns;         /**< clock time of counter value 0's start */
  int64_t phase_unc;        /**< half-width of its bracket */
  bool pm_qos;              /**< /dev/cpu_dma_latency held at 0 during the alarm rows */
  char cyclictest[4096];    /**< path of cyclictest */
  bool have_ct;             /**< cyclictest was run */
  char ct_args[160];        /**< the scheduling/locking arguments given to cyclictest */
  uint64_t spin_ns;         /**< the interrupt thread's default spin window */
  bench_to_row_t alarm[2][BENCH_TO_NSIZES]; /**< [0]: default spin window, [1]: spin off */
  bench_to_row_t ct[BENCH_TO_NSIZES];       /**< cyclictest */
  char notes[6][240];                       /**< notes printed with the result */
  size_t nnotes;                            /**< notes used */
} bench_to_report_t;

/** @brief The timeouts, us. */
extern const int64_t bench_to_sizes_us[BENCH_TO_NSIZES];

/** @brief JSON row names of the two alarm settings (default spin, no spin). */
extern const char *const bench_to_alarm_name[2];

/** @brief Table labels of the two alarm settings. */
extern const char *const bench_to_alarm_label[2];

/** @brief How the timeout result is printed (timeout_output.c). */
extern const bench_writer_t bench_to_writer;

/**
 * @brief Add a note to @p r (dropped when the notes are full).
 * @param r   the report
 * @param fmt printf format of the note
 */
void bench_to_note(bench_to_report_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * @brief Measure NATIVE_ALARM's callback latency at every size, with the
 *        board's spin window and without it, /dev/cpu_dma_latency held at 0
 *        meanwhile where permitted (timeout_alarm.c).
 * @param r the report: r->irq and r->o are read; hz, tick, phase, pm_qos,
 *          spin_ns and the alarm rows are filled
 * @return 0 (rows that failed carry their error), or -1 after a message
 *         when the alarm cannot be set up at all
 */
int bench_to_alarm(bench_to_report_t *r);

/**
 * @brief Wait on @p s for at most @p timeout_ns (sem_timedwait(), EINTR
 *        retried): a callback's post, or its loss.
 * @return 0, or the errno that ended the wait (ETIMEDOUT)
 */
int bench_sem_wait_ns(sem_t *s, int64_t timeout_ns);

/**
 * @brief The phase of a CLOCK_MONOTONIC-driven counter @p p of tick
 *        @p tick ns: the clock time *@p phase at which it stepped onto 0
 *        (it reads floor((clock - phase) / tick)), to within *@p unc ns,
 *        from many counter reads bracketed by clock reads.
 * @retval 0 found
 * @retval -1 the counter does not follow the clock that way
 */
int bench_to_find_phase(const utim_periph_t *p, int64_t tick, int64_t *phase, int64_t *unc);

/**
 * @brief Run cyclictest (at r->cyclictest) once per size with the alarm's
 *        interval, count, priority and memory locking; fills r->ct and
 *        r->ct_args (timeout_cyclictest.c).
 * @param r the report, after bench_to_alarm()
 */
void bench_to_cyclictest(bench_to_report_t *r);

#endif /* UTIM_BENCH_TIMEOUT_H */
