/**
 * @file utim_cmsdk_timer.h
 * @brief hAPI driver for the ARM CMSDK APB timer (Cortex-M System Design Kit
 *        TRM, ARM DDI 0479C, section 4.4).
 *
 * @par Hardware
 * A 32-bit down-counter (VALUE) clocked by PCLK (or by the EXTIN input, see
 * below). When it reaches 0 it raises INTSTATUS (with CTRL.IRQEN, the
 * interrupt line) and on the next tick reloads from RELOAD, so a period is
 * RELOAD + 1 ticks. VALUE and RELOAD are writable at any time; INTSTATUS is
 * write-1-to-clear. No prescaler, no compare register.
 *
 * @par What this driver exposes
 * - RELOAD = 0xFFFFFFFF: a free-running 32-bit counter with period 2^32.
 *   Up-counting view: up = (0 - VALUE) mod 2^32, so the view's wrap
 *   (max -> 0) is the hardware's 1 -> 0 step, i.e. the interrupt:
 *   UTIM_EVT_OVF arrives exactly at the wrap. write(v) sets VALUE = 0 - v.
 * - **No compare channel.** The only event is reaching 0. Emulating a
 *   compare by reloading VALUE with the distance would lose the ticks between
 *   reading and writing VALUE, so read() would no longer count at the clock's
 *   rate; an honest CMSDK timer is a counter with an overflow and 0 channels.
 * - A top (UTIM_PROP_TOP, UTIM_CAP_TOP): RELOAD = top makes the counter run
 *   0 .. top (up = RELOAD + 1 - VALUE, 0 at VALUE 0) with the interrupt at
 *   every wrap, top + 1 ticks apart: a periodic tick on reload, as RTOS
 *   ports use SysTick. Setting it writes RELOAD, which also loads VALUE
 *   (the up-count restarts at 1); each read reads RELOAD too.
 *   UTIM_HPROP_OVF_PENDING reads INTSTATUS.
 * - Clock input 0: PCLK, divider 1 only.
 * - UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_TOP,
 *   min_distance 1.
 *
 * @par Instance (board side)
 * A board defines each timer with UTIM_CMSDK_TIMER_DEFINE(), naming its
 * platform name, register base and clock-input table; the macro fills in the
 * rest (above). The board routes the timer's interrupt line to
 * utim_cmsdk_timer_isr().
 *
 * @par Not verified under emulation
 * - CTRL.SELEXTEN / SELEXTCLK (EXTIN as enable or as clock): not used by the
 *   driver, and not modelled by QEMU (hw/timer/cmsdk-apb-timer.c).
 * - Whether real silicon raises INTSTATUS while CTRL.IRQEN is 0 (QEMU does
 *   not); the driver clears INTSTATUS whenever it enables IRQEN, so either
 *   behaviour is handled, but only QEMU's was run.
 */
#ifndef UTIM_CMSDK_TIMER_H
#define UTIM_CMSDK_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Register overlay of one CMSDK APB timer. */
typedef struct utim_cmsdk_timer_regs {
  volatile uint32_t ctrl;      /**< 0x00 CTRL */
  volatile uint32_t value;     /**< 0x04 VALUE, counting down */
  volatile uint32_t reload;    /**< 0x08 RELOAD */
  volatile uint32_t intstatus; /**< 0x0C INTSTATUS / INTCLEAR (write 1 to clear) */
} utim_cmsdk_timer_regs_t;

_Static_assert(offsetof(utim_cmsdk_timer_regs_t, value) == 0x04u, "CMSDK timer: VALUE at 0x04");
_Static_assert(offsetof(utim_cmsdk_timer_regs_t, intstatus) == 0x0Cu,
               "CMSDK timer: INTSTATUS at 0x0C");

/** @brief CTRL: the counter runs. */
#define UTIM_CMSDK_TIMER_CTRL_EN (1u << 0)
/** @brief CTRL: EXTIN enables counting (not used). */
#define UTIM_CMSDK_TIMER_CTRL_SELEXTEN (1u << 1)
/** @brief CTRL: EXTIN is the clock (not used). */
#define UTIM_CMSDK_TIMER_CTRL_SELEXTCLK (1u << 2)
/** @brief CTRL: reaching 0 raises the interrupt. */
#define UTIM_CMSDK_TIMER_CTRL_IRQEN (1u << 3)
/** @brief INTSTATUS: the counter reached 0. */
#define UTIM_CMSDK_TIMER_INT (1u << 0)
/** @brief Counter width, bits. */
#define UTIM_CMSDK_TIMER_WIDTH 32
/** @brief Minimum compare distance (no compare channels: the smallest legal value). */
#define UTIM_CMSDK_TIMER_MIN_DISTANCE 1u
/** @brief Capability bits of a CMSDK APB timer instance. */
#define UTIM_CMSDK_TIMER_CAPS (UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_TOP)

/** @brief Device configuration of one CMSDK APB timer (const, in flash). */
typedef struct utim_cmsdk_timer_cfg {
  utim_dev_t common;             /**< common head; must be first */
  utim_cmsdk_timer_regs_t *regs; /**< register base */
} utim_cmsdk_timer_cfg_t;

/** @brief The CMSDK APB timer driver. */
extern const utim_driver_t utim_cmsdk_timer_driver;

/**
 * @brief Define instance @p n_ (`static const utim_periph_t`) of a CMSDK APB
 *        timer, with its RAM state and configuration. Also defines
 *        `n_##_WIDTH`, `n_##_CHANNELS` and `n_##_MIN_DISTANCE`.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "MPS2_TIMER0"
 * @param base_   register base address
 * @param clocks_ its clock-input table: one input, PCLK, with the single divider 1
 *
 * The parameters end in _ so that they cannot replace the field names of
 * the designated initializers.
 */
#define UTIM_CMSDK_TIMER_DEFINE(n_, pname_, base_, clocks_)                                        \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) == 1u,                                     \
                 pname_ ": a CMSDK APB timer has one clock input, PCLK");                          \
  enum {                                                                                           \
    n_##_WIDTH = UTIM_CMSDK_TIMER_WIDTH,                                                           \
    n_##_CHANNELS = 0,                                                                             \
    n_##_MIN_DISTANCE = UTIM_CMSDK_TIMER_MIN_DISTANCE                                              \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, 0);                                                                \
  static const utim_cmsdk_timer_cfg_t n_##_cfg = {                                                 \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = 1u,                                                                    \
                 .min_distance = UTIM_CMSDK_TIMER_MIN_DISTANCE},                                   \
      .regs = (utim_cmsdk_timer_regs_t *)(base_)};                                                 \
  static const utim_periph_t n_ = {                                                                \
      .drv = &utim_cmsdk_timer_driver,                                                             \
      .dev = &n_##_cfg.common,                                                                     \
      .props = UTIM_PROPS(UTIM_CMSDK_TIMER_WIDTH, 0, 1, UTIM_CMSDK_TIMER_CAPS)}

/**
 * @brief Dispatcher of a CMSDK APB timer's interrupt line.
 * @param p the instance on that line
 */
void utim_cmsdk_timer_isr(const utim_periph_t *p);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CMSDK_TIMER_H */
