/**
 * @file board.h
 * @brief The Stellaris LM3S6965 evaluation board (Cortex-M3) as QEMU 7.2
 *        models it: its timer instances and its exposure table.
 *
 * Instances, by index (utim_by_index()) and platform name (utim_by_name()):
 *
 * | index | name          | peripheral                   | bits | ch | events   |
 * |-------|---------------|------------------------------|------|----|----------|
 * | 0     | LM3S_SYSTICK  | SysTick @0xE000E010, exc. 15 | 24   | 0  | overflow |
 *
 * The four general-purpose timer modules (GPTM 0..3 at 0x40030000 +
 * 0x1000 n, timer A interrupts 19, 21, 23, 35) are served by
 * drivers/stellaris_gptm (32-bit periodic mode: a 32-bit counter with the
 * time-out as its overflow, a settable top; no stop). QEMU 7.2 models their
 * time-outs but not reading the count (GPTMTAR reads 0; see
 * utim_stellaris_gptm.h), and a utim instance reads its counter, so under
 * QEMU they are not in the table: the board test (tests/gptm) drives the
 * driver's event path on GPTM 0 instead. A build for the real chip defines
 * LM3S6965_SILICON: the four GPTMs become instances 1..4 (compiled, never
 * run here).
 *
 * Clock: the system clock, 12.5 MHz after reset under QEMU (RCC's SYSDIV
 * 15 on its 200 MHz source); SysTick counts it (its reference clock is not
 * modelled, so it is the only input listed). The console is UART0 (PL011
 * at 0x4000C000).
 */
#ifndef UTIM_BOARD_LM3S6965EVB_H
#define UTIM_BOARD_LM3S6965EVB_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Index of each instance in the board's table. */
enum lm3s6965evb_timer_index {
  LM3S_IDX_SYSTICK = 0, /**< SysTick, 24 bits */
#ifdef LM3S6965_SILICON
  LM3S_IDX_GPTM0 = 1,      /**< GPTM 0, 32-bit periodic */
  LM3S_IDX_GPTM1 = 2,      /**< GPTM 1 */
  LM3S_IDX_GPTM2 = 3,      /**< GPTM 2 */
  LM3S_IDX_GPTM3 = 4,      /**< GPTM 3 */
  LM3S_INSTANCE_COUNT = 5, /**< number of instances */
#else
  LM3S_INSTANCE_COUNT = 1, /**< number of instances */
#endif
};

/** @brief System clock after reset as QEMU 7.2 models it (200 MHz / 16), Hz. */
#define LM3S_SYSCLK_HZ 12500000u
/**
 * @brief Initializer of the GPTMs' one clock input (utim_clock_desc_t): the
 *        system clock, divider 1 (no prescaler in the 32-bit modes). For
 *        the board and for programs that define a GPTM instance of their own.
 */
#define LM3S_GPTM_CLOCK_DESC                                                                       \
  {                                                                                                \
    .hz = LM3S_SYSCLK_HZ, .cls = UTIM_CLASS_HF, .div_kind = UTIM_DIV_LINEAR, .div_lo = 1u,         \
    .div_hi = 1u                                                                                   \
  }
/** @brief Base of GPTM @p n (0..3). */
#define LM3S_GPTM_BASE(n) (0x40030000u + 0x1000u * (n))
/** @brief NVIC line of GPTM 0, timer A. */
#define LM3S_IRQ_GPTM0A 19
/** @brief NVIC line of GPTM 1, timer A. */
#define LM3S_IRQ_GPTM1A 21
/** @brief NVIC line of GPTM 2, timer A. */
#define LM3S_IRQ_GPTM2A 23
/** @brief NVIC line of GPTM 3, timer A. */
#define LM3S_IRQ_GPTM3A 35

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_LM3S6965EVB_H */
