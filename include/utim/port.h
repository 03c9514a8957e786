/**
 * @file port.h
 * @brief Every hook a port (sim, native, an MCU) provides to the core, and
 *        the little the core offers ports in return.
 *
 * The core brackets every compound operation with utim_port_lock() /
 * utim_port_unlock() so that no timer interrupt handler of the port runs in
 * between, and calls utim_port_relax() in its bounded busy-waits. The
 * precise sleep (utim/time.h) runs on the port's time line and coarse sleep.
 * One port is linked into a program, together with its board (the board's
 * instance table, utim_board, is declared in utim/driver.h).
 */
#ifndef UTIM_PORT_H
#define UTIM_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Keep timer interrupt handlers from running until the matching
 *        utim_port_unlock(). Nests.
 * @return a key to hand to utim_port_unlock()
 */
uint32_t utim_port_lock(void);

/**
 * @brief Undo the matching utim_port_lock(); interrupts that became pending
 *        meanwhile run when the outermost lock is released.
 * @param key the value the matching utim_port_lock() returned
 */
void utim_port_unlock(uint32_t key);

/**
 * @brief Called in each iteration of a busy-wait on the counter
 *        (a pause instruction on a CPU; virtual time passes on sim).
 */
void utim_port_relax(void);

/**
 * @brief Port hook: whether the caller runs in a timer interrupt handler of
 *        the port (an exception on an MCU, the simulated CPU's handler on
 *        sim, the interrupt thread's handler pass on Linux), where callbacks
 *        run. What a kernel binding answers "am I in an interrupt" with.
 */
bool utim_port_in_isr(void);

/**
 * @brief Port hook: the current time in ns on the port's monotonic time
 *        line (utim_now() on Linux). Callable from any thread.
 */
utim_ns_t utim_port_now_ns(void);

/**
 * @brief Port hook: coarse, CPU-free sleep of the calling thread until
 *        utim_port_now_ns() >= @p t.
 *
 * Contract (what the sleep algorithm relies on):
 * - It may return late by any amount (that is what the margin absorbs);
 *   the algorithm measures how late with utim_port_now_ns().
 * - It may return early (a signal, a spurious wake-up, another interrupt
 *   that woke the core from WFI): return -EINTR, or 0, and the algorithm
 *   sleeps again.
 * - It returns at once when @p t has passed.
 * - An MCU port implements it with an alarm on a timer channel at the tick
 *   for @p t (utim_ns_to_ticks_ceil()) and WFI until that alarm's interrupt
 *   has run; a port without such a timer returns -ENOTSUP and the sleep
 *   spins all the way.
 * @retval 0 woke (at or after @p t, or early: the caller checks)
 * @retval -EINTR woke early
 * @retval -ENOTSUP no coarse sleep on this port
 */
int utim_port_block_until(utim_ns_t t);

/**
 * @brief Port hook: CPU time consumed by the calling thread, in ns.
 * @return the CPU time, or -ENOTSUP when the port cannot tell
 */
int64_t utim_port_cpu_ns(void);

/**
 * @brief Port hook: the sleeper of the calling thread (one per thread on
 *        Linux, one for the main context on an MCU), set up on first use with
 *        utim_port_sleeper_setup().
 * @return the sleeper, or NULL when it cannot be set up
 */
utim_sleeper_t *utim_port_sleeper(void);

/* ---- what the core offers ports --------------------------------------------- */

/**
 * @brief The sleep hooks of the port (utim_port_now_ns(),
 *        utim_port_block_until(), utim_port_cpu_ns(), utim_port_relax()),
 *        as the ops of a sleeper.
 */
extern const utim_sleep_ops_t utim_port_sleep_ops;

/**
 * @brief The one set-up of a port's sleeper, for utim_port_sleeper(): on the
 *        first call (*@p ready false), initialise @p s with utim_port_sleep_ops
 *        and the default tuning and learn the coarse sleep's wake-up latency
 *        with 8 probe sleeps of 20 us (utim_sleeper_calibrate(); skipped when
 *        the port has no coarse sleep), then set *@p ready; later calls only
 *        return @p s.
 * @param s     the port's (or the thread's) sleeper
 * @param ready its set-up flag, false before the first call
 * @return @p s, or NULL when the sleeper cannot be set up
 */
utim_sleeper_t *utim_port_sleeper_setup(utim_sleeper_t *s, bool *ready);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_PORT_H */
