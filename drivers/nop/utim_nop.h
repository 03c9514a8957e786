/**
 * @file utim_nop.h
 * @brief NOP hAPI driver: a complete driver that does no hardware work.
 *
 * Every operation works on the instance's own RAM (utim_nop_ram_t): read
 * returns the stored counter, write stores it, set_channel records the mode
 * and compare value, enable records the run state. The counter never moves
 * and no event is ever raised. It exists so that benchmarks can isolate the
 * cost of the uAPI itself: whatever a call through the uAPI costs on top of
 * the same call made directly on this driver is the abstraction's own cost.
 *
 * @par Making the driver visible to the compiler
 * A uAPI call on an instance known at compile time only becomes a direct
 * call when the compiler sees both the instance and the driver struct it
 * points to. The driver functions are ordinary external functions
 * (utim_nop_read() ...), and UTIM_NOP_DRIVER_INIT is the driver struct's
 * initializer, so a translation unit can define its own constant copy of the
 * struct (UTIM_NOP_DRIVER_DEFINE()) and an instance pointing at that copy
 * (UTIM_NOP_INSTANCE_DEFINE()). Calls through such an instance then fold to
 * `call utim_nop_read` without link-time optimisation. utim_nop_driver is
 * the one shared definition for everyone else.
 *
 * @par RAM
 * Each instance has a utim_nop_ram_t (152 bytes with UTIM_MAX_CHANNELS = 16,
 * checked at build time) plus the core's utim_state_t and channel states
 * (see UTIM_STATE_DEFINE()).
 */
#ifndef UTIM_NOP_H
#define UTIM_NOP_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Driver RAM of one NOP instance: what the "hardware" holds. */
typedef struct utim_nop_ram {
  uint64_t count;                 /**< counter value (never advances by itself) */
  uint64_t cc[UTIM_MAX_CHANNELS]; /**< compare value recorded per channel */
  uint32_t armed;                 /**< bit n: channel n set to UTIM_CH_ONESHOT */
  uint8_t running;                /**< 1 after enable(true) */
  uint8_t ovf_irq;                /**< overflow interrupt enabled (UTIM_HPROP_OVF_IRQ) */
  uint8_t clk;                    /**< clock input selected by init */
  uint8_t reserved;               /**< zero */
  uint32_t div;                   /**< divider selected by init */
} utim_nop_ram_t;

/** @brief Device configuration of a NOP instance (const). */
typedef struct utim_nop_cfg {
  utim_dev_t common;   /**< common head */
  utim_nop_ram_t *ram; /**< the instance's driver RAM */
} utim_nop_cfg_t;

/**
 * @brief Driver property (get): bit n set when channel n is armed (UTIM_CH_ONESHOT).
 */
#define UTIM_NOP_PROP_ARMED (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): 1 while the counter is enabled. */
#define UTIM_NOP_PROP_RUNNING (UTIM_PROP_DRIVER_BASE + 1u)
/** @brief Driver property (get): compare value recorded for channel @p n. */
#define UTIM_NOP_PROP_CC(n) (UTIM_PROP_DRIVER_BASE + 0x10u + (unsigned)(n))

/** @brief hAPI init: records @p clk and @p div (the core validated them), resets the RAM. */
int utim_nop_init(const utim_periph_t *p, unsigned clk, uint32_t div);
/** @brief hAPI enable: records the run state. */
int utim_nop_enable(const utim_periph_t *p, bool on);
/** @brief hAPI read: the stored counter. */
uint64_t utim_nop_read(const utim_periph_t *p);
/** @brief hAPI write: stores the counter. */
int utim_nop_write(const utim_periph_t *p, uint64_t value);
/** @brief hAPI set_channel: records mode and compare value of channel @p ch. */
void utim_nop_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode, uint64_t value);
/** @brief hAPI get_property: UTIM_HPROP_OVF_IRQ and the UTIM_NOP_PROP_* identifiers. */
int utim_nop_get_property(const utim_periph_t *p, unsigned id, uint64_t *value);
/** @brief hAPI set_property: UTIM_HPROP_OVF_IRQ only. */
int utim_nop_set_property(const utim_periph_t *p, unsigned id, uint64_t value);

/** @brief Initializer of a utim_driver_t serving NOP instances. */
#define UTIM_NOP_DRIVER_INIT                                                                       \
  {                                                                                                \
    .init = utim_nop_init, .enable = utim_nop_enable, .read = utim_nop_read,                       \
    .write = utim_nop_write, .set_channel = utim_nop_set_channel,                                  \
    .get_property = utim_nop_get_property, .set_property = utim_nop_set_property,                  \
  }

/**
 * @brief Define a translation-unit-local copy of the NOP driver struct, so
 *        that calls through instances pointing at it fold to direct calls.
 * @param name identifier of the `static const utim_driver_t`
 */
#define UTIM_NOP_DRIVER_DEFINE(name) static const utim_driver_t name = UTIM_NOP_DRIVER_INIT

/**
 * @brief Clock inputs of every NOP instance: 64 MHz (HF) with dividers
 *        2^0..2^10, and 32768 Hz (LP) with divider 1.
 */
extern const utim_clock_desc_t utim_nop_clocks[2];

/**
 * @brief Define a `static const utim_periph_t` NOP instance with its RAM
 *        (driver RAM, core state and channel states).
 * @param id    identifier of the instance
 * @param drvp  pointer to the driver struct (&utim_nop_driver or a local copy)
 * @param width counter width in bits (1 to 64)
 * @param nch   channel count (1 to UTIM_MAX_CHANNELS)
 * @param pname platform name string
 */
#define UTIM_NOP_INSTANCE_DEFINE(id, drvp, width, nch, pname)                                      \
  static utim_nop_ram_t id##_ram;                                                                  \
  UTIM_STATE_DEFINE(id##_state, nch);                                                              \
  static const utim_nop_cfg_t id##_cfg = {.common = {.state = &id##_state,                         \
                                                     .name = (pname),                              \
                                                     .clocks = utim_nop_clocks,                    \
                                                     .nclocks = 2u,                                \
                                                     .min_distance = 1u},                          \
                                          .ram = &id##_ram};                                       \
  static const utim_periph_t id = {                                                                \
      .drv = (drvp), .dev = &id##_cfg.common, .props = UTIM_PROPS(width, nch, 0, UTIM_NOP_CAPS)}

/** @brief Capabilities of NOP instances: overflow interrupt, writable, stoppable. */
#define UTIM_NOP_CAPS (UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP)

/** @brief The NOP driver (the shared definition). */
extern const utim_driver_t utim_nop_driver;

/** @brief A 64-bit NOP instance with 4 channels, named "NOP64". */
extern const utim_periph_t utim_nop64;

/** @brief A 32-bit NOP instance with 4 channels, named "NOP32". */
extern const utim_periph_t utim_nop32;

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NOP_H */
