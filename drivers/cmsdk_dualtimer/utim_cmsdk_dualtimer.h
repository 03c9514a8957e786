/**
 * @file utim_cmsdk_dualtimer.h
 * @brief hAPI driver for the ARM CMSDK APB dual-input timer (Cortex-M System
 *        Design Kit TRM, ARM DDI 0479C, section 4.5; the SP804 programmer's
 *        model). Each of its two counters is one utim instance.
 *
 * @par Hardware
 * Two independent down-counters, each with LOAD, VALUE (read-only), CONTROL,
 * INTCLR, RIS, MIS and BGLOAD. CONTROL selects 16- or 32-bit counting
 * (TimerSize), a prescaler of 1, 16 or 256 (TimerPre), free-running,
 * periodic or one-shot mode, and the interrupt enable. Reaching 0 sets RIS;
 * MIS = RIS & IntEnable drives the counter's interrupt, and the two are ORed
 * into TIMINTC. In free-running mode the counter wraps from 0 to its maximum;
 * writing LOAD restarts the count from the value written.
 *
 * @par What this driver exposes
 * - Free-running mode with the instance's width (32 -> TimerSize = 1,
 *   16 -> TimerSize = 0): the counter runs max .. 1, 0, max.
 *   Up-counting view: up = (0 - VALUE) mod 2^width, so the view's wrap is
 *   the hardware's 1 -> 0 step and UTIM_EVT_OVF arrives exactly at the wrap.
 *   write(v) writes LOAD = 0 - v, which in free-running mode only moves the
 *   count (VALUE itself is read-only).
 * - **No compare channel.** The only event is reaching 0. Periodic and
 *   one-shot modes restart the count from LOAD (a LOAD write restarts it at
 *   once, BGLOAD at the next zero), so a compare emulated by reloading would
 *   lose the ticks between reading VALUE and writing LOAD; read() would no
 *   longer count at the clock's rate. Periodic and one-shot modes are
 *   therefore not used.
 * - Clock inputs: TIMCLK with the prescaler as the divider. utim frequencies
 *   are integer Hz, so a board lists one input per prescaler value whose
 *   quotient is an integer (25 MHz: /1 and /16, not /256 = 97656.25 Hz).
 *   init() accepts the dividers 1, 16 and 256.
 * - UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ
 *   (both counters share TIMINTC), min_distance 1.
 *
 * @par Instance (board side)
 * A board defines each counter it uses with UTIM_CMSDK_DUALTIMER_DEFINE(),
 * naming its platform name, the dual timer's register base, the counter
 * (Timer1 or Timer2), its width (16 or 32) and its clock-input table; the
 * macro fills in the rest (above).
 *
 * @par Dispatch
 * utim_cmsdk_dualtimer_isr() is the one dispatcher of the type: the board
 * routes the shared line to it once per counter, and it checks that
 * counter's MIS only.
 *
 * @par Not verified under emulation
 * - The /256 prescaler (no integer frequency at 25 MHz, so no board input
 *   offers it); implemented from the TRM.
 * - 16-bit instances: the driver supports them (width 16 given to
 *   UTIM_CMSDK_DUALTIMER_DEFINE()); the mps2-an385 board defines both
 *   counters at 32 bits, so the 16-bit path is not run.
 */
#ifndef UTIM_CMSDK_DUALTIMER_H
#define UTIM_CMSDK_DUALTIMER_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Registers of one counter of the dual timer (0x20 bytes). */
typedef struct utim_cmsdk_dualtimer_counter {
  volatile uint32_t load;     /**< 0x00 TimerXLoad (write restarts the count) */
  volatile uint32_t value;    /**< 0x04 TimerXValue, counting down, read-only */
  volatile uint32_t control;  /**< 0x08 TimerXControl */
  volatile uint32_t intclr;   /**< 0x0C TimerXIntClr (any write clears RIS) */
  volatile uint32_t ris;      /**< 0x10 TimerXRIS */
  volatile uint32_t mis;      /**< 0x14 TimerXMIS */
  volatile uint32_t bgload;   /**< 0x18 TimerXBGLoad */
  volatile uint32_t reserved; /**< 0x1C */
} utim_cmsdk_dualtimer_counter_t;

/** @brief Register overlay of the whole dual timer. */
typedef struct utim_cmsdk_dualtimer_regs {
  utim_cmsdk_dualtimer_counter_t counter[2]; /**< 0x00 Timer1, 0x20 Timer2 */
  volatile uint32_t reserved[944];           /**< 0x40 .. 0xEFC */
  volatile uint32_t itcr;                    /**< 0xF00 TimerITCR (integration test) */
  volatile uint32_t itop;                    /**< 0xF04 TimerITOP (integration test) */
} utim_cmsdk_dualtimer_regs_t;

_Static_assert(sizeof(utim_cmsdk_dualtimer_counter_t) == 0x20u, "dual timer: 0x20 a counter");
_Static_assert(offsetof(utim_cmsdk_dualtimer_counter_t, bgload) == 0x18u,
               "dual timer: BGLOAD at 0x18");
_Static_assert(offsetof(utim_cmsdk_dualtimer_regs_t, itcr) == 0xF00u, "dual timer: ITCR at 0xF00");

/** @brief Control: one-shot mode. */
#define UTIM_CMSDK_DUALTIMER_CTRL_ONESHOT (1u << 0)
/** @brief Control: 32-bit counter (else 16-bit). */
#define UTIM_CMSDK_DUALTIMER_CTRL_SIZE32 (1u << 1)
/** @brief Control: position of the prescaler field (0: /1, 1: /16, 2: /256). */
#define UTIM_CMSDK_DUALTIMER_CTRL_PRE_POS 2u
/** @brief Control: interrupt enable. */
#define UTIM_CMSDK_DUALTIMER_CTRL_INTEN (1u << 5)
/** @brief Control: periodic mode (else free-running). */
#define UTIM_CMSDK_DUALTIMER_CTRL_PERIODIC (1u << 6)
/** @brief Control: the counter runs. */
#define UTIM_CMSDK_DUALTIMER_CTRL_EN (1u << 7)
/** @brief utim_cmsdk_dualtimer_cfg_t::counter of Timer1 (registers at 0x00). */
#define UTIM_CMSDK_DUALTIMER_TIMER1 0u
/** @brief utim_cmsdk_dualtimer_cfg_t::counter of Timer2 (registers at 0x20). */
#define UTIM_CMSDK_DUALTIMER_TIMER2 1u
/** @brief Clock inputs at most: TIMCLK through each prescaler value (/1, /16, /256). */
#define UTIM_CMSDK_DUALTIMER_CLOCKS 3u
/** @brief Minimum compare distance (no compare channels: the smallest legal value). */
#define UTIM_CMSDK_DUALTIMER_MIN_DISTANCE 1u
/** @brief Capability bits of a dual-timer counter instance. */
#define UTIM_CMSDK_DUALTIMER_CAPS                                                                  \
  (UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ)

/** @brief Device configuration of one counter of a dual timer (const, in flash). */
typedef struct utim_cmsdk_dualtimer_cfg {
  utim_dev_t common;                 /**< common head; must be first */
  utim_cmsdk_dualtimer_regs_t *regs; /**< register base of the dual timer */
  uint8_t counter;                   /**< UTIM_CMSDK_DUALTIMER_TIMER1 or _TIMER2 */
} utim_cmsdk_dualtimer_cfg_t;

/** @brief The CMSDK APB dual timer driver (one instance per counter). */
extern const utim_driver_t utim_cmsdk_dualtimer_driver;

/**
 * @brief Define instance @p n_ (`static const utim_periph_t`) of one counter
 *        of a CMSDK APB dual timer, with its RAM state and configuration.
 *        Also defines `n_##_WIDTH`, `n_##_CHANNELS` and `n_##_MIN_DISTANCE`.
 * @param n_       identifier of the instance
 * @param pname_   platform name, e.g. "MPS2_DUALTIMER1"
 * @param base_    register base address of the dual timer
 * @param counter_ UTIM_CMSDK_DUALTIMER_TIMER1 or UTIM_CMSDK_DUALTIMER_TIMER2
 * @param width_   32 or 16 (TimerSize)
 * @param clocks_  its clock-input table: TIMCLK with the prescaler's dividers
 *                 (1, 16, 256) that give integer frequencies, at most three inputs
 *
 * The parameters end in _ so that they cannot replace the field names of
 * the designated initializers.
 */
#define UTIM_CMSDK_DUALTIMER_DEFINE(n_, pname_, base_, counter_, width_, clocks_)                  \
  _Static_assert((counter_) == UTIM_CMSDK_DUALTIMER_TIMER1 ||                                      \
                     (counter_) == UTIM_CMSDK_DUALTIMER_TIMER2,                                    \
                 pname_ ": a dual timer has two counters, Timer1 and Timer2");                     \
  _Static_assert((width_) == 16 || (width_) == 32,                                                 \
                 pname_ ": a dual-timer counter is 16 or 32 bits");                                \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) >= 1u &&                                   \
                     sizeof(clocks_) / sizeof((clocks_)[0]) <= UTIM_CMSDK_DUALTIMER_CLOCKS,        \
                 pname_ ": TIMCLK through at most the three prescaler values");                    \
  enum {                                                                                           \
    n_##_WIDTH = (width_),                                                                         \
    n_##_CHANNELS = 0,                                                                             \
    n_##_MIN_DISTANCE = UTIM_CMSDK_DUALTIMER_MIN_DISTANCE                                          \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, 0);                                                                \
  static const utim_cmsdk_dualtimer_cfg_t n_##_cfg = {                                             \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = (uint8_t)(sizeof(clocks_) / sizeof((clocks_)[0])),                     \
                 .min_distance = UTIM_CMSDK_DUALTIMER_MIN_DISTANCE},                               \
      .regs = (utim_cmsdk_dualtimer_regs_t *)(base_),                                              \
      .counter = (uint8_t)(counter_)};                                                             \
  static const utim_periph_t n_ = {.drv = &utim_cmsdk_dualtimer_driver,                            \
                                   .dev = &n_##_cfg.common,                                        \
                                   .props = UTIM_PROPS(width_, 0, 1, UTIM_CMSDK_DUALTIMER_CAPS)}

/**
 * @brief Dispatcher of the dual timer's interrupt line, for one counter.
 *        Returns at once when that counter has no interrupt pending.
 * @param p the counter's instance
 */
void utim_cmsdk_dualtimer_isr(const utim_periph_t *p);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CMSDK_DUALTIMER_H */
