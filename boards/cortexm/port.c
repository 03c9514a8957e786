/*
 * utim port for Cortex-M (ARMv6-M and ARMv7-M): the lock is PRIMASK, saved
 * and restored rather than cleared, so nested locks and a lock taken inside an
 * interrupt handler both leave the caller's mask as it was.
 */
#include <stdbool.h>
#include <stdint.h>

#include "utim/port.h"

uint32_t utim_port_lock(void) {
  uint32_t key;
  /* The "memory" clobber keeps the compiler from moving register accesses of
   * the locked section out of it. */
  __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(key)::"memory");
  return key;
}

/* Interrupts that became pending while masked are taken right after the
 * write, when the outermost lock is released. */
void utim_port_unlock(uint32_t key) {
  __asm__ volatile("msr primask, %0" ::"r"(key) : "memory");
}

void utim_port_relax(void) {
  __asm__ volatile("nop");
}

/* Any exception: IPSR holds its number, 0 in thread mode. */
bool utim_port_in_isr(void) {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  return ipsr != 0u;
}
