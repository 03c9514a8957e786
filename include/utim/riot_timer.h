/**
 * @file riot_timer.h
 * @brief RIOT's periph_timer API (periph/timer.h) over the uAPI, so that
 *        RIOT-style code and tests port unchanged: the same functions,
 *        types, flags and return conventions (0 on success, -1 on error),
 *        written for utim from RIOT's published interface.
 *
 * Device @c dev is the board's instance number @c dev (utim_by_index()), so
 * TIMER_DEV(0) is the first timer of the board's table; a channel is the
 * instance's compare channel. Differences from a RIOT board, all documented
 * behaviour of the uAPI:
 * - timer_set_absolute() with a value the counter has just passed (less
 *   than half its range behind, or equal to it) fires at once, never a full
 *   wrap late; as does one less than the minimum compare distance ahead.
 * - timer_set() with a timeout shorter than the instance's minimum compare
 *   distance fires after that distance (stretched), never missed.
 * - timer_set_periodic() needs TIM_FLAG_RESET_ON_MATCH (a period of
 *   @p value ticks, on a fixed grid, overruns coalesced); the counter is not
 *   reset on each match, so timer_read() keeps counting. Without the flag it
 *   returns -1 (a match once per counter wrap is not offered); with
 *   TIM_FLAG_SET_STOPPED on a counter that cannot be stopped (no
 *   UTIM_CAP_STOP) it returns -1 too, the counter left running.
 * - timer_stop() on such a counter does nothing: the counter and its
 *   channels run on.
 * Callbacks come from the timer's interrupt, as on RIOT, also for a
 * one-shot match that is due before timer_set() or timer_set_absolute()
 * returns (the uAPI delivers such a match from the arming call): the shim
 * puts it back on the hardware, late by about the time the arming took.
 * Only a periodic channel's match due inside a call of the API, or an
 * arming slower than half the counter's range, is called back from there.
 * At most UTIM_RIOT_TIMER_NUMOF devices (a static table, no heap).
 */
#ifndef UTIM_RIOT_TIMER_H
#define UTIM_RIOT_TIMER_H

#include <limits.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Devices the shim keeps callbacks for (the first ones of the board's table). */
#ifndef UTIM_RIOT_TIMER_NUMOF
#define UTIM_RIOT_TIMER_NUMOF 8u
#endif

/** @brief A timer device: the board's instance number. */
typedef uint_fast8_t tim_t;

/** @brief An unsigned word, as RIOT's architecture.h has it. */
typedef unsigned int uword_t;

/** @brief Timer device @p x. */
#define TIMER_DEV(x) ((tim_t)(x))

/** @brief No timer. */
#define TIMER_UNDEF (UINT_FAST8_MAX)

/** @brief timer_set_periodic(): reset the counter to 0 when it is called. */
#define TIM_FLAG_RESET_ON_SET 0x01u

/** @brief timer_set_periodic(): the period is @c value ticks (see the file's notes). */
#define TIM_FLAG_RESET_ON_MATCH 0x02u

/** @brief timer_set_periodic(): leave the timer stopped (timer_start() starts it). */
#define TIM_FLAG_SET_STOPPED 0x04u

/** @brief A device's callback, in interrupt context (see the file's notes), with the channel that
 * matched. */
typedef void (*timer_cb_t)(void *arg, int channel);

/** @brief A callback and its argument. */
typedef struct {
  timer_cb_t cb; /**< called from the timer interrupt */
  void *arg;     /**< its argument */
} timer_isr_ctx_t;

/**
 * @brief Initialise device @p dev at exactly @p freq Hz with callback
 *        @p cb, and start it (channels cleared). The shim claims the
 *        instance (utim_claim()) for good; a refused call leaves a device
 *        it had not set up unclaimed.
 * @return 0, or -1 for an unknown device, a NULL @p cb, a frequency it
 *         cannot count at exactly, or an instance claimed by another owner
 */
int timer_init(tim_t dev, uint32_t freq, timer_cb_t cb, void *arg);

/**
 * @brief The callback for @p channel @p timeout ticks from now (utim_set_rel()).
 * @return 0, or -1 (not initialised, no such channel, timeout beyond the counter)
 */
int timer_set(tim_t dev, int channel, unsigned int timeout);

/**
 * @brief The callback when the counter reaches @p value (truncated to the
 *        counter's width; utim_set_abs()). On a counter wider than
 *        unsigned int (64-bit instances), when the counter's low bits next
 *        equal @p value, up to half their range (UINT_MAX / 2 ticks) ahead.
 *
 * A value the counter (or its low bits) has just passed, equal to it or
 * more than half the range ahead, and one less than the minimum compare
 * distance ahead, fires at once (utim_set_rel() of 0 ticks: after the
 * minimum compare distance), never a full wrap late; on a stopped counter,
 * once it is started.
 * @return 0, or -1 (not initialised, no such channel)
 */
int timer_set_absolute(tim_t dev, int channel, unsigned int value);

/**
 * @brief The callback every @p value ticks with TIM_FLAG_RESET_ON_MATCH
 *        (utim_set_periodic()); TIM_FLAG_RESET_ON_SET first resets the
 *        counter to 0, TIM_FLAG_SET_STOPPED leaves the device stopped
 *        (timer_start() starts it); without that flag the device is
 *        started, also when timer_stop() had stopped it.
 * @return 0, or -1 (not initialised, no such channel, @p value 0, below
 *         the instance's minimum compare distance or above utim_max_period(),
 *         no TIM_FLAG_RESET_ON_MATCH, TIM_FLAG_RESET_ON_SET on a counter
 *         that cannot be written, or TIM_FLAG_SET_STOPPED on a counter that
 *         cannot be stopped: no UTIM_CAP_STOP, e.g. a 64-bit machine timer);
 *         a refused call neither stops nor resets the device
 */
int timer_set_periodic(tim_t dev, int channel, unsigned int value, uint8_t flags);

/**
 * @brief Clear @p channel: its callback does not run for what was set (utim_clear()).
 * @return 0, or -1 (not initialised, no such channel)
 */
int timer_clear(tim_t dev, int channel);

/** @brief The counter (utim_read(), truncated to unsigned int); 0 for an unknown device. */
unsigned int timer_read(tim_t dev);

/**
 * @brief Start the counter (utim_start()); nothing for a device timer_init()
 *        has not set up (unknown, or owned by another subsystem).
 */
void timer_start(tim_t dev);

/**
 * @brief Stop the counter, all channels with it (utim_stop()); nothing for a
 *        device timer_init() has not set up (unknown, or owned by another
 *        subsystem), nor for a counter that cannot be stopped (no
 *        UTIM_CAP_STOP, e.g. a 64-bit machine timer: its channels run on).
 */
void timer_stop(tim_t dev);

/** @brief Frequencies the device can count at (utim_freqs()), 0 for an unknown device. */
uword_t timer_query_freqs_numof(tim_t dev);

/** @brief Compare channels of the device (utim_channels()), 0 for an unknown device. */
uword_t timer_query_channel_numof(tim_t dev);

/** @brief The @p index-th highest frequency of the device, 0 when @p index is out of range. */
uint32_t timer_query_freqs(tim_t dev, uword_t index);

/**
 * @brief The frequency the device can count at (timer_query_freqs()'s list)
 *        closest to @p target (utim_closest_freq(); ties: the lower one),
 *        as RIOT's periph_timer_query_freqs offers it.
 * @return the frequency; the lowest for @p target 0; 0 for an unknown device
 */
uint32_t timer_get_closest_freq(tim_t dev, uint32_t target);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_RIOT_TIMER_H */
