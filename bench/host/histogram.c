/**
 * @file histogram.c
 * @brief Latency histograms in cyclictest's layout (see histogram.h).
 */
#include "histogram.h"

#include <stdlib.h>

int bench_hist_fill(bench_hist_t *h, const double *ns, size_t n, unsigned buckets) {
  *h = (bench_hist_t){0};
  h->count = calloc(buckets != 0u ? buckets : 1u, sizeof *h->count);
  if (h->count == NULL) {
    return -1;
  }
  h->buckets = buckets;
  for (size_t i = 0; i < n; i++) {
    const double us = ns[i] / 1000.0;
    const unsigned long b = us <= 0.0 ? 0ul : (unsigned long)us;
    if (b >= buckets) {
      h->overflows++;
      if (h->outliers < buckets && h->outliers < sizeof h->outlier / sizeof h->outlier[0]) {
        h->outlier[h->outliers++] = (unsigned long)i;
      }
    } else {
      h->count[b]++;
    }
    h->min_us = h->n == 0u || us < h->min_us ? us : h->min_us;
    h->max_us = h->n == 0u || us > h->max_us ? us : h->max_us;
    h->sum_us += us;
    h->n++;
  }
  return 0;
}

void bench_hist_free(bench_hist_t *h) {
  free(h->count);
  h->count = NULL;
}

void bench_hist_print(FILE *f, const bench_hist_t *h, const char *title) {
  /* As cyclictest prints one thread: integer microseconds (truncated),
   * %05lu fields, the total of the samples inside the histogram. */
  fprintf(f, "# %s\n", title);
  fprintf(f, "# Histogram\n");
  for (unsigned b = 0; b < h->buckets; b++) {
    fprintf(f, "%06u %06lu\n", b, h->count[b]);
  }
  const unsigned long min = h->n != 0u && h->min_us > 0.0 ? (unsigned long)h->min_us : 0ul;
  const unsigned long max = h->n != 0u && h->max_us > 0.0 ? (unsigned long)h->max_us : 0ul;
  const unsigned long avg =
      h->n != 0u && h->sum_us > 0.0 ? (unsigned long)(h->sum_us / (double)h->n) : 0ul;
  fprintf(f, "# Total: %09lu\n", h->n - h->overflows);
  fprintf(f, "# Min Latencies: %05lu\n", min);
  fprintf(f, "# Avg Latencies: %05lu\n", avg);
  fprintf(f, "# Max Latencies: %05lu\n", max);
  fprintf(f, "# Histogram Overflows: %05lu\n", h->overflows);
  fprintf(f, "# Histogram Overflow at cycle number:\n# Thread 0:");
  for (unsigned i = 0; i < h->outliers; i++) {
    fprintf(f, " %05lu", h->outlier[i]);
  }
  if (h->outliers < h->overflows) {
    fprintf(f, " # %05lu others", h->overflows - h->outliers);
  }
  fputc('\n', f);
}

void bench_hist_json(bench_jw_t *w, const bench_hist_t *h, const char *name, const char *key,
                     long long value) {
  bench_jw_object(w, NULL);
  bench_jw_str(w, "name", name);
  bench_jw_int(w, key, value);
  bench_jw_array(w, "counts");
  for (unsigned b = 0; b < h->buckets; b++) {
    bench_jw_uint(w, NULL, h->count[b]);
  }
  bench_jw_end(w);
  bench_jw_uint(w, "overflows", h->overflows);
  bench_jw_uint(w, "n", h->n);
  bench_jw_num(w, "min_us", h->n != 0u, h->min_us);
  bench_jw_num(w, "avg_us", h->n != 0u, h->n != 0u ? h->sum_us / (double)h->n : 0.0);
  bench_jw_num(w, "max_us", h->n != 0u, h->max_us);
  bench_jw_end(w);
}

void bench_hist_json_open(bench_jw_t *w, unsigned buckets) {
  bench_jw_object(w, "histogram");
  bench_jw_uint(w, "bucket_us", 1u);
  bench_jw_uint(w, "buckets", buckets);
  bench_jw_array(w, "rows");
}

void bench_hist_json_close(bench_jw_t *w) {
  bench_jw_end(w);
  bench_jw_end(w);
}
