/**
 * @file tm.h
 * @brief The time manager: any number of software timers and task delays on
 *        one channel of one utim instance, a 64-bit system time, ticked or
 *        tickless. Built on the uAPI only; no heap (the caller owns the
 *        manager and every timer).
 *
 * **System time.** A 64-bit count of the instance's ticks since
 * utim_tm_init() (on the overflow: since the wrap before it), extended
 * from a counter of any width: each read adds the counter's advance since
 * the previous read (modulo its range). Reads are at
 * most half a counter range apart, because the manager's own interrupt (the
 * channel's compare, or the tick) comes at least that often. So the time
 * never goes back, also when read while a wrap is pending or from a
 * callback, as long as interrupts are never held off for more than half the
 * counter's range (e.g. 2 ms for a 16-bit counter at 16 MHz, 134 s for a
 * 32-bit one at 16 MHz): the longest interrupt-off time it tolerates.
 * utim_tm_set_time() shifts the reported time (an offset); pending timers
 * keep their remaining durations.
 *
 * **Timers.** One-shot or periodic, relative or absolute (in system time),
 * started, stopped and restarted from task context and from callbacks (a
 * callback may start or stop any timer, itself included). Semantics:
 * - never early: a callback runs when the system time has reached its
 *   expiry (tickless: as soon as the interrupt comes; ticked: at the first
 *   tick at or after it, so at most one tick late);
 * - exactly once per expiry of a setting;
 * - after utim_tm_stop() (or a restart) returns, the callback does not run
 *   for the setting it ended;
 * - periodic timers stay on their grid (expiry k is start + k x period,
 *   without drift); when the manager could not run a callback for several
 *   grid points, it runs it once and utim_tm_overrun() says how many were
 *   coalesced (like POSIX timer_getoverrun());
 * - the manager's interrupt does not take the CPU over: a periodic timer
 *   whose period is shorter than that interrupt (its entry, the callbacks
 *   due, the re-arm and its return), a callback that starts its own timer
 *   again a tick ahead, or a ticked manager's tick that short (on a
 *   channel; on the overflow see utim_tm_init()), would find
 *   its next expiry (or tick point) passed at every re-arm. From the
 *   third interrupt in a row that put expiries on the wheel itself and
 *   whose next expiry is no farther than its own cost (entry, work,
 *   return, as far as the time shows it) plus the minimum distance, the
 *   channel is armed no sooner than that cost ahead (the least gap
 *   between two such interrupts, moving halfway up at each wider one,
 *   plus the minimum distance), so the program runs between them, also
 *   when the interrupt comes to cost more and when the hardware could not
 *   take the next expiry (the core waits for one nearer than the minimum
 *   distance, utim_set_abs()); those expiries come later
 *   (never earlier), a periodic timer's skipped points being its overruns
 *   (ticked: tick points skipped, as after a critical section). This paces
 *   chains that would take about half the CPU or more, not those the CPU
 *   keeps up with; timers the program starts are never held back by it
 *   (tickless);
 * - an expiry farther than the counter's range is fine (the channel is
 *   re-armed on the way, at most half a range at a time).
 * Callbacks run in the instance's interrupt context with the port lock held
 * (utim_port_lock()), like utim's own callbacks; every function here takes
 * the port lock too, so it can be called from anywhere.
 *
 * **Task delays.** utim_tm_tasks_init() and the utim_tm_task_* calls give a
 * scheduler the paper's interface (TaskDelay, GetTasksToWake, ClearTask,
 * GetTime/SetTime and a wake hook) on the same timers.
 *
 * **Modes.** Tickless: the channel is armed for the earliest expiry (or half
 * a range ahead, whichever comes first). Ticked: the channel interrupts at
 * every point of a tick grid and each tick advances the timers to the time
 * its interrupt reads: expiries are served by the first tick whose
 * interrupt comes at or after them (never before them, at most a tick and
 * the interrupt's latency after; one just after a tick point that the
 * interrupt's latency has passed is served by that tick), and ticks missed while
 * interrupts were held off are skipped (the timers they would have served
 * are served at the next one). One code path serves both: only the moment
 * the channel is armed for differs.
 */
#ifndef UTIM_TM_H
#define UTIM_TM_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/tm_wheel.h"
#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct utim_tm utim_tm_t; /**< a time manager */

/**
 * @brief The channel argument of utim_tm_init() that runs the manager
 *        ticked on the counter's overflow instead of a compare channel.
 */
#define UTIM_TM_OVERFLOW (~0u)
typedef struct utim_tm_timer utim_tm_timer_t; /**< a software timer */

/**
 * @brief A timer's callback: the manager, the timer, and the argument given
 *        to utim_tm_timer_init(). Runs with the port lock held.
 */
typedef void (*utim_tm_cb_t)(utim_tm_t *tm, utim_tm_timer_t *t, void *arg);

/**
 * @brief A software timer, owned by the caller; 32 bytes on 32-bit targets.
 *        Set up with utim_tm_timer_init(); its fields are the manager's.
 */
struct utim_tm_timer {
  utim_tm_node_t node; /**< its place on the wheel (expiry in internal ticks) */
  uint64_t period;     /**< 0: one-shot; else the period in ticks */
  utim_tm_cb_t cb;     /**< the callback */
  void *arg;           /**< its argument */
};

/** @brief How the manager drives its channel. */
typedef enum utim_tm_mode {
  UTIM_TM_TICKLESS = 0, /**< armed for the earliest expiry */
  UTIM_TM_TICKED = 1,   /**< a periodic tick advances the timers */
} utim_tm_mode_t;

/** @brief The manager, owned by the caller (fixed size, see tm_wheel.h). */
struct utim_tm {
  const utim_periph_t *p; /**< the instance */
  unsigned ch;            /**< its channel */
  utim_tm_mode_t mode;    /**< ticked or tickless */
  uint64_t tick;          /**< ticked: the tick in counter ticks */
  uint64_t max;           /**< the counter's maximum */
  uint64_t last;          /**< internal time at the last read */
  uint64_t last_raw;      /**< the counter then */
  uint64_t offset;        /**< reported time = internal + offset */
  uint64_t armed;         /**< internal time the channel is armed for */
  uint64_t tick_at;       /**< ticked: internal time of the last tick point */
  uint64_t now_at;        /**< internal time the interrupt serves timers up to */
  uint64_t end;           /**< internal time the channel was last armed at */
  uint32_t gap;           /**< least gap between interrupts of the streak */
  uint32_t pace;          /**< least time ahead its next interrupt is armed */
  uint32_t overrun;       /**< coalesced expiries of the running callback */
  bool running;           /**< utim_tm_init() succeeded */
  bool serving;           /**< in its interrupt's advance (utim_tm_init() clears it) */
  uint8_t streak;         /**< interrupts in a row with their next one near */
  bool fed;               /**< its interrupt put an expiry on the wheel itself */
  /* Last: the fields above stay at small offsets (see utim_tm_wheel_t). */
  utim_tm_wheel_t wheel; /**< pending timers, in internal ticks */
};

/**
 * @brief Start a time manager on channel @p ch of @p p. The instance must be
 *        initialised (utim_init()) and running (utim_start()); the manager
 *        takes its compare callback for all channels (utim_set_compare_cb()),
 *        so the instance belongs to it. It does not claim the instance
 *        (utim_claim()): the claim, if any, is the caller's (utim::instance
 *        holds one while a manager runs on it); claim it before this call
 *        to keep other subsystems (the RIOT shim, the bare-metal sleep) off
 *        it. In ticked mode the channel is armed for every @p tick counter
 *        ticks.
 *
 * With @p ch = UTIM_TM_OVERFLOW the manager runs ticked on the counter's
 * overflow interrupt (for instances without compare channels, like the
 * CMSDK timer and SysTick): each wrap is a tick. On an instance with a top
 * (UTIM_CAP_TOP, a reload register) the manager sets the top to
 * @p tick - 1, so any tick from 2 is taken (and utim_tm_deinit() sets it
 * back to the counter's full range, utim_max());
 * otherwise @p tick must be the counter's range, utim_max() + 1. The
 * hardware repeats the tick whatever the manager does, so the pacing of
 * short ticks (file comment) does not apply here: the tick must be longer
 * than the manager's interrupt (entry, the timers due, return), or wraps
 * are lost from the time and, shorter still, the interrupt keeps the CPU
 * for good (Cortex-M3 under QEMU at 25 MHz, an idle manager: wraps lost
 * from a 20-tick tick, the program stopped at 10). The
 * system time is the time of the last wrap plus the count; the hardware's
 * overflow flag (UTIM_PROP_OVF_PENDING) tells a wrap whose interrupt is
 * pending, so the time never goes back as long as interrupts are never held
 * off for a whole tick (two wraps then make one interrupt and a tick is
 * lost from the time). One window is left: between the driver clearing the
 * flag and the manager's overflow callback counting the wrap (the core
 * delivers callbacks with the lock released), a read from an interrupt
 * that preempts the timer's own reads the time one tick behind, and a
 * timer it starts (utim_tm_start(), a task delay) is due that much sooner:
 * it can expire up to a tick early by real time (the preempted handler
 * then serves it at once); read the time and start timers from the
 * timer's priority or below, or use a compare channel.
 * @param tm   the manager (its old contents are ignored, so it must not be
 *             running: utim_tm_deinit() a running one first, also from one
 *             of its callbacks: the interrupt then serves no more timers)
 * @param p    the instance
 * @param ch   the channel, or UTIM_TM_OVERFLOW
 * @param mode UTIM_TM_TICKLESS or UTIM_TM_TICKED (UTIM_TM_OVERFLOW: ticked)
 * @param tick ticked mode: the tick in counter ticks (on a channel at least
 *             the minimum distance, at most utim_max() / 2; on the
 *             overflow see above); ignored tickless
 * @retval 0 started
 * @retval -EINVAL @p tm or @p p NULL, @p p not initialised (utim_init()),
 *         @p ch not a channel of @p p, @p mode unknown, or @p tick out of
 *         range in ticked mode; on the overflow: tickless, @p tick below 2,
 *         above the range, or other than the range without a top
 * @retval -ENOTSUP @p p has no channels; on the overflow: no overflow
 *         interrupt or the driver cannot tell a pending wrap
 * Errors leave @p tm not running and the instance unchanged.
 */
int utim_tm_init(utim_tm_t *tm, const utim_periph_t *p, unsigned ch, utim_tm_mode_t mode,
                 uint64_t tick);

/**
 * @brief Stop the manager: its channel is cleared and its pending timers are
 *        dropped (none of their callbacks runs afterwards).
 * @param tm the manager
 * @retval 0 done
 * @retval -EINVAL @p tm NULL or not running
 */
int utim_tm_deinit(utim_tm_t *tm);

/**
 * @brief The system time in ticks of the instance (internal time + offset).
 * @param tm the manager (running)
 * @return the time; 0 when @p tm is NULL or not running
 */
uint64_t utim_tm_now(utim_tm_t *tm);

/**
 * @brief Make the system time read @p t from now on; pending timers keep
 *        their remaining durations (absolute expiries given before are
 *        shifted along with the time).
 * @param tm the manager
 * @param t  the new time
 * @retval 0 done
 * @retval -EINVAL @p tm NULL or not running
 */
int utim_tm_set_time(utim_tm_t *tm, uint64_t t);

/**
 * @brief Prepare a timer (not pending). Call once before its first start;
 *        not while it is pending.
 * @param t   the timer
 * @param cb  its callback (not NULL)
 * @param arg the callback's argument
 */
void utim_tm_timer_init(utim_tm_timer_t *t, utim_tm_cb_t cb, void *arg);

/**
 * @brief Start (or restart) @p t to expire @p ticks from now, then every
 *        @p period ticks (0: once). A pending setting is replaced: its
 *        callback does not run for it. A pending timer belongs to the
 *        manager it was started on: start or stop it through that one only
 *        (the node has no room to record its manager, so another manager
 *        cannot tell; after utim_tm_deinit() no timer is pending).
 * @param tm     the manager
 * @param t      the timer (initialised)
 * @param ticks  ticks from now, 0 to 2^62 (0: due at once; the callback may
 *               run before this returns, as utim_set_rel(p, ch, 0) delivers)
 * @param period 0, or the period in ticks, 1 to 2^62
 * @retval 0 started
 * @retval -EINVAL NULL argument, manager not running, timer without
 *         callback, or @p ticks / @p period out of range; nothing changed
 */
int utim_tm_start(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t ticks, uint64_t period);

/**
 * @brief Start (or restart) @p t to expire when the system time reaches
 *        @p when, then every @p period ticks. Time is modular: @p when up to
 *        2^62 ticks ahead of now is the future; 2^63 or more "ahead" is the
 *        past, and a time not ahead of now is due at once. A periodic timer
 *        keeps the grid @p when + k x @p period: started in the past, its
 *        first callback runs at once for the grid points that have passed,
 *        coalesced (utim_tm_overrun() in it: their number less one), then
 *        the next point of that grid.
 * @param tm     the manager
 * @param t      the timer (initialised)
 * @param when   the system time of the first expiry
 * @param period 0, or the period in ticks, 1 to 2^62
 * @retval 0 started
 * @retval -EINVAL as utim_tm_start(), or @p when between 2^62 and 2^63
 *         ticks ahead (neither a reachable future nor the past); nothing
 *         changed
 */
int utim_tm_start_at(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t when, uint64_t period);

/**
 * @brief Stop @p t. When it returns, its callback does not run for the
 *        setting it ended; from the timer's own callback, a periodic timer
 *        stops there. Stopping a timer that is not pending is fine. Like
 *        Linux's del_timer(), it tells whether there was a setting to end
 *        (read under the lock, so a caller learns it without a second lock
 *        around the call: a one-shot that expired is not pending).
 * @param tm the manager
 * @param t  the timer
 * @retval 1 stopped: it was pending
 * @retval 0 it was not pending (nothing changed)
 * @retval -EINVAL NULL argument or manager not running
 */
int utim_tm_stop(utim_tm_t *tm, utim_tm_timer_t *t);

/** @brief Whether @p t is pending (started and not yet expired or stopped). */
bool utim_tm_pending(const utim_tm_timer_t *t);

/**
 * @brief The system time of @p t's next expiry.
 * @param tm  the manager
 * @param t   the timer
 * @param out the time
 * @retval 0 done
 * @retval -EINVAL NULL argument or manager not running
 * @retval -ENOENT @p t is not pending
 */
int utim_tm_expiry(utim_tm_t *tm, const utim_tm_timer_t *t, uint64_t *out);

/**
 * @brief Ticks until @p t's next expiry (0 when due).
 * @param tm  the manager
 * @param t   the timer
 * @param out the ticks
 * @retval 0 done
 * @retval -EINVAL NULL argument or manager not running
 * @retval -ENOENT @p t is not pending
 */
int utim_tm_remaining(utim_tm_t *tm, const utim_tm_timer_t *t, uint64_t *out);

/**
 * @brief From a periodic timer's callback: the grid points that passed
 *        without a callback of their own and are accounted for by this one
 *        (0 when the manager kept up). Elsewhere: that of the last callback.
 * @param tm the manager
 * @return the count (saturated at UINT32_MAX); 0 when @p tm is NULL
 */
uint32_t utim_tm_overrun(const utim_tm_t *tm);

/* ---- task delays, for a scheduler ------------------------------------------ */

/**
 * @brief The scheduler's wake hook: task @p id's delay ended (its bit is set
 *        for utim_tm_tasks_to_wake()). Runs in the manager's interrupt
 *        context with the port lock held, like a timer callback. @p tm is
 *        NULL on a hardware backend (utim/tm_htm.h).
 */
typedef void (*utim_tm_wake_fn)(utim_tm_t *tm, unsigned id, void *arg);

struct utim_tm_tasks;

/**
 * @brief A backend of the task delays other than the manager's own timers
 *        (the hardware time manager: utim/tm_htm.h). Each is called with
 *        the port lock held and the arguments checked.
 */
typedef struct utim_tm_task_ops {
  /** @brief Delay task @p id for @p ticks (TaskDelay). */
  int (*delay)(struct utim_tm_tasks *ts, unsigned id, uint64_t ticks);
  /** @brief End task @p id's delay without a wake (ClearTask; the wake bit is the caller's). */
  void (*clear)(struct utim_tm_tasks *ts, unsigned id);
  /** @brief The time in ticks (GetTime). */
  uint64_t (*now)(struct utim_tm_tasks *ts);
  /** @brief Set the time (SetTime); pending delays keep their remaining ticks. */
  void (*set_time)(struct utim_tm_tasks *ts, uint64_t t);
} utim_tm_task_ops_t;

/**
 * @brief Task delays after the paper's hardware time manager (TaskDelay,
 *        GetTasksToWake, ClearTask): one timer per task id on a manager, a
 *        bitmap of the ids whose delay ended, and a wake hook. Owned by the
 *        caller, with the timers and the bitmap it provides.
 */
typedef struct utim_tm_tasks {
  utim_tm_t *tm;                 /**< the manager */
  utim_tm_timer_t *timers;       /**< one per task id */
  uint32_t *wake;                /**< bit id: its delay ended, not yet collected */
  unsigned n;                    /**< task ids 0 .. n - 1 */
  utim_tm_wake_fn hook;          /**< called at each wake-up, or NULL */
  void *hook_arg;                /**< its argument */
  const utim_tm_task_ops_t *ops; /**< a backend, or NULL: the manager's timers */
  const void *backend;           /**< the backend's state (the HTM block) */
  unsigned backend_n;            /**< the backend's task slots */
  unsigned backend_width;        /**< its counter width */
  uint64_t backend_taken;        /**< wakes taken from the backend, not yet delivered */
} utim_tm_tasks_t;

/** @brief Words of the wake bitmap for @p n tasks. */
#define UTIM_TM_TASK_WORDS(n) (((n) + 31u) / 32u)

/**
 * @brief Set up task delays for @p n task ids on @p tm.
 * @param ts     the task table
 * @param tm     a running manager
 * @param timers @p n timers (their old contents are ignored, so none may be
 *               pending: to set up a table again, clear its ids first)
 * @param wake   UTIM_TM_TASK_WORDS(@p n) words (cleared here)
 * @param n      the number of task ids (at least 1)
 * @param hook   called when a delay ends, or NULL
 * @param arg    its argument
 * @retval 0 done
 * @retval -EINVAL a NULL pointer, @p n 0, or @p tm not running
 */
int utim_tm_tasks_init(utim_tm_tasks_t *ts, utim_tm_t *tm, utim_tm_timer_t *timers, uint32_t *wake,
                       unsigned n, utim_tm_wake_fn hook, void *arg);

/**
 * @brief Delay task @p id for @p ticks (TaskDelay): when they have passed
 *        (never sooner; ticked: by the first tick at or after, see Modes),
 *        its bit is set and the hook runs. A pending delay of @p id is
 *        replaced; a wake bit already set stays set.
 * @param ts    the task table
 * @param id    the task id
 * @param ticks ticks from now, 0 to 2^62 (0: wakes from the next interrupt)
 * @retval 0 delayed
 * @retval -EINVAL @p ts NULL, @p id out of range, @p ticks above 2^62
 *         (hardware delays: or above what the block's counter takes,
 *         2^width - slots - 2), or (software delays) the manager no longer
 *         running; nothing changed
 */
int utim_tm_task_delay(utim_tm_tasks_t *ts, unsigned id, uint64_t ticks);

/**
 * @brief End task @p id's delay without waking it, and clear its wake bit
 *        (ClearTask): when this returns, the hook does not run for it.
 * @param ts the task table
 * @param id the task id
 * @retval 0 done (also when it had no delay)
 * @retval -EINVAL @p ts NULL, @p id out of range, or (software delays) the
 *         manager no longer running; nothing changed
 */
int utim_tm_task_clear(utim_tm_tasks_t *ts, unsigned id);

/**
 * @brief Collect the ids whose delay ended (GetTasksToWake): copies the wake
 *        bitmap to @p out and clears the copied bits, at once.
 * @param ts  the task table
 * @param out UTIM_TM_TASK_WORDS(n) words, or fewer (@p words): bits beyond
 *            stay set for the next call
 * @param words how many words @p out holds
 * @return the number of ids collected (0 also for a NULL argument)
 */
unsigned utim_tm_tasks_to_wake(utim_tm_tasks_t *ts, uint32_t *out, unsigned words);

/**
 * @brief The time of the task delays (GetTime): the manager's time
 *        (utim_tm_now()), or the hardware backend's.
 * @param ts the task table
 * @return the time in ticks (0 for a NULL argument)
 */
uint64_t utim_tm_tasks_now(utim_tm_tasks_t *ts);

/**
 * @brief Set the time of the task delays (SetTime): utim_tm_set_time(), or
 *        the hardware backend's; pending delays keep their remaining ticks.
 * @param ts the task table
 * @param t  the new time in ticks
 * @retval 0 set
 * @retval -EINVAL @p ts NULL (or the manager not running)
 */
int utim_tm_tasks_set_time(utim_tm_tasks_t *ts, uint64_t t);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TM_H */
