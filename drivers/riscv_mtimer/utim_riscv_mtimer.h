/**
 * @file utim_riscv_mtimer.h
 * @brief hAPI driver for the RISC-V machine timer: the 64-bit `mtime` counter
 *        and one hart's `mtimecmp` compare register (RISC-V privileged
 *        architecture, "Machine Timer Registers"; the CLINT/ACLINT MTIMER).
 *
 * @par Hardware
 * `mtime` is a 64-bit up-counter at a fixed, platform-defined rate (the
 * timebase; 10 MHz on QEMU's virt machine), memory-mapped and writable in
 * M-mode. Each hart has a 64-bit `mtimecmp`; the machine timer interrupt
 * (MTIP in `mip`, cause 7) is pending **as long as** mtime >= mtimecmp, a
 * level rather than an edge: writing a larger mtimecmp is what clears it.
 * There is no overflow interrupt (64 bits at 10 MHz wrap after 58,000
 * years), no prescaler and no way to stop the counter.
 *
 * @par What this driver exposes
 * - A 64-bit up-counter with **one compare channel** and no overflow event:
 *   a shape no other board of utim has (the sim board's SIM_MTIME64 models
 *   it in virtual time).
 * - The channel's interrupt enable is mie.MTIE (the only enable of the
 *   machine timer interrupt, so this driver owns it); off, mtimecmp also
 *   goes to its maximum so that MTIP stays low. Arming writes the target
 *   with MTIE off and then sets MTIE; a target that mtime already passed
 *   makes MTIP pend at once (late, never lost), and the core's check after
 *   the write (driver.h) handles it under the lock.
 * - The comparison is numeric, the uAPI's counter modular: a target that
 *   lies beyond the counter's wrap (only reachable after utim_write() near
 *   2^64) is armed in two steps: first mtimecmp = 2^64 - 1, whose interrupt
 *   comes at the last value before the wrap; its handler waits out that
 *   one tick and then writes the real target. So the event is never early
 *   across the wrap either. The target is kept in RAM (8 bytes and a stage
 *   per instance), and utim_write() re-arms it, so an armed channel keeps
 *   its absolute value across a write of the counter.
 * - UTIM_CAP_WRITE (mtime is writable in M-mode); no UTIM_CAP_STOP (the
 *   architecture has no stop bit: enable(false) is -ENOTSUP).
 * - init() writes mtime to 0 and disarms. Note: mtime is shared by every
 *   hart of the platform, so on a multi-hart system only one instance may
 *   exist per mtime (one per hart would share the counter: writing it moves
 *   every hart's time).
 * - On RV32 the 64-bit registers are two words: mtime is read high, low,
 *   high until the two high reads agree; mtimecmp is written low = all ones,
 *   high, low, so no intermediate value lies below the target (no spurious
 *   match); mtime is written low = 0, high, low, so no carry escapes into
 *   the high word mid-write.
 * - Clock input: the timebase only, divider 1.
 * - utim_riscv_mtimer_isr() is the machine timer interrupt's dispatcher
 *   (the board routes mcause 7 to it).
 *
 * @par Under emulation
 * QEMU 7.2's ACLINT MTIMER on `-M virt` models all of it: mtime from the
 * virtual clock (deterministic under -icount), writes of mtime, the level
 * comparison on every mtimecmp write, 32- and 64-bit accesses. The
 * conformance suite runs in full on it (counter, write, every arming case,
 * periodic, overrun); the overflow cases skip (no UTIM_CAP_OVERFLOW).
 */
#ifndef UTIM_RISCV_MTIMER_H
#define UTIM_RISCV_MTIMER_H

#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Counter width of the machine timer, bits. */
#define UTIM_RISCV_MTIMER_WIDTH 64
/** @brief Compare channels of one hart's machine timer. */
#define UTIM_RISCV_MTIMER_CHANNELS 1u
/** @brief Minimum compare distance: a level comparison honours any target. */
#define UTIM_RISCV_MTIMER_MIN_DISTANCE 1u
/** @brief Capability bits of a machine-timer instance. */
#define UTIM_RISCV_MTIMER_CAPS UTIM_CAP_WRITE
/** @brief mtimecmp of a channel that is off: never reached. */
#define UTIM_RISCV_MTIMER_OFF UINT64_MAX

/** @brief RAM of a machine-timer instance: the armed target and its stage. */
typedef struct utim_riscv_mtimer_ram {
  uint64_t target; /**< the channel's target while armed */
  uint32_t wrap;   /**< 1 while mtimecmp waits for the last value before the wrap */
} utim_riscv_mtimer_ram_t;

/** @brief Device configuration of a machine-timer instance (const, in flash). */
typedef struct utim_riscv_mtimer_cfg {
  utim_dev_t common;            /**< common head; must be first */
  volatile uint32_t *mtime;     /**< mtime (low word; the high word follows) */
  volatile uint32_t *mtimecmp;  /**< this hart's mtimecmp (low word; high follows) */
  utim_riscv_mtimer_ram_t *ram; /**< the instance's RAM */
} utim_riscv_mtimer_cfg_t;

/** @brief The machine-timer driver. */
extern const utim_driver_t utim_riscv_mtimer_driver;

/**
 * @brief Define a machine-timer instance @p n_ (`static const utim_periph_t`).
 * @param n_        identifier of the instance
 * @param pname_    platform name, e.g. "RV_MTIMER"
 * @param mtime_    address of mtime
 * @param mtimecmp_ address of this hart's mtimecmp
 * @param clocks_   array of one utim_clock_desc_t: the timebase, divider 1
 */
#define UTIM_RISCV_MTIMER_DEFINE(n_, pname_, mtime_, mtimecmp_, clocks_)                           \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) == 1u, pname_ ": one clock input");        \
  UTIM_STATE_DEFINE(n_##_state, UTIM_RISCV_MTIMER_CHANNELS);                                       \
  static utim_riscv_mtimer_ram_t n_##_ram;                                                         \
  static const utim_riscv_mtimer_cfg_t n_##_cfg = {                                                \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = 1u,                                                                    \
                 .min_distance = UTIM_RISCV_MTIMER_MIN_DISTANCE},                                  \
      .mtime = (volatile uint32_t *)(uintptr_t)(mtime_),                                           \
      .mtimecmp = (volatile uint32_t *)(uintptr_t)(mtimecmp_),                                     \
      .ram = &n_##_ram};                                                                           \
  static const utim_periph_t n_ = {.drv = &utim_riscv_mtimer_driver,                               \
                                   .dev = &n_##_cfg.common,                                        \
                                   .props = UTIM_PROPS(UTIM_RISCV_MTIMER_WIDTH,                    \
                                                       UTIM_RISCV_MTIMER_CHANNELS, 0,              \
                                                       UTIM_RISCV_MTIMER_CAPS)}

/**
 * @brief Machine timer interrupt dispatcher: disarms a matched channel
 *        (MTIE off, mtimecmp to its maximum, which drops MTIP) and reports
 *        it; at the first step of a target beyond the wrap, arms the second.
 * @param p the instance of this hart's mtimecmp
 */
void utim_riscv_mtimer_isr(const utim_periph_t *p);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_RISCV_MTIMER_H */
