/**
 * @file utim_sim.h
 * @brief hAPI driver for the simulated timer peripheral (see sim_regs.h).
 */
#ifndef UTIM_SIM_DRIVER_H
#define UTIM_SIM_DRIVER_H

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Device configuration of a simulated timer instance. */
typedef struct utim_sim_cfg {
  utim_dev_t common; /**< common head */
  uint8_t timer;     /**< simulated timer number (index into the board's shapes) */
  uint8_t cap_cc;    /**< compare register used for capture reads (capture-read shapes) */
} utim_sim_cfg_t;

/** @brief The simulated timer driver. */
extern const utim_driver_t utim_sim_driver;

/**
 * @brief The one interrupt handler of every simulated timer line.
 * @param periph the instance (const utim_periph_t *) attached to the line
 */
void utim_sim_isr(const void *periph);

/** @brief Driver property (get): the counter as the hardware shows it, in its own direction. */
#define UTIM_SIM_PROP_RAW_COUNT (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): number of register accesses made so far on the simulated bus. */
#define UTIM_SIM_PROP_ACCESSES (UTIM_PROP_DRIVER_BASE + 1u)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SIM_DRIVER_H */
