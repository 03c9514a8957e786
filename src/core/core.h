/**
 * @file core.h
 * @brief Core-internal helpers shared by the uAPI implementation and the
 *        virtual drivers in src/core. Not part of the public API.
 */
#ifndef UTIM_CORE_INTERNAL_H
#define UTIM_CORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/port.h"
#include "utim/utim.h"

/** @brief Result of utim__arm(): the hardware channel is armed. */
#define UTIM__ARMED 0
/** @brief Result of utim__arm(): the target was already reached. */
#define UTIM__DUE 1

/**
 * @brief Arm channel @p ch to match at (@p ref + @p dist) masked to the width,
 *        where @p ref is a counter value read at or before the call.
 *
 * Must be called with the port lock held and with the counter running when
 * @p dist < utim_min_distance() (the remaining distance is then busy-waited,
 * at most min_distance ticks). @p dist may be a full wrap (utim_max() + 1)
 * or more: the compare then waits for a later pass of the counter over the
 * target, which only the chain driver's staging asks for. Records the target
 * in the channel state.
 *
 * @param pend when the target turns out to be reached already: true sets the
 *        channel's pending bit (the caller delivers it), false only reports it
 * @return UTIM__ARMED, or UTIM__DUE (the hardware channel is then off)
 */
int utim__arm(const utim_periph_t *p, unsigned ch, uint64_t ref, uint64_t dist, bool pend);

/**
 * @brief Disarm channel @p ch and drop its undelivered event and periodic
 *        setting. Port lock held by the caller.
 */
void utim__disarm(const utim_periph_t *p, unsigned ch);

/**
 * @brief utim__disarm() without the hardware access: for a channel whose
 *        compare is known to be off already (not armed in the core state:
 *        it matched and its interrupt disabled it, or it was disarmed).
 *        Port lock held by the caller.
 */
void utim__forget(const utim_periph_t *p, unsigned ch);

/**
 * @brief Reset the core state of @p p: no channel armed, nothing masked or
 *        pending. Callbacks and the claim are kept. Port lock held.
 */
void utim__reset_state(const utim_periph_t *p);

#endif /* UTIM_CORE_INTERNAL_H */
