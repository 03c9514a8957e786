/**
 * @file bench_mcu.h
 * @brief `utim-bench ops` as firmware of a Cortex-M board run under QEMU:
 *        what a board contributes (its real-driver cases and its stopwatch).
 *
 * The firmware (bench/mcu/main.c) measures the NOP driver's cases
 * (bench_ops_nop, isolating the uAPI's own cost) and one real driver of the
 * board, described by bench_mcu_board, which bench/mcu/ops_<board>.c
 * defines. See main.c for how instructions are counted.
 */
#ifndef UTIM_BENCH_MCU_H
#define UTIM_BENCH_MCU_H

#include <stdint.h>

#include "bench_riot.h"
#include "utim_bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What a board measures and with what. */
typedef struct bench_mcu_board {
  const char *cpu;             /**< core and architecture, e.g. "Cortex-M3 (ARMv7-M)" */
  const bench_ops_set_t *set;  /**< the real driver's cases (BENCH_OPS_DEFINE()) */
  uint32_t hz;                 /**< frequency the real driver's instances run at */
  const char *what;            /**< one-line description of the real instance */
  const char *no_channel_note; /**< why set/clear are n/a when the instance has 0 channels */
  const char *stopwatch;       /**< platform name of the instance timing the loops */
  uint32_t stopwatch_hz;       /**< its frequency; 10^12 must be a multiple of it */
  /**
   * 0 when the stopwatch raises no interrupt; otherwise it takes one each
   * time its count reaches a multiple of this many ticks (the low period of
   * a software-carried chain), and a timed run that may contain one is run
   * again. Must be longer than any timed run.
   */
  uint32_t stopwatch_irq_every;
  /**
   * The RIOT periph_timer rows on the real driver's board instance
   * (BENCH_RIOT_DEFINE(): BENCH_RIOT_NCASES cases), or NULL for none.
   */
  const bench_case_t *riot;
  /** @brief Initialise that instance through the shim at @p hz (0, or -1). */
  int (*riot_prepare)(uint32_t hz);
} bench_mcu_board_t;

/** @brief The board's description (bench/mcu/ops_<board>.c). */
extern const bench_mcu_board_t bench_mcu_board;

/**
 * @brief Check that the compile-time instance of bench_mcu_board.set
 *        describes the same timer as the board's run-time instance (driver,
 *        packed properties, clocks, minimum distance, register base), and
 *        point the run-time path at the board's instance.
 * @param[out] err  reason on failure (NUL-terminated)
 * @param cap       capacity of @p err
 * @retval 0 identical
 * @retval -1 they differ, or the board has no such instance
 */
int bench_mcu_board_setup(char *err, unsigned cap);

/**
 * @brief Compare the parts of two instances every driver has: driver,
 *        packed properties, minimum distance and clock inputs (a board's
 *        setup adds its driver's own configuration, e.g. the register base).
 * @param ct   the compile-time copy
 * @param rt   the board's instance
 * @param[out] err  what differs (NUL-terminated)
 * @param cap  capacity of @p err
 * @retval 0 the same
 * @retval -1 they differ
 */
int bench_mcu_same_instance(const utim_periph_t *ct, const utim_periph_t *rt, char *err,
                            unsigned cap);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BENCH_MCU_H */
