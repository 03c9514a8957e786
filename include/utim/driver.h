/**
 * @file driver.h
 * @brief utim hardware-facing API (hAPI): the contract every timer driver
 *        implements, and the constant instance description.
 *
 * A driver works in raw ticks of its counter, counting up from 0 to
 * 2^width - 1 and wrapping to 0. Down-counting hardware converts to this view
 * inside its driver, once. A driver knows nothing of time units, boards or
 * who owns a callback: its interrupt handler reports events to the core with
 * utim_core_event_unlock() (or utim_core_event()) and the core does
 * everything else.
 *
 * Sizes on a 32-bit target: utim_driver_t is 7 pointers (28 bytes),
 * utim_periph_t is 12 bytes. Both are checked at build time for Cortex-M4.
 */
#ifndef UTIM_DRIVER_H
#define UTIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Highest number of compare channels one instance may expose. */
#define UTIM_MAX_CHANNELS 16u

/** @brief Event bit of compare channel @p ch in event masks. */
#define UTIM_EVT_CH(ch) (1u << (ch))
/** @brief Event bit of the counter overflow (wrap from maximum to 0). */
#define UTIM_EVT_OVF (1u << 31)

/**
 * @name Capability bits
 * Reported in the packed static properties of an instance (utim_caps()).
 * @{
 */
/** @brief The hardware raises an interrupt when the counter wraps. */
#define UTIM_CAP_OVERFLOW (1u << 0)
/** @brief The counter can be written. */
#define UTIM_CAP_WRITE (1u << 1)
/** @brief The counter can be stopped and started. Without it, it always runs. */
#define UTIM_CAP_STOP (1u << 2)
/** @brief The counter is read through a capture task (as on the nRF). */
#define UTIM_CAP_CAPTURE_READ (1u << 3)
/** @brief All events share one interrupt line. */
#define UTIM_CAP_SHARED_IRQ (1u << 4)
/** @brief The instance is two counters chained into one wider counter. */
#define UTIM_CAP_CHAINED (1u << 5)
/** @brief The instance is served by a virtual driver built on other instances. */
#define UTIM_CAP_VIRTUAL (1u << 6)
/** @brief Counter read and alarms are emulated by the operating system. */
#define UTIM_CAP_EMULATED (1u << 7)
/** @brief The counter's top can be set (UTIM_PROP_TOP, a reload register). */
#define UTIM_CAP_TOP (1u << 8)
/** @} */

/**
 * @brief Pack the static properties of an instance into one word.
 * @param width    counter width in bits, 1 to 64
 * @param channels number of compare channels, 0 to UTIM_MAX_CHANNELS
 * @param down     1 when the hardware counts down (the driver converts)
 * @param caps     UTIM_CAP_* bits
 */
#define UTIM_PROPS(width, channels, down, caps)                                                    \
  ((uint32_t)(((uint32_t)(width)-1u) & 0x3fu) | ((uint32_t)((channels)&0x1fu) << 6) |              \
   ((uint32_t)((down) ? 1u : 0u) << 11) | ((uint32_t)(caps) << 12))

/** @brief Counter width in bits from packed properties. */
#define UTIM_PROPS_WIDTH(pr) ((unsigned)((pr)&0x3fu) + 1u)
/** @brief Counter width minus one from packed properties (a shift count). */
#define UTIM_PROPS_WSHIFT(pr) ((unsigned)((pr)&0x3fu))
/** @brief Channel count from packed properties. */
#define UTIM_PROPS_CHANNELS(pr) ((unsigned)(((pr) >> 6) & 0x1fu))
/** @brief Native count direction (1 = down) from packed properties. */
#define UTIM_PROPS_DOWN(pr) ((unsigned)(((pr) >> 11) & 1u))
/** @brief Capability bits from packed properties. */
#define UTIM_PROPS_CAPS(pr) ((uint32_t)((pr) >> 12))

/** @brief Kind of a clock input's divider set. */
typedef enum utim_div_kind {
  UTIM_DIV_POW2 = 0,   /**< dividers 2^lo .. 2^hi (lo, hi are exponents) */
  UTIM_DIV_LINEAR = 1, /**< every integer divider lo .. hi */
} utim_div_kind_t;

/** @brief Class of a clock input, used to pick a clock for a requested frequency. */
typedef enum utim_clock_class {
  UTIM_CLASS_HF = 1,    /**< high-frequency clock (fast, precise) */
  UTIM_CLASS_LP = 2,    /**< low-power clock (typically 32768 Hz) */
  UTIM_CLASS_CHAIN = 3, /**< driven by another timer's overflow (hardware chaining) */
} utim_clock_class_t;

/** @brief One clock input of a timer and the dividers it offers. */
typedef struct utim_clock_desc {
  uint32_t hz;       /**< input frequency in Hz (0 for a chained input) */
  uint8_t cls;       /**< utim_clock_class_t */
  uint8_t div_kind;  /**< utim_div_kind_t */
  uint16_t reserved; /**< zero */
  uint32_t div_lo;   /**< smallest divider (exponent for UTIM_DIV_POW2) */
  uint32_t div_hi;   /**< largest divider (exponent for UTIM_DIV_POW2) */
} utim_clock_desc_t;

/** @brief A timer instance: the uAPI's handle (struct utim_periph, below). */
typedef struct utim_periph utim_periph_t;

/**
 * @brief Compare-match callback.
 * @param p   the instance
 * @param ch  the channel that matched
 * @param arg the user argument given with utim_set_compare_cb()
 */
typedef void (*utim_cmp_cb_t)(const utim_periph_t *p, unsigned ch, void *arg);

/**
 * @brief Overflow callback, once per wrap of the counter.
 * @param p   the instance
 * @param arg the user argument given with utim_set_overflow_cb()
 */
typedef void (*utim_ovf_cb_t)(const utim_periph_t *p, void *arg);

/** @brief Per-channel core state (32 bytes a channel). */
typedef struct utim_chan_state {
  uint64_t target;  /**< counter value of the next match */
  uint64_t period;  /**< period in ticks; 0 for a one-shot */
  uint32_t skipped; /**< periodic: grid points without a callback yet, for the next one */
  uint32_t overrun; /**< periodic: grid points the last callback stood for beyond its own */
  uint32_t handled; /**< periodic: ticks the re-arm leaves free (the overload guard) */
  uint32_t late;    /**< periodic: ticks from its last match to the re-arm */
} utim_chan_state_t;

/**
 * @brief Mutable per-instance state kept by the core, in RAM.
 *
 * 48 bytes on a 32-bit target (72 on a 64-bit host) plus
 * sizeof(utim_chan_state_t) (32 bytes) per channel. Define it with
 * UTIM_STATE_DEFINE().
 */
typedef struct utim_state {
  utim_cmp_cb_t cmp_cb;      /**< compare callback or NULL */
  void *cmp_arg;             /**< its argument */
  utim_ovf_cb_t ovf_cb;      /**< overflow callback or NULL */
  void *ovf_arg;             /**< its argument */
  const void *owner;         /**< claimant, NULL when free */
  utim_chan_state_t *ch;     /**< one entry per channel */
  uint32_t hz;               /**< counting frequency set by utim_init(), 0 before */
  volatile uint32_t mask;    /**< masked events (UTIM_EVT_*) */
  volatile uint32_t pending; /**< events not yet delivered */
  uint32_t periodic;         /**< channels armed periodically */
  uint32_t armed;            /**< channels whose match is awaited (events of others are stale) */
  uint8_t clk;               /**< clock input index chosen by utim_init() */
  /**
   * Delivery loop running: 0 no, 1 yes, UTIM_STATE_DISPATCH_OVF (2) from the
   * moment it takes the overflow event off `pending` until the overflow
   * callback returns (a layer counting wraps in that callback may set it
   * back to 1 once it counted the wrap, under the lock).
   */
  uint8_t in_dispatch;
  uint16_t rearm; /**< periodic channels to re-arm before their next callback */
} utim_state_t;

/** @brief utim_state_t::in_dispatch while the overflow callback is committed to. */
#define UTIM_STATE_DISPATCH_OVF 2u

/**
 * @brief Define the RAM state of an instance with @p nch channels.
 * @param name identifier of the state object
 * @param nch  channel count (at least 1 so the array is valid C)
 */
#define UTIM_STATE_DEFINE(name, nch)                                                               \
  static utim_chan_state_t name##_ch[(nch) > 0 ? (nch) : 1];                                       \
  static utim_state_t name = {.ch = name##_ch}

/**
 * @brief Common head of every device configuration (const, in flash).
 *
 * A driver's own configuration struct starts with this member, so the core
 * reads clocks and limits here and the driver casts back to its own type.
 */
typedef struct utim_dev {
  utim_state_t *state;             /**< core RAM state of the instance */
  const char *name;                /**< platform name, e.g. "SIM_TIMER16" */
  const utim_clock_desc_t *clocks; /**< clock inputs */
  uint8_t nclocks;                 /**< number of clock inputs */
  uint8_t min_distance;            /**< smallest compare distance honoured, ticks, >= 1 */
  uint16_t reserved;               /**< zero */
} utim_dev_t;

/** @brief Mode of a compare channel for utim_driver_t::set_channel. */
typedef enum utim_ch_mode {
  UTIM_CH_OFF = 0,     /**< disable the channel and drop its pending event */
  UTIM_CH_ONESHOT = 1, /**< match once when the counter reaches @p value */
} utim_ch_mode_t;

/**
 * @brief A driver: at most seven operations in raw ticks.
 *
 * NULL marks an optional operation as absent; the uAPI reports -ENOTSUP.
 */
typedef struct utim_driver {
  /**
   * @brief Stop the counter, set clock input @p clk with divider @p div,
   *        reset the counter to 0, disable every channel and the overflow
   *        interrupt, clear all hardware event flags.
   *
   * @p clk is an input of the instance and @p div belongs to its divider set
   * (utim_clock_desc_t): the core checked both, so the driver only maps them
   * to its registers and never validates them again.
   * @retval 0 success
   * @return another negative errno value when the hardware cannot be set up
   */
  int (*init)(const utim_periph_t *p, unsigned clk, uint32_t div);
  /**
   * @brief Start (@p on) or stop the counter.
   * @retval 0 success
   * @retval -ENOTSUP the counter cannot be stopped
   */
  int (*enable)(const utim_periph_t *p, bool on);
  /** @brief Read the counter (up-counting view, masked to the width). */
  uint64_t (*read)(const utim_periph_t *p);
  /**
   * @brief Write the counter (value already range-checked). Required when
   *        the instance has UTIM_CAP_WRITE (the uAPI tests the capability bit,
   *        not the pointer); NULL or -ENOTSUP otherwise.
   * @retval 0 success
   */
  int (*write)(const utim_periph_t *p, uint64_t value);
  /**
   * @brief Program compare channel @p ch.
   *
   * UTIM_CH_ONESHOT: replace any previous setting; the match raises the
   * channel's event once, after which the driver disables the channel.
   * The driver disables the channel's interrupt, writes the compare, clears
   * the channel's event flag and re-enables the interrupt, in that order, so
   * an old match can never be reported for the new setting. The core checks
   * afterwards whether the counter reached @p value during the call.
   * UTIM_CH_OFF: disable and clear the channel's flag.
   *
   * The core calls it only with @p ch < the instance's channel count and a
   * @p value within the width, so it cannot fail. Required when the instance
   * has channels; NULL on an instance without any.
   */
  void (*set_channel)(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode, uint64_t value);
  /**
   * @brief Read a property (UTIM_HPROP_* or driver-specific). Optional.
   * @retval 0 success
   * @retval -ENOTSUP unknown property
   */
  int (*get_property)(const utim_periph_t *p, unsigned id, uint64_t *value);
  /**
   * @brief Write a property (UTIM_HPROP_* or driver-specific). Optional.
   * @retval 0 success
   * @retval -ENOTSUP unknown property
   * @retval -EINVAL value not accepted
   */
  int (*set_property)(const utim_periph_t *p, unsigned id, uint64_t value);
} utim_driver_t;

/**
 * @brief A timer instance: constant, lives in flash.
 */
struct utim_periph {
  const utim_driver_t *drv; /**< the driver serving this instance */
  const utim_dev_t *dev;    /**< device configuration (starts with utim_dev_t) */
  uint32_t props;           /**< UTIM_PROPS(width, channels, down, caps) */
};

/**
 * @name hAPI properties the core uses on drivers
 * @{
 */
/** @brief Set: 1 enables, 0 disables the overflow interrupt. Required with UTIM_CAP_OVERFLOW. */
#define UTIM_HPROP_OVF_IRQ 0x80u
/**
 * @brief Get: 1 when the hardware has flagged a wrap that its interrupt
 *        handler has not yet serviced. Needed of the low timer of a
 *        software-chained instance (see chain.h).
 */
#define UTIM_HPROP_OVF_PENDING 0x81u
/**
 * @brief Get: the counter's top (it counts 0 .. top). Set: a new top, 1 ..
 *        the width's maximum, checked by the core; restarts the count.
 *        Required with UTIM_CAP_TOP (see UTIM_PROP_TOP).
 */
#define UTIM_HPROP_TOP 0x82u
/** @} */

/**
 * @brief Report hardware events to the core. Called by virtual drivers and
 *        handlers of events no caller arms (a wrap), after the hardware
 *        flags were cleared; takes the port lock. A handler of compare
 *        channels uses utim_core_event_unlock() instead.
 * @param p      the instance
 * @param events UTIM_EVT_CH() and UTIM_EVT_OVF bits
 */
void utim_core_event(const utim_periph_t *p, uint32_t events);

/**
 * @brief utim_core_event() for a handler that holds the port lock from its
 *        read of the flags on: reports @p events under that same lock and
 *        releases it (@p key from utim_port_lock()); the callbacks run after
 *        the release. The order of a compare channel's handler: lock, read
 *        the enabled flags, disable the matched one-shot channels, clear the
 *        flags, then this. No arming from an interrupt of a higher priority
 *        can then fall between the read and the report, where its enable
 *        was cleared and its new setting taken for the old match (the
 *        callback ran early, the setting never fired).
 * @param p      the instance
 * @param events UTIM_EVT_CH() and UTIM_EVT_OVF bits
 * @param key    what utim_port_lock() returned
 */
void utim_core_event_unlock(const utim_periph_t *p, uint32_t events, uint32_t key);

/** @brief A board: its instances, by index. */
typedef struct utim_board {
  const char *name;                      /**< board name, e.g. "sim" */
  const utim_periph_t *const *instances; /**< instance table */
  unsigned count;                        /**< number of instances */
} utim_board_t;

/** @brief The board linked into this program (defined by boards/\<board\>). */
extern const utim_board_t utim_board;

#ifdef __cplusplus
}
#endif

#endif /* UTIM_DRIVER_H */
