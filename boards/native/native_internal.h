/**
 * @file native_internal.h
 * @brief Functions shared between the files of the native board; not part
 *        of its public interface (board_native.h).
 */
#ifndef UTIM_NATIVE_INTERNAL_H
#define UTIM_NATIVE_INTERNAL_H

#include "board_native.h"
#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Find the CPU counter's frequency and flags (tsc_native.c).
 * @param[out] out filled completely; out->hz is 0 when nothing worked
 */
void native_tsc_probe(native_tsc_info_t *out);

/**
 * @brief Route the interrupts of @p alarms to the interrupt thread's line
 *        and start the thread (irq_native.c). Called once, by
 *        native_board_init().
 * @param alarms alarm instances whose handlers the thread runs
 * @param n      their number
 */
void native_irq_start(const utim_periph_t *const *alarms, unsigned n);

/**
 * @brief Record the alarm probe's results for native_irq_info() (irq_native.c).
 * @param write_ns median cost of arming a kernel timer (timerfd_settime()), ns
 * @param max_hz   fastest frequency the alarm instances offer as a result
 */
void native_irq_set_probe(uint64_t write_ns, uint32_t max_hz);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_INTERNAL_H */
