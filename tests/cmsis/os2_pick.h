/**
 * @file os2_pick.h
 * @brief Which instance of a board carries the time manager under the
 *        CMSIS-RTOS2 layer, for the board's suite and benchmark firmware.
 */
#ifndef UTIM_TESTS_OS2_PICK_H
#define UTIM_TESTS_OS2_PICK_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/tm.h"
#include "utim/utim.h"

/** @brief The choice: instance, frequency, channel (or UTIM_TM_OVERFLOW). */
typedef struct os2_pick {
  const utim_periph_t *p; /**< NULL when the board has no suitable instance */
  uint32_t hz;            /**< its frequency, a multiple of the kernel tick */
  unsigned ch;            /**< channel 0 (tickless) or UTIM_TM_OVERFLOW (ticked) */
} os2_pick_t;

/**
 * @brief The first instance with a compare channel that counts at exactly
 *        @p want_hz (the manager tickless on channel 0); on a board without
 *        one, the first with a settable top whose overflow the hardware
 *        tells pending, at its lowest frequency from 100 kHz up that is a
 *        multiple of @p tick_hz (the manager ticked on the overflow, one
 *        overflow a kernel tick).
 */
os2_pick_t os2_pick(uint32_t want_hz, uint32_t tick_hz);

/**
 * @brief Start the instance and the manager @p tm on it as @p k says
 *        (ticked: one tick per kernel tick of @p tick_hz).
 * @return 0, or the failing call's negative errno
 */
int os2_pick_start(const os2_pick_t *k, utim_tm_t *tm, uint32_t tick_hz);

#endif /* UTIM_TESTS_OS2_PICK_H */
