/**
 * @file utim_seqlock.h
 * @brief The one sequence lock of the native board and its drivers: one
 *        writer at a time (serialised by the caller's own lock), any number
 *        of lock-free readers that retry when a write overlapped their read.
 *
 * Used by the native counter's time base, the native alarm's time base and
 * the clock source's published conversion (utim_now()). It lives in
 * drivers/native_hw/, the host's "hardware access" layer below both the
 * drivers and the board: drivers may not include the board, and the board
 * may include what its drivers include, so this is the one place both reach
 * without pointing upwards (as CMSIS core headers sit below an MCU's drivers
 * and board alike).
 *
 * @par Memory ordering
 * The protected fields are plain objects read and written only through
 * UTIM_SEQ_LOAD() and UTIM_SEQ_STORE(): acquire loads and release stores.
 * A reader that saw any field of a write therefore also sees that write's
 * odd sequence count when it re-reads it, and retries; a reader that saw the
 * even count a write ended with sees every field of it. This is the seqlock
 * of Boehm ("Can seqlocks get along with programming language memory
 * models?", 2012) in its fence-free form: on x86-64 it compiles to the same
 * plain moves as the fenced form, on aarch64 to load-acquire/store-release,
 * and ThreadSanitizer, which does not model stand-alone fences, checks it
 * exactly.
 *
 * @code
 * // writer (holding its own lock)
 * utim_seq_write_begin(&s->seq);
 * UTIM_SEQ_STORE(s->a, a);
 * UTIM_SEQ_STORE(s->b, b);
 * utim_seq_write_end(&s->seq);
 * // reader
 * uint32_t seq;
 * do {
 *   seq = utim_seq_read_begin(&s->seq);
 *   a = UTIM_SEQ_LOAD(s->a);
 *   b = UTIM_SEQ_LOAD(s->b);
 * } while (utim_seq_read_retry(&s->seq, seq));
 * @endcode
 */
#ifndef UTIM_SEQLOCK_H
#define UTIM_SEQLOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Read a field protected by a sequence count (an acquire load). */
#define UTIM_SEQ_LOAD(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)

/** @brief Write a field protected by a sequence count (a release store), between begin and end. */
#define UTIM_SEQ_STORE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELEASE)

/**
 * @brief Start a read: the sequence count to hand to utim_seq_read_retry().
 * @param seq the sequence count
 */
static inline uint32_t utim_seq_read_begin(const uint32_t *seq) {
  return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

/**
 * @brief End a read: whether it must be repeated, because a write was under
 *        way when it began or one started since.
 * @param seq   the sequence count
 * @param start what utim_seq_read_begin() returned
 */
static inline bool utim_seq_read_retry(const uint32_t *seq, uint32_t start) {
  /* Relaxed suffices: the field loads before it are acquire loads, which
   * nothing after them may pass. */
  return (start & 1u) != 0u || __atomic_load_n(seq, __ATOMIC_RELAXED) != start;
}

/**
 * @brief Start a write (the count becomes odd). Writers are serialised by
 *        the caller (the port lock, a mutex): one at a time.
 * @param seq the sequence count
 */
// NOLINTNEXTLINE(readability-non-const-parameter): written by __atomic_store_n, unseen by the check
static inline void utim_seq_write_begin(uint32_t *seq) {
  uint32_t s = __atomic_load_n(seq, __ATOMIC_RELAXED);
  /* Relaxed: the release stores of the fields that follow keep it before them. */
  __atomic_store_n(seq, s + 1u, __ATOMIC_RELAXED);
}

/**
 * @brief End a write (the count becomes even again and publishes the fields).
 * @param seq the sequence count
 */
// NOLINTNEXTLINE(readability-non-const-parameter): written by __atomic_store_n, unseen by the check
static inline void utim_seq_write_end(uint32_t *seq) {
  uint32_t s = __atomic_load_n(seq, __ATOMIC_RELAXED);
  __atomic_store_n(seq, s + 1u, __ATOMIC_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SEQLOCK_H */
