/**
 * @file stats.c
 * @brief Summary statistics of the benchmark samples (host only).
 */
#include <math.h>
#include <stdlib.h>

#include "bench_host.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a;
  double y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_stats(double *v, size_t n, bench_stats_t *out) {
  *out = (bench_stats_t){0};
  if (n == 0u) {
    return;
  }
  qsort(v, n, sizeof *v, cmp_double);
  /* Sum in a long double: a million samples of tens of microseconds would
   * otherwise lose the nanoseconds the mean is reported in. */
  long double sum = 0.0L;
  for (size_t i = 0; i < n; i++) {
    sum += v[i];
  }
  const long double mean = sum / (long double)n;
  long double sq = 0.0L;
  for (size_t i = 0; i < n; i++) {
    long double d = v[i] - mean;
    sq += d * d;
  }
  out->n = n;
  out->min = v[0];
  out->max = v[n - 1u];
  out->mean = (double)mean;
  out->median = (n & 1u) != 0u ? v[n / 2u] : (v[n / 2u - 1u] + v[n / 2u]) / 2.0;
  /* Nearest rank: the smallest value with at least 99 % of the sample at or below it. */
  size_t rank = (99u * n + 99u) / 100u;
  out->p99 = v[(rank == 0u ? 1u : rank) - 1u];
  out->stddev = (double)sqrtl(sq / (long double)n);
}

void bench_jw_stats(bench_jw_t *w, const bench_stats_t *s) {
  const bool ok = s->n > 0u;
  bench_jw_num(w, "median", ok, s->median);
  bench_jw_num(w, "mean", ok, s->mean);
  bench_jw_num(w, "p99", ok, s->p99);
  bench_jw_num(w, "max", ok, s->max);
  bench_jw_num(w, "min", ok, s->min);
  bench_jw_num(w, "stddev", ok, s->stddev);
  bench_jw_uint(w, "n", s->n);
}

double *bench_sample_buffer(const unsigned long *samples, unsigned n) {
  unsigned long nmax = 1;
  for (unsigned i = 0; i < n; i++) {
    nmax = samples[i] > nmax ? samples[i] : nmax;
  }
  return calloc(nmax, sizeof(double));
}
