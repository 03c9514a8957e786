/**
 * @file utim_riscv_mcycle.h
 * @brief hAPI driver for the RISC-V cycle counter `mcycle` (RISC-V
 *        privileged architecture, "Hardware Performance Monitor"): a 64-bit
 *        counter of the hart's clock, as a utim instance without channels.
 *
 * @par Hardware
 * `mcycle` (RV32: `mcycle` and `mcycleh`) counts the hart's clock cycles.
 * It is writable in M-mode, and `mcountinhibit.CY` (bit 0, privileged
 * spec 1.11 and later) stops it. It raises no interrupt of its own
 * (overflow interrupts of the counters come with the Sscofpmf extension,
 * and only for the programmable counters).
 *
 * @par What this driver exposes
 * - A 64-bit up-counter, **0 channels**, no overflow event (2^64 cycles at
 *   1 GHz is 584 years); UTIM_CAP_WRITE and UTIM_CAP_STOP (mcountinhibit)
 *   where the board grants them. A free-running time base or a stopwatch
 *   (the bench firmware's).
 * - Without UTIM_CAP_STOP, enable(false) is -ENOTSUP and init() leaves the
 *   counter running.
 * - init() stops the counter (CY inhibited) and writes it to 0. Without
 *   UTIM_CAP_WRITE it leaves the CSR alone and keeps the count it read as
 *   the view's 0 in RAM (8 bytes): read() is the CSR minus that base.
 * - On RV32 the counter is read high, low, high until the high reads agree,
 *   and written low = 0, high, low (no carry escapes mid-write).
 * - Clock input: the hart's clock, divider 1; its rate is the board's.
 *
 * @par Under emulation
 * QEMU 7.2 (-M virt) models the count: under `-icount shift=N` one per
 * instruction, 2^N ns of virtual time each, which the board states as its
 * clock (1 GHz at N = 0); without -icount it follows the host's clock and
 * has no defined rate. Two parts are wrong there (checked with a probe
 * firmware): after a write of mcycle the low word wraps without a carry
 * into mcycleh (RV32), and lifting mcountinhibit.CY adds the inhibited
 * time to the count, so a stopped counter does not stay stopped. A board
 * under QEMU therefore exposes the instance without UTIM_CAP_WRITE and
 * UTIM_CAP_STOP (the caps_ argument of UTIM_RISCV_MCYCLE_DEFINE()): a
 * 64-bit free-running counter whose CSR is never written, restarted from
 * 0 by init() through the base in RAM. A write of 0 is no exception on
 * RV32: QEMU keeps each half as its own offset from the virtual clock's
 * half, so after a write at a time whose low word is L the count read 2^32
 * too high for L ns from the moment that low word wrapped, then stepped
 * back (tests/mcycle). The conformance suite runs the counter and
 * frequency cases on it. Write and stop are the architecture's and
 * compiled, not verified under emulation.
 */
#ifndef UTIM_RISCV_MCYCLE_H
#define UTIM_RISCV_MCYCLE_H

#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Counter width of mcycle, bits. */
#define UTIM_RISCV_MCYCLE_WIDTH 64
/** @brief Capability bits an mcycle instance can have (the hart's counter). */
#define UTIM_RISCV_MCYCLE_CAPS (UTIM_CAP_WRITE | UTIM_CAP_STOP)
/** @brief mcountinhibit.CY: mcycle stopped. */
#define UTIM_RISCV_MCOUNTINHIBIT_CY 1u

/** @brief Device configuration of an mcycle instance (const, in flash). */
typedef struct utim_riscv_mcycle_cfg {
  utim_dev_t common; /**< common head; must be first */
  uint64_t *base;    /**< RAM: the CSR's count at init() without UTIM_CAP_WRITE, else 0 */
} utim_riscv_mcycle_cfg_t;

/** @brief The mcycle driver. */
extern const utim_driver_t utim_riscv_mcycle_driver;

/**
 * @brief Define the mcycle instance @p n_ of the running hart
 *        (`static const utim_periph_t`).
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "RV_MCYCLE"
 * @param caps_   UTIM_CAP_WRITE and/or UTIM_CAP_STOP where the hart honours
 *                them (UTIM_RISCV_MCYCLE_CAPS on a chip; 0 under QEMU 7.2)
 * @param clocks_ array of one utim_clock_desc_t: the hart's clock, divider 1
 */
#define UTIM_RISCV_MCYCLE_DEFINE(n_, pname_, caps_, clocks_)                                       \
  _Static_assert(((caps_) & ~UTIM_RISCV_MCYCLE_CAPS) == 0u, pname_ ": caps are WRITE, STOP");      \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) == 1u, pname_ ": one clock input");        \
  UTIM_STATE_DEFINE(n_##_state, 0);                                                                \
  static uint64_t n_##_base;                                                                       \
  static const utim_riscv_mcycle_cfg_t n_##_cfg = {.common = {.state = &n_##_state,                \
                                                              .name = (pname_),                    \
                                                              .clocks = (clocks_),                 \
                                                              .nclocks = 1u,                       \
                                                              .min_distance = 1u},                 \
                                                   .base = &n_##_base};                            \
  static const utim_periph_t n_ = {.drv = &utim_riscv_mcycle_driver,                               \
                                   .dev = &n_##_cfg.common,                                        \
                                   .props = UTIM_PROPS(UTIM_RISCV_MCYCLE_WIDTH, 0, 0, (caps_))}

#ifdef __cplusplus
}
#endif

#endif /* UTIM_RISCV_MCYCLE_H */
