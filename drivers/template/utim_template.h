/**
 * @file utim_template.h
 * @brief Template hAPI driver: a complete worked example for the made-up
 *        "TPL" timer peripheral. Copy this directory to start a new driver.
 *
 * The TPL timer is fictional but fully specified below, so that the driver
 * in utim_template.c is real code against a real register map, showing
 * every part of the contract of utim/driver.h: raw ticks, the down-to-up
 * conversion, the set_channel ordering, and the interrupt handler reporting
 * to utim_core_event().
 *
 * @par The TPL timer peripheral
 * A 32-bit (TPL32) or 16-bit (TPL16) **down**-counter with four compare
 * channels and one interrupt line for all events. 32-bit registers, at the
 * offsets of utim_template_regs_t:
 *
 * | offset | register | access | meaning                                               |
 * |-------:|----------|--------|-------------------------------------------------------|
 * | 0x00   | CTRL     | rw     | bit 0 EN: counter runs; bits 1-2 CLKSEL; bit 4 DBGFRZ  |
 * | 0x04   | PSC      | rw     | prescaler: the counter steps every PSC + 1 input clocks |
 * | 0x08   | CNT      | rw     | counter; counts down, steps from 0 to MAX (underflow)  |
 * | 0x0C   | IEN      | r      | interrupt enables, bits as in ISR                     |
 * | 0x10   | IENSET   | w      | write 1s to set IEN bits (0s are ignored)             |
 * | 0x14   | IENCLR   | w      | write 1s to clear IEN bits (0s are ignored)           |
 * | 0x18   | ISR      | r/w1c  | event flags: bit n CCn match (n < 4), bit 8 UF; write 1 to clear |
 * | 0x1C   | reserved |        |                                                       |
 * | 0x20   | CC[0..3] | rw     | compare values, in the counter's (down) direction     |
 *
 * - MAX is 0xFFFFFFFF on TPL32 and 0xFFFF on TPL16 (upper CNT/CC bits read 0).
 * - Reset state: CTRL = 0, PSC = 0, CNT = MAX, IEN = 0, ISR = 0, CC = 0.
 * - CLKSEL selects clock input 0 (bus clock) or 1 (32768 Hz low-power clock);
 *   values 2 and 3 are reserved. Writing CLKSEL or PSC resets the prescaler.
 * - DBGFRZ: the counter halts while the CPU is halted by a debugger.
 * - Flag CCn rises when the counter steps onto CC[n], whether or not the
 *   interrupt is enabled. A match less than 2 counter ticks after a write to
 *   CC[n] may be missed (the compare register is synchronised into the
 *   counter's clock domain): boards set utim_dev_t::min_distance to 2.
 * - Flag UF rises when the counter steps from 0 to MAX.
 * - The interrupt line is asserted while (ISR & IEN) != 0.
 *
 * @par Instances (board side)
 * A board describes one TPL timer with a utim_template_cfg_t and a
 * utim_periph_t; see drivers/template/README.md for a full example. Props:
 * UTIM_PROPS(32 or 16, 4, 1, UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP
 * | UTIM_CAP_SHARED_IRQ). Clock inputs: index i is CLKSEL value i, with
 * UTIM_DIV_LINEAR dividers 1 .. UTIM_TEMPLATE_DIV_MAX.
 */
#ifndef UTIM_TEMPLATE_H
#define UTIM_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Register overlay of one TPL timer (see the file comment). */
typedef struct utim_template_regs {
  volatile uint32_t ctrl;     /**< 0x00 CTRL */
  volatile uint32_t psc;      /**< 0x04 PSC: divider - 1 */
  volatile uint32_t cnt;      /**< 0x08 CNT, down-counting */
  volatile uint32_t ien;      /**< 0x0C IEN (read) */
  volatile uint32_t ienset;   /**< 0x10 IENSET (write 1s) */
  volatile uint32_t ienclr;   /**< 0x14 IENCLR (write 1s) */
  volatile uint32_t isr;      /**< 0x18 ISR (write 1s to clear) */
  volatile uint32_t reserved; /**< 0x1C */
  volatile uint32_t cc[4];    /**< 0x20 CC[0..3], down direction */
} utim_template_regs_t;

_Static_assert(offsetof(utim_template_regs_t, isr) == 0x18u, "TPL register map: ISR at 0x18");
_Static_assert(offsetof(utim_template_regs_t, cc) == 0x20u, "TPL register map: CC0 at 0x20");

/** @brief CTRL: the counter runs. */
#define UTIM_TEMPLATE_CTRL_EN (1u << 0)
/** @brief CTRL: position of the CLKSEL field. */
#define UTIM_TEMPLATE_CTRL_CLKSEL_POS 1u
/** @brief CTRL: the CLKSEL field. */
#define UTIM_TEMPLATE_CTRL_CLKSEL_MSK (3u << UTIM_TEMPLATE_CTRL_CLKSEL_POS)
/** @brief CTRL: the counter halts while the CPU is halted by a debugger. */
#define UTIM_TEMPLATE_CTRL_DBGFRZ (1u << 4)
/** @brief ISR / IEN: compare match of channel @p n (0 to 3). */
#define UTIM_TEMPLATE_IRQ_CC(n) (1u << (n))
/** @brief ISR / IEN: every compare channel. */
#define UTIM_TEMPLATE_IRQ_CC_ALL 0xfu
/** @brief ISR / IEN: underflow (the up-counting view's overflow). */
#define UTIM_TEMPLATE_IRQ_UF (1u << 8)
/** @brief ISR / IEN: every event bit. */
#define UTIM_TEMPLATE_IRQ_ALL (UTIM_TEMPLATE_IRQ_CC_ALL | UTIM_TEMPLATE_IRQ_UF)
/** @brief Number of compare channels of a TPL timer. */
#define UTIM_TEMPLATE_CHANNELS 4u
/** @brief Number of clock inputs (CLKSEL values in use). */
#define UTIM_TEMPLATE_CLOCKS 2u
/** @brief Largest prescaler divider (PSC is 16 bits wide). */
#define UTIM_TEMPLATE_DIV_MAX 65536u
/** @brief Smallest compare distance the TPL timer honours, in ticks. */
#define UTIM_TEMPLATE_MIN_DISTANCE 2u

/** @brief Device configuration of one TPL timer instance (const, in flash). */
typedef struct utim_template_cfg {
  utim_dev_t common;          /**< common head; must be first */
  utim_template_regs_t *regs; /**< register base of this timer */
  uint16_t irq;               /**< interrupt line, routed by the board to utim_template_isr() */
} utim_template_cfg_t;

/** @brief The TPL timer driver. */
extern const utim_driver_t utim_template_driver;

/**
 * @brief Interrupt handler of a TPL timer's line. The board's vector (or
 *        its one dispatcher) calls it with the instance attached to the line.
 * @param p the instance
 */
void utim_template_isr(const utim_periph_t *p);

/**
 * @brief Driver property (get): CNT as the hardware shows it, counting down.
 */
#define UTIM_TEMPLATE_PROP_RAW_COUNT (UTIM_PROP_DRIVER_BASE + 0u)
/**
 * @brief Driver property (get/set): 1 halts the counter while the CPU is
 *        halted by a debugger (CTRL.DBGFRZ), 0 lets it run. Other values: -EINVAL.
 */
#define UTIM_TEMPLATE_PROP_DEBUG_FREEZE (UTIM_PROP_DRIVER_BASE + 1u)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TEMPLATE_H */
