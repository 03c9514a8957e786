/**
 * @file chain.h
 * @brief Virtual chain driver: two narrower timers as one wider instance.
 *
 * The low timer counts at the instance's frequency; the high timer counts
 * the low timer's overflows, in one of two ways:
 * - hardware chaining: the high timer's clock input @c hi_clk is of class
 *   UTIM_CLASS_CHAIN (the low timer's overflow clocks it);
 * - software carry (@c hi_clk == UTIM_CHAIN_SOFTWARE), where the chip has no
 *   such link: the high timer stays stopped and holds the number of low
 *   wraps, which the chain writes in the low timer's overflow interrupt. The
 *   low timer needs UTIM_CAP_OVERFLOW and UTIM_HPROP_OVF_PENDING (so a read
 *   between a wrap and its interrupt is still right), the high one
 *   UTIM_CAP_WRITE.
 * The instance is lo.width + hi.width bits wide and has min(lo channels,
 * hi channels) channels: chain channel n uses channel n of both timers. A
 * compare first waits for the high half (on the high timer's channel, or in
 * the carry interrupt), then on the low timer for the low half. Both timers
 * are claimed by the instance and must not appear in the board's instance
 * table.
 */
#ifndef UTIM_CHAIN_H
#define UTIM_CHAIN_H

#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief hi_clk value selecting the software carry (no hardware link). */
#define UTIM_CHAIN_SOFTWARE 0xffu

/** @brief Configuration of a chained instance. */
typedef struct utim_chain_cfg {
  utim_dev_t common;       /**< clocks and min_distance: those of @c lo */
  const utim_periph_t *lo; /**< low half, counts at the instance frequency */
  const utim_periph_t *hi; /**< high half, clocked by @c lo's overflow */
  uint8_t hi_clk; /**< clock input of @c hi that is @c lo's overflow, or UTIM_CHAIN_SOFTWARE */
} utim_chain_cfg_t;

/** @brief The chain driver. */
extern const utim_driver_t utim_chain_driver;

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CHAIN_H */
