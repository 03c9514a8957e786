/*
 * RISC-V M-mode entry and trap vector (boards/riscv/riscv.h).
 *
 * riscv_reset is placed first in the image (section .utim_reset, sections.ld;
 * not a .text.* name, which -ffunction-sections gives any C function of that
 * name: a firmware's own reset() once went first and the image faulted at
 * its first instruction):
 * QEMU's virt machine with -bios none jumps to the start of RAM in M-mode
 * with a0 = hart id. Harts other than 0 park. The trap vector saves the
 * registers a C call may clobber, calls riscv_trap(mcause, mepc) and returns
 * with mret. Written for RV32 and RV64 (REG_S/REG_L, SZREG).
 */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define SZREG 8
#else
#define REG_S sw
#define REG_L lw
#define SZREG 4
#endif

  .section .utim_reset, "ax"
  .globl riscv_reset
  .type riscv_reset, @function
riscv_reset:
  csrw mie, zero
  csrw mstatus, zero
  bnez a0, 2f
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, riscv_trap_entry
  csrw mtvec, t0
  call riscv_start
2:
  wfi
  j 2b
  .size riscv_reset, . - riscv_reset

  /* Direct mode: mtvec's low two bits must be 0. */
  .section .text.trap, "ax"
  .balign 4
  .globl riscv_trap_entry
  .type riscv_trap_entry, @function
riscv_trap_entry:
  addi sp, sp, -16 * SZREG
  REG_S ra, 0 * SZREG(sp)
  REG_S t0, 1 * SZREG(sp)
  REG_S t1, 2 * SZREG(sp)
  REG_S t2, 3 * SZREG(sp)
  REG_S a0, 4 * SZREG(sp)
  REG_S a1, 5 * SZREG(sp)
  REG_S a2, 6 * SZREG(sp)
  REG_S a3, 7 * SZREG(sp)
  REG_S a4, 8 * SZREG(sp)
  REG_S a5, 9 * SZREG(sp)
  REG_S a6, 10 * SZREG(sp)
  REG_S a7, 11 * SZREG(sp)
  REG_S t3, 12 * SZREG(sp)
  REG_S t4, 13 * SZREG(sp)
  REG_S t5, 14 * SZREG(sp)
  REG_S t6, 15 * SZREG(sp)
  csrr a0, mcause
  csrr a1, mepc
  call riscv_trap
  REG_L ra, 0 * SZREG(sp)
  REG_L t0, 1 * SZREG(sp)
  REG_L t1, 2 * SZREG(sp)
  REG_L t2, 3 * SZREG(sp)
  REG_L a0, 4 * SZREG(sp)
  REG_L a1, 5 * SZREG(sp)
  REG_L a2, 6 * SZREG(sp)
  REG_L a3, 7 * SZREG(sp)
  REG_L a4, 8 * SZREG(sp)
  REG_L a5, 9 * SZREG(sp)
  REG_L a6, 10 * SZREG(sp)
  REG_L a7, 11 * SZREG(sp)
  REG_L t3, 12 * SZREG(sp)
  REG_L t4, 13 * SZREG(sp)
  REG_L t5, 14 * SZREG(sp)
  REG_L t6, 15 * SZREG(sp)
  addi sp, sp, 16 * SZREG
  mret
  .size riscv_trap_entry, . - riscv_trap_entry
