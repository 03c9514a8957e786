/**
 * @file utim_stellaris_gptm.h
 * @brief hAPI driver for the general-purpose timer module (GPTM) of the
 *        Stellaris LM3S (Sandstorm/Fury class, e.g. LM3S6965) in 32-bit
 *        periodic timer mode.
 *
 * @par Hardware (LM3S6965 data sheet, "General-Purpose Timers")
 * Each GPTM has timers A and B, concatenated in 32-bit modes (GPTMCFG = 0).
 * In 32-bit periodic mode (GPTMTAMR.TAMR = 2) the counter GPTMTAR counts
 * down from GPTMTAILR to 0, raises the time-out flag (GPTMRIS.TATORIS,
 * interrupt when GPTMIMR.TATOIM) and reloads: one period is TAILR + 1 clock
 * cycles. GPTMCTL.TAEN starts and stops it. GPTMICR.TATOCINT clears the
 * flag. The prescaler (GPTMTAPR) only exists in the 16-bit modes; this class
 * of part has no match interrupt in 32-bit timer mode and no writable
 * counter (GPTMTAV is a later family's).
 *
 * @par What this driver exposes
 * - A 32-bit counter, up-counting view up = TAILR - TAR (0 right after the
 *   reload, TAILR just before the time-out), **0 channels**, the time-out
 *   as UTIM_EVT_OVF at the wrap of the view; UTIM_CAP_OVERFLOW,
 *   UTIM_CAP_TOP (TAILR: the counter runs 0 .. top, the time-out every
 *   top + 1 cycles; setting it stops, reloads and restarts the count).
 *   No UTIM_CAP_WRITE. UTIM_HPROP_OVF_PENDING reads TATORIS.
 * - No UTIM_CAP_STOP: utim_stop() is refused (-ENOTSUP). Clearing TAEN
 *   would stop the count, but setting it again reloads TAR from TAILR (in
 *   QEMU's model and in the Stellaris datasheets' "counter values when the
 *   timer is enabled"), so a stop could not keep the counter's value as
 *   utim_stop() promises; the time-outs can be silenced with
 *   utim_set_overflow_cb(p, NULL, NULL).
 * - Clock input: the system clock, divider 1.
 *
 * @par Under emulation (QEMU 7.2, -M lm3s6965evb; checked with a probe
 *      firmware and by tests/gptm/gptm_mcu.c)
 * Modelled: 32-bit periodic and one-shot time-outs from GPTMTAILR at the
 * system clock (12.5 MHz at reset), their flag, interrupt, mask and clear,
 * and TAEN (the count restarts from TAILR when it is set again). Not
 * modelled: reading GPTMTAR (always 0), so no counter can be read; the
 * prescaler; the 16-bit modes (logged as unimplemented); PWM; and the
 * period is TAILR cycles, not TAILR + 1. The board therefore does not put
 * these instances in its table under QEMU (a utim instance reads its
 * counter); tests/gptm drives this driver's event path (top,
 * overflow interrupt, mask, stop) on Timer 0 against SysTick. The read
 * path and the TAILR + 1 period are the data sheet's, not verified. One
 * more quirk of the model: with -icount sleep=off a core halted in WFI is
 * woken only at the timer's second time-out (so the board has no precise
 * sleep on it; boards/lm3s6965evb/board.cmake).
 */
#ifndef UTIM_STELLARIS_GPTM_H
#define UTIM_STELLARIS_GPTM_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief GPTM register overlay (the first 0x50 bytes of a timer module). */
typedef struct utim_stellaris_gptm_regs {
  volatile uint32_t cfg;      /**< 0x00 GPTMCFG: 0 = 32-bit timer */
  volatile uint32_t tamr;     /**< 0x04 GPTMTAMR: timer A mode */
  volatile uint32_t tbmr;     /**< 0x08 GPTMTBMR */
  volatile uint32_t ctl;      /**< 0x0C GPTMCTL: TAEN, TBEN, ... */
  uint32_t reserved0[2];      /**< 0x10, 0x14 */
  volatile uint32_t imr;      /**< 0x18 GPTMIMR: interrupt mask (1 = enabled) */
  volatile uint32_t ris;      /**< 0x1C GPTMRIS: raw interrupt status */
  volatile uint32_t mis;      /**< 0x20 GPTMMIS: masked interrupt status */
  volatile uint32_t icr;      /**< 0x24 GPTMICR: interrupt clear (write 1) */
  volatile uint32_t tailr;    /**< 0x28 GPTMTAILR: timer A interval load */
  volatile uint32_t tbilr;    /**< 0x2C GPTMTBILR */
  volatile uint32_t tamatchr; /**< 0x30 GPTMTAMATCHR */
  volatile uint32_t tbmatchr; /**< 0x34 GPTMTBMATCHR */
  volatile uint32_t tapr;     /**< 0x38 GPTMTAPR */
  volatile uint32_t tbpr;     /**< 0x3C GPTMTBPR */
  volatile uint32_t tapmr;    /**< 0x40 GPTMTAPMR */
  volatile uint32_t tbpmr;    /**< 0x44 GPTMTBPMR */
  volatile uint32_t tar;      /**< 0x48 GPTMTAR: timer A (32-bit: the whole count) */
  volatile uint32_t tbr;      /**< 0x4C GPTMTBR */
} utim_stellaris_gptm_regs_t;

_Static_assert(offsetof(utim_stellaris_gptm_regs_t, imr) == 0x18u, "GPTM: IMR at 0x18");
_Static_assert(offsetof(utim_stellaris_gptm_regs_t, tailr) == 0x28u, "GPTM: TAILR at 0x28");
_Static_assert(offsetof(utim_stellaris_gptm_regs_t, tar) == 0x48u, "GPTM: TAR at 0x48");

/** @brief GPTMCFG: 32-bit timer configuration. */
#define UTIM_STELLARIS_GPTM_CFG_32BIT 0u
/** @brief GPTMTAMR.TAMR: periodic. */
#define UTIM_STELLARIS_GPTM_TAMR_PERIODIC 2u
/** @brief GPTMCTL.TAEN: timer A enabled. */
#define UTIM_STELLARIS_GPTM_CTL_TAEN (1u << 0)
/** @brief GPTMCTL.TASTALL: timer A freezes while the core is halted by a debugger. */
#define UTIM_STELLARIS_GPTM_CTL_TASTALL (1u << 1)
/** @brief Timer A time-out bit of GPTMIMR, GPTMRIS, GPTMMIS and GPTMICR. */
#define UTIM_STELLARIS_GPTM_TATO (1u << 0)
/** @brief Counter width in the 32-bit modes. */
#define UTIM_STELLARIS_GPTM_WIDTH 32
/** @brief Capability bits of a GPTM instance. */
#define UTIM_STELLARIS_GPTM_CAPS (UTIM_CAP_OVERFLOW | UTIM_CAP_TOP)

/** @brief Device configuration of a GPTM instance (const, in flash). */
typedef struct utim_stellaris_gptm_cfg {
  utim_dev_t common;                /**< common head; must be first */
  utim_stellaris_gptm_regs_t *regs; /**< the timer module */
} utim_stellaris_gptm_cfg_t;

/** @brief The GPTM driver. */
extern const utim_driver_t utim_stellaris_gptm_driver;

/**
 * @brief Define a GPTM instance @p n_ (`static const utim_periph_t`) in
 *        32-bit periodic mode.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "LM3S_GPTM0"
 * @param base_   base address of the timer module
 * @param clocks_ array of one utim_clock_desc_t: the system clock, divider 1
 */
#define UTIM_STELLARIS_GPTM_DEFINE(n_, pname_, base_, clocks_)                                     \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) == 1u, pname_ ": one clock input");        \
  UTIM_STATE_DEFINE(n_##_state, 0);                                                                \
  static const utim_stellaris_gptm_cfg_t n_##_cfg = {                                              \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = 1u,                                                                    \
                 .min_distance = 1u},                                                              \
      .regs = (utim_stellaris_gptm_regs_t *)(uintptr_t)(base_)};                                   \
  static const utim_periph_t n_ = {                                                                \
      .drv = &utim_stellaris_gptm_driver,                                                          \
      .dev = &n_##_cfg.common,                                                                     \
      .props = UTIM_PROPS(UTIM_STELLARIS_GPTM_WIDTH, 0, 1, UTIM_STELLARIS_GPTM_CAPS)}

/**
 * @brief Timer A's interrupt dispatcher: clears the time-out flag and
 *        reports the overflow (when its interrupt is enabled).
 * @param p the instance of the timer module whose line is active
 */
void utim_stellaris_gptm_isr(const utim_periph_t *p);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_STELLARIS_GPTM_H */
