/**
 * @file board_sim.h
 * @brief The `sim` board: deterministic simulated timers of several shapes.
 *
 * Instances (index: platform name: shape):
 * - 0: SIM_TIMER16: 16-bit up-counter, 4 channels, an interrupt line per
 *      channel, overflow interrupt, writable; 16 MHz (HF) and 32768 Hz (LP)
 *      inputs with dividers 2^0..2^9.
 * - 1: SIM_SYSTICK24: 24-bit down-counter, 1 channel, one shared line,
 *      overflow (underflow) interrupt, not writable; 16 MHz (HF) input, divider 1,
 *      and a 1 MHz reference input, divider 1; minimum compare distance 2.
 * - 2: SIM_NRF32: 32-bit up-counter read through a capture task, 4 channels
 *      (a fifth compare register serves the capture), one shared line, no
 *      overflow interrupt, not writable; 16 MHz (HF), dividers 2^0..2^9;
 *      minimum compare distance 2.
 * - 3: SIM_MTIME64: 64-bit compare-only machine timer, 1 channel, no
 *      overflow interrupt, writable, cannot be stopped once started;
 *      1 MHz (HF) and 32768 Hz (LP) inputs, divider 1.
 * - 4: SIM_TIMER8: 8-bit down-counter, 2 channels, a line per channel,
 *      overflow interrupt, writable; 16 MHz (HF) and 32768 Hz (LP) inputs
 *      with any divider 1..1024; minimum compare distance 3.
 * - 5: SIM_CHAIN32: two 16-bit up-counters chained in hardware (the high
 *      one counts the low one's overflows), one 32-bit instance through the
 *      virtual chain driver, 2 channels, overflow interrupt, writable;
 *      16 MHz (HF) and 32768 Hz (LP) inputs with any divider 1..256.
 * - 6: SIM_SOFT32: a 16-bit down-counter and a stopped 16-bit timer, chained
 *      by software carry (no hardware link: the chain counts the low half's
 *      wraps into the high timer in the overflow interrupt), one 32-bit
 *      instance through the virtual chain driver, 2 channels, overflow
 *      interrupt, writable; 16 MHz (HF) and 32768 Hz (LP) inputs with any
 *      divider 1..256; minimum compare distance 2.
 */
#ifndef UTIM_BOARD_SIM_H
#define UTIM_BOARD_SIM_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Set up the simulated machine for this board's timers and attach
 *        their interrupt lines, then sim_reset(). Call once at program start
 *        (calling again is harmless).
 */
void sim_board_init(void);

/**
 * @brief The interrupt line of channel @p ch of instance @p p, for a
 *        benchmark that attaches its own handler there (sim_irq_attach());
 *        sim_board_init() attaches the board's again. Instances of the
 *        virtual chain driver have none of their own.
 * @return the line, or -EINVAL when @p p is not one of the board's simulated
 *         timers or has no channel @p ch
 */
int sim_board_irq_line(const utim_periph_t *p, unsigned ch);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_SIM_H */
