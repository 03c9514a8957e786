/**
 * @file utim_template.h
 * @brief Template hAPI driver: a complete worked example for the made-up
 *        "TPL" timer peripheral. Copy this directory to start a new driver.
 *
 * The TPL timer is fictional but fully specified below, so that the driver
 * in utim_template.c is real code against a real register map, showing
 * every part of the contract of utim/driver.h: raw ticks, the down-to-up
 * conversion, the set_channel ordering, and the interrupt handler reporting
 * to utim_core_event_unlock() under the port lock.
 *
 * @par The TPL timer peripheral
 * A 32-bit (TPL32) or 16-bit (TPL16) **down**-counter with four compare
 * channels and one interrupt line for all events. 32-bit registers, at the
 * offsets of utim_template_regs_t:
 *
 * | offset | register | access | meaning                                                    |
 * |-------:|----------|--------|------------------------------------------------------------|
 * | 0x00   | CTRL     | rw     | bit 0 EN: counter runs; bits 1-2 CLKSEL; bit 4 DBGFRZ      |
 * | 0x04   | PSC      | rw     | prescaler: the counter steps every PSC + 1 input clocks    |
 * | 0x08   | CNT      | rw     | counter; counts down, steps from 0 to MAX (underflow)      |
 * | 0x0C   | IEN      | r      | interrupt enables, bits as in ISR                          |
 * | 0x10   | IENSET   | w      | write 1s to set IEN bits (0s are ignored)                  |
 * | 0x14   | IENCLR   | w      | write 1s to clear IEN bits (0s are ignored)                |
 * | 0x18   | ISR      | r/w1c  | flags: bit n CCn match (n < 4), bit 8 UF; write 1 to clear |
 * | 0x1C   | reserved |        |                                                            |
 * | 0x20   | CC[0..3] | rw     | compare values, in the counter's (down) direction          |
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
 * A board defines one TPL timer with UTIM_TEMPLATE_DEFINE(): it names the
 * register base, the width (TPL32 or TPL16), the interrupt line and the
 * clock-input table once; the macro fills in what the driver knows (4
 * channels, counting down, UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE |
 * UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ, minimum distance 2). Clock inputs:
 * index i is CLKSEL value i, with UTIM_DIV_LINEAR dividers 1 ..
 * UTIM_TEMPLATE_DIV_MAX. See drivers/template/README.md for an example.
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
 * @brief Define instance @p n_ (`static const utim_periph_t`) of a TPL timer,
 *        with its RAM state and configuration. Also defines `n_##_WIDTH`,
 *        `n_##_CHANNELS` and `n_##_MIN_DISTANCE`.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "EXAMPLE_TPL0"
 * @param base_   register base address
 * @param width_  32 (TPL32) or 16 (TPL16)
 * @param irq_    its interrupt line (the board routes it to utim_template_isr())
 * @param clocks_ its clock-input table (an array of UTIM_TEMPLATE_CLOCKS inputs,
 *                index = CLKSEL value)
 *
 * The parameters end in _ so that they cannot replace the field names of
 * the designated initializers.
 */
#define UTIM_TEMPLATE_DEFINE(n_, pname_, base_, width_, irq_, clocks_)                             \
  _Static_assert((width_) == 16 || (width_) == 32, pname_ ": a TPL timer is 16 or 32 bits wide");  \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) <= UTIM_TEMPLATE_CLOCKS,                   \
                 pname_ ": CLKSEL selects at most two inputs");                                    \
  enum {                                                                                           \
    n_##_WIDTH = (width_),                                                                         \
    n_##_CHANNELS = UTIM_TEMPLATE_CHANNELS,                                                        \
    n_##_MIN_DISTANCE = UTIM_TEMPLATE_MIN_DISTANCE                                                 \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, UTIM_TEMPLATE_CHANNELS);                                           \
  static const utim_template_cfg_t n_##_cfg = {                                                    \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = (uint8_t)(sizeof(clocks_) / sizeof((clocks_)[0])),                     \
                 .min_distance = UTIM_TEMPLATE_MIN_DISTANCE},                                      \
      .regs = (utim_template_regs_t *)(base_),                                                     \
      .irq = (uint16_t)(irq_)};                                                                    \
  static const utim_periph_t n_ = {.drv = &utim_template_driver,                                   \
                                   .dev = &n_##_cfg.common,                                        \
                                   .props = UTIM_PROPS(width_, UTIM_TEMPLATE_CHANNELS, 1,          \
                                                       UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE |        \
                                                           UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ)}

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
