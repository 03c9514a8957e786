/*
 * utim port for the simulated machine: "interrupts off" is the simulated
 * CPU's interrupt mask, and a busy-wait step lets virtual time pass.
 */
#include <stdint.h>

#include "sim.h"
#include "utim/port.h"

uint32_t utim_port_lock(void) {
  return sim_irq_disable();
}

void utim_port_unlock(uint32_t key) {
  sim_irq_restore(key);
}

void utim_port_relax(void) {
  sim_cpu_relax();
}

bool utim_port_in_isr(void) {
  return sim_in_isr();
}
