/**
 * @file sleep_test.h
 * @brief The precise-sleep test (utim_sleep_until() / utim_sleep_for() with
 *        the port's sleeper), written once and run on every board: each
 *        board's main describes what it can promise and calls
 *        sleep_test_run(), adds its own tests, and ends with th_finish().
 *
 * Every check is about behaviour on the port's time line
 * (utim_port_now_ns()): never early, a consistent result record, passed
 * deadlines at once, -EINVAL for negative durations, statistics that add up.
 * Where the time line is virtual (sim, QEMU -icount) the board also promises
 * that the coarse sleep is used and that the miss stays within an allowance;
 * on the host nothing depends on how fast the machine is.
 */
#ifndef UTIM_TESTS_SLEEP_TEST_H
#define UTIM_TESTS_SLEEP_TEST_H

#include <stdbool.h>

#include "utim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What a board promises about its sleep. */
typedef struct sleep_test_board {
  /** @brief The port has a coarse sleep (its sleeper's block_until hook). */
  bool coarse;
  /** @brief The port knows the CPU time of every call (r.cpu >= 0). */
  bool cpu_known;
  /** @brief CPU time and the time line are one clock (virtual time), so a
   *         call's CPU time is at most its wake - start. */
  bool cpu_within;
  /** @brief The coarse sleep is CPU-free on this board's time line: a sleep
   *         of at least 1 ms spends less than half of it on the CPU. */
  bool cpu_free_coarse;
  /** @brief Shortest sleep expected to use the coarse sleep; 0: its use is
   *         not asserted (real time, where the margin follows the machine). */
  utim_ns_t coarse_from;
  /** @brief Largest miss allowed, 0 for no bound (real time). */
  utim_ns_t miss_allowance;
  /** @brief Durations exercised, each @p repeat times. */
  const utim_ns_t *durations;
  unsigned ndurations; /**< entries of durations */
  unsigned repeat;     /**< runs of each duration (>= 1) */
} sleep_test_board_t;

/** @brief Run the generic sleep tests (TAP lines through the harness). */
void sleep_test_run(const sleep_test_board_t *b);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TESTS_SLEEP_TEST_H */
