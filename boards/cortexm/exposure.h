/**
 * @file exposure.h
 * @brief The exposure table of a Cortex-M board ("Table 2" of the uTimer
 *        paper): the chip's timers and channels against what utim exposes.
 */
#ifndef UTIM_CORTEXM_EXPOSURE_H
#define UTIM_CORTEXM_EXPOSURE_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One timer of the chip and what utim makes of it. */
typedef struct cortexm_exposure {
  const char *timer;         /**< the chip's timer */
  unsigned chip_ch;          /**< its compare channels */
  const utim_periph_t *inst; /**< the instance serving it, NULL when not exposed */
  const char *comment;       /**< why not exposed, or what the instance offers */
} cortexm_exposure_t;

/**
 * @brief Print the table through the test harness (th_printf): a header, a
 *        row per chip timer, and the totals. An instance serving several chip
 *        timers (a chain) counts its channels once.
 * @param rows      the chip's timers
 * @param n         number of rows
 * @param timer_col width of the first column
 */
void cortexm_print_exposure(const cortexm_exposure_t *rows, unsigned n, unsigned timer_col);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CORTEXM_EXPOSURE_H */
