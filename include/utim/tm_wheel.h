/**
 * @file tm_wheel.h
 * @brief The time manager's timing wheel: any number of pending expiries in
 *        64-bit ticks, O(1) insert and remove, expiries exact to the tick.
 *
 * The time manager's engine (src/tm/wheel.c); public so that utim_tm_t can
 * be caller-owned (utim/tm.h). A hierarchical timing wheel of
 * UTIM_TM_WHEEL_LEVELS levels of 2^UTIM_TM_WHEEL_BITS slots, the digits of a
 * tick count in base 2^UTIM_TM_WHEEL_BITS. The wheel has its own time, @c clk:
 * an entry with expiry @c e lies on the level of the highest digit in which
 * @c e and @c clk differ, in the slot of its digit there; entries whose
 * expiry differs from @c clk above the levels wait on the far list. When
 * @c clk enters a slot's range, that slot is cascaded: its entries are put
 * back by the same rule and land on lower levels, and on level 0 an entry's
 * slot is its exact expiry. Unlike the Linux timer wheel, which rounds an
 * expiry up to its level's granularity, nothing is rounded: each entry
 * cascades at most once per level and expires at exactly its tick.
 *
 * Time is modular: an expiry is "ahead" of @c clk when @c e - @c clk
 * (mod 2^64) is below 2^63, and "due" otherwise or when equal; the tick
 * count may wrap.
 *
 * Advancing does not step tick by tick: utim_tm_wheel_advance() jumps from
 * one possible expiry to the next (utim_tm_wheel_next()), so its cost
 * follows the number of expiries and cascades, not the time passed.
 *
 * Occupancy bitmaps find the next non-empty slot of a level in one
 * count-trailing-zeros; on levels above 0 each slot keeps a lower bound of
 * its entries' expiries (exact until its earliest entry is removed), so the
 * next expiry is known without scanning a slot.
 *
 * Not thread-safe: the time manager calls it under the port lock.
 */
#ifndef UTIM_TM_WHEEL_H
#define UTIM_TM_WHEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief log2 of a machine word's bits, capped at 6: the default UTIM_TM_WHEEL_BITS. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define UTIM_TM_WORD_BITS 6
#else
#define UTIM_TM_WORD_BITS 5
#endif

#ifndef UTIM_TM_WHEEL_BITS
/**
 * @brief log2 of the slots per level, 1 to 6. By default a level's
 *        occupancy bitmap is a machine word: 64 slots (6) on 64-bit
 *        targets, 32 (5) on 32-bit ones, where 64-bit bit operations cost a
 *        library call or several instructions each.
 */
#define UTIM_TM_WHEEL_BITS UTIM_TM_WORD_BITS
#endif

#ifndef UTIM_TM_WHEEL_LEVELS
/**
 * @brief Levels of the wheel (BITS x LEVELS at most 64). Expiries farther than
 *        the levels reach (2^(BITS x LEVELS) ticks; by default 2^48 on 64-bit
 *        targets with 8 levels, 3.3 days at 1 GHz, 8.9 years at 1 MHz, and
 *        2^50 on 32-bit ones with 10, 2.2 years at 16 MHz) wait on the far
 *        list, looked at once each time @c clk crosses a multiple of that
 *        range.
 */
#if UTIM_TM_WHEEL_BITS == 6
#define UTIM_TM_WHEEL_LEVELS 8
#else
#define UTIM_TM_WHEEL_LEVELS 10
#endif
#endif

#if UTIM_TM_WHEEL_BITS < 1 || UTIM_TM_WHEEL_BITS > 6
#error "UTIM_TM_WHEEL_BITS must be 1 to 6"
#endif
#if UTIM_TM_WHEEL_LEVELS < 1 || UTIM_TM_WHEEL_BITS * UTIM_TM_WHEEL_LEVELS > 64
#error "UTIM_TM_WHEEL_LEVELS must be at least 1 and BITS x LEVELS at most 64"
#endif

/** @brief The type of a level's occupancy bitmap: 64 bits for 64 slots, else 32. */
#if UTIM_TM_WHEEL_BITS == 6
#define UTIM_TM_BITMAP_TYPE uint64_t
#else
#define UTIM_TM_BITMAP_TYPE uint32_t
#endif

/** @cond */
/* The geometry sets the size of utim_tm_wheel_t, and so of utim_tm_t: the
 * functions that set one up carry it in their link names, so that a program
 * compiled with one geometry and a library compiled with another (an installed
 * libutim_tm) fail to link (undefined utim_tm_init_<BITS>x<LEVELS>) instead of
 * sharing a struct of another size. */
#define UTIM_TM_LINK_NAME2_(name, bits, levels) name##_##bits##x##levels
#define UTIM_TM_LINK_NAME_(name, bits, levels)  UTIM_TM_LINK_NAME2_(name, bits, levels)
#define utim_tm_wheel_init                                                                         \
  UTIM_TM_LINK_NAME_(utim_tm_wheel_init, UTIM_TM_WHEEL_BITS, UTIM_TM_WHEEL_LEVELS)
#define utim_tm_init UTIM_TM_LINK_NAME_(utim_tm_init, UTIM_TM_WHEEL_BITS, UTIM_TM_WHEEL_LEVELS)
/** @endcond */

/** @brief A level's occupancy bitmap: one bit per slot. */
typedef UTIM_TM_BITMAP_TYPE utim_tm_bitmap_t;

/** @brief Slots per level. */
#define UTIM_TM_WHEEL_SLOTS (1u << UTIM_TM_WHEEL_BITS)

/** @brief A link of a circular doubly-linked list; a list head is one too. */
typedef struct utim_tm_link {
  struct utim_tm_link *next; /**< next link; NULL: not on a list */
  struct utim_tm_link *prev; /**< previous link */
} utim_tm_link_t;

/**
 * @brief One entry of the wheel, embedded in what it times (first member,
 *        so the owner is found from the node). 16 bytes on 32-bit targets.
 */
typedef struct utim_tm_node {
  utim_tm_link_t link; /**< its place on a slot's list (next == NULL: not pending) */
  uint64_t expiry;     /**< the tick it expires at */
} utim_tm_node_t;

/** @brief The wheel; fixed memory, no heap. Zero-initialised it is not ready: see init. */
typedef struct utim_tm_wheel {
  /* The scalars first: small offsets from the wheel's address, which
   * Thumb-1 loads and stores encode in the instruction. */
  uint64_t clk;                                             /**< the wheel's time */
  uint64_t far_low;                                         /**< lower bound of the far list */
  utim_tm_link_t far;                                       /**< beyond the levels */
  uint32_t count;                                           /**< pending entries */
  utim_tm_bitmap_t used[UTIM_TM_WHEEL_LEVELS];              /**< occupancy bitmaps */
  uint64_t low[UTIM_TM_WHEEL_LEVELS * UTIM_TM_WHEEL_SLOTS]; /**< per slot: lower bound */
  utim_tm_link_t slot[UTIM_TM_WHEEL_LEVELS * UTIM_TM_WHEEL_SLOTS]; /**< per slot: list head */
} utim_tm_wheel_t;

/**
 * @brief What utim_tm_wheel_advance() calls for each expired entry; it
 *        returns false to end the advance there (the wheel's time stays at
 *        that expiry), e.g. after it set the wheel up again
 *        (utim_tm_wheel_init()), whose time then has nothing to do with the
 *        advance's target.
 */
typedef bool (*utim_tm_expire_fn)(utim_tm_node_t *node, void *ctx);

/**
 * @brief Empty the wheel and set its time.
 * @param w   the wheel
 * @param now its time
 */
void utim_tm_wheel_init(utim_tm_wheel_t *w, uint64_t now);

/** @brief The wheel's time. */
static inline uint64_t utim_tm_wheel_time(const utim_tm_wheel_t *w) {
  return w->clk;
}

/** @brief Whether @p node is on the wheel. */
static inline bool utim_tm_node_pending(const utim_tm_node_t *node) {
  return node->link.next != NULL;
}

/**
 * @brief Put @p node on the wheel to expire at @p expiry. A node whose expiry
 *        is due (not ahead of the wheel's time) goes to the current slot and
 *        expires at the next utim_tm_wheel_advance(). O(1).
 * @param w      the wheel
 * @param node   a node not on the wheel (see utim_tm_node_pending())
 * @param expiry its tick
 */
void utim_tm_wheel_insert(utim_tm_wheel_t *w, utim_tm_node_t *node, uint64_t expiry);

/**
 * @brief Take @p node off the wheel; nothing when it is not on it. O(1).
 * @param w    the wheel
 * @param node the node
 * @return whether it was on the wheel
 */
bool utim_tm_wheel_remove(utim_tm_wheel_t *w, utim_tm_node_t *node);

/**
 * @brief The earliest tick at which an entry can expire, a lower bound of
 *        the earliest pending expiry: exact when that entry is on level 0 or
 *        is its slot's earliest and has not been removed; never later than
 *        it. The wheel's time itself when an entry is due.
 * @param w   the wheel
 * @param out the tick
 * @return false when the wheel is empty (@p out untouched)
 */
bool utim_tm_wheel_next(const utim_tm_wheel_t *w, uint64_t *out);

/**
 * @brief Move the wheel's time to @p now (not behind it), calling @p fn for
 *        each entry whose expiry is due, in expiry order (equal expiries in
 *        the order they were inserted), with the wheel's time at that expiry
 *        (utim_tm_wheel_time()). The entry is off the wheel when @p fn runs,
 *        and @p fn may insert and remove any entries, the expiring one
 *        included. An entry inserted due (its expiry not ahead of the wheel's
 *        time) counts as expiring at the wheel's time, after the entries
 *        already there: inserted by @p fn, it expires in the same call.
 *        When @p fn returns false the advance ends at once.
 * @param w   the wheel
 * @param now the new time; one behind the wheel's time changes nothing
 * @param fn  the expiry function
 * @param ctx its context
 * @return the number of entries that expired
 */
uint32_t utim_tm_wheel_advance(utim_tm_wheel_t *w, uint64_t now, utim_tm_expire_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TM_WHEEL_H */
