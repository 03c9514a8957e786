/**
 * @file histogram.h
 * @brief Latency histograms in the layout of `cyclictest -h US` (rt-tests),
 *        for `utim-bench timeout` and `utim-bench sleep` (--histogram US).
 */
#ifndef UTIM_BENCH_HISTOGRAM_H
#define UTIM_BENCH_HISTOGRAM_H

#include <stddef.h>
#include <stdio.h>

#include "bench_output.h"

/** @brief A histogram of one row's latencies: 1 us buckets 0 .. buckets - 1. */
typedef struct bench_hist {
  unsigned long *count;    /**< per bucket */
  unsigned buckets;        /**< number of buckets (the US of --histogram) */
  unsigned long overflows; /**< samples of buckets or more us */
  /** @brief 0-based sample numbers of the first overflows (cyclictest lists as many as it has
   * buckets, here at most 64). */
  unsigned long outlier[64];
  unsigned outliers; /**< entries of outlier[] used */
  unsigned long n;   /**< samples */
  double min_us;     /**< smallest sample, us */
  double max_us;     /**< largest sample, us */
  double sum_us;     /**< sum of the samples, us */
} bench_hist_t;

/**
 * @brief Fill @p h from @p n latencies in ns (in the order measured), into
 *        @p buckets buckets of 1 us (a sample of k.x us counts in bucket k;
 *        negative ones in bucket 0).
 * @return 0, or -1 when out of memory (h is then empty)
 */
int bench_hist_fill(bench_hist_t *h, const double *ns, size_t n, unsigned buckets);

/** @brief Free the buckets of @p h. */
void bench_hist_free(bench_hist_t *h);

/**
 * @brief Print @p h as `cyclictest -h` does for one thread: a line
 *        "%06d %06lu" per bucket, then the "# Total:", "# Min Latencies:",
 *        "# Avg Latencies:", "# Max Latencies:", "# Histogram Overflows:"
 *        and "# Histogram Overflow at cycle number:" lines (the sample
 *        numbers of the first overflows, then "# N others"); @p title goes
 *        first, as a "# " comment line.
 */
void bench_hist_print(FILE *f, const bench_hist_t *h, const char *title);

/**
 * @brief Open the "histogram" member of a result: {"bucket_us": 1,
 *        "buckets": @p buckets, "rows": [ ... (bench_hist_json() per row);
 *        bench_hist_json_close() ends it.
 */
void bench_hist_json_open(bench_jw_t *w, unsigned buckets);

/** @brief Close what bench_hist_json_open() opened. */
void bench_hist_json_close(bench_jw_t *w);

/**
 * @brief Write @p h as a JSON object member of the enclosing array: its
 *        "name", @p key = @p value (what the row is: "timeout_us",
 *        "duration_ns"), "counts", "overflows", "n", "min_us", "avg_us",
 *        "max_us".
 */
void bench_hist_json(bench_jw_t *w, const bench_hist_t *h, const char *name, const char *key,
                     long long value);

#endif /* UTIM_BENCH_HISTOGRAM_H */
