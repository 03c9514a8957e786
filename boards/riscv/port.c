/*
 * utim port for RISC-V in machine mode: the lock is mstatus.MIE, cleared and
 * restored rather than set, so nested locks and a lock taken inside a trap
 * handler both leave the caller's state as it was.
 */
#include <stdbool.h>
#include <stdint.h>

#include "riscv.h"
#include "utim/port.h"

uint32_t utim_port_lock(void) {
  uintptr_t key;
  /* The "memory" clobber keeps the compiler from moving register accesses of
   * the locked section out of it. */
  __asm__ volatile("csrrci %0, mstatus, %1" : "=r"(key) : "i"(RISCV_MSTATUS_MIE) : "memory");
  return (uint32_t)key & RISCV_MSTATUS_MIE;
}

/* Interrupts that became pending while masked are taken right after the
 * write, when the outermost lock is released. */
void utim_port_unlock(uint32_t key) {
  if ((key & RISCV_MSTATUS_MIE) != 0u) {
    __asm__ volatile("csrsi mstatus, %0" ::"i"(RISCV_MSTATUS_MIE) : "memory");
  }
}

void utim_port_relax(void) {
  __asm__ volatile("nop");
}

/* No architectural "in handler" state in M-mode: the trap vector counts. */
bool utim_port_in_isr(void) {
  return riscv_trap_depth != 0u;
}
