/**
 * @file exposure.h
 * @brief The exposure table of a Cortex-M board ("Table 2" of the uTimer
 *        paper): the chip's timers and channels against what utim exposes.
 *
 * The board provides the table as data, cortexm_board_exposure; the
 * conformance firmware prints it (tests/conformance/main_mcu.c), so a board
 * never calls into the tests.
 */
#ifndef UTIM_CORTEXM_EXPOSURE_H
#define UTIM_CORTEXM_EXPOSURE_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One timer of the chip and what utim makes of it. */
typedef struct cortexm_exposure_row {
  const char *timer;         /**< the chip's timer */
  unsigned chip_ch;          /**< its compare channels */
  const utim_periph_t *inst; /**< the instance serving it, NULL when not exposed */
  const char *comment;       /**< why not exposed, or what the instance offers */
} cortexm_exposure_row_t;

/**
 * @brief A board's exposure table: a row per timer of the chip, then notes.
 *        An instance serving several chip timers (a chain) has one row per
 *        chip timer; its channels count once in the totals.
 */
typedef struct cortexm_exposure {
  const cortexm_exposure_row_t *rows; /**< the chip's timers */
  unsigned nrows;                     /**< number of rows */
  unsigned timer_col;                 /**< width of the first column, in characters */
  const char *const *notes;           /**< lines after the totals (no "# ", no newline) */
  unsigned nnotes;                    /**< number of notes */
} cortexm_exposure_t;

/** @brief The board's exposure table (defined by boards/<board>/board.c). */
extern const cortexm_exposure_t cortexm_board_exposure;

/**
 * @brief Define cortexm_board_exposure from the board's arrays of rows
 *        (cortexm_exposure_row_t) and notes (const char *const), with a
 *        first column @p col characters wide.
 */
#define CORTEXM_EXPOSURE_DEFINE(row_array, col, note_array)                                        \
  const cortexm_exposure_t cortexm_board_exposure = {                                              \
      .rows = (row_array),                                                                         \
      .nrows = sizeof(row_array) / sizeof((row_array)[0]),                                         \
      .timer_col = (col),                                                                          \
      .notes = (note_array),                                                                       \
      .nnotes = sizeof(note_array) / sizeof((note_array)[0]),                                      \
  }

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CORTEXM_EXPOSURE_H */
