/**
 * @file utim_bench.h
 * @brief Portable benchmark library: the measuring core of utim-bench.
 *
 * No heap, no stdio: MCU firmware links this part and brings its own time
 * stamp source (a cycle counter) and its own output. The host CLI
 * (bench/host/) adds clocks, callgrind and formatting on top.
 *
 * The `ops` benchmark measures read, write, set (arm one-shot) and clear on
 * one instance through three call paths:
 * - the uAPI on an instance known at compile time (`static const` in the
 *   translation unit defining the loops, driver struct visible),
 * - the uAPI on an instance known only at run time (pointer read from a
 *   volatile before the loop),
 * - the hAPI driver function called directly.
 * BENCH_OPS_DEFINE() generates one non-inlined loop function per
 * (operation, path) so that each can be timed, and counted by an
 * instruction-level profiler, on its own.
 */
#ifndef UTIM_BENCH_H
#define UTIM_BENCH_H

#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A measured loop: performs its operation @p n times. */
typedef void (*bench_loop_fn)(uint32_t n);

/** @brief Operations of the `ops` benchmark. */
typedef enum bench_op {
  BENCH_OP_READ = 0,  /**< utim_read() / drv->read */
  BENCH_OP_WRITE = 1, /**< utim_write() / drv->write */
  BENCH_OP_SET = 2,   /**< utim_set_abs() / drv->set_channel(ONESHOT) */
  BENCH_OP_CLEAR = 3, /**< utim_clear() / drv->set_channel(OFF) */
  BENCH_OP_COUNT = 4  /**< number of operations */
} bench_op_t;

/** @brief Call paths of the `ops` benchmark. */
typedef enum bench_path {
  BENCH_PATH_UAPI_CT = 0, /**< uAPI, instance known at compile time */
  BENCH_PATH_UAPI_RT = 1, /**< uAPI, instance known only at run time */
  BENCH_PATH_HAPI = 2,    /**< the driver function called directly */
  BENCH_PATH_COUNT = 3,   /**< number of paths every set has */
  BENCH_PATH_RIOT = 4     /**< RIOT's periph_timer shim (utim/riot_timer.h): extra rows */
} bench_path_t;

/** @brief One measurable case: an operation through one path. */
typedef struct bench_case {
  const char *loop_name; /**< symbol name of @c loop (for profilers) */
  bench_loop_fn loop;    /**< the loop */
  uint8_t op;            /**< bench_op_t */
  uint8_t path;          /**< bench_path_t */
} bench_case_t;

/** @brief The cases of one instance, BENCH_OP_COUNT * BENCH_PATH_COUNT of them. */
typedef struct bench_ops_set {
  const char *driver;                      /**< driver label, e.g. "nop" */
  const utim_periph_t *ct;                 /**< the compile-time instance */
  const utim_periph_t *const volatile *rt; /**< where the run-time loops read their instance */
  bench_case_t cases[BENCH_OP_COUNT * BENCH_PATH_COUNT]; /**< op-major order */
} bench_ops_set_t;

/**
 * @brief Parameters the loops read once, through volatile, before looping,
 *        so the compiler cannot fold the values they pass.
 */
typedef struct bench_ops_params {
  uint64_t value_mask; /**< values written are (i & value_mask) */
  uint64_t target;     /**< first compare value armed; then target + (i & 0xff) */
  unsigned channel;    /**< channel armed and cleared */
} bench_ops_params_t;

/** @brief Parameters of the loops (set by bench_ops_prepare()). */
extern volatile bench_ops_params_t bench_ops_params;

/** @brief Results the loops store so that nothing they compute is dead. */
extern volatile uint64_t bench_sink;

/** @brief Name of @p op: "read", "write", "set", "clear". */
const char *bench_op_name(unsigned op);

/** @brief Name of @p path: "uapi-ct", "uapi-rt", "hapi". */
const char *bench_path_name(unsigned path);

/**
 * @brief The empty loop: same loop structure as every measured loop, no
 *        operation. Its cost is subtracted from every other loop's.
 */
void bench_loop_baseline(uint32_t n);

/**
 * @brief Prepare the instances of @p set for a loop: init each at @p hz
 *        (any clock), start, write 0, clear bench_ops_params.channel, and
 *        set bench_ops_params so that armed values are ahead of the counter.
 *        Call before every run: the write loops move the counter.
 * @retval 0 ready
 * @retval <0 the error of the failing uAPI call
 */
int bench_ops_prepare(const bench_ops_set_t *set, uint32_t hz);

/**
 * @brief Check that every loop of @p set works: prepare, run it @p n times,
 *        and verify that the write, set and clear loops saw only 0 returns.
 * @param set   the cases
 * @param hz    frequency given to bench_ops_prepare()
 * @param n     iterations of each loop
 * @param[out] failed index of the first failing case (may be NULL)
 * @retval 0 every operation succeeded
 * @retval <0 the first error returned (a preparation error or an op's error)
 */
int bench_ops_check(const bench_ops_set_t *set, uint32_t hz, uint32_t n, unsigned *failed);

/**
 * @brief utim_port_unlock(utim_port_lock()) @p n times: the port's share of
 *        every compound uAPI operation, reported beside the `ops` rows.
 */
void bench_loop_port_lock(uint32_t n);

/** @brief A pair of time stamps taken together (e.g. ns and CPU cycles). */
typedef struct bench_stamp {
  uint64_t t[2]; /**< t[0]: primary clock, t[1]: secondary clock (0 when absent) */
} bench_stamp_t;

/** @brief Take a time stamp. */
typedef void (*bench_stamp_fn)(bench_stamp_t *out);

/**
 * @brief Time @p runs executions of @p loop(@p iters).
 * @param loop  the loop
 * @param iters iterations per run
 * @param runs  number of runs
 * @param stamp time stamp source
 * @param[out] d0 @p runs deltas of t[0]
 * @param[out] d1 @p runs deltas of t[1]
 */
void bench_time_runs(bench_loop_fn loop, uint32_t iters, unsigned runs, bench_stamp_fn stamp,
                     uint64_t *d0, uint64_t *d1);

/**
 * @brief Median of @p n values (sorts @p v in place; mean of the two middle
 *        values when @p n is even, rounded down).
 * @return the median, 0 when @p n is 0
 */
uint64_t bench_median_u64(uint64_t *v, unsigned n);

/**
 * @brief Define the `ops` loops and their bench_ops_set_t for one instance.
 *
 * @param tag  identifier fragment, unique in the program
 * @param drv  a label string for the driver ("nop", "sim", ...)
 * @param ct   the compile-time instance: the address of a `static const
 *             utim_periph_t` defined in this translation unit
 * @param hdrv the driver struct object (not a pointer) used for the direct
 *             hAPI calls; when its definition is visible, calls fold to
 *             direct calls of the driver's functions
 * @param rtp  an lvalue of type `const utim_periph_t *volatile` holding the
 *             run-time instance (set before the loops run)
 *
 * Defines `const bench_ops_set_t bench_ops_<tag>`.
 */
#define BENCH_OPS_DEFINE(tag, drv, ct, hdrv, rtp)                                                  \
  BENCH_NOINLINE static void bench_loop_##tag##_read_uapi_ct(uint32_t n) {                         \
    uint64_t acc = 0;                                                                              \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc += utim_read(ct);                                                                        \
    }                                                                                              \
    bench_sink = acc;                                                                              \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_read_uapi_rt(uint32_t n) {                         \
    const utim_periph_t *p = (rtp);                                                                \
    uint64_t acc = 0;                                                                              \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc += utim_read(p);                                                                         \
    }                                                                                              \
    bench_sink = acc;                                                                              \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_read_hapi(uint32_t n) {                            \
    uint64_t acc = 0;                                                                              \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc += (hdrv).read(ct);                                                                      \
    }                                                                                              \
    bench_sink = acc;                                                                              \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_write_uapi_ct(uint32_t n) {                        \
    const uint64_t m = bench_ops_params.value_mask;                                                \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= utim_write(ct, i & m);                                                                \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_write_uapi_rt(uint32_t n) {                        \
    const utim_periph_t *p = (rtp);                                                                \
    const uint64_t m = bench_ops_params.value_mask;                                                \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= utim_write(p, i & m);                                                                 \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_write_hapi(uint32_t n) {                           \
    const uint64_t m = bench_ops_params.value_mask;                                                \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= (hdrv).write(ct, i & m);                                                              \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_set_uapi_ct(uint32_t n) {                          \
    const uint64_t t = bench_ops_params.target;                                                    \
    const unsigned ch = bench_ops_params.channel;                                                  \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= utim_set_abs(ct, ch, t + (i & 0xffu));                                                \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_set_uapi_rt(uint32_t n) {                          \
    const utim_periph_t *p = (rtp);                                                                \
    const uint64_t t = bench_ops_params.target;                                                    \
    const unsigned ch = bench_ops_params.channel;                                                  \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= utim_set_abs(p, ch, t + (i & 0xffu));                                                 \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_set_hapi(uint32_t n) {                             \
    const uint64_t t = bench_ops_params.target;                                                    \
    const unsigned ch = bench_ops_params.channel;                                                  \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      (hdrv).set_channel(ct, ch, UTIM_CH_ONESHOT, t + (i & 0xffu));                                \
    }                                                                                              \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_clear_uapi_ct(uint32_t n) {                        \
    const unsigned ch = bench_ops_params.channel;                                                  \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= utim_clear(ct, ch);                                                                   \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_clear_uapi_rt(uint32_t n) {                        \
    const utim_periph_t *p = (rtp);                                                                \
    const unsigned ch = bench_ops_params.channel;                                                  \
    int acc = 0;                                                                                   \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      acc |= utim_clear(p, ch);                                                                    \
    }                                                                                              \
    bench_sink = (uint64_t)acc;                                                                    \
  }                                                                                                \
  BENCH_NOINLINE static void bench_loop_##tag##_clear_hapi(uint32_t n) {                           \
    const unsigned ch = bench_ops_params.channel;                                                  \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      (hdrv).set_channel(ct, ch, UTIM_CH_OFF, 0u);                                                 \
    }                                                                                              \
  }                                                                                                \
  const bench_ops_set_t bench_ops_##tag = {                                                        \
      (drv),                                                                                       \
      (ct),                                                                                        \
      &(rtp),                                                                                      \
      {BENCH_CASE(tag, read, READ, uapi_ct, UAPI_CT),                                              \
       BENCH_CASE(tag, read, READ, uapi_rt, UAPI_RT), BENCH_CASE(tag, read, READ, hapi, HAPI),     \
       BENCH_CASE(tag, write, WRITE, uapi_ct, UAPI_CT),                                            \
       BENCH_CASE(tag, write, WRITE, uapi_rt, UAPI_RT), BENCH_CASE(tag, write, WRITE, hapi, HAPI), \
       BENCH_CASE(tag, set, SET, uapi_ct, UAPI_CT), BENCH_CASE(tag, set, SET, uapi_rt, UAPI_RT),   \
       BENCH_CASE(tag, set, SET, hapi, HAPI), BENCH_CASE(tag, clear, CLEAR, uapi_ct, UAPI_CT),     \
       BENCH_CASE(tag, clear, CLEAR, uapi_rt, UAPI_RT),                                            \
       BENCH_CASE(tag, clear, CLEAR, hapi, HAPI)}}

/** @brief One bench_case_t initializer (used by BENCH_OPS_DEFINE()). */
#define BENCH_CASE(tag, op, OP, path, PATH)                                                        \
  {                                                                                                \
    "bench_loop_" #tag "_" #op "_" #path, bench_loop_##tag##_##op##_##path, BENCH_OP_##OP,         \
        BENCH_PATH_##PATH                                                                          \
  }

/** @brief Keep a loop function out of line so it can be timed and profiled alone. */
#if defined(__GNUC__)
#define BENCH_NOINLINE __attribute__((noinline, used))
#else
#define BENCH_NOINLINE
#endif

/**
 * @brief Compiler barrier at the top of every loop iteration: stops the
 *        compiler from merging, vectorising or hoisting iterations, costs
 *        no instruction.
 */
#if defined(__GNUC__)
#define BENCH_BARRIER() __asm__ volatile("" ::: "memory")
#else
#define BENCH_BARRIER() ((void)0)
#endif

/** @brief NOP-driver cases: instance "NOP64" (64-bit, 4 channels). */
extern const bench_ops_set_t bench_ops_nop;

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BENCH_H */
