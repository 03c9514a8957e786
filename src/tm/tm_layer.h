/*
 * Entry points of the time manager for utim's own layers over it (the
 * CMSIS-RTOS2 time services), not part of the public API: utim_tm_start()
 * and utim_tm_stop() without their argument checks, for a layer whose own
 * checks already imply them. An adaptation layer then costs its argument
 * conversion and the checks its standard asks for, not those plus the
 * manager's (the thin mapping the CMSIS-RTOS evaluation paper measures).
 * Preconditions, not checked (a violation is undefined behaviour):
 * @p tm initialised and not deinitialised, @p t initialised with a
 * callback, @p ticks and @p period at most UTIM_TM__MAX_AHEAD.
 */
#ifndef UTIM_TM_LAYER_H
#define UTIM_TM_LAYER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "utim/port.h"
#include "utim/tm.h"
#include "wheel_take.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The farthest a start reaches, in ticks (well inside the wheel's
 * "ahead", 2^63): utim_tm_start() refuses more. */
#define UTIM_TM__MAX_AHEAD ((uint64_t)1 << 62)

/* utim_tm_start() of valid arguments (it cannot fail). */
void utim_tm__start(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t ticks, uint64_t period);

/* utim_tm__start() that also steps @p seq by one under the same lock: a
 * layer's count of a timer's settings (the CMSIS layer's generation) and
 * the start happen as one, no expiry comes in between. */
void utim_tm__start_seq(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t ticks, uint64_t period,
                        _Atomic uint32_t *seq);

/* utim_tm_stop() of valid arguments: whether it ended a pending setting.
 * Inline, so a layer's stop is one function, as the manager's own is. */
static inline bool utim_tm__stop(utim_tm_t *tm, utim_tm_timer_t *t) {
  const uint32_t key = utim_port_lock();
  const bool was = WHEEL_TAKE(&tm->wheel, &t->node);
  utim_port_unlock(key);
  return was;
}

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TM_LAYER_H */
