/**
 * @file utim_sim.h
 * @brief hAPI driver for the simulated timer peripheral (hw/sim: sim_regs.h
 *        is its register map, sim.h the machine it sits on).
 *
 * One driver serves every shape of the simulated timer: capture reads,
 * down-counting, writability and stoppability are decided at run time from
 * the instance's packed properties, which UTIM_SIM_DEFINE() derives from the
 * shape the board gives the machine.
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

/**
 * @brief Define instance @p name (`static const utim_periph_t`) of simulated
 *        timer number @p timer, with its RAM state and configuration.
 *
 * The width, count direction, capability bits and minimum distance come
 * from the shape's own facts (the list SIM_SHAPE() takes), so the instance
 * cannot contradict the hardware it drives. Also defines `name##_WIDTH`,
 * `name##_CHANNELS` and `name##_MIN_DISTANCE`.
 * @param name     identifier of the instance
 * @param pname    platform name, e.g. "SIM_TIMER16"
 * @param timer    simulated timer number
 * @param channels compare registers exposed as channels (<= ncc)
 * @param cap_cc   on a capture-read shape, the compare register the reads
 *                 use (>= channels, < ncc); else 0
 * @param clocks   the clock table the shape was given
 * @param facts    the shape's fact list (see SIM_SHAPE())
 */
#define UTIM_SIM_DEFINE(name, pname, timer, channels, cap_cc, clocks, facts)                       \
  UTIM_SIM_DEFINE_(name, pname, timer, channels, cap_cc, clocks, facts)
/* The parameters below end in _ so they cannot replace the field names of
 * the designated initializers. */
/** @brief UTIM_SIM_DEFINE() after the expansion of the fact list. */
#define UTIM_SIM_DEFINE_(n_, pname_, timer_, ch_, cap_cc_, clocks_, width_, down_, ncc_, shared_,  \
                         ovf_, writable_, capture_, stop_, md_, chain_from_, irq_)                 \
  _Static_assert((width_) >= 1 && (width_) <= 64, pname_ ": width 1..64");                         \
  _Static_assert((ch_) <= (ncc_) && (ch_) <= UTIM_MAX_CHANNELS,                                    \
                 pname_ ": more channels than compare registers");                                 \
  _Static_assert(!(capture_) || ((cap_cc_) >= (ch_) && (cap_cc_) < (ncc_)),                        \
                 pname_ ": the capture register must be a compare register no channel uses");      \
  _Static_assert((md_) >= 1 && (md_) <= 255, pname_ ": minimum distance 1..255");                  \
  enum { n_##_WIDTH = (width_), n_##_CHANNELS = (ch_), n_##_MIN_DISTANCE = (md_) };                \
  UTIM_STATE_DEFINE(n_##_state, ch_);                                                              \
  static const utim_sim_cfg_t n_##_cfg = {                                                         \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = (uint8_t)(sizeof(clocks_) / sizeof((clocks_)[0])),                     \
                 .min_distance = (uint8_t)(md_)},                                                  \
      .timer = (uint8_t)(timer_),                                                                  \
      .cap_cc = (uint8_t)(cap_cc_)};                                                               \
  static const utim_periph_t n_ = {                                                                \
      .drv = &utim_sim_driver,                                                                     \
      .dev = &n_##_cfg.common,                                                                     \
      .props = UTIM_PROPS(                                                                         \
          width_, ch_, down_,                                                                      \
          ((ovf_) ? UTIM_CAP_OVERFLOW : 0u) | ((writable_) ? UTIM_CAP_WRITE : 0u) |                \
              ((stop_) ? UTIM_CAP_STOP : 0u) | ((capture_) ? UTIM_CAP_CAPTURE_READ : 0u) |         \
              ((shared_) ? UTIM_CAP_SHARED_IRQ : 0u))}

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SIM_DRIVER_H */
