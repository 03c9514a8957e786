/**
 * @file utim_native_line.h
 * @brief An interrupt line of the Linux host: a futex word that a native
 *        driver raises and the native board's interrupt thread waits on,
 *        until it is raised or an absolute CLOCK_MONOTONIC deadline passes.
 *
 * The interrupt thread sleeps in one FUTEX_WAIT_BITSET system call with an
 * absolute CLOCK_MONOTONIC timeout: the kernel's high-resolution timer wakes
 * it directly, exactly as clock_nanosleep(TIMER_ABSTIME) wakes cyclictest,
 * with no file descriptor, poll() or read() between the timer and the
 * handler; and, unlike clock_nanosleep(), a driver can end the sleep early
 * (its next event moved earlier) without a signal. Header-only, in
 * drivers/native_hw/ (see utim_seqlock.h for why there).
 *
 * Protocol: the waiter reads the count with utim_native_line_count() while
 * it holds the lock the raisers hold too (the port lock), then, without the
 * lock, waits for a change from that count. A raise after the read changes
 * the count, so the wait returns at once: no raise is ever lost.
 *
 * utim_native_line_raise() and utim_native_line_wait() need syscall()
 * declared (_GNU_SOURCE or _DEFAULT_SOURCE, as every native source defines):
 * without it (strict ISO C, e.g. -std=c11, in a user's file that includes
 * utim_native_alarm.h) only the type and utim_native_line_count() are there.
 */
#ifndef UTIM_NATIVE_LINE_H
#define UTIM_NATIVE_LINE_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief An interrupt line (zero-initialised: never raised). */
typedef struct utim_native_line {
  uint32_t count; /**< raises so far (wraps); the futex word */
} utim_native_line_t;

/**
 * @brief The line's raise count now, for utim_native_line_wait().
 * @param line the line
 */
static inline uint32_t utim_native_line_count(const utim_native_line_t *line) {
  return __atomic_load_n(&line->count, __ATOMIC_ACQUIRE);
}

#if defined(_GNU_SOURCE) || defined(_DEFAULT_SOURCE) || defined(_BSD_SOURCE)
/**
 * @brief Raise the line: end the waiter's current or next wait. One system
 *        call (FUTEX_WAKE), about a microsecond, more when it wakes a CPU.
 * @param line the line
 */
static inline void utim_native_line_raise(utim_native_line_t *line) {
  (void)__atomic_add_fetch(&line->count, 1u, __ATOMIC_RELEASE);
  (void)syscall(SYS_futex, &line->count, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/**
 * @brief Sleep until the line is raised after its count was @p seen, or
 *        until CLOCK_MONOTONIC reaches @p deadline_ns (<= 0: no deadline).
 *        Returns at once when either already happened.
 * @param line        the line
 * @param seen        what utim_native_line_count() returned
 * @param deadline_ns absolute CLOCK_MONOTONIC time in ns, or <= 0
 * @retval 0 raised (woken)
 * @retval -EAGAIN raised before the wait began
 * @retval -ETIMEDOUT the deadline passed
 * @retval -EINTR a signal, or a spurious wake-up
 */
static inline int utim_native_line_wait(utim_native_line_t *line, uint32_t seen,
                                        int64_t deadline_ns) {
  struct timespec ts;
  const struct timespec *tp = NULL;
  if (deadline_ns > 0) {
    ts.tv_sec = (time_t)(deadline_ns / 1000000000);
    ts.tv_nsec = (long)(deadline_ns % 1000000000);
    tp = &ts;
  }
  /* FUTEX_WAIT_BITSET takes an absolute timeout, on CLOCK_MONOTONIC unless
   * FUTEX_CLOCK_REALTIME is given. */
  if (syscall(SYS_futex, &line->count, FUTEX_WAIT_BITSET_PRIVATE, seen, tp, NULL,
              FUTEX_BITSET_MATCH_ANY) == 0) {
    return 0;
  }
  return errno == EAGAIN || errno == ETIMEDOUT ? -errno : -EINTR;
}
#endif /* syscall() declared */

#ifdef __cplusplus
}
#endif

#endif /* UTIM_NATIVE_LINE_H */
