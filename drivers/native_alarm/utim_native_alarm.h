/**
 * @file utim_native_alarm.h
 * @brief hAPI driver for an emulated alarm timer on a Linux host: a 64-bit
 *        up-counter on a clock_gettime() clock with compare channels and an
 *        overflow interrupt, driven by a timerfd (TFD_TIMER_ABSTIME).
 *
 * The "hardware" is a few words of RAM (utim_native_alarm_rt_t):
 * - the counter is `E + adj` modulo 2^64, where E counts ticks of the
 *   chosen divider since utim_init() while the timer runs (it freezes while
 *   stopped) and adj is what writes add;
 * - a compare channel holds the value E will have when the counter steps
 *   onto the compare value; a write recomputes it from the new counter, so
 *   compares stay absolute counter values across writes;
 * - the overflow is the E value at which the counter steps from 2^64 - 1 to 0.
 *
 * The timerfd holds the clock time of the earliest enabled compare or
 * overflow. Its "interrupt line" is the file descriptor: the board's
 * interrupt thread waits on it (and on the kick eventfd), then, with the
 * port lock held (utim/port.h), calls utim_native_alarm_irq(): the handler
 * utim_native_alarm_isr(), the interrupt context of this timer, which
 * returns the next deadline; the thread then spins towards it or, without
 * the lock, programs the timerfd with utim_native_alarm_arm(). Only
 * that thread programs the timerfd, so the kernel timer fires on its CPU;
 * an operation that moves the earliest event earlier only kicks it. The
 * handler compares E with the enabled channels, so an event can never be
 * reported before the counter reached its value, however early or late a
 * thread runs it; running it when nothing is due is harmless.
 *
 * Limits: the kernel timer behind the compares wakes the interrupt thread
 * tens of microseconds after the deadline, and moving the earliest event
 * earlier costs a system call (the kick) of one to several microseconds. A
 * board should offer no tick shorter than that (the native board measures
 * it). The minimum compare distance is 1 tick: a compare the counter
 * reaches while it is being written is seen by the core's check after
 * set_channel, and one in the past fires at once, so none is lost.
 *
 * utim_read() is lock-free (a sequence lock over the time base). enable and
 * write take the port lock themselves, because the uAPI calls them without it.
 */
#ifndef UTIM_NATIVE_ALARM_H
#define UTIM_NATIVE_ALARM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Compare channels of a native alarm instance. */
#define UTIM_NATIVE_ALARM_CHANNELS 4u

/**
 * @brief Run-time state ("registers") of one alarm instance, in RAM.
 *
 * The time base (first block) is written under the port lock and read
 * lock-free through @c seq; the rest is used under the port lock only.
 * Initialise with UTIM_NATIVE_ALARM_RT_INIT.
 */
typedef struct utim_native_alarm_rt {
  atomic_uint seq;          /**< sequence lock of the time base (odd while written) */
  _Atomic uint64_t base_ns; /**< clock time at which E was e_base (meaningful while running) */
  _Atomic uint64_t e_base;  /**< E at base_ns; E itself while stopped */
  _Atomic uint64_t adj;     /**< counter = E + adj (mod 2^64) */
  _Atomic uint64_t div;     /**< clock ns per tick, 0 before utim_init() */
  atomic_uint running;      /**< 1 while counting */
  uint64_t cmp[UTIM_NATIVE_ALARM_CHANNELS];   /**< compare values (counter domain) */
  uint64_t match[UTIM_NATIVE_ALARM_CHANNELS]; /**< E at which each compare matches */
  uint64_t wrap_e;       /**< E of the next overflow while its interrupt is on */
  uint32_t enabled;      /**< channels whose compare interrupt is on */
  uint32_t ovf_on;       /**< 1 while the overflow interrupt is on */
  int64_t armed_ns;      /**< deadline the timerfd holds, -1 when disarmed (interrupt thread) */
  uint32_t kick_pending; /**< a kick was sent and the interrupt thread has not programmed since */
  int fd;                /**< the timerfd, -1 before utim_native_alarm_attach() */
  int kick_fd;           /**< eventfd that asks the interrupt thread to re-program, -1 before */
  _Atomic int64_t
      next_ns;         /**< earliest event's clock time or earlier, INT64_MAX: none (lock-free) */
  uint64_t isr_runs;   /**< handler runs */
  uint64_t isr_events; /**< handler runs that reported events */
} utim_native_alarm_rt_t;

/** @brief Static initialiser of utim_native_alarm_rt_t. */
#define UTIM_NATIVE_ALARM_RT_INIT                                                                  \
  { .armed_ns = -1, .fd = -1, .kick_fd = -1, .next_ns = INT64_MAX }

/** @brief Device configuration of a native alarm instance. */
typedef struct utim_native_alarm_cfg {
  utim_dev_t common;          /**< common head; must be first */
  utim_native_alarm_rt_t *rt; /**< run-time state */
  int clock_id;               /**< clockid_t the counter and the timerfd use (CLOCK_MONOTONIC) */
} utim_native_alarm_cfg_t;

/** @brief The native alarm driver. */
extern const utim_driver_t utim_native_alarm_driver;

/**
 * @brief Create the instance's timerfd (its interrupt line) and kick
 *        eventfd (UTIM_NATIVE_ALARM_PROP_FD, UTIM_NATIVE_ALARM_PROP_KICK_FD).
 *        Idempotent. Without them the alarm still counts, and its events are
 *        delivered whenever some thread runs utim_native_alarm_isr().
 * @retval 0 attached
 * @return a negative errno value when the kernel refused
 */
int utim_native_alarm_attach(const utim_periph_t *p);

/**
 * @brief Interrupt handler: report every enabled compare the counter has
 *        reached and a due overflow to utim_core_event(), disabling the
 *        matched one-shot compares first; kick the interrupt thread when the
 *        next event moved earlier than it is prepared for.
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
 *        Only for the one thread that waits on the timerfd and the kick
 *        eventfd; from now on, an operation that moves the next event
 *        earlier than the returned deadline kicks that thread.
 * @return the clock time (ns) of the next event, -1 when none is pending
 */
int64_t utim_native_alarm_irq(const utim_periph_t *p);

/**
 * @brief Lock-free: the clock time (ns) of the next event or an earlier
 *        estimate, INT64_MAX when none. For the interrupt thread spinning
 *        towards a deadline, to notice re-arming without a system call.
 */
int64_t utim_native_alarm_next(const utim_periph_t *p);

/**
 * @brief Program the timerfd to fire at @p wake_ns (CLOCK ns; <= 0
 *        disarms), without the port lock held: the system call costs
 *        microseconds (a hypervisor trap in a virtual machine), which no
 *        thread should wait for on the lock. Interrupt thread only: the
 *        kernel timer fires on the CPU that programs it.
 */
void utim_native_alarm_arm(const utim_periph_t *p, int64_t wake_ns);

/** @brief Driver property (get): the clock's raw value now, in ns. */
#define UTIM_NATIVE_ALARM_PROP_CLOCK_NS (UTIM_PROP_DRIVER_BASE + 0u)
/** @brief Driver property (get): handler runs so far (utim_native_alarm_isr()). */
#define UTIM_NATIVE_ALARM_PROP_ISR_RUNS (UTIM_PROP_DRIVER_BASE + 1u)
/** @brief Driver property (get): handler runs that reported at least one event. */
#define UTIM_NATIVE_ALARM_PROP_ISR_EVENTS (UTIM_PROP_DRIVER_BASE + 2u)
/** @brief Driver property (get): the timerfd (the interrupt line), -1 before attach. */
#define UTIM_NATIVE_ALARM_PROP_FD (UTIM_PROP_DRIVER_BASE + 3u)
/** @brief Driver property (get): the kick eventfd (readable: re-program), -1 before attach. */
#define UTIM_NATIVE_ALARM_PROP_KICK_FD (UTIM_PROP_DRIVER_BASE + 4u)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_ALARM_H */
