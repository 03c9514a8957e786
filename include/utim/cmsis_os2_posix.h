/**
 * @file cmsis_os2_posix.h
 * @brief The POSIX-threads binding of the CMSIS-RTOS2 time services
 *        (utim/cmsis_os2.h) on Linux, over the native board.
 *
 * - Timer context: a timer thread, like RTX5's osRtxTimerThread, created by
 *   utim_os2_posix_start() with SCHED_FIFO at UTIM_OS2_POSIX_PRIORITY
 *   (below the board's interrupt thread) where permitted, else a normal
 *   thread (utim_os2_posix_info() says which and why). The manager's
 *   interrupt hands each expiry to it through a queue of
 *   UTIM_OS2_POSIX_QUEUE entries and a semaphore; the thread runs the
 *   callbacks in order.
 * - Delays: the calling thread sleeps with utim's precise sleep
 *   (utim_sleep_until(): a kernel sleep, then a short spin) to one count of
 *   the manager's counter before the deadline, converted to the utim_now()
 *   time line (a count read may be up to one old), then watches the
 *   manager's time for the last count. Then it takes the expiries due by then at once
 *   (native_irq_service()) and waits until the timer thread has run every
 *   callback handed to it so far: when osDelay() returns, the callbacks of
 *   the timers that expired up to its end have run, as under a kernel whose
 *   timer thread has the higher priority. A callback that delays does not
 *   wait for its own thread, and while it delays the other threads' delays
 *   do not wait for it (a kernel's timer thread that blocks lets them run;
 *   the callbacks queued after it wait). A delay with the port's lock held (the
 *   interrupts masked) could never end: osDelay() and osDelayUntil()
 *   return osError at once.
 * - "In an interrupt": utim_port_in_isr() (the board's interrupt thread or a
 *   handler pass of native_irq_service()).
 * - The lock: the port's (utim_port_lock(), a recursive mutex).
 *
 * One instance per process: the CMSIS layer's state is global.
 */
#ifndef UTIM_CMSIS_OS2_POSIX_H
#define UTIM_CMSIS_OS2_POSIX_H

#include <stdint.h>

#include "utim/cmsis_os2.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Expiries the timer thread's queue holds before one is lost. */
#ifndef UTIM_OS2_POSIX_QUEUE
#define UTIM_OS2_POSIX_QUEUE 64u
#endif

/** @brief SCHED_FIFO priority of the timer thread (the board's interrupt thread has 80). */
#ifndef UTIM_OS2_POSIX_PRIORITY
#define UTIM_OS2_POSIX_PRIORITY 70
#endif

/** @brief The binding's state, for reports. */
typedef struct utim_os2_posix_info {
  int running;        /**< 1 while the timer thread runs */
  int fifo;           /**< 1 when the timer thread got SCHED_FIFO */
  int fifo_error;     /**< errno of the refused SCHED_FIFO request, 0 when granted */
  uint64_t callbacks; /**< callbacks the timer thread ran (dropped ones not counted) */
  uint64_t delays;    /**< delays completed */
  uint64_t resleeps;  /**< extra precise sleeps because the manager's time lagged the sleep's */
} utim_os2_posix_info_t;

/**
 * @brief Start the timer thread and set up the time services
 *        (utim_os2_init()) on the running manager @p tm, whose counter
 *        counts at @p sys_hz, with a kernel tick of @p tick_hz.
 * @retval 0 started
 * @retval -EINVAL as utim_os2_init()
 * @retval -EBUSY already started
 * @return another negative errno when the thread or its semaphore cannot be made
 */
int utim_os2_posix_start(utim_tm_t *tm, uint32_t sys_hz, uint32_t tick_hz);

/**
 * @brief Stop the timer thread (callbacks still queued are not run). The
 *        timers keep their state; call utim_os2_posix_start() again to go on.
 *        Not from a timer callback (the timer thread cannot end itself).
 * @retval 0 stopped
 * @retval -ESRCH not started
 * @retval -EDEADLK called from a timer callback; nothing changed
 */
int utim_os2_posix_stop(void);

/** @brief The binding's state and counters. */
utim_os2_posix_info_t utim_os2_posix_info(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CMSIS_OS2_POSIX_H */
