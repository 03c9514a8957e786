/**
 * @file cmsis_os2_cortexm.h
 * @brief The bare-metal binding of the CMSIS-RTOS2 time services
 *        (utim/cmsis_os2.h) on the Cortex-M boards: one thread (main), no
 *        kernel.
 *
 * - Timer context: the PendSV exception at the lowest priority. The
 *   manager's interrupt queues each expiry (UTIM_OS2_CORTEXM_QUEUE entries)
 *   and pends PendSV; its handler runs the callbacks in order as soon as no
 *   other exception is active, preempting main, as RTX5's timer thread
 *   preempts application threads. A callback is not "in an interrupt" for
 *   the standard: it may start, stop and delete timers. The program must not
 *   use PendSV for anything else (this binding defines cortexm_pendsv()).
 * - Delays: a one-shot of the manager at the deadline and WFI with
 *   interrupts masked around the check (the wake-up cannot be lost), as the
 *   precise sleep's coarse phase does on these boards (boards/cortexm/
 *   sleep_mcu.c), on the manager's own channel so delays and timers share
 *   one time line and one tick grid. The core is halted for the whole
 *   delay but for the interrupts that come. When the delay returns, every
 *   timer due by its end has had its callback run (PendSV runs before
 *   thread mode resumes). A callback that delays halts main meanwhile. A
 *   delay with interrupts masked (PRIMASK set: the port's lock held) could
 *   never end: osDelay() and osDelayUntil() return osError at once.
 * - "In an interrupt": any exception but the binding's PendSV (IPSR).
 * - The lock: the port's (PRIMASK).
 */
#ifndef UTIM_CMSIS_OS2_CORTEXM_H
#define UTIM_CMSIS_OS2_CORTEXM_H

#include <stdint.h>

#include "utim/cmsis_os2.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Expiries the timer context's queue holds before one is lost. */
#ifndef UTIM_OS2_CORTEXM_QUEUE
#define UTIM_OS2_CORTEXM_QUEUE 16u
#endif

/** @brief The binding's counters, for tests and reports. */
typedef struct utim_os2_cortexm_info {
  uint32_t callbacks; /**< callbacks the timer context ran */
  uint32_t pendsv;    /**< PendSV handler runs */
  uint32_t delays;    /**< delays completed */
  uint32_t wfi;       /**< WFI executed in delays */
} utim_os2_cortexm_info_t;

/**
 * @brief Set up the time services (utim_os2_init()) on the running
 *        manager @p tm, whose counter counts at @p sys_hz, with a kernel
 *        tick of @p tick_hz, and set PendSV to the lowest priority. Call
 *        from main; again to change the manager or the tick.
 * @retval 0 done
 * @retval -EINVAL as utim_os2_init(); nothing changed (PendSV's priority
 *         neither)
 */
int utim_os2_cortexm_start(utim_tm_t *tm, uint32_t sys_hz, uint32_t tick_hz);

/** @brief The binding's counters. */
utim_os2_cortexm_info_t utim_os2_cortexm_info(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CMSIS_OS2_CORTEXM_H */
