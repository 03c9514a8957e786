/**
 * @file tm_htm.h
 * @brief The time manager's task delays on the hardware time manager block
 *        (drivers/htm, hw/htm): the same interface as utim_tm_tasks_init()'s
 *        (utim_tm_task_delay(), utim_tm_task_clear(), utim_tm_tasks_to_wake(),
 *        utim_tm_tasks_now(), utim_tm_tasks_set_time(), the wake hook), with
 *        the delays counted and compared by the block instead of the
 *        manager's timers.
 *
 * The block's time base is the tick (a delay of d ticks ends at the d-th
 * tick of the block after the call, exactly, never early); its interrupt
 * handler calls utim_tm_tasks_htm_isr(), which sets the wake bits and calls
 * the hook (with a NULL manager). A board wires the block's interrupt line
 * to that call.
 */
#ifndef UTIM_TM_HTM_H
#define UTIM_TM_HTM_H

#include "utim/tm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The block, as its driver declares it (drivers/htm/utim_htm.h). */
struct utim_htm;

/**
 * @brief Set up task delays for @p n task ids on the HTM block @p h: probes
 *        it, cancels every delay, acknowledges every wake and enables its
 *        interrupt.
 * @param ts   the task table
 * @param h    the block
 * @param wake UTIM_TM_TASK_WORDS(@p n) words (cleared here)
 * @param n    task ids 0 .. n - 1, at most the block's task slots
 * @param hook called when a delay ends (its manager argument NULL), or NULL
 * @param arg  its argument
 * @retval 0 done
 * @retval -EINVAL a NULL pointer, @p n 0 or more than the block's slots
 * @retval -ENODEV no HTM block answers at @p h
 */
int utim_tm_tasks_init_htm(utim_tm_tasks_t *ts, const struct utim_htm *h, uint32_t *wake,
                           unsigned n, utim_tm_wake_fn hook, void *arg);

/**
 * @brief The block's interrupt: takes its wake bits (acknowledging them),
 *        sets them in the task table and calls the hook once per id. Call
 *        it from the block's interrupt handler.
 * @param ts the task table set up by utim_tm_tasks_init_htm()
 */
void utim_tm_tasks_htm_isr(utim_tm_tasks_t *ts);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TM_HTM_H */
