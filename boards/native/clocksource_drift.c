/*
 * Drift of utim_now() against CLOCK_MONOTONIC_RAW over a stretch of time,
 * sampled (and so re-fitted as usual) every period: what the calibration
 * and the re-fits achieve, as `utim-bench clock` reports it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "clocksource_internal.h"

/* Narrowest of a few utim_now() / CLOCK_MONOTONIC_RAW / utim_now() brackets: offset and width. */
static void offset_sample(int64_t *offset, int64_t *width) {
  int64_t best_w = INT64_MAX;
  for (int i = 0; i < 8; i++) {
    int64_t n1 = utim_now();
    int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    int64_t n2 = utim_now();
    if (n2 - n1 < best_w) {
      best_w = n2 - n1;
      *offset = n1 + (n2 - n1) / 2 - r;
    }
  }
  *width = best_w;
}

int utim_clocksource_drift(utim_ns_t duration, utim_ns_t period, utim_cs_drift_t *out) {
  if (out == NULL || duration < 0 || period <= 0) {
    return -EINVAL;
  }
  (void)utim_clocksource_init();
  *out = (utim_cs_drift_t){0};
  pthread_mutex_lock(&native_cs_lock);
  uint64_t refits0 = native_cs.refits;
  pthread_mutex_unlock(&native_cs_lock);
  int64_t off;
  int64_t w;
  offset_sample(&off, &w);
  out->offset_start = off;
  out->bracket = w;
  int64_t start = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
  /* Saturated: a duration up to UTIM_NS_MAX means "as long as can be". */
  int64_t end = utim_ns_add(start, duration);
  for (;;) {
    int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    if (r >= end) {
      break;
    }
    int64_t step = end - r < period ? end - r : period;
    struct timespec ts = {(time_t)(step / UTIM_NS_PER_S), (long)(step % UTIM_NS_PER_S)};
    (void)nanosleep(&ts, NULL);
    offset_sample(&off, &w);
    out->samples++;
    out->bracket = w > out->bracket ? w : out->bracket;
    utim_ns_t dev = utim_ns_abs(off - out->offset_start);
    out->max_dev = dev > out->max_dev ? dev : out->max_dev;
  }
  offset_sample(&off, &w);
  out->samples++;
  out->offset_end = off;
  out->elapsed = utim_native_clock_ns(CLOCK_MONOTONIC_RAW) - start;
  out->drift = out->offset_end - out->offset_start;
  out->max_dev = utim_ns_max(out->max_dev, utim_ns_abs(out->drift));
  out->bracket = w > out->bracket ? w : out->bracket;
  if (out->elapsed > 0) {
    uint64_t q;
    (void)utim_muldiv((uint64_t)utim_ns_abs(out->drift), (uint64_t)UTIM_NS_PER_S,
                      (uint64_t)out->elapsed, UTIM_ROUND_NEAREST, &q);
    out->drift_ppb = out->drift < 0 ? -native_cs_sat_i64(q) : native_cs_sat_i64(q);
  }
  pthread_mutex_lock(&native_cs_lock);
  out->refits = (uint32_t)(native_cs.refits - refits0);
  pthread_mutex_unlock(&native_cs_lock);
  return 0;
}
