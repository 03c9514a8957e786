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
 *
 * The instance is lo.width + hi.width bits wide and has min(lo channels,
 * hi channels) channels: chain channel n uses channel n of both timers. A
 * compare waits in stages: on the low timer alone when the target is within
 * one low period, else on the high half first (the high timer's channel
 * with hardware chaining; with software carry, the low timer's channel at
 * the target's low half, in every low period). Whatever stage reports, the
 * chain decides from the chained counter and the counter value the channel
 * was armed at whether the target has been reached: a stage that matched in
 * another low period than the target's only arms the next stage, and every
 * channel whose target is reached is reported in one event, so events due at
 * the same tick are delivered channel 0 first whichever sub-timer's
 * interrupt noticed them. Both timers are claimed by the instance and must
 * not appear in the board's instance table.
 *
 * @par Interrupt-off tolerance of the software carry
 * The carry is counted in the low timer's overflow interrupt. Reads, compares
 * and the carry stay exact as long as that interrupt is serviced within one
 * low period of the wrap (2^lo.width ticks: 4.096 ms for a 16-bit low timer
 * at 16 MHz), whatever holds it off: interrupts disabled (utim_port_lock()),
 * a higher-priority handler, or the CPU stalled inside the chain's own locked
 * read. Held off longer, the low timer wraps again before the first wrap is
 * counted; the hardware keeps one overflow flag, so that wrap is lost: from
 * then on the chained counter stays 2^lo.width ticks behind the true count
 * per lost wrap, and compares armed on it fire that much later (never
 * earlier). Nothing in the hardware can tell how many wraps passed, so the
 * chain cannot repair it; keep interrupt-off sections shorter than a low
 * period, or use hardware chaining. UTIM_CHAIN_PROP_LO_WIDTH tells the low
 * width at run time.
 *
 * Define an instance with UTIM_CHAIN_DEFINE() from two instances defined by
 * their drivers' macros.
 */
#ifndef UTIM_CHAIN_H
#define UTIM_CHAIN_H

#include "utim/driver.h"
#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief hi_clk value selecting the software carry (no hardware link). */
#define UTIM_CHAIN_SOFTWARE 0xffu

/**
 * @brief RAM state of one channel of a chained instance (8 bytes): the
 *        chained counter when the channel was armed, from which the distance
 *        to its target is counted.
 */
typedef struct utim_chain_ch {
  uint64_t ref; /**< chained counter value at arming */
} utim_chain_ch_t;

/** @brief Configuration of a chained instance. */
typedef struct utim_chain_cfg {
  utim_dev_t common;       /**< clocks and min_distance: those of @c lo */
  const utim_periph_t *lo; /**< low half, counts at the instance frequency */
  const utim_periph_t *hi; /**< high half, clocked by @c lo's overflow */
  utim_chain_ch_t *ch;     /**< one entry per chain channel (RAM) */
  uint8_t hi_clk; /**< clock input of @c hi that is @c lo's overflow, or UTIM_CHAIN_SOFTWARE */
} utim_chain_cfg_t;

/** @brief The chain driver. */
extern const utim_driver_t utim_chain_driver;

/** @brief Driver property (get): width of the low half in bits (its period is 2^width ticks). */
#define UTIM_CHAIN_PROP_LO_WIDTH (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): 1 when the high half counts by software carry, 0 in hardware. */
#define UTIM_CHAIN_PROP_SOFTWARE (UTIM_PROP_DRIVER_BASE + 1u)

/** @brief The smaller of two integer constant expressions (of any enum types). */
#define UTIM_CHAIN_MIN(a, b) ((int)(a) < (int)(b) ? (int)(a) : (int)(b))

/**
 * @brief Define chained instance @p n_ (`static const utim_periph_t`) of the
 *        instances @p lo_ and @p hi_, each defined with its driver's
 *        `UTIM_<DRIVER>_DEFINE()` (whose `name##_WIDTH`, `name##_CHANNELS`
 *        and `name##_MIN_DISTANCE` constants it uses). Also defines those
 *        three constants for @p n_.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "NRF51_CHAIN32"
 * @param lo_     the low half's instance identifier
 * @param hi_     the high half's instance identifier
 * @param hi_clk_ clock input of @p hi_ clocked by @p lo_'s overflow, or UTIM_CHAIN_SOFTWARE
 * @param clocks_ the low half's clock inputs, by the same index (the chain
 *                counts at the low half's frequencies; it may offer fewer
 *                dividers than @p lo_ alone)
 * @param caps_   UTIM_CAP_STOP and/or UTIM_CAP_WRITE where both halves allow
 *                them (the chain always has UTIM_CAP_CHAINED, UTIM_CAP_VIRTUAL
 *                and UTIM_CAP_OVERFLOW)
 */
#define UTIM_CHAIN_DEFINE(n_, pname_, lo_, hi_, hi_clk_, clocks_, caps_)                           \
  _Static_assert((int)lo_##_WIDTH + (int)hi_##_WIDTH <= 64, pname_ ": the halves exceed 64 bits"); \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) <= 255u, pname_ ": too many inputs");      \
  _Static_assert(((caps_) & ~(UTIM_CAP_STOP | UTIM_CAP_WRITE)) == 0u,                              \
                 pname_ ": only STOP and WRITE are chosen by the board");                          \
  enum {                                                                                           \
    n_##_WIDTH = (int)lo_##_WIDTH + (int)hi_##_WIDTH,                                              \
    n_##_CHANNELS = UTIM_CHAIN_MIN(lo_##_CHANNELS, hi_##_CHANNELS),                                \
    n_##_MIN_DISTANCE = (int)lo_##_MIN_DISTANCE                                                    \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, n_##_CHANNELS);                                                    \
  static utim_chain_ch_t n_##_ch[n_##_CHANNELS > 0 ? n_##_CHANNELS : 1];                           \
  static const utim_chain_cfg_t n_##_cfg = {                                                       \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = (uint8_t)(sizeof(clocks_) / sizeof((clocks_)[0])),                     \
                 .min_distance = (uint8_t)n_##_MIN_DISTANCE},                                      \
      .lo = &(lo_),                                                                                \
      .hi = &(hi_),                                                                                \
      .ch = n_##_CHANNELS > 0 ? n_##_ch : NULL,                                                    \
      .hi_clk = (hi_clk_)};                                                                        \
  static const utim_periph_t n_ = {                                                                \
      .drv = &utim_chain_driver,                                                                   \
      .dev = &n_##_cfg.common,                                                                     \
      .props = UTIM_PROPS(n_##_WIDTH, n_##_CHANNELS, 0,                                            \
                          UTIM_CAP_CHAINED | UTIM_CAP_VIRTUAL | UTIM_CAP_OVERFLOW | (caps_))}

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CHAIN_H */
