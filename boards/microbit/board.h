/**
 * @file board.h
 * @brief The BBC micro:bit board (Nordic nRF51822, Cortex-M0) as QEMU 7.2
 *        models it: its timer instances and its exposure table.
 *
 * Instances, by index (utim_by_index()) and platform name (utim_by_name()):
 *
 * | index | name          | peripheral                      | bits | ch | note                  |
 * |-------|---------------|---------------------------------|------|----|-----------------------|
 * | 0     | NRF51_TIMER0  | TIMER0 @0x40008000, IRQ 8       | 32   | 3  | CC[3] reads the count |
 * | 1     | NRF51_CHAIN32 | TIMER1 (low) + TIMER2 (high)    | 32   | 2  | software carry        |
 *
 * NRF51_CHAIN32 is the chain driver (utim/chain.h) over two 16-bit TIMERs
 * (16 bits at most on the chip), with the software carry: hardware chaining
 * needs PPI (TIMER1 COMPARE -> TIMER2 COUNT), which QEMU 7.2 does not model.
 * - TIMER1 @0x40009000, IRQ 9: the low half, counting at the instance's
 *   frequency, with the driver's overflow compare on CC[2] (2 channels left,
 *   CC[0..1]); its wrap interrupt carries into TIMER2.
 * - TIMER2 @0x4000A000, IRQ 10: the high half, stopped, written by the carry
 *   (through the driver's offset).
 * The chain's channels are min(2, 3) = 2; chain channel n waits on TIMER1's
 * CC[n]. TIMER1 and TIMER2 belong to the chain and are not in the table.
 *
 * Every TIMER counts HFCLK (16 MHz) through a prescaler of 2^0 .. 2^9;
 * NRF51_CHAIN32 offers 2^3 .. 2^9 only (a software carry cannot keep up with
 * faster clocks, see board.c). Each instance is defined in board.c with its
 * driver's macro (UTIM_NRF51_TIMER_DEFINE(), UTIM_CHAIN_DEFINE()); interrupt
 * lines are routed to utim_nrf51_timer_isr() through cortexm_irq_routes[].
 */
#ifndef UTIM_BOARD_MICROBIT_H
#define UTIM_BOARD_MICROBIT_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Index of each instance in the board's table. */
enum microbit_timer_index {
  MICROBIT_IDX_TIMER0 = 0,     /**< nRF51 TIMER0, 32 bits */
  MICROBIT_IDX_CHAIN32 = 1,    /**< nRF51 TIMER1 + TIMER2 chained by software carry, 32 bits */
  MICROBIT_INSTANCE_COUNT = 2, /**< number of instances */
};

/** @brief HFCLK of the nRF51, Hz. */
#define MICROBIT_HFCLK_HZ 16000000u

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_MICROBIT_H */
