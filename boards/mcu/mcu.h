/**
 * @file mcu.h
 * @brief What every bare-metal board provides to the programs that run on it
 *        (tests, benchmark firmware, examples), whatever its architecture
 *        (boards/cortexm, boards/riscv): a console, the end of a run with a
 *        status, the status of a fault, and the board's exposure table.
 *
 * The exposure table ("Table 2" of the uTimer paper) lists the chip's timers
 * and channels against what utim exposes. The board provides it as data,
 * mcu_board_exposure; the conformance firmware prints it
 * (tests/conformance/main_mcu.c), so a board never calls into the tests.
 */
#ifndef UTIM_BOARDS_MCU_H
#define UTIM_BOARDS_MCU_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Exit status of a run ended by an unexpected exception or trap (fault). */
#define MCU_EXIT_FAULT 3

/**
 * @brief End the run: QEMU exits with @p status (Cortex-M: ARM semihosting
 *        SYS_EXIT_EXTENDED; RISC-V virt: the test device).
 */
void mcu_exit(int status) __attribute__((noreturn));

/** @brief Set up the board's UART for polled output (idempotent). */
void mcu_console_init(void);

/** @brief Send one byte on the board's UART (polled; no newline translation). */
void mcu_console_putc(char c);

/** @brief Send a string on the board's UART (mcu_console_putc() per byte). */
static inline void mcu_console_puts(const char *s) {
  for (; *s != '\0'; s++) {
    mcu_console_putc(*s);
  }
}

/** @brief One timer of the chip and what utim makes of it. */
typedef struct mcu_exposure_row {
  const char *timer;         /**< the chip's timer */
  unsigned chip_ch;          /**< its compare channels */
  const utim_periph_t *inst; /**< the instance serving it, NULL when not exposed */
  const char *comment;       /**< why not exposed, or what the instance offers */
} mcu_exposure_row_t;

/**
 * @brief A board's exposure table: a row per timer of the chip, then notes.
 *        An instance serving several chip timers (a chain) has one row per
 *        chip timer; its channels count once in the totals.
 */
typedef struct mcu_exposure {
  const mcu_exposure_row_t *rows; /**< the chip's timers */
  unsigned nrows;                 /**< number of rows */
  unsigned timer_col;             /**< width of the first column, in characters */
  const char *const *notes;       /**< lines after the totals (no "# ", no newline) */
  unsigned nnotes;                /**< number of notes */
} mcu_exposure_t;

/** @brief The board's exposure table (defined by boards/<board>/board.c). */
extern const mcu_exposure_t mcu_board_exposure;

/**
 * @brief Define mcu_board_exposure from the board's arrays of rows
 *        (mcu_exposure_row_t) and notes (const char *const), with a
 *        first column @p col characters wide.
 */
#define MCU_EXPOSURE_DEFINE(row_array, col, note_array)                                            \
  const mcu_exposure_t mcu_board_exposure = {                                                      \
      .rows = (row_array),                                                                         \
      .nrows = sizeof(row_array) / sizeof((row_array)[0]),                                         \
      .timer_col = (col),                                                                          \
      .notes = (note_array),                                                                       \
      .nnotes = sizeof(note_array) / sizeof((note_array)[0]),                                      \
  }

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARDS_MCU_H */
