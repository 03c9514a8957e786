/**
 * @file board.h
 * @brief The mps2-an385 board (ARM MPS2, FPGA image AN385, Cortex-M3) as
 *        QEMU 7.2 models it: its timer instances and its exposure table.
 *
 * Instances, by index (utim_by_index()) and platform name (utim_by_name()):
 *
 * | index | name            | peripheral                          | bits | ch | events   |
 * |-------|-----------------|-------------------------------------|------|----|----------|
 * | 0     | MPS2_TIMER0     | CMSDK APB timer @0x40000000, IRQ 8  | 32   | 0  | overflow |
 * | 1     | MPS2_TIMER1     | CMSDK APB timer @0x40001000, IRQ 9  | 32   | 0  | overflow |
 * | 2     | MPS2_CHAIN64    | dual timer Timer1 + Timer2, chained | 64   | 0  | overflow |
 * | 3     | MPS2_SYSTICK    | SysTick @0xE000E010, exception 15   | 24   | 0  | overflow |
 *
 * MPS2_CHAIN64 is the two counters of the CMSDK dual timer (@0x40002000,
 * IRQ 10) as one 64-bit counter through the virtual chain driver with
 * software carry (include/utim/chain.h): the chip has no hardware link
 * between timers, so Timer2 holds the count of Timer1's wraps, written in
 * Timer1's overflow interrupt. The two counters are not exposed alone.
 *
 * None of these peripherals has a compare register (see each driver's
 * header for why no compare is emulated). Each instance is defined in
 * board.c with its driver's macro (UTIM_CMSDK_TIMER_DEFINE(),
 * UTIM_CMSDK_DUALTIMER_DEFINE(), UTIM_SYSTICK_DEFINE(), UTIM_CHAIN_DEFINE());
 * interrupt lines are routed to the drivers' dispatchers through
 * cortexm_irq_routes[] in board.c.
 */
#ifndef UTIM_BOARD_MPS2_AN385_H
#define UTIM_BOARD_MPS2_AN385_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Index of each instance in the board's table. */
enum mps2_timer_index {
  MPS2_IDX_TIMER0 = 0,     /**< CMSDK APB timer 0 */
  MPS2_IDX_TIMER1 = 1,     /**< CMSDK APB timer 1 */
  MPS2_IDX_CHAIN64 = 2,    /**< CMSDK dual timer, both counters chained */
  MPS2_IDX_SYSTICK = 3,    /**< SysTick */
  MPS2_INSTANCE_COUNT = 4, /**< number of instances */
};

/** @brief PCLK / TIMCLK / processor clock of the AN385 image, Hz. */
#define MPS2_SYSCLK_HZ 25000000u
/** @brief SysTick reference clock as QEMU 7.2 provides it (SYST_CALIB.TENMS = 9999), Hz. */
#define MPS2_REFCLK_HZ 1000000u

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_MPS2_AN385_H */
