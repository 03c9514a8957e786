/**
 * @file cmsis_os2.h
 * @brief The time services of CMSIS-RTOS2 (API v2) over utim's time manager:
 *        kernel tick and system timer, delays and software timers, with the
 *        standard's signatures, types and status values (written for utim
 *        from the published API; not ARM's header), and a small kernel
 *        binding through which any kernel plugs in (utim_os2_binding_t).
 *
 * The kernel tick runs at the configured rate on the manager's time: tick k
 * begins at manager time k x (counter Hz / tick Hz). A delay or a timer of
 * n ticks lasts n ticks from the call: exactly n x (counter Hz / tick Hz)
 * manager ticks on a tickless manager; on a ticked one it ends at the
 * manager's tick boundary at or before that, so up to one manager tick
 * less (RTX's "up to one tick less"; the manager's tick must divide the
 * kernel tick, and its tick points, on multiples of its tick from its time
 * zero, then fall on kernel tick boundaries: delays and timers end on
 * them, as on a ticked RTOS). A manager time set off that grid moves its
 * tick points off the kernel's: utim_tm_set_time() to a time t whose
 * distance from the time it replaces is not a multiple of the manager's
 * tick (t itself a multiple is not enough when the call comes between
 * tick points: set from 300 counts into a tick of 1000 to 5000, the tick
 * points fall 300 counts into each kernel tick). Delays and timers then
 * end up to a manager tick before their kernel tick boundary
 * (osDelay(1) may return in the call's own tick), and osDelayUntil() up
 * to a manager tick after the start of its tick. Periodic timers stay on
 * their grid. Otherwise osDelayUntil() ends at the start of its tick.
 * Timer callbacks are not run in the interrupt: the
 * binding defers them to its timer context, as CMSIS requires.
 *
 * Calls from an interrupt (the binding says when): osKernelGetTickCount,
 * osKernelGetTickFreq, osKernelGetSysTimerCount, osKernelGetSysTimerFreq and
 * osTimerGetName are allowed; osDelay, osDelayUntil, osTimerStart,
 * osTimerStop and osTimerDelete return osErrorISR, osTimerNew returns NULL,
 * osTimerIsRunning returns 0.
 */
#ifndef UTIM_CMSIS_OS2_H
#define UTIM_CMSIS_OS2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utim/tm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Status of a CMSIS-RTOS2 call. */
typedef enum {
  osOK = 0,                     /**< done */
  osError = -1,                 /**< unspecified error */
  osErrorTimeout = -2,          /**< not done in the given time */
  osErrorResource = -3,         /**< the resource is not available (a stopped timer) */
  osErrorParameter = -4,        /**< a parameter is wrong */
  osErrorNoMemory = -5,         /**< out of memory */
  osErrorISR = -6,              /**< not allowed from an interrupt */
  osStatusReserved = 0x7FFFFFFF /**< forces an int32 enum */
} osStatus_t;

/** @brief Wait forever (where a timeout is taken). */
#define osWaitForever 0xFFFFFFFFU

/** @brief A timer's callback. */
typedef void (*osTimerFunc_t)(void *argument);

/** @brief One-shot or periodic. */
typedef enum {
  osTimerOnce = 0,    /**< one-shot */
  osTimerPeriodic = 1 /**< periodic */
} osTimerType_t;

/** @brief A timer's identifier. */
typedef void *osTimerId_t;

/** @brief Attributes of a new timer. */
typedef struct {
  const char *name;   /**< name, or NULL */
  uint32_t attr_bits; /**< reserved, 0 */
  void *cb_mem; /**< control block memory (UTIM_OS2_TIMER_CB_SIZE bytes), or NULL for the pool */
  uint32_t cb_size; /**< its size in bytes, 0 with cb_mem NULL */
} osTimerAttr_t;

/** @brief The kernel's tick count (32 bits, wraps). Allowed from an interrupt. */
uint32_t osKernelGetTickCount(void);

/** @brief The kernel tick's frequency in Hz. Allowed from an interrupt. */
uint32_t osKernelGetTickFreq(void);

/** @brief The system timer's count: the low 32 bits of the manager's time. Allowed from an
 * interrupt. */
uint32_t osKernelGetSysTimerCount(void);

/** @brief The system timer's frequency in Hz: the manager's counter. Allowed from an interrupt. */
uint32_t osKernelGetSysTimerFreq(void);

/**
 * @brief Wait @p ticks kernel ticks from the call (see the file's
 *        description for a ticked manager); the tick count has then gone
 *        @p ticks on from the call's.
 * @retval osOK            waited
 * @retval osErrorParameter @p ticks 0
 * @retval osErrorISR      called from an interrupt
 * @retval osError         the binding could not block, or no kernel set up
 */
osStatus_t osDelay(uint32_t ticks);

/**
 * @brief Wait until the tick count is @p ticks (at the start of that tick).
 * @retval osOK            waited
 * @retval osErrorParameter @p ticks is now or passed (more than 2^31 - 1 ahead)
 * @retval osErrorISR      called from an interrupt
 * @retval osError         the binding could not block, or no kernel set up
 */
osStatus_t osDelayUntil(uint32_t ticks);

/**
 * @brief Create a timer (stopped). Its control block is @p attr's cb_mem
 *        (at least UTIM_OS2_TIMER_CB_SIZE bytes, pointer-aligned: 4 bytes
 *        on a 32-bit target, as RTX5 asks) or one of the pool's
 *        UTIM_OS2_TIMER_POOL. cb_mem is read first, to tell a timer
 *        created there before (a running one is refused; one set up again
 *        keeps the count of its expiries still queued): give zeroed memory
 *        (static storage, calloc(), memset()) or an earlier timer's block.
 *        Memory never written (malloc()) is read as it is, which memory
 *        checkers report, and bytes that happen to carry a timer's 32-bit
 *        marker are taken for one.
 * @return its id (cb_mem when given), or NULL: @p func NULL, @p type invalid, cb_mem too small
 *         or misaligned, cb_size without cb_mem, cb_mem holding a timer
 *         that is running (delete it first), the pool exhausted, called
 *         from an interrupt, or no kernel set up
 */
osTimerId_t osTimerNew(osTimerFunc_t func, osTimerType_t type, void *argument,
                       const osTimerAttr_t *attr);

/** @brief A timer's name (NULL for an invalid id or none). Allowed from an interrupt. */
const char *osTimerGetName(osTimerId_t timer_id);

/**
 * @brief Start or restart a timer: it fires @p ticks kernel ticks from the
 *        call (periodic: every @p ticks after that, on that grid; see the
 *        file's description for a ticked manager). A callback of the setting
 *        it replaces that was already deferred to the timer context is
 *        dropped.
 * @retval osOK            started
 * @retval osErrorParameter an invalid id, or @p ticks 0
 * @retval osErrorISR      called from an interrupt
 * @retval osError         no kernel set up (utim_os2_init() not called yet)
 */
osStatus_t osTimerStart(osTimerId_t timer_id, uint32_t ticks);

/**
 * @brief Stop a timer: its callback does not run for this setting (one
 *        already deferred to the timer context is dropped too).
 * @retval osOK            stopped
 * @retval osErrorResource it was not running
 * @retval osErrorParameter an invalid id
 * @retval osErrorISR      called from an interrupt
 * @retval osError         no kernel set up (utim_os2_init() not called yet)
 */
osStatus_t osTimerStop(osTimerId_t timer_id);

/** @brief 1 when the timer runs; 0 when not, for an invalid id, or from an interrupt. */
uint32_t osTimerIsRunning(osTimerId_t timer_id);

/**
 * @brief Delete a timer (stopped first); its id becomes invalid, and its
 *        control block is the caller's again (cb_mem may be freed or
 *        reused at once: its expiries still waiting for the timer context
 *        are dropped without reading it).
 * @retval osOK            deleted
 * @retval osErrorResource expiries of it wait for the timer context and
 *         UTIM_OS2_DELETED_WAITING deleted timers already have some: the
 *         timer is left as it was; delete it again once the timer context
 *         has run (after an osDelay(), say)
 * @retval osErrorParameter an invalid id
 * @retval osErrorISR      called from an interrupt
 * @retval osError         no kernel set up (utim_os2_init() not called yet)
 */
osStatus_t osTimerDelete(osTimerId_t timer_id);

/* ---- utim: the kernel binding and the set-up ------------------------------------ */

/** @brief Timers the pool holds (control blocks for osTimerNew() without cb_mem). */
#ifndef UTIM_OS2_TIMER_POOL
#define UTIM_OS2_TIMER_POOL 16u
#endif

/**
 * @brief Deleted timers whose expiries may still wait for the timer context
 *        at once (osTimerDelete() refuses one more with osErrorResource).
 */
#ifndef UTIM_OS2_DELETED_WAITING
#define UTIM_OS2_DELETED_WAITING 8u
#endif

/**
 * @brief One expiry handed to the timer context: the timer and its
 *        setting (a generation, bumped by every start, stop and delete), so
 *        a callback of a setting replaced before it runs is dropped, and its
 *        number, by which one of a deleted timer is dropped without reading
 *        the timer's memory.
 */
typedef struct utim_os2_deferred {
  void *timer;  /**< the layer's timer */
  uint32_t gen; /**< its setting when it expired */
  uint32_t seq; /**< its number among all expiries handed over (they run in order) */
} utim_os2_deferred_t;

/**
 * @brief What a kernel provides to the time services (all called with no
 *        lock of the layer held, except defer(), called in the manager's
 *        interrupt context).
 */
typedef struct utim_os2_binding {
  /** @brief Whether the caller runs in an interrupt. */
  bool (*in_isr)(void *ctx);
  /**
   * @brief Block the calling thread until the manager's time reaches
   *        @p deadline (its ticks), running what the timer context has
   *        pending meanwhile as the kernel's timer thread would; returns 0,
   *        or a negative errno when it cannot block.
   */
  int (*block_until)(void *ctx, utim_tm_t *tm, uint64_t deadline);
  /**
   * @brief Hand a timer's callback to the timer context (called in the
   *        manager's interrupt context; the context calls
   *        utim_os2_run_deferred() with each @p d, in order).
   * @return 0, or -ENOSPC when its queue is full (the expiry is counted lost)
   */
  int (*defer)(void *ctx, utim_os2_deferred_t d);
  void *ctx; /**< the binding's state */
} utim_os2_binding_t;

/** @brief Control block size a timer's cb_mem must have. */
#define UTIM_OS2_TIMER_CB_SIZE 96u

/**
 * @brief Set up the time services on a running manager @p tm whose counter
 *        counts at @p sys_hz, with a kernel tick of @p tick_hz.
 *
 * The manager must stay running (no utim_tm_deinit()) while the services
 * are in use: osTimerStart() and osTimerStop() call it without its own
 * argument checks, which a valid timer id already implies. Calling this
 * again with another manager is fine once no timer of the set-up before
 * is running (stopped or deleted, or that manager deinitialised).
 * @retval 0 done
 * @retval -EINVAL a NULL argument, @p sys_hz or @p tick_hz 0, @p tick_hz not dividing @p sys_hz,
 *         a kernel tick of more than 2^30 of the manager's ticks
 *         (@p sys_hz / @p tick_hz), @p tm not running, or @p tm ticked
 *         with a tick that does not divide the kernel tick
 */
int utim_os2_init(utim_tm_t *tm, uint32_t sys_hz, uint32_t tick_hz,
                  const utim_os2_binding_t *binding);

/**
 * @brief Run one deferred timer callback (the binding's timer context calls
 *        it for each expiry handed to defer()); nothing when the timer was
 *        started again, stopped or deleted since that expiry (each expiry
 *        carries its own setting: one that is replaced while several of its
 *        expiries wait all drop, the new setting's run).
 * @param d what defer() was given
 */
void utim_os2_run_deferred(utim_os2_deferred_t d);

/**
 * @brief Drop one deferred timer callback without running it: a binding
 *        whose timer context ends with expiries still queued hands each of
 *        them here, in order, so they no longer count as waiting (else
 *        osTimerDelete() of their timers kept a note of them, and refused
 *        with osErrorResource once UTIM_OS2_DELETED_WAITING were noted).
 * @param d what defer() was given
 */
void utim_os2_drop_deferred(utim_os2_deferred_t d);

/**
 * @brief utim's addition: the manager time (its ticks) of a running timer's
 *        next expiry, for measurements and diagnostics.
 * @retval 0 done
 * @retval -EINVAL an invalid id or a NULL @p at, or no kernel set up
 * @retval -ENOENT the timer is not running
 */
int utim_os2_timer_expiry(osTimerId_t timer_id, uint64_t *at);

/** @brief Expiries dropped because the binding's defer queue was full. */
uint32_t utim_os2_lost_expiries(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_CMSIS_OS2_H */
