/**
 * @file utim_native_alarm.h
 * @brief hAPI driver for an emulated alarm timer on a Linux host: a 64-bit
 *        up-counter on CLOCK_MONOTONIC with compare channels and an overflow
 *        interrupt, whose interrupts the board's interrupt thread takes.
 *
 * The "hardware" is a few words of RAM (utim_native_alarm_rt_t):
 * - the counter is `E + adj` modulo 2^64, where E counts ticks of the
 *   chosen divider since utim_init() while the timer runs (it freezes while
 *   stopped) and adj is what writes add;
 * - a compare channel holds the value E will have when the counter steps
 *   onto the compare value; a write recomputes it from the new counter, so
 *   compares stay absolute counter values across writes;
 * - the overflow is the E value at which the counter steps from 2^64 - 1 to 0;
 * - a compare or a wrap the counter has reached stays flagged until the
 *   handler reports it, as a hardware event flag: a write moves only the
 *   matches still to come.
 *
 * The "interrupt line" is a utim_native_line_t (utim_native_line.h) the
 * board attaches. The board's interrupt thread, with the port lock held
 * (utim/port.h), calls utim_native_alarm_irq(): the handler
 * utim_native_alarm_isr(), the interrupt context of this timer, which
 * reports what is due, then the clock time of the next event. Without the
 * lock, the thread sleeps on the line until that time (the kernel's
 * high-resolution timer wakes it at the exact nanosecond of the tick edge)
 * or spins the last stretch. An operation that moves the earliest event
 * before the time the thread sleeps to raises the line, which wakes it to
 * look again. The handler compares E with the enabled channels, so an event
 * can never be reported before the counter reached its value, however early
 * or late a thread runs it; running it when nothing is due is harmless.
 *
 * Limits: the kernel wakes the interrupt thread tens of microseconds after
 * the deadline on a virtual machine (a few on bare metal), and moving the
 * earliest event earlier costs a system call (the raise) of one to several
 * microseconds. A board should offer no tick shorter than that (the native
 * board measures it). The minimum compare distance is 1 tick: a compare the
 * counter reaches while it is being written is seen by the core's check
 * after set_channel, and one in the past fires at once, so none is lost.
 *
 * utim_read() is lock-free (utim_seqlock.h over the time base). enable,
 * write and get_property take the port lock themselves, because the uAPI
 * calls them without it.
 */
#ifndef UTIM_NATIVE_ALARM_H
#define UTIM_NATIVE_ALARM_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/utim.h"
#include "utim_native_line.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Compare channels of a native alarm instance. */
#define UTIM_NATIVE_ALARM_CHANNELS 4u

/**
 * @brief Run-time state ("registers") of one alarm instance, in RAM.
 *
 * The time base (first block) is written under the port lock and read
 * lock-free through the sequence count @c seq (utim_seqlock.h); @c next_ns
 * is read lock-free with atomic loads; the rest is used under the port lock
 * only. Initialise with UTIM_NATIVE_ALARM_RT_INIT.
 */
typedef struct utim_native_alarm_rt {
  uint32_t seq;     /**< sequence count of the time base (odd while written) */
  uint32_t running; /**< 1 while counting */
  uint64_t base_ns; /**< clock time at which E was e_base (meaningful while running) */
  uint64_t e_base;  /**< E at base_ns; E itself while stopped */
  uint64_t adj;     /**< counter = E + adj (mod 2^64) */
  uint64_t div;     /**< clock ns per tick, 0 before utim_init() */
  uint64_t cmp[UTIM_NATIVE_ALARM_CHANNELS];   /**< compare values (counter domain) */
  uint64_t match[UTIM_NATIVE_ALARM_CHANNELS]; /**< E at which each compare matches */
  uint64_t wrap_e;          /**< E of the next overflow while its interrupt is on */
  uint32_t enabled;         /**< channels whose compare interrupt is on */
  uint32_t ovf_on;          /**< 1 while the overflow interrupt is on */
  int64_t armed_ns;         /**< deadline the interrupt thread is prepared for, -1: none */
  uint32_t raise_pending;   /**< raised, and the interrupt thread has not looked since */
  uint32_t ovf_due;         /**< 1: a wrap reached before a counter write, not yet reported */
  utim_native_line_t *line; /**< the interrupt line, NULL before utim_native_alarm_attach() */
  int64_t next_ns;     /**< earliest event's clock time or earlier, INT64_MAX: none (lock-free) */
  uint64_t isr_runs;   /**< handler runs */
  uint64_t isr_events; /**< handler runs that reported events */
} utim_native_alarm_rt_t;

/** @brief Static initialiser of utim_native_alarm_rt_t. */
#define UTIM_NATIVE_ALARM_RT_INIT                                                                  \
  { .armed_ns = -1, .next_ns = INT64_MAX }

/** @brief Device configuration of a native alarm instance. */
typedef struct utim_native_alarm_cfg {
  utim_dev_t common;          /**< common head; must be first */
  utim_native_alarm_rt_t *rt; /**< run-time state */
} utim_native_alarm_cfg_t;

/** @brief The native alarm driver. */
extern const utim_driver_t utim_native_alarm_driver;

/** @brief Counter width of a native alarm instance, bits. */
#define UTIM_NATIVE_ALARM_WIDTH 64
/** @brief Minimum compare distance of a native alarm instance, ticks (see the file comment). */
#define UTIM_NATIVE_ALARM_MIN_DISTANCE 1
/** @brief Capability bits of a native alarm instance. */
#define UTIM_NATIVE_ALARM_CAPS                                                                     \
  (UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_EMULATED)

/**
 * @brief Define a native alarm instance: `static const utim_periph_t inst`
 *        with its core state, run-time state and configuration, and
 *        `enum { inst##_WIDTH, inst##_CHANNELS, inst##_MIN_DISTANCE }`.
 *
 * Width, channels, direction, capabilities and minimum distance come from
 * the driver; the board names its platform name and clock inputs, and
 * routes the interrupt with utim_native_alarm_attach().
 * @param inst   identifier of the instance
 * @param pname  platform name string, e.g. "NATIVE_ALARM"
 * @param clk_table identifier of the clock-input array (utim_clock_desc_t[]) whose
 *               inputs run at 1 GHz or a divisor of it (ns of CLOCK_MONOTONIC)
 */
#define UTIM_NATIVE_ALARM_DEFINE(inst, pname, clk_table)                                           \
  _Static_assert(sizeof(clk_table) / sizeof((clk_table)[0]) >= 1u, #inst ": a clock input");       \
  enum {                                                                                           \
    inst##_WIDTH = UTIM_NATIVE_ALARM_WIDTH,                                                        \
    inst##_CHANNELS = UTIM_NATIVE_ALARM_CHANNELS,                                                  \
    inst##_MIN_DISTANCE = UTIM_NATIVE_ALARM_MIN_DISTANCE                                           \
  };                                                                                               \
  UTIM_STATE_DEFINE(inst##_state, UTIM_NATIVE_ALARM_CHANNELS);                                     \
  static utim_native_alarm_rt_t inst##_rt = UTIM_NATIVE_ALARM_RT_INIT;                             \
  static const utim_native_alarm_cfg_t inst##_cfg = {                                              \
      .common = {.state = &inst##_state,                                                           \
                 .name = (pname),                                                                  \
                 .clocks = (clk_table),                                                            \
                 .nclocks = (uint8_t)(sizeof(clk_table) / sizeof((clk_table)[0])),                 \
                 .min_distance = UTIM_NATIVE_ALARM_MIN_DISTANCE},                                  \
      .rt = &inst##_rt};                                                                           \
  static const utim_periph_t inst = {.drv = &utim_native_alarm_driver,                             \
                                     .dev = &inst##_cfg.common,                                    \
                                     .props = UTIM_PROPS(UTIM_NATIVE_ALARM_WIDTH,                  \
                                                         UTIM_NATIVE_ALARM_CHANNELS, 0,            \
                                                         UTIM_NATIVE_ALARM_CAPS)}

/**
 * @brief Route the instance's interrupt to @p line (the board's interrupt
 *        thread waits on it). Without a line the alarm still counts, and its
 *        events are delivered whenever some thread runs
 *        utim_native_alarm_isr().
 * @param p    a native alarm instance
 * @param line the line its next-event changes raise
 */
void utim_native_alarm_attach(const utim_periph_t *p, utim_native_line_t *line);

/**
 * @brief Interrupt handler: report every enabled compare the counter has
 *        reached and a due overflow to utim_core_event(), disabling the
 *        matched one-shot compares first; raise the line when the next event
 *        moved earlier than the interrupt thread is prepared for.
 *
 * Call with the port lock held (utim_port_lock()), from the interrupt thread
 * (through utim_native_alarm_irq()) or from any thread that wants due
 * interrupts taken now. Harmless when nothing is due.
 */
void utim_native_alarm_isr(const utim_periph_t *p);

/**
 * @brief Lock-free check whether the handler may have something to report:
 *        the clock has reached the earliest event (or a conservative, earlier
 *        estimate of it). Lets a polling thread skip the port lock until then.
 */
bool utim_native_alarm_due(const utim_periph_t *p);

/**
 * @brief The interrupt thread's entry, with the port lock held:
 *        utim_native_alarm_isr(), then the deadline of the next event.
 *        Only for the one thread that waits on the line; from now on, an
 *        operation that moves the next event earlier than the returned
 *        deadline raises the line.
 * @return the CLOCK_MONOTONIC time (ns) of the next event, -1 when none is pending
 */
int64_t utim_native_alarm_irq(const utim_periph_t *p);

/**
 * @brief Lock-free: the clock time (ns) of the next event or an earlier
 *        estimate, INT64_MAX when none. For the interrupt thread spinning
 *        towards a deadline, to notice re-arming without a system call.
 */
int64_t utim_native_alarm_next(const utim_periph_t *p);

/** @brief Driver property (get): the clock's raw value now, in ns. */
#define UTIM_NATIVE_ALARM_PROP_CLOCK_NS (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): handler runs so far (utim_native_alarm_isr()). */
#define UTIM_NATIVE_ALARM_PROP_ISR_RUNS (UTIM_PROP_DRIVER_BASE + 1u)
/** @brief Driver property (get): handler runs that reported at least one event. */
#define UTIM_NATIVE_ALARM_PROP_ISR_EVENTS (UTIM_PROP_DRIVER_BASE + 2u)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_ALARM_H */
