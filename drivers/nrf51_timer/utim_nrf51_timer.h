/**
 * @file utim_nrf51_timer.h
 * @brief hAPI driver for the Nordic nRF51 TIMER peripheral (nRF51 Series
 *        Reference Manual v3.0, chapter 18 "Timer/counter").
 *
 * @par Hardware
 * An up-counter of 8, 16, 24 or 32 bits (BITMODE; TIMER1 and TIMER2 of the
 * nRF51 only go to 16 bits), clocked by HFCLK (16 MHz) through a prescaler of
 * 2^0 .. 2^9 (PRESCALER). Four capture/compare registers CC[0..3]: when the
 * counter increments onto CC[n], EVENTS_COMPARE[n] is set and, with
 * INTEN.COMPARE[n], the interrupt line rises. The counter itself cannot be
 * read or written: TASKS_CAPTURE[n] copies it into CC[n], TASKS_CLEAR sets it
 * to 0, TASKS_START / TASKS_STOP run and stop it. There is no overflow event.
 *
 * @par What this driver exposes
 * - Width given by the board (8/16/24/32 -> BITMODE), up-counting natively.
 * - **3 compare channels** (CC[0..2]). CC[3] is reserved for reading the
 *   counter (TASKS_CAPTURE[3], then CC[3]): a capture overwrites its CC, so
 *   the register used for reads can never hold a compare.
 * - **Overflow, only where the board asks for it** (option
 *   UTIM_NRF51_TIMER_OPT_OVF, kept in utim_nrf51_timer_cfg_t::ovf).
 *   The hardware has no overflow event, but a compare register kept at the
 *   view's 0 is one: the counter steps onto 0 exactly when it wraps, and a
 *   compare matches on that increment, never on a clear or a write. Such an
 *   instance gives up CC[2] (UTIM_NRF51_TIMER_OVF_CC) and so has **2
 *   channels** (CC[0..1]), and gains
 *   UTIM_CAP_OVERFLOW: UTIM_HPROP_OVF_IRQ sets or clears INTEN.COMPARE[2]
 *   (disabling also drops the flag; enabling drops a stale one),
 *   UTIM_HPROP_OVF_PENDING reads EVENTS_COMPARE[2] (set at every wrap,
 *   enabled or not), and the interrupt handler reports UTIM_EVT_OVF for it,
 *   leaving that compare armed for the next wrap. CC[2] holds (0 - offset)
 *   mod 2^width, moved with the offset (below) so it stays at the view's 0.
 *   Without the request (the default), channels are worth more than an
 *   overflow: 3 channels, no UTIM_CAP_OVERFLOW, and the driver behaves as if
 *   the feature did not exist. The boards use it for the low half of a
 *   software-chained instance (chain.h), which needs the wrap as an event.
 * - **Write and stop through an offset in RAM.** The up-counting view is
 *   (hardware counter + offset) mod 2^width, with the offset in per-instance
 *   RAM (utim_nrf51_timer_ram_t, 8 bytes). Stopping captures the frozen count,
 *   folds it into the offset and clears the hardware counter; writing stops,
 *   clears and sets the offset to the value; armed compares are moved by the
 *   same amount so they keep their absolute values. TASKS_START is therefore
 *   only ever issued on a counter at 0. This gives UTIM_CAP_WRITE (the
 *   hardware has no counter write) and keeps the stop/start pair exact under
 *   QEMU 7.2, whose TASKS_START resumes a stopped counter of value C at 2C
 *   (hw/timer/nrf51_timer.c: START sets the start time to now - C ticks and
 *   update_counter() then adds every tick since to the stored C).
 * - Caps UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_CAPTURE_READ |
 *   UTIM_CAP_SHARED_IRQ (plus UTIM_CAP_OVERFLOW with the overflow compare);
 *   clock input 0: HFCLK 16 MHz, UTIM_DIV_POW2 0..9.
 * - min_distance: 2 ticks. The reference manual gives no figure; a compare
 *   written one tick ahead works under QEMU but is not guaranteed on silicon.
 *
 * @par Instance (board side)
 * A board defines each TIMER with UTIM_NRF51_TIMER_DEFINE(), naming its
 * platform name, register base, width (BITMODE), options
 * (UTIM_NRF51_TIMER_OPT_OVF or 0) and clock-input table; the macro fills in
 * the channels, direction, capability bits and minimum distance above, and
 * the driver RAM. The board routes the TIMER's interrupt line to
 * utim_nrf51_timer_isr().
 *
 * @par Chaining
 * The real chip can count one TIMER with another (MODE = Counter, TASKS_COUNT
 * driven through PPI by the other's COMPARE event). QEMU 7.2 models no PPI
 * (0x4001F000 is unimplemented I/O in the microbit machine), so this driver
 * offers no chained clock input. Boards chain two TIMERs with the chain
 * driver's software carry instead (chain.h, UTIM_CHAIN_SOFTWARE): the low
 * TIMER with the overflow compare, the high TIMER stopped and written (through
 * the offset) in the low one's overflow interrupt.
 *
 * @par Under emulation
 * The conformance suite runs every instance of the microbit board: reads,
 * write, stop/start, one-shot, periodic, order, clear, re-arm, relative and
 * absolute arming, masks, frequencies (all ten prescalers); the overflow
 * compare through the chained instance built on it (its carries, reads
 * across wraps, compares across wraps). QEMU 7.2 sets a COMPARE event when
 * the counter crosses its CC (hw/timer/nrf51_timer.c: a CC at or below the
 * counter is a full wrap away), which matches the manual for CC = 0.
 *
 * @par Not verified under emulation
 * - The 16 MHz input at prescaler 0 is run, but QEMU converts 62.5 ns ticks
 *   with integer nanoseconds, so its compare timing at 16 MHz is approximate.
 * - TIMER1 and TIMER2 at 8 bits, and the real chip's refusal of 24/32-bit
 *   BITMODE on them: boards expose them at 16 bits (QEMU accepts 32).
 * - The minimum compare distance of silicon (see above).
 */
#ifndef UTIM_NRF51_TIMER_H
#define UTIM_NRF51_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Register overlay of one nRF51 TIMER. */
typedef struct utim_nrf51_timer_regs {
  volatile uint32_t tasks_start;       /**< 0x000 TASKS_START */
  volatile uint32_t tasks_stop;        /**< 0x004 TASKS_STOP */
  volatile uint32_t tasks_count;       /**< 0x008 TASKS_COUNT (counter mode) */
  volatile uint32_t tasks_clear;       /**< 0x00C TASKS_CLEAR */
  volatile uint32_t tasks_shutdown;    /**< 0x010 TASKS_SHUTDOWN */
  volatile uint32_t reserved0[11];     /**< 0x014 */
  volatile uint32_t tasks_capture[4];  /**< 0x040 TASKS_CAPTURE[0..3] */
  volatile uint32_t reserved1[60];     /**< 0x050 */
  volatile uint32_t events_compare[4]; /**< 0x140 EVENTS_COMPARE[0..3] */
  volatile uint32_t reserved2[44];     /**< 0x150 */
  volatile uint32_t shorts;            /**< 0x200 SHORTS */
  volatile uint32_t reserved3[64];     /**< 0x204 */
  volatile uint32_t intenset;          /**< 0x304 INTENSET (read: INTEN) */
  volatile uint32_t intenclr;          /**< 0x308 INTENCLR */
  volatile uint32_t reserved4[126];    /**< 0x30C */
  volatile uint32_t mode;              /**< 0x504 MODE: 0 timer, 1 counter */
  volatile uint32_t bitmode;           /**< 0x508 BITMODE */
  volatile uint32_t reserved5;         /**< 0x50C */
  volatile uint32_t prescaler;         /**< 0x510 PRESCALER, 0..9 */
  volatile uint32_t reserved6[11];     /**< 0x514 */
  volatile uint32_t cc[4];             /**< 0x540 CC[0..3] */
} utim_nrf51_timer_regs_t;

_Static_assert(offsetof(utim_nrf51_timer_regs_t, tasks_capture) == 0x040u, "nRF51 TIMER: CAPTURE");
_Static_assert(offsetof(utim_nrf51_timer_regs_t, events_compare) == 0x140u, "nRF51 TIMER: COMPARE");
_Static_assert(offsetof(utim_nrf51_timer_regs_t, shorts) == 0x200u, "nRF51 TIMER: SHORTS");
_Static_assert(offsetof(utim_nrf51_timer_regs_t, intenset) == 0x304u, "nRF51 TIMER: INTENSET");
_Static_assert(offsetof(utim_nrf51_timer_regs_t, mode) == 0x504u, "nRF51 TIMER: MODE");
_Static_assert(offsetof(utim_nrf51_timer_regs_t, prescaler) == 0x510u, "nRF51 TIMER: PRESCALER");
_Static_assert(offsetof(utim_nrf51_timer_regs_t, cc) == 0x540u, "nRF51 TIMER: CC");

/** @brief Compare channels exposed (CC[0..2]). */
#define UTIM_NRF51_TIMER_CHANNELS 3u
/** @brief Compare channels of an instance with the overflow compare (CC[0..1]). */
#define UTIM_NRF51_TIMER_CHANNELS_OVF 2u
/** @brief The CC register kept at the view's 0 as overflow event, when asked for. */
#define UTIM_NRF51_TIMER_OVF_CC 2u
/** @brief The CC register reserved for counter reads. */
#define UTIM_NRF51_TIMER_CAPTURE_CC 3u
/** @brief INTEN bit of COMPARE[n]. */
#define UTIM_NRF51_TIMER_INT_COMPARE(n) (1u << (16u + (n)))
/** @brief Largest PRESCALER value (divider 2^9). */
#define UTIM_NRF51_TIMER_PRESCALER_MAX 9u
/** @brief Smallest compare distance of an instance, in ticks (see the file comment). */
#define UTIM_NRF51_TIMER_MIN_DISTANCE 2u
/** @brief Clock inputs of a TIMER: HFCLK alone (the divider is 2^PRESCALER). */
#define UTIM_NRF51_TIMER_CLOCKS 1u
/** @brief Option of UTIM_NRF51_TIMER_DEFINE(): CC[2] is the overflow compare (file comment). */
#define UTIM_NRF51_TIMER_OPT_OVF 1u
/** @brief 1 when the options @p opts ask for the overflow compare, else 0. */
#define UTIM_NRF51_TIMER_HAS_OVF(opts) (((opts)&UTIM_NRF51_TIMER_OPT_OVF) != 0u)
/** @brief Capability bits of every TIMER instance (UTIM_CAP_OVERFLOW comes with the option). */
#define UTIM_NRF51_TIMER_CAPS                                                                      \
  (UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_CAPTURE_READ | UTIM_CAP_SHARED_IRQ)
/** @brief BITMODE value of each width: 16, 8, 24, 32 bits. */
#define UTIM_NRF51_TIMER_BITMODE_16 0u
/** @brief BITMODE: 8 bits. */
#define UTIM_NRF51_TIMER_BITMODE_08 1u
/** @brief BITMODE: 24 bits. */
#define UTIM_NRF51_TIMER_BITMODE_24 2u
/** @brief BITMODE: 32 bits. */
#define UTIM_NRF51_TIMER_BITMODE_32 3u

/**
 * @brief Driver RAM of one instance (8 bytes): the offset of the up-counting
 *        view over the hardware counter, and whether the counter runs.
 *        Zero-initialised; UTIM_NRF51_TIMER_DEFINE() defines it.
 */
typedef struct utim_nrf51_timer_ram {
  volatile uint32_t offset; /**< view = (hardware counter + offset) mod 2^width */
  uint8_t running;          /**< 1 between enable(true) and enable(false) */
  uint8_t pad[3];           /**< zero */
} utim_nrf51_timer_ram_t;

/** @brief Device configuration of one nRF51 TIMER instance (const, in flash). */
typedef struct utim_nrf51_timer_cfg {
  utim_dev_t common;             /**< common head; must be first */
  utim_nrf51_timer_regs_t *regs; /**< register base */
  utim_nrf51_timer_ram_t *ram;   /**< driver RAM of this instance */
  /**
   * Nonzero (option UTIM_NRF51_TIMER_OPT_OVF): CC[UTIM_NRF51_TIMER_OVF_CC] is
   * the overflow compare (see the file's description); the instance then has
   * UTIM_NRF51_TIMER_CHANNELS_OVF channels and UTIM_CAP_OVERFLOW. Zero: 3
   * channels, no overflow.
   */
  uint8_t ovf;
} utim_nrf51_timer_cfg_t;

/** @brief The nRF51 TIMER driver. */
extern const utim_driver_t utim_nrf51_timer_driver;

/**
 * @brief Define instance @p n_ (`static const utim_periph_t`) of an nRF51
 *        TIMER, with its RAM state, driver RAM and configuration. Also
 *        defines `n_##_WIDTH`, `n_##_CHANNELS` and `n_##_MIN_DISTANCE`.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "NRF51_TIMER0"
 * @param base_   register base address
 * @param width_  8, 16, 24 or 32 (BITMODE; the nRF51's TIMER1 and TIMER2 take 8 or 16)
 * @param opts_   UTIM_NRF51_TIMER_OPT_OVF for the overflow compare, else 0
 * @param clocks_ its clock-input table: one input, HFCLK, with UTIM_DIV_POW2
 *                exponents within 0 .. UTIM_NRF51_TIMER_PRESCALER_MAX
 *
 * The parameters end in _ so that they cannot replace the field names of
 * the designated initializers.
 */
#define UTIM_NRF51_TIMER_DEFINE(n_, pname_, base_, width_, opts_, clocks_)                         \
  _Static_assert((width_) == 8 || (width_) == 16 || (width_) == 24 || (width_) == 32,              \
                 pname_ ": BITMODE gives 8, 16, 24 or 32 bits");                                   \
  _Static_assert(((opts_) & ~UTIM_NRF51_TIMER_OPT_OVF) == 0u, pname_ ": unknown option");          \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) == UTIM_NRF51_TIMER_CLOCKS,                \
                 pname_ ": a TIMER has one clock input, HFCLK");                                   \
  enum {                                                                                           \
    n_##_WIDTH = (width_),                                                                         \
    n_##_CHANNELS = UTIM_NRF51_TIMER_HAS_OVF(opts_) ? UTIM_NRF51_TIMER_CHANNELS_OVF                \
                                                    : UTIM_NRF51_TIMER_CHANNELS,                   \
    n_##_MIN_DISTANCE = UTIM_NRF51_TIMER_MIN_DISTANCE                                              \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, n_##_CHANNELS);                                                    \
  static utim_nrf51_timer_ram_t n_##_ram;                                                          \
  static const utim_nrf51_timer_cfg_t n_##_cfg = {                                                 \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = UTIM_NRF51_TIMER_CLOCKS,                                               \
                 .min_distance = UTIM_NRF51_TIMER_MIN_DISTANCE},                                   \
      .regs = (utim_nrf51_timer_regs_t *)(base_),                                                  \
      .ram = &n_##_ram,                                                                            \
      .ovf = UTIM_NRF51_TIMER_HAS_OVF(opts_) ? 1u : 0u};                                           \
  static const utim_periph_t n_ = {                                                                \
      .drv = &utim_nrf51_timer_driver,                                                             \
      .dev = &n_##_cfg.common,                                                                     \
      .props = UTIM_PROPS(width_, n_##_CHANNELS, 0,                                                \
                          UTIM_NRF51_TIMER_CAPS |                                                  \
                              (UTIM_NRF51_TIMER_HAS_OVF(opts_) ? UTIM_CAP_OVERFLOW : 0u))}

/**
 * @brief Dispatcher of an nRF51 TIMER's interrupt line.
 * @param p the instance on that line
 */
void utim_nrf51_timer_isr(const utim_periph_t *p);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NRF51_TIMER_H */
