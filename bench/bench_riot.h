/**
 * @file bench_riot.h
 * @brief `ops` loops through RIOT's periph_timer shim (utim/riot_timer.h):
 *        timer_read(), timer_set_absolute(), timer_clear() on a board's
 *        instance by device number, the uTimer paper's periph_timer rows,
 *        measured beside the uAPI and hAPI rows of the same instance (host:
 *        sim; firmware: the board's real driver).
 */
#ifndef UTIM_BENCH_RIOT_H
#define UTIM_BENCH_RIOT_H

#include "utim/riot_timer.h"
#include "utim_bench.h"

/** @brief RIOT rows: read, set and clear. */
#define BENCH_RIOT_NCASES 3u

/**
 * @brief Define the RIOT loops of @p tag on the instance @p inst (an
 *        expression, read when preparing): bench_riot_<tag>_cases[] and
 *        int bench_riot_<tag>_prepare(uint32_t hz), which finds the
 *        instance's device number and initialises it through the shim
 *        (timer_init()) at @p hz, after bench_ops_prepare() of its set.
 *        The set and clear loops use bench_ops_params (target, channel) and
 *        OR the return codes into bench_sink, as the other loops do.
 */
#define BENCH_RIOT_DEFINE(tag, inst)                                                               \
  extern const bench_case_t bench_riot_##tag##_cases[BENCH_RIOT_NCASES];                           \
  int bench_riot_##tag##_prepare(uint32_t hz);                                                     \
  static tim_t bench_riot_##tag##_dev = TIMER_UNDEF;                                               \
  BENCH_NOINLINE static void bench_loop_##tag##_read_riot(uint32_t n) {                            \
    const tim_t dev = bench_riot_##tag##_dev;                                                      \
    uint64_t acc = 0;                                                                              \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc += timer_read(dev);                                                                      \
    }                                                                                              \
    bench_sink = acc;                                                                              \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_set_riot(uint32_t n) {                             \
    const tim_t dev = bench_riot_##tag##_dev;                                                      \
    const unsigned t = (unsigned)bench_ops_params.target;                                          \
    const int ch = (int)bench_ops_params.channel;                                                  \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= timer_set_absolute(dev, ch, t + (i & 0xffu));                                         \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_clear_riot(uint32_t n) {                           \
    const tim_t dev = bench_riot_##tag##_dev;                                                      \
    const int ch = (int)bench_ops_params.channel;                                                  \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= timer_clear(dev, ch);                                                                 \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  const bench_case_t bench_riot_##tag##_cases[BENCH_RIOT_NCASES] = {                               \
      {"bench_loop_" #tag "_read_riot", bench_loop_##tag##_read_riot, BENCH_OP_READ,               \
       BENCH_PATH_RIOT},                                                                           \
      {"bench_loop_" #tag "_set_riot", bench_loop_##tag##_set_riot, BENCH_OP_SET,                  \
       BENCH_PATH_RIOT},                                                                           \
      {"bench_loop_" #tag "_clear_riot", bench_loop_##tag##_clear_riot, BENCH_OP_CLEAR,            \
       BENCH_PATH_RIOT},                                                                           \
  };                                                                                               \
  static void bench_riot_##tag##_cb(void *arg, int channel) {                                      \
    (void)arg;                                                                                     \
    (void)channel;                                                                                 \
  }                                                                                                \
  int bench_riot_##tag##_prepare(uint32_t hz) {                                                    \
    for (unsigned i = 0; i < utim_count() && bench_riot_##tag##_dev == TIMER_UNDEF; i++) {         \
      if (utim_by_index(i) == (inst)) {                                                            \
        bench_riot_##tag##_dev = TIMER_DEV(i);                                                     \
      }                                                                                            \
    }                                                                                              \
    return bench_riot_##tag##_dev != TIMER_UNDEF                                                   \
               ? timer_init(bench_riot_##tag##_dev, hz, bench_riot_##tag##_cb, NULL)               \
               : -1;                                                                               \
  }

#endif /* UTIM_BENCH_RIOT_H */
