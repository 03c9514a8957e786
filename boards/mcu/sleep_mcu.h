/**
 * @file sleep_mcu.h
 * @brief Precise-sleep hooks of the bare-metal boards (include/utim/time.h):
 *        what a board chooses, and what boards/mcu/sleep_mcu.c does with it.
 *
 * @par Time line
 * utim_port_now_ns() is a free-running counter instance (mcu_sleep_board_t::clock)
 * extended to 64 bits and converted to ns. Two ways to extend it, chosen by
 * the timer's features:
 * - MCU_SLEEP_WRAP_OVERFLOW: the overflow callback counts wraps. A read takes
 *   the port lock, reads the wrap count and the counter, and then asks the
 *   board whether the counter's interrupt is pending (wrap_pending(): the
 *   NVIC's set-pending bit of its line). When it is, the wrap happened but is
 *   not counted yet: the counter is read again (now surely after the wrap)
 *   and one wrap is added. Correct in the timer's interrupt, below its
 *   priority and in locked sections. Not covered (as for the time manager
 *   on an overflow, utim_tm_init()): an interrupt of a higher priority than
 *   the timer's that preempts its handler after the set-pending bit cleared
 *   and before the overflow callback counted the wrap (the core delivers it
 *   with the lock released) reads the time line one wrap behind. The boards
 *   give every timer interrupt one priority, so only an application that
 *   raises another one above it meets this.
 * - MCU_SLEEP_WRAP_QUARTER: for a counter without overflow interrupt (nRF51
 *   TIMER), compare channel wrap_ch marks every quarter of the counter's
 *   range; its callback advances a base (quarters x 2^(width-2)) that is
 *   never ahead of the counter. A read is base + ((counter - base) mod
 *   2^width), right as long as the marker's interrupt is not delayed by
 *   three quarters of a wrap, so correct in any context.
 * - MCU_SLEEP_WRAP_NONE: a 64-bit counter (the RISC-V machine timer) is
 *   the time line as it is: it does not wrap in any lifetime.
 * The counter starts at mcu_sleep_board_t::start (a board sets it shortly
 * before the first wrap, as Linux starts jiffies, so every run exercises the
 * extension); the time line is monotonic from there.
 *
 * @par Coarse sleep
 * utim_port_block_until(t) arms an alarm at the first tick whose time is >= t
 * (utim_ns_to_ticks_ceil()) and executes WFI, with interrupts masked around
 * the check so a wake-up cannot be lost, until the alarm's callback has run;
 * other interrupts waking the core only make it check again. Two kinds of
 * alarm:
 * - a compare channel of the clock itself (alarm == clock, alarm_ch a
 *   channel), armed with utim_set_rel() from a counter value read before the
 *   call, so it never fires before the tick;
 * - MCU_SLEEP_ALARM_OVERFLOW: a second timer without compare channel at the
 *   same frequency, whose counter is written to 2^width - n so that its
 *   overflow interrupt comes n ticks later; one tick more is added because
 *   its tick phase is not the clock's. The callback stops it, so it fires
 *   once.
 * An alarm is armed at most 2^(width-2) ticks ahead; a longer sleep wakes
 * early (-EINTR) and the sleep algorithm sleeps again.
 *
 * @par CPU time
 * utim_port_cpu_ns() is the time on the time line not spent halted in WFI
 * (interrupt handlers count as busy): two counter reads per WFI (on RISC-V
 * the WFI of the same loop: it wakes on any interrupt enabled in mie).
 */
#ifndef UTIM_BOARDS_SLEEP_MCU_H
#define UTIM_BOARDS_SLEEP_MCU_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief mcu_sleep_board_t::wrap: count the clock's overflow interrupts. */
#define MCU_SLEEP_WRAP_OVERFLOW 0u
/** @brief mcu_sleep_board_t::wrap: quarter-range markers on compare channel wrap_ch. */
#define MCU_SLEEP_WRAP_QUARTER 1u
/** @brief mcu_sleep_board_t::wrap: a 64-bit clock, used as it is (no wrap to extend). */
#define MCU_SLEEP_WRAP_NONE 2u
/** @brief mcu_sleep_board_t::alarm_ch: the alarm is the overflow of a written counter. */
#define MCU_SLEEP_ALARM_OVERFLOW 0xffu

/** @brief The timers a board gives the sleep port (defined by the board). */
typedef struct mcu_sleep_board {
  const utim_periph_t *clock; /**< free-running counter of the time line (width <= 32; 64 with
                                   MCU_SLEEP_WRAP_NONE) */
  uint32_t hz;                /**< frequency of the clock and of the alarm, Hz */
  uint32_t start;             /**< counter value the time line starts from */
  uint8_t wrap;               /**< MCU_SLEEP_WRAP_OVERFLOW, _QUARTER or _NONE */
  uint8_t wrap_ch;            /**< QUARTER: compare channel of clock used for the markers */
  uint8_t alarm_ch;           /**< compare channel of clock, or MCU_SLEEP_ALARM_OVERFLOW */
  /** @brief OVERFLOW: whether the clock's wrap interrupt is pending, not yet taken. */
  bool (*wrap_pending)(void);
  /** @brief Alarm timer: clock itself for a channel, another timer for
   *         MCU_SLEEP_ALARM_OVERFLOW, NULL when the board has none (the sleep spins). */
  const utim_periph_t *alarm;
} mcu_sleep_board_t;

/** @brief The board's choice (boards/<board>/sleep_<board>.c). */
extern const mcu_sleep_board_t mcu_sleep_board;

/** @brief Snapshot of the sleep port's counters, for tests and reports. */
typedef struct mcu_sleep_info {
  int init_error;   /**< 0, or why the time line could not be set up (negative errno) */
  uint32_t wraps;   /**< wraps of the clock seen so far (both ways of extending) */
  uint32_t wakeups; /**< WFI returns inside utim_port_block_until() */
  uint32_t alarms;  /**< alarm callbacks run */
  uint64_t idle_ns; /**< time spent halted in WFI */
  uint64_t ticks;   /**< the 64-bit clock now */
} mcu_sleep_info_t;

/** @brief The sleep port's counters (sets the time line up when not yet done). */
mcu_sleep_info_t mcu_sleep_info(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARDS_SLEEP_MCU_H */
