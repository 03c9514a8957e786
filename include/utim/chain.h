/**
 * @file chain.h
 * @brief Virtual chain driver: two narrower timers as one wider instance.
 *
 * The low timer counts at the instance's frequency; the high timer counts
 * the low timer's overflows in hardware (its clock input @c hi_clk is of
 * class UTIM_CLASS_CHAIN). The instance is lo.width + hi.width bits wide and
 * has min(lo channels, hi channels) channels: chain channel n uses channel n
 * of both timers. A compare first waits on the high timer for the high half,
 * then on the low timer for the low half. Both timers are claimed by the
 * instance and must not appear in the board's instance table.
 */
#ifndef UTIM_CHAIN_H
#define UTIM_CHAIN_H

#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Configuration of a chained instance. */
typedef struct utim_chain_cfg {
  utim_dev_t common;       /**< clocks and min_distance: those of @c lo */
  const utim_periph_t *lo; /**< low half, counts at the instance frequency */
  const utim_periph_t *hi; /**< high half, clocked by @c lo's overflow */
  uint8_t hi_clk;          /**< clock input of @c hi that is @c lo's overflow */
} utim_chain_cfg_t;

/** @brief The chain driver. */
extern const utim_driver_t utim_chain_driver;

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CHAIN_H */
