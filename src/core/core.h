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

/**
 * @brief Release the lock (taken with key @p key) and deliver every pending,
 *        unmasked event to its callback, lowest bit first.
 */
void utim__unlock_deliver(const utim_periph_t *p, uint32_t key);

/**
 * @retval 0 @p ch is a channel of the initialised instance @p p
 * @retval -EINVAL otherwise
 */
int utim__check_channel(const utim_periph_t *p, unsigned ch);

/** @brief @p a + @p b, saturated to UINT32_MAX. */
static inline uint32_t utim__add_sat32(uint32_t a, uint64_t b) {
  return b >= (uint64_t)(UINT32_MAX - a) ? UINT32_MAX : a + (uint32_t)b;
}

/**
 * @brief Forget channel @p ch's setting in the core state (periodic, armed,
 *        re-arm and pending bits, period and overrun counts), not touching
 *        the hardware. Port lock held.
 */
void utim__forget_setting(utim_state_t *st, unsigned ch);

/**
 * @name Periodic channels (periodic.c)
 * Declared weak and called only when non-NULL: a program that never calls
 * utim_set_periodic() links none of periodic.c (on a Cortex-M0 that is most
 * of a kilobyte of 64-bit arithmetic), and none of its channels is periodic.
 * @{
 */
/**
 * @brief Re-arm the periodic channels among @p events (they matched) on
 *        their grids, counting matches that coalesce into an undelivered
 *        callback. Port lock held.
 */
void utim__periodic_matched(const utim_periph_t *p, uint32_t events) __attribute__((weak));

/**
 * @brief Move periodic channel @p ch, whose target was reached, to the next
 *        grid point it can be armed for. Port lock held.
 * @return whether the channel is armed (else its re-arm bit is set)
 */
bool utim__periodic_advance(const utim_periph_t *p, unsigned ch) __attribute__((weak));

/**
 * @brief After a callback of periodic channel @p ch that began at counter
 *        @p t0 (@p again: the second or later of this channel in one run of
 *        the delivery loop): update the time its next re-arm keeps free.
 *        Port lock held.
 */
void utim__periodic_handled(const utim_periph_t *p, unsigned ch, uint64_t t0, bool again)
    __attribute__((weak));
/** @} */

#endif /* UTIM_CORE_INTERNAL_H */
