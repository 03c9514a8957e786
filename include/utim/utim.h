/**
 * @file utim.h
 * @brief utim user-facing API (uAPI): one API over every hardware timer.
 *
 * Every instance looks the same through this API: an up-counter of
 * utim_width() bits that wraps from utim_max() to 0, counting at the exact
 * frequency given to utim_init(), with utim_channels() compare channels and,
 * where the hardware has it, an overflow interrupt.
 *
 * Time values, tick/ns conversions and the precise sleep
 * (utim_sleep_until(), utim_sleep_for()) are declared in utim/time.h, which
 * this header includes.
 *
 * @par Errors
 * Functions return 0 or a negative errno value. An error never changes any
 * state of the instance.
 *
 * @par Semantics
 * - A callback never runs before its event: a compare callback runs only
 *   once the counter has reached the armed value.
 * - Relative arming of @c n ticks (utim_set_rel()) fires when the counter has
 *   advanced at least @c n ticks from its value when the call began, and at
 *   most max(@c n, utim_min_distance()) ticks plus the ticks that elapse
 *   during the call itself plus the interrupt latency. Arming shorter than
 *   the hardware's minimum compare distance is stretched to it: never lost,
 *   never delayed by a full wrap.
 * - Absolute arming (utim_set_abs()) of a value the counter has already
 *   passed, or that is less than utim_min_distance() ahead, returns -ETIME,
 *   arms nothing and runs no callback, on every driver. "Passed" means:
 *   (value - counter) modulo 2^width is 0 or greater than utim_max() / 2.
 * - Arming an armed channel replaces its previous setting (re-scheduling),
 *   including an event of it that is still undelivered (masked).
 * - After utim_clear() the channel's callback does not run, even when the
 *   match happened during the call or is pending behind a mask. (Callbacks
 *   run with the lock released. A clear from an interrupt that preempts
 *   the delivery of that same callback, after the core took it for
 *   delivery and before the call, counts as coming after the callback
 *   started, as if it had preempted its first instruction: that callback
 *   still runs.)
 * - Arming a stopped timer does not fire until the timer is started.
 * - Periodic channels stay on their grid; a period the instance cannot
 *   sustain skips ahead on the grid, bounded, and reports the skipped matches
 *   as overruns (utim_set_periodic(), utim_overrun()).
 * - The overflow callback runs once per wrap.
 * - Masked events are deferred, not lost: they are delivered by
 *   utim_unmask(). While masked, repeated events of one source (a periodic
 *   channel, the overflow) coalesce into one.
 * - Events that become due together are delivered channel 0 first, the
 *   overflow last.
 * - A frequency that is not exactly achievable is an error (-ERANGE), not a
 *   silent approximation; a value beyond the counter's range is -ERANGE.
 *
 * @par Context
 * Callbacks normally run in the timer's interrupt context. A callback whose
 * event is found already due while arming (the arming call took longer than
 * the distance asked for) runs from that arming call, before it returns; a
 * deferred event runs from utim_unmask(). Callbacks may call any function of
 * this API, on any instance.
 */
#ifndef UTIM_UTIM_H
#define UTIM_UTIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utim/driver.h"
#include "utim/time.h" /* time values, conversions, utim_sleep_until() / utim_sleep_for() */

#ifndef ETIME
/** @brief Timer expired (late absolute alarm); newlib defines it, this is for other libcs. */
#define ETIME 62
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @name Clock selection for utim_init() and utim_closest_freq()
 * @{
 */
/** @brief Any clock input that reaches the frequency; high-frequency inputs first. */
#define UTIM_CLOCK_DEFAULT 0u
/** @brief Only high-frequency clock inputs. */
#define UTIM_CLOCK_HF 1u
/** @brief Only low-power clock inputs. */
#define UTIM_CLOCK_LP 2u
/** @brief Exactly the platform's clock input number @p n (see utim_clock()). */
#define UTIM_CLOCK_PLATFORM(n) (0x100u + (unsigned)(n))
/** @} */

/**
 * @name Property identifiers for utim_get_property() / utim_set_property()
 * Identifiers below UTIM_PROP_DRIVER_BASE are answered by the core and are
 * read-only, except UTIM_PROP_TOP; identifiers from UTIM_PROP_DRIVER_BASE
 * on are run-time properties of the driver (see the driver's header).
 * @{
 */
#define UTIM_PROP_WIDTH        1u  /**< counter width in bits */
#define UTIM_PROP_MAX          2u  /**< largest counter value */
#define UTIM_PROP_CHANNELS     3u  /**< number of compare channels */
#define UTIM_PROP_COUNT_DOWN   4u  /**< 1 when the hardware natively counts down */
#define UTIM_PROP_CAPS         5u  /**< UTIM_CAP_* bits */
#define UTIM_PROP_FREQ         6u  /**< counting frequency in Hz, 0 before utim_init() */
#define UTIM_PROP_MIN_DISTANCE 7u  /**< smallest compare distance honoured, ticks */
#define UTIM_PROP_CLOCKS       8u  /**< number of clock inputs */
#define UTIM_PROP_CLOCK        9u  /**< clock input index chosen by utim_init() */
#define UTIM_PROP_DIVIDER      10u /**< divider chosen by utim_init() */
/**
 * @brief 1 when the hardware has flagged a wrap whose interrupt has not been
 *        serviced yet, else 0 (-ENOTSUP where the driver cannot tell). Lets a
 *        layer above that extends the count on overflow interrupts tell a
 *        wrap that is pending from one it has counted.
 */
#define UTIM_PROP_OVF_PENDING 11u
/**
 * @brief The counter's top: it counts 0 .. top and wraps to 0, the wrap
 *        being the overflow event (UTIM_EVT_OVF). utim_max() unless set.
 *        Writable on instances with UTIM_CAP_TOP (a reload register), to 1
 *        .. utim_max() (-EINVAL otherwise, -ENOTSUP without the capability):
 *        the write restarts the count (it reads at most 1 right after) and
 *        sets the period of the overflow event to top + 1 ticks. Counter
 *        writes above the top are refused by the driver (-ERANGE);
 *        utim_init() restores the top to utim_max(). Meant for instances
 *        without compare channels, used as a periodic tick.
 */
#define UTIM_PROP_TOP         12u
#define UTIM_PROP_DRIVER_BASE 0x100u /**< first driver-specific identifier */
/** @} */

/* ---- static properties (no error paths) --------------------------------- */

/** @brief Counter width in bits (1 to 64). */
static inline unsigned utim_width(const utim_periph_t *p) {
  return UTIM_PROPS_WIDTH(p->props);
}

/** @brief Largest counter value, 2^width - 1. */
static inline uint64_t utim_max(const utim_periph_t *p) {
  return UINT64_MAX >> (64u - UTIM_PROPS_WIDTH(p->props));
}

/** @brief Number of compare channels. */
static inline unsigned utim_channels(const utim_periph_t *p) {
  return UTIM_PROPS_CHANNELS(p->props);
}

/** @brief 1 when the hardware counts down natively (the API always counts up). */
static inline unsigned utim_count_down(const utim_periph_t *p) {
  return UTIM_PROPS_DOWN(p->props);
}

/** @brief Capability bits (UTIM_CAP_*). */
static inline uint32_t utim_caps(const utim_periph_t *p) {
  return UTIM_PROPS_CAPS(p->props);
}

/** @brief Smallest compare distance in ticks the hardware honours (>= 1). */
static inline unsigned utim_min_distance(const utim_periph_t *p) {
  return p->dev->min_distance;
}

/**
 * @brief The longest period utim_set_periodic() takes: utim_max() -
 *        utim_min_distance() + 1 (a longer one could leave a grid point too
 *        close to arm with the next one beyond one compare).
 */
static inline uint64_t utim_max_period(const utim_periph_t *p) {
  const uint64_t d = utim_min_distance(p);
  return d > 1u ? utim_max(p) - d + 1u : utim_max(p);
}

/** @brief Platform name of the instance, e.g. "SIM_TIMER16". */
static inline const char *utim_name(const utim_periph_t *p) {
  return p->dev->name;
}

/** @brief Counting frequency set by utim_init(), 0 before. */
static inline uint32_t utim_freq(const utim_periph_t *p) {
  return p->dev->state->hz;
}

/**
 * @brief Clock input @p i of the instance.
 * @return its description, or NULL when @p i is not an input of this timer
 */
static inline const utim_clock_desc_t *utim_clock(const utim_periph_t *p, unsigned i) {
  return i < p->dev->nclocks ? &p->dev->clocks[i] : NULL;
}

/* ---- instances ---------------------------------------------------------- */

/** @brief Number of instances on this board. */
unsigned utim_count(void);

/**
 * @brief Instance number @p index ("Timer 0" is index 0).
 * @return the instance, or NULL when @p index >= utim_count()
 */
const utim_periph_t *utim_by_index(unsigned index);

/**
 * @brief Instance by platform name (exact, case-sensitive), e.g. "MPS2_TIMER0".
 * @return the instance, or NULL when no instance has that name (or @p name is NULL)
 */
const utim_periph_t *utim_by_name(const char *name);

/**
 * @brief Claim an instance for @p owner, so no other subsystem can claim it.
 *
 * Claiming is advisory: the other functions do not check ownership. Claiming
 * again with the same owner succeeds.
 * @retval 0 claimed
 * @retval -EINVAL @p p or @p owner is NULL
 * @retval -EBUSY another owner holds it
 */
int utim_claim(const utim_periph_t *p, const void *owner);

/**
 * @brief Release a claim.
 * @retval 0 released
 * @retval -EINVAL @p p or @p owner is NULL, or the instance is not claimed
 * @retval -EBUSY another owner holds it
 */
int utim_release(const utim_periph_t *p, const void *owner);

/* ---- frequency ---------------------------------------------------------- */

/**
 * @brief Initialise: select a clock input and divider giving exactly @p hz,
 *        stop the counter (one that cannot be stopped, without
 *        UTIM_CAP_STOP, runs on once started), set it to 0 where it can be
 *        written (or restart it from 0), disarm every channel, unmask and
 *        clear every event. Callbacks and the claim are kept.
 * @param p     the instance
 * @param hz    counting frequency in Hz
 * @param clock UTIM_CLOCK_DEFAULT, UTIM_CLOCK_HF, UTIM_CLOCK_LP or UTIM_CLOCK_PLATFORM(n)
 * @retval 0 success
 * @retval -EINVAL @p hz is 0, or @p clock names no input of this timer
 * @retval -ERANGE no input of the selected class reaches exactly @p hz
 */
int utim_init(const utim_periph_t *p, uint32_t hz, unsigned clock);

/**
 * @brief The achievable frequency closest to @p hz (ties: the lower one).
 * @param p     the instance
 * @param hz    requested frequency in Hz
 * @param clock as for utim_init()
 * @param[out] out the closest achievable frequency
 * @retval 0 success
 * @retval -EINVAL @p hz is 0, @p out is NULL, or @p clock names no input
 * @retval -ERANGE the selected inputs offer no integer frequency at all
 */
int utim_closest_freq(const utim_periph_t *p, uint32_t hz, unsigned clock, uint32_t *out);

/**
 * @brief Enumerate the exactly achievable (integer Hz) frequencies of clock
 *        input @p clk, from the highest down.
 * @param p   the instance
 * @param clk clock input index (see utim_clock())
 * @param[out] out buffer for up to @p cap frequencies (may be NULL when @p cap is 0)
 * @param cap capacity of @p out
 * @return the total number of achievable frequencies (may exceed @p cap)
 * @retval -EINVAL @p clk is not an input of this timer, or @p out is NULL with @p cap > 0
 */
int utim_freqs(const utim_periph_t *p, unsigned clk, uint32_t *out, size_t cap);

/**
 * @brief The highest exactly achievable (integer Hz) frequency of clock
 *        input @p clk that is at most @p hz: with @p hz the previous answer
 *        minus 1, it walks utim_freqs()'s list without a buffer.
 * @param p   the instance
 * @param clk clock input index (see utim_clock())
 * @param hz  upper bound in Hz
 * @param[out] out the frequency
 * @retval 0 success
 * @retval -EINVAL @p clk is not an input of this timer, or @p out is NULL
 * @retval -ERANGE the input offers no frequency at or below @p hz
 */
int utim_freq_floor(const utim_periph_t *p, unsigned clk, uint32_t hz, uint32_t *out);

/* ---- counter ------------------------------------------------------------ */

/**
 * @brief Start counting.
 * @retval 0 success
 * @retval -EINVAL the instance is not initialised
 */
static inline int utim_start(const utim_periph_t *p) {
  if (p->dev->state->hz == 0u) {
    return -EINVAL;
  }
  return p->drv->enable(p, true);
}

/**
 * @brief Stop counting; the counter keeps its value, armed channels stay armed.
 * @retval 0 success
 * @retval -EINVAL the instance is not initialised
 * @retval -ENOTSUP the counter cannot be stopped (no UTIM_CAP_STOP)
 */
static inline int utim_stop(const utim_periph_t *p) {
  if (p->dev->state->hz == 0u) {
    return -EINVAL;
  }
  return p->drv->enable(p, false);
}

/** @brief Read the counter. */
static inline uint64_t utim_read(const utim_periph_t *p) {
  return p->drv->read(p);
}

/**
 * @brief Write the counter. Armed channels keep their absolute compare values;
 *        a channel whose value ends up less than utim_min_distance() ahead of
 *        the written counter may miss that match (as the hardware would):
 *        re-arm channels after writing the counter when that matters.
 * @retval 0 success
 * @retval -ERANGE @p value > utim_max()
 * @retval -ENOTSUP the counter is not writable
 */
static inline int utim_write(const utim_periph_t *p, uint64_t value) {
  const uint32_t props = p->props;
  const unsigned ws = UTIM_PROPS_WSHIFT(props);
  /* value >> (width - 1) > 1 <=> value > 2^width - 1, valid for width 64 too */
#if UINTPTR_MAX <= 0xffffffffu
  /* 32-bit targets: in word halves, no 64-bit shift routine */
  const uint32_t hi = (uint32_t)(value >> 32);
  const uint32_t lo = (uint32_t)value;
  if (ws < 32u ? (hi != 0u || (lo >> ws) > 1u) : (hi >> (ws - 32u)) > 1u) {
    return -ERANGE;
  }
#else
  if ((value >> ws) > 1u) {
    return -ERANGE;
  }
#endif
  /* The capability bit, not a NULL test: it shares the load of props. */
  if ((UTIM_PROPS_CAPS(props) & UTIM_CAP_WRITE) == 0u) {
    return -ENOTSUP;
  }
  return p->drv->write(p, value);
}

/* ---- channels ----------------------------------------------------------- */

/**
 * @brief Arm channel @p ch to match once when the counter reaches @p value.
 * @retval 0 armed
 * @retval -EINVAL @p ch >= utim_channels(), or the instance is not initialised
 * @retval -ERANGE @p value > utim_max()
 * @retval -ETIME  @p value is passed or less than utim_min_distance() ahead:
 *                 nothing is armed and the channel keeps its previous setting
 */
int utim_set_abs(const utim_periph_t *p, unsigned ch, uint64_t value);

/**
 * @brief Arm channel @p ch to match once, @p ticks from now (stretched to
 *        utim_min_distance() when shorter).
 * @retval 0 armed (or, when already due, delivered before returning)
 * @retval -EINVAL @p ch >= utim_channels(), or the instance is not initialised
 * @retval -ERANGE @p ticks > utim_max()
 */
int utim_set_rel(const utim_periph_t *p, unsigned ch, uint64_t ticks);

/**
 * @brief Arm channel @p ch to match every @p period ticks, the first match
 *        @p period ticks from now. Matches stay on the grid now + k * period
 *        (no drift); each callback runs at or after its grid point.
 *
 * A period the instance cannot sustain is kept on its grid, never chased:
 * each re-arm (in the channel's interrupt) programs the first grid point
 * that is at least utim_min_distance() plus a lead ahead of the counter. When
 * a re-arm finds its own target reached anyway (the
 * period is shorter than the interrupt latency plus the re-arm, or the CPU
 * stalled), the lead becomes at least twice the ticks that attempt took and
 * the re-arm tries again, at most 8 times with the interrupts held off (the
 * last time with a lead of half the counter's range).
 * The lead is also the channel's overload guard. It starts at what the
 * last callback took; it doubles when the next match falls nearer to the
 * end of a callback than that match's own handling lasted (from the match
 * through the callback), when the delivery loop runs the channel's
 * callback twice before the program gets the CPU back, or when a match
 * finds the channel's previous callback, not masked, still undelivered;
 * and it halves after a callback that kept its distance. Handlers
 * therefore cannot run back to back: the program between two of them
 * gets time of the order of the handling. The guard is per channel: with
 * several channels of one instance at periods this short, the program's
 * share falls with their number but does not reach zero. A masked
 * channel (utim_mask()), or any channel while the compare callback is
 * NULL, runs no callback to pace it: its re-arm leaves
 * free twice the time its match waited when that was a period or more
 * (other handlers, other fast masked channels), so masked channels cannot
 * take the CPU over either; their interrupts still come at that pace.
 * Grid points that get no callback of their own (passed while the interrupt
 * was late or the event masked, or skipped because they were too close to
 * arm) coalesce into the next callback and are counted by utim_overrun(),
 * as POSIX timer overruns. If all 8 attempts fail (each one stalled longer
 * than its lead), the reached match is delivered and the re-arm is retried
 * before that callback runs, with interrupts enabled in between: the time
 * spent with interrupts held off is bounded in every case. Callbacks plus
 * their overrun counts account for every grid point exactly once (a grid
 * point skipped ahead is counted with the callback of the re-arm that
 * skipped it, before it has passed).
 * @retval 0 armed
 * @retval -EINVAL @p ch >= utim_channels(), the instance is not initialised, or @p period is 0
 * @retval -ERANGE @p period < utim_min_distance() or > utim_max_period()
 */
int utim_set_periodic(const utim_periph_t *p, unsigned ch, uint64_t period);

/**
 * @brief Overrun count of periodic channel @p ch: the grid points that the
 *        channel's last delivered callback stood for beyond its own match
 *        (see utim_set_periodic()). Read it in the callback, like POSIX
 *        timer_getoverrun().
 * @return the count (saturated to INT32_MAX); 0 for a one-shot channel,
 *         before the first callback, and after the channel is re-armed or
 *         cleared
 * @retval -EINVAL @p ch >= utim_channels()
 */
int utim_overrun(const utim_periph_t *p, unsigned ch);

/**
 * @brief Disarm channel @p ch; its callback will not run for the setting
 *        cleared, even if the match happened during this call or is masked.
 * @retval 0 success
 * @retval -EINVAL @p ch >= utim_channels()
 */
int utim_clear(const utim_periph_t *p, unsigned ch);

/* ---- callbacks and interrupts -------------------------------------------- */

/**
 * @brief Set the compare callback of all channels (NULL to drop events).
 *
 * NULL drops the events delivered while it is set. A channel's event held
 * back by utim_mask() is not delivered but kept: it stays pending across a
 * NULL callback and goes, on utim_unmask(), to the callback set then (also
 * when its match came while the callback was NULL); utim_clear() or a new
 * setting of the channel drops it. (The overflow differs:
 * utim_set_overflow_cb(NULL) turns its interrupt off and drops a wrap not
 * yet delivered.)
 * @retval 0 success
 */
int utim_set_compare_cb(const utim_periph_t *p, utim_cmp_cb_t cb, void *arg);

/**
 * @brief Set the overflow callback and enable the overflow interrupt
 *        (NULL disables it).
 * @retval 0 success
 * @retval -ENOTSUP the timer has no overflow interrupt (no UTIM_CAP_OVERFLOW)
 */
int utim_set_overflow_cb(const utim_periph_t *p, utim_ovf_cb_t cb, void *arg);

/**
 * @brief Defer the delivery of @p events (UTIM_EVT_CH() / UTIM_EVT_OVF bits).
 *
 * Only the callbacks wait: the hardware interrupts stay on, and a periodic
 * channel is still re-armed at each of its grid points it can serve (its
 * matches coalesce into the deferred callback and count as its overruns;
 * see utim_set_periodic() for its pace when they come faster than they
 * are served): masking does not lighten a periodic channel's interrupt
 * load. Clear it (utim_clear()) for that.
 * @retval 0 success
 * @retval -EINVAL @p events names a channel or an overflow the timer does not have
 */
int utim_mask(const utim_periph_t *p, uint32_t events);

/**
 * @brief Resume delivery of @p events; deferred ones are delivered before
 *        this returns (or by the interrupt context when it is delivering).
 * @retval 0 success
 * @retval -EINVAL @p events names a channel or an overflow the timer does not have
 */
int utim_unmask(const utim_periph_t *p, uint32_t events);

/** @brief Events that occurred and are not yet delivered (UTIM_EVT_* bits). */
uint32_t utim_pending(const utim_periph_t *p);

/* ---- properties --------------------------------------------------------- */

/**
 * @brief Read property @p id (UTIM_PROP_* or a driver-specific one).
 * @retval 0 success
 * @retval -EINVAL @p value is NULL
 * @retval -ENOTSUP this timer has no such property
 */
int utim_get_property(const utim_periph_t *p, unsigned id, uint64_t *value);

/**
 * @brief Write run-time property @p id (UTIM_PROP_TOP or a driver-specific one).
 * @retval 0 success
 * @retval -EINVAL @p id is a read-only core property, or the driver refuses @p value
 * @retval -ENOTSUP this timer has no such property
 */
int utim_set_property(const utim_periph_t *p, unsigned id, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_UTIM_H */
