/*
 * utim port for the simulated machine: the "interrupt mask" is a lock depth
 * the model checks before delivering, and busy-waiting lets virtual time pass.
 */
#include <stdint.h>

#include "sim.h"
#include "utim/port.h"

/* Hooks shared with the model (simhw.c); the contract headers have no place
 * for them, so both files declare them. */
unsigned sim_lock_depth(void);
void sim_lock_release(void);
void sim_irq_poll(void);
uint32_t sim_relax_step(void);

static unsigned g_depth;

/** @brief Model support: current lock depth (interrupts wait while it is not 0). */
unsigned sim_lock_depth(void) {
  return g_depth;
}

/** @brief Model support: release every lock level (sim_reset()). */
void sim_lock_release(void) {
  g_depth = 0;
}

uint32_t utim_port_lock(void) {
  return g_depth++;
}

/* The key is the depth before the matching lock, restored as a CPU restores a
 * saved interrupt mask, so an unbalanced pair cannot leave the lock stuck. */
void utim_port_unlock(uint32_t key) {
  g_depth = key;
  if (key == 0u) {
    sim_irq_poll();
  }
}

void utim_port_relax(void) {
  sim_advance(sim_relax_step());
}
