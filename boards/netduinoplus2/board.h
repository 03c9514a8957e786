/**
 * @file board.h
 * @brief The Netduino Plus 2 board (STM32F405RG, Cortex-M4F) as QEMU 7.2
 *        models it: its timer instances and its exposure table.
 *
 * Instances, by index (utim_by_index()) and platform name (utim_by_name()):
 *
 * | index | name              | peripheral                      | bits | ch | events   |
 * |-------|-------------------|---------------------------------|------|----|----------|
 * | 0     | STM32_TIM2        | TIM2 @0x40000000, IRQ 28        | 32   | 0  | none     |
 * | 1     | STM32_TIM3        | TIM3 @0x40000400, IRQ 29        | 16   | 0  | none     |
 * | 2     | STM32_TIM4        | TIM4 @0x40000800, IRQ 30        | 16   | 0  | none     |
 * | 3     | STM32_TIM5        | TIM5 @0x40000C00, IRQ 50        | 32   | 0  | none     |
 * | 4     | STM32_SYSTICK     | SysTick @0xE000E010, exc. 15    | 24   | 0  | overflow |
 *
 * TIM2..TIM5 are served by drivers/stm32_gptim, which implements the chip's
 * four compare channels and the update (overflow) interrupt from RM0090.
 * Under QEMU 7.2 neither works (compare is not modelled; the update
 * interrupt comes at (ARR - CNT) x (PSC + 1) ns plus the absolute virtual
 * time of its arming, not at the wrap; see utim_stm32_gptim.h), so the board
 * exposes them as what QEMU does model: counters that read, write, stop and
 * divide, with **0 channels and no UTIM_CAP_OVERFLOW** (no options to
 * UTIM_STM32_GPTIM_DEFINE() in board.c). The conformance suite then checks
 * exactly the verified part. A build for the real chip defines
 * NETDUINOPLUS2_SILICON: options UTIM_STM32_GPTIM_OPT_COMPARE and
 * UTIM_STM32_GPTIM_OPT_OVF (4 channels, UTIM_CAP_OVERFLOW) and the chip's
 * 84 MHz timer clock (compiled, never run here).
 *
 * Clocks: QEMU 7.2 counts TIM2..TIM5 at 1 GHz (clock-frequency of the
 * model), with the prescaler dividing it by 1..65536. SysTick counts the
 * 168 MHz processor clock or the 21 MHz reference (HCLK / 8).
 *
 * No chained instance: the chip chains timers in hardware (a master's TRGO
 * through ITRx into a slave's SMCR external clock mode), which QEMU 7.2 does
 * not model (SMCR is plain storage), and the software carry of the chain
 * driver needs the low half's overflow interrupt, which is mistimed here.
 */
#ifndef UTIM_BOARD_NETDUINOPLUS2_H
#define UTIM_BOARD_NETDUINOPLUS2_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Index of each instance in the board's table. */
enum netduinoplus2_timer_index {
  NETDUINOPLUS2_IDX_TIM2 = 0,       /**< TIM2, 32 bits */
  NETDUINOPLUS2_IDX_TIM3 = 1,       /**< TIM3, 16 bits */
  NETDUINOPLUS2_IDX_TIM4 = 2,       /**< TIM4, 16 bits */
  NETDUINOPLUS2_IDX_TIM5 = 3,       /**< TIM5, 32 bits */
  NETDUINOPLUS2_IDX_SYSTICK = 4,    /**< SysTick, 24 bits */
  NETDUINOPLUS2_INSTANCE_COUNT = 5, /**< number of instances */
};

/** @brief Processor clock (HCLK) of QEMU's netduinoplus2 machine, Hz. */
#define NETDUINOPLUS2_HCLK_HZ 168000000u
/** @brief SysTick reference clock: HCLK / 8, Hz. */
#define NETDUINOPLUS2_REFCLK_HZ (NETDUINOPLUS2_HCLK_HZ / 8u)

#ifdef NETDUINOPLUS2_SILICON
/** @brief CK_INT of TIM2..TIM5 on the chip (2 x PCLK1 at HCLK / 4), Hz. */
#define NETDUINOPLUS2_TIMCLK_HZ 84000000u
#else
/** @brief CK_INT of TIM2..TIM5 as QEMU 7.2 counts it, Hz. */
#define NETDUINOPLUS2_TIMCLK_HZ 1000000000u
#endif

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_NETDUINOPLUS2_H */
