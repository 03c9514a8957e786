/**
 * @file utim_systick.h
 * @brief hAPI driver for the ARMv6-M / ARMv7-M SysTick timer.
 *
 * @par Hardware (ARMv7-M ARM B3.3, ARMv6-M ARM B3.3)
 * A 24-bit down-counter (SYST_CVR) that reloads from SYST_RVR on the clock
 * after it reached 0, so one period is RVR + 1 ticks. Reaching 0 sets
 * SYST_CSR.COUNTFLAG and, with TICKINT, pends the SysTick exception. A write
 * of any value to SYST_CVR clears it to 0 (no other value can be written) and
 * does not raise the exception. CLKSOURCE selects the processor clock (1) or
 * the implementation-defined reference clock (0). No prescaler.
 *
 * @par What this driver exposes
 * - RVR = 0xFFFFFF: a free-running 24-bit counter with period 2^24.
 *   Up-counting view: up = (0 - CVR) mod 2^24. CVR runs ..., 1, 0, 0xFFFFFF,
 *   ... so the view runs ..., 0xFFFFFF, 0, 1, ...: it is monotonic across the
 *   reload and its wrap (max -> 0) is the hardware's 1 -> 0 step, which is
 *   the exception: UTIM_EVT_OVF arrives exactly at the wrap.
 * - **No compare channel.** The only event is reaching 0. A compare at an
 *   arbitrary counter value would need the counter moved (CVR can only be
 *   cleared to 0) or a reload other than 0xFFFFFF (the counter would then no
 *   longer be one monotonic 24-bit count). Clearing CVR to start a shortened
 *   period loses the ticks between the read and the write, so read() would
 *   drift against the clock. An honest SysTick is therefore a 24-bit
 *   free-running counter with an overflow interrupt and 0 channels.
 * - A top (UTIM_PROP_TOP, UTIM_CAP_TOP): RVR = top makes the counter run
 *   0 .. top (up = RVR + 1 - CVR, 0 at CVR 0), the exception every top + 1
 *   ticks: the tick of an RTOS port. Setting it writes RVR and clears CVR,
 *   so the count restarts at 0; each read reads RVR too.
 *   UTIM_HPROP_OVF_PENDING reads ICSR.PENDSTSET.
 * - No UTIM_CAP_WRITE: only 0 can be written. UTIM_CAP_STOP: CSR.ENABLE.
 * - Clock inputs, by index: 0 = processor clock (CLKSOURCE = 1),
 *   1 = reference clock (CLKSOURCE = 0), only when the board lists it. Each
 *   with the single divider 1 (UTIM_DIV_POW2, exponents 0..0).
 *
 * @par Instance (board side)
 * A board defines its SysTick with UTIM_SYSTICK_DEFINE(), naming the
 * platform name and the clock-input table; the registers sit at the
 * architecture's fixed addresses, and the macro fills in the rest (24 bits,
 * counting down, 0 channels, UTIM_CAP_OVERFLOW | UTIM_CAP_STOP | UTIM_CAP_TOP, minimum
 * distance 1). The board routes the SysTick exception to utim_systick_isr().
 *
 * @par Under emulation
 * QEMU 7.2 models the counter, both clock sources (mps2-an385: processor
 * clock 25 MHz, reference clock 1 MHz, SYST_CALIB.TENMS = 9999) and the
 * exception. The conformance suite runs counting, stop/start, both inputs and
 * the frequency checks on it. It skips the overflow and mask tests: one wrap
 * (2^24 ticks, 0.67 s at 25 MHz) is longer than the MCU harness's longest
 * wait and the counter cannot be written closer to it. The overflow
 * callback is covered by the "top (reload) and overflow pending" case,
 * with a short top, and by the time manager's suite (tests/tm), which
 * ticks on it.
 *
 * @par Not verified under emulation
 * Real silicon's behaviour when CLKSOURCE changes while the counter runs (the
 * driver only changes it while stopped, in init()).
 */
#ifndef UTIM_SYSTICK_H
#define UTIM_SYSTICK_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief SysTick register overlay (at UTIM_SYSTICK_BASE on every Cortex-M). */
typedef struct utim_systick_regs {
  volatile uint32_t csr;   /**< 0x00 SYST_CSR: control and status */
  volatile uint32_t rvr;   /**< 0x04 SYST_RVR: reload value, 24 bits */
  volatile uint32_t cvr;   /**< 0x08 SYST_CVR: current value (any write clears it) */
  volatile uint32_t calib; /**< 0x0C SYST_CALIB: calibration (read-only) */
} utim_systick_regs_t;

_Static_assert(offsetof(utim_systick_regs_t, cvr) == 0x08u, "SysTick: CVR at 0x08");
_Static_assert(offsetof(utim_systick_regs_t, calib) == 0x0Cu, "SysTick: CALIB at 0x0C");

/** @brief SYST_CSR: counter enabled. */
#define UTIM_SYSTICK_CSR_ENABLE (1u << 0)
/** @brief SYST_CSR: reaching 0 pends the SysTick exception. */
#define UTIM_SYSTICK_CSR_TICKINT (1u << 1)
/** @brief SYST_CSR: 1 = processor clock, 0 = reference clock. */
#define UTIM_SYSTICK_CSR_CLKSOURCE (1u << 2)
/** @brief SYST_CSR: the counter reached 0 since the last read of CSR (read clears). */
#define UTIM_SYSTICK_CSR_COUNTFLAG (1u << 16)
/** @brief SYST_CALIB: no reference clock is implemented. */
#define UTIM_SYSTICK_CALIB_NOREF (1u << 31)
/** @brief Largest value of the 24-bit counter and reload. */
#define UTIM_SYSTICK_MAX 0xFFFFFFu
/** @brief Clock input index of the processor clock. */
#define UTIM_SYSTICK_CLK_CPU 0u
/** @brief Clock input index of the reference clock. */
#define UTIM_SYSTICK_CLK_REF 1u
/** @brief SCB ICSR bit that removes a pending SysTick exception. */
#define UTIM_SYSTICK_ICSR_PENDSTCLR (1u << 25)
/** @brief SCB ICSR bit that reads 1 while the SysTick exception is pending. */
#define UTIM_SYSTICK_ICSR_PENDSTSET (1u << 26)
/** @brief Address of the SysTick registers on every Cortex-M (SYST_CSR). */
#define UTIM_SYSTICK_BASE 0xE000E010u
/** @brief Address of the SCB's ICSR on every Cortex-M. */
#define UTIM_SYSTICK_SCB_ICSR 0xE000ED04u
/** @brief Counter width of SysTick, bits. */
#define UTIM_SYSTICK_WIDTH 24
/** @brief Clock inputs at most: the processor clock and the reference clock. */
#define UTIM_SYSTICK_CLOCKS 2u
/** @brief Minimum compare distance (no compare channels: the smallest legal value). */
#define UTIM_SYSTICK_MIN_DISTANCE 1u
/** @brief Capability bits of a SysTick instance. */
#define UTIM_SYSTICK_CAPS (UTIM_CAP_OVERFLOW | UTIM_CAP_STOP | UTIM_CAP_TOP)

/** @brief Device configuration of the SysTick instance (const, in flash). */
typedef struct utim_systick_cfg {
  utim_dev_t common;         /**< common head; must be first */
  utim_systick_regs_t *regs; /**< SysTick registers */
  volatile uint32_t *icsr;   /**< SCB ICSR (0xE000ED04), to drop a pending exception */
} utim_systick_cfg_t;

/** @brief The SysTick driver. */
extern const utim_driver_t utim_systick_driver;

/**
 * @brief Define the SysTick instance @p n_ (`static const utim_periph_t`),
 *        with its RAM state and configuration. Also defines `n_##_WIDTH`,
 *        `n_##_CHANNELS` and `n_##_MIN_DISTANCE`.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "MPS2_SYSTICK"
 * @param clocks_ its clock-input table: index UTIM_SYSTICK_CLK_CPU (the
 *                processor clock), then optionally UTIM_SYSTICK_CLK_REF (the
 *                reference clock), each with the single divider 1
 *
 * The parameters end in _ so that they cannot replace the field names of
 * the designated initializers.
 */
#define UTIM_SYSTICK_DEFINE(n_, pname_, clocks_)                                                   \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) >= 1u &&                                   \
                     sizeof(clocks_) / sizeof((clocks_)[0]) <= UTIM_SYSTICK_CLOCKS,                \
                 pname_ ": SysTick has the processor clock and at most the reference clock");      \
  enum {                                                                                           \
    n_##_WIDTH = UTIM_SYSTICK_WIDTH,                                                               \
    n_##_CHANNELS = 0,                                                                             \
    n_##_MIN_DISTANCE = UTIM_SYSTICK_MIN_DISTANCE                                                  \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, 0);                                                                \
  static const utim_systick_cfg_t n_##_cfg = {                                                     \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = (uint8_t)(sizeof(clocks_) / sizeof((clocks_)[0])),                     \
                 .min_distance = UTIM_SYSTICK_MIN_DISTANCE},                                       \
      .regs = (utim_systick_regs_t *)UTIM_SYSTICK_BASE,                                            \
      .icsr = (volatile uint32_t *)UTIM_SYSTICK_SCB_ICSR};                                         \
  static const utim_periph_t n_ = {.drv = &utim_systick_driver,                                    \
                                   .dev = &n_##_cfg.common,                                        \
                                   .props =                                                        \
                                       UTIM_PROPS(UTIM_SYSTICK_WIDTH, 0, 1, UTIM_SYSTICK_CAPS)}

/**
 * @brief Dispatcher of the SysTick exception.
 * @param p the SysTick instance
 */
void utim_systick_isr(const utim_periph_t *p);

/** @brief Driver property (get): SYST_CALIB (TENMS, SKEW, NOREF). */
#define UTIM_SYSTICK_PROP_CALIB (UTIM_PROP_DRIVER_BASE + 0u)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SYSTICK_H */
