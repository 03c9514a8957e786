/**
 * @file sim_regs.h
 * @brief Register map of the simulated timer peripheral and its bus.
 *
 * The simulated peripheral cannot be a plain memory overlay: every access
 * must reach the model so that it can compute the counter for the current
 * virtual time and let tests advance time between any two accesses. The
 * driver therefore reaches registers through sim_bus_read()/sim_bus_write(),
 * one call per register access, exactly as it would through a volatile
 * overlay on silicon.
 *
 * The peripheral is a generic configurable timer (see sim_shape_t):
 * - SIM_REG_CTRL: bit 0 runs the counter.
 * - SIM_REG_CLKSEL: clock input index; SIM_REG_DIV: the divider value itself
 *   (1, 2, 4, ... or any integer, as the clock input's divider set allows).
 *   Changing either resets the prescaler phase.
 * - SIM_REG_COUNT: the counter in the hardware's own direction. Writable only
 *   on shapes with `writable`; reads 0 on capture-read shapes.
 * - SIM_REG_TASK_CAPTURE: writing n copies the counter into CC[n] (nRF style).
 * - SIM_REG_INTEN / _SET / _CLR: interrupt enables, bit n for channel n,
 *   bit 31 for the overflow (wrap).
 * - SIM_REG_EVENTS: event flags, same bits; SIM_REG_EVENTS_CLR: write 1 to clear.
 * - SIM_REG_CC0 + n: compare register n, compared with the counter in the
 *   hardware's direction. A match raises flag n when the counter steps onto
 *   CC[n]; a match less than `min_distance` ticks after the CC write is missed
 *   (models hardware that needs time to arm a compare).
 * - The overflow flag rises when the counter steps from its maximum to 0
 *   (up-counter) or from 0 to its maximum (down-counter).
 */
#ifndef UTIM_SIM_REGS_H
#define UTIM_SIM_REGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Registers of a simulated timer. */
enum sim_reg {
  SIM_REG_CTRL = 0,         /**< bit 0: counter runs */
  SIM_REG_CLKSEL = 1,       /**< clock input index */
  SIM_REG_DIV = 2,          /**< divider value */
  SIM_REG_COUNT = 3,        /**< counter (hardware direction) */
  SIM_REG_TASK_CAPTURE = 4, /**< write n: CC[n] = counter */
  SIM_REG_INTEN = 5,        /**< interrupt enable bits (read/write) */
  SIM_REG_INTEN_SET = 6,    /**< write 1s to set enable bits */
  SIM_REG_INTEN_CLR = 7,    /**< write 1s to clear enable bits */
  SIM_REG_EVENTS = 8,       /**< event flags (read) */
  SIM_REG_EVENTS_CLR = 9,   /**< write 1s to clear flags */
  SIM_REG_CC0 = 16,         /**< first compare register; SIM_REG_CC0 + n */
};

/** @brief Bit of SIM_REG_CTRL that runs the counter. */
#define SIM_CTRL_EN 1u
/** @brief Overflow bit in SIM_REG_INTEN / SIM_REG_EVENTS. */
#define SIM_EVT_OVF (1u << 31)
/** @brief Most compare registers a simulated timer has. */
#define SIM_MAX_CC 16u

/**
 * @brief Read register @p reg of simulated timer number @p timer.
 *        Costs one access of virtual time (see sim_set_access_cost()).
 */
uint64_t sim_bus_read(unsigned timer, unsigned reg);

/**
 * @brief Write register @p reg of simulated timer number @p timer.
 *        Costs one access of virtual time.
 */
void sim_bus_write(unsigned timer, unsigned reg, uint64_t value);

/**
 * @brief A register read of device @p dev (sim.h's sim_device_attach()):
 *        a bus access like a timer's (cost, injection, interrupts).
 */
uint32_t sim_dev_read(unsigned dev, unsigned reg);

/** @brief A register write of device @p dev: a bus access (cost, injection, interrupts). */
void sim_dev_write(unsigned dev, unsigned reg, uint32_t value);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SIM_REGS_H */
