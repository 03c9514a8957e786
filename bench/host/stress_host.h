/**
 * @file stress_host.h
 * @brief Internal interfaces of `utim-bench stress`: the command and its
 *        output (cmd_stress.c) over one board back-end, the sim board in
 *        the helper program (stress_sim.c) or the native board
 *        (stress_native.c).
 */
#ifndef UTIM_BENCH_STRESS_HOST_H
#define UTIM_BENCH_STRESS_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "stress.h"

/** @brief One timer a board back-end offers to the stress run. */
typedef struct bench_stress_target {
  const utim_periph_t *tut; /**< timer under test */
  unsigned ch;              /**< its channel */
  uint32_t tut_hz;          /**< its frequency */
  const utim_periph_t *ref; /**< the reference timer for it */
  uint32_t ref_hz;          /**< the reference's frequency */
} bench_stress_target_t;

/** @brief A board back-end of `utim-bench stress`. */
typedef struct bench_stress_board {
  const char *name;       /**< "sim" or "native" */
  bool virtual_time;      /**< durations are virtual; --report-every counts operations */
  const char *time_note;  /**< one line on how time passes and the reference is read */
  uint64_t default_limit; /**< longest interval drawn, TUT ticks */
  uint64_t min_abs;       /**< shortest absolute interval, TUT ticks */
  uint64_t lost_ns;       /**< a callback this late is lost */
  /** @brief Set the board up (once). */
  void (*init)(void);
  /**
   * @brief The timers the run covers by default (every one that fits), or
   *        the one named @p name when not NULL; at most @p cap.
   * @return how many were written, or -1 when @p name is not one of them
   */
  int (*targets)(const char *name, bench_stress_target_t *out, unsigned cap);
  /** @brief Make the board ready for a run on @p t (before its timers are started), or NULL. */
  void (*prepare)(const bench_stress_target_t *t);
  /** @brief Seconds since the board's init (virtual or real). */
  double (*now_s)(void);
  /** @brief Let time pass while waiting for a callback (bench_stress_cfg_t::wait). */
  void (*wait)(void *ctx);
} bench_stress_board_t;

/** @brief The back-end linked into this program. */
extern const bench_stress_board_t bench_stress_board;

#endif /* UTIM_BENCH_STRESS_HOST_H */
