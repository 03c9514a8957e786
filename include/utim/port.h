/**
 * @file port.h
 * @brief What a port (sim, native, an MCU) provides to the core.
 *
 * The core brackets every compound operation with utim_port_lock() /
 * utim_port_unlock() so that no timer interrupt handler of the port runs in
 * between, and calls utim_port_relax() in its bounded busy-waits.
 * One port is linked into a program, together with its board.
 */
#ifndef UTIM_PORT_H
#define UTIM_PORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Keep timer interrupt handlers from running until the matching
 *        utim_port_unlock(). Nests.
 * @return a key to hand to utim_port_unlock()
 */
uint32_t utim_port_lock(void);

/**
 * @brief Undo the matching utim_port_lock(); interrupts that became pending
 *        meanwhile run when the outermost lock is released.
 * @param key the value the matching utim_port_lock() returned
 */
void utim_port_unlock(uint32_t key);

/**
 * @brief Called in each iteration of a busy-wait on the counter
 *        (a pause instruction on a CPU; virtual time passes on sim).
 */
void utim_port_relax(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_PORT_H */
