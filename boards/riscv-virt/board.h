/**
 * @file board.h
 * @brief QEMU's RISC-V virt machine, 32-bit (RV32IMAC, M-mode, hart 0):
 *        its timer instance and its exposure table.
 *
 * Instances, by index (utim_by_index()) and platform name (utim_by_name()):
 *
 * | index | name       | peripheral                                  | bits | ch | events |
 * |-------|------------|---------------------------------------------|------|----|--------|
 * | 0     | RV_MTIMER  | ACLINT MTIMER: mtime @0x0200BFF8, hart 0's mtimecmp @0x02004000, MTI
 * (mcause 7) | 64 | 1 | compare | | 1     | RV_MCYCLE  | the hart's mcycle CSR (mcountinhibit.CY
 * stops it) | 64 | 0 | none |
 *
 * Clocks: mtime counts the platform timebase, 10 MHz on virt
 * (RISCV_ACLINT_DEFAULT_TIMEBASE_FREQ), from QEMU's virtual clock, so runs
 * under -icount are deterministic. mcycle counts the hart's clock, which
 * QEMU defines only under -icount: QEMU 7.2 reads it as the virtual time in
 * ns (target/riscv/csr.c, get_ticks(): icount_get()), so RISCV_VIRT_CORE_HZ
 * is 1 GHz whatever the -icount shift (at shift N one instruction advances
 * it by 2^N). Console: the NS16550A UART at
 * 0x10000000. A run ends through the SiFive test device at 0x100000
 * (mcu_exit()).
 */
#ifndef UTIM_BOARD_RISCV_VIRT_H
#define UTIM_BOARD_RISCV_VIRT_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Index of each instance in the board's table. */
enum riscv_virt_timer_index {
  RISCV_VIRT_IDX_MTIMER = 0,     /**< the machine timer of hart 0, 64 bits, 1 channel */
  RISCV_VIRT_IDX_MCYCLE = 1,     /**< hart 0's cycle counter, 64 bits, 0 channels */
  RISCV_VIRT_INSTANCE_COUNT = 2, /**< number of instances */
};

/** @brief The ACLINT MTIMER's timebase on QEMU's virt machine, Hz. */
#define RISCV_VIRT_TIMEBASE_HZ 10000000u
/** @brief The hart's clock (mcycle) under QEMU -icount: virtual ns, 10^9 Hz at every shift. */
#define RISCV_VIRT_CORE_HZ 1000000000u
/** @brief CLINT base of QEMU's virt machine. */
#define RISCV_VIRT_CLINT_BASE 0x02000000u
/** @brief Hart 0's mtimecmp (CLINT + 0x4000). */
#define RISCV_VIRT_MTIMECMP0 (RISCV_VIRT_CLINT_BASE + 0x4000u)
/** @brief mtime (CLINT + 0xBFF8). */
#define RISCV_VIRT_MTIME (RISCV_VIRT_CLINT_BASE + 0xBFF8u)
/** @brief The NS16550A UART. */
#define RISCV_VIRT_UART0 0x10000000u
/** @brief The SiFive test device ("finisher"): a write ends the emulation. */
#define RISCV_VIRT_TEST 0x00100000u

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARD_RISCV_VIRT_H */
