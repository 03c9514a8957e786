/*
 * The time manager's timing wheel (see wheel.h for the scheme).
 *
 * Invariants, with clk the wheel's time and digit_L(x) the L-th base-2^BITS
 * digit of x:
 * - an entry on level L >= 1, slot s, has the digits above L of clk and
 *   digit_L = s > digit_L(clk): every entry on level L expires after every
 *   entry on levels below, and within a level the slots are in time order;
 * - an entry on level 0 in slot s expires at clk with digit 0 replaced by s
 *   (s >= digit_0(clk)), or it was inserted due and sits in slot digit_0(clk);
 *   (with levels up to bit 63 and no far list, the top level's slots are
 *   cyclic: those below digit_L(clk) hold expiries past the 64-bit wrap);
 * - an entry on the far list differs from clk above the levels;
 * - a slot's bit in used[] is set exactly when its list is not empty, and
 *   then low[] of the slot (levels >= 1) is at most every expiry on it.
 * So the earliest expiry is in the first non-empty slot of the lowest
 * non-empty level, and moving clk to any tick up to that one empties no slot
 * on the way except, at the highest digit that changes, the slot clk enters
 * (or the far list when a digit above the levels changes): one cascade.
 */
#include "utim/tm_wheel.h"

#include <stddef.h>

#include "wheel_take.h"

#define BITS   ((unsigned)UTIM_TM_WHEEL_BITS)
#define LEVELS ((unsigned)UTIM_TM_WHEEL_LEVELS)
#define SLOTS  UTIM_TM_WHEEL_SLOTS
#define MASK   ((uint64_t)SLOTS - 1u)
/* Bits the levels cover; 64 means there is no far list in use. */
#define SPAN (BITS * LEVELS)
/* Ahead means a distance below 2^63. */
#define HALF ((uint64_t)1 << 63)

static unsigned digit(uint64_t x, unsigned level) {
  return (unsigned)((x >> (BITS * level)) & MASK);
}

/* Index of the highest set bit of x (x != 0). */
static unsigned top_bit(uint64_t x) {
  return 63u - (unsigned)__builtin_clzll(x);
}

/* The level of bit index b (0 to 63): b / BITS as a multiply by
 * M = ceil(256 / BITS) and a shift, as Armv6-M has no divide instruction
 * (and BITS is 5 there). b x M / 256 exceeds b / BITS by
 * b x (BITS x M - 256) / (256 x BITS), which stays below 1 / BITS, so the
 * quotient's floor is unchanged, when 63 x (BITS x M - 256) < 256. */
#define LEVEL_MUL ((256u + BITS - 1u) / BITS)
_Static_assert(63u * (BITS * LEVEL_MUL - 256u) < 256u, "level_of() inexact for these BITS");
static unsigned level_of(unsigned b) {
  return (b * LEVEL_MUL) >> 8;
}

/* A level's bitmap with only slot s's bit set. */
static utim_tm_bitmap_t bit_of(unsigned s) {
  return (utim_tm_bitmap_t)1 << s;
}

/* The bitmap of the slots from s on (s < SLOTS). */
static utim_tm_bitmap_t from(unsigned s) {
  return (utim_tm_bitmap_t) ~(utim_tm_bitmap_t)0 << s;
}

/* Index of the lowest set bit of a bitmap (x != 0). */
static unsigned low_bit(utim_tm_bitmap_t x) {
#if UTIM_TM_WHEEL_BITS == 6
  return (unsigned)__builtin_ctzll(x);
#else
  return (unsigned)__builtin_ctz(x);
#endif
}

/* Whether x and y differ above the levels. */
static bool beyond_levels(uint64_t x, uint64_t y) {
#if UTIM_TM_WHEEL_BITS * UTIM_TM_WHEEL_LEVELS < 64
  return ((x ^ y) >> SPAN) != 0u;
#else
  (void)x;
  (void)y;
  return false;
#endif
}

static void list_init(utim_tm_link_t *head) {
  head->next = head;
  head->prev = head;
}

static void list_append(utim_tm_link_t *head, utim_tm_link_t *l) {
  l->prev = head->prev;
  l->next = head;
  head->prev->next = l;
  head->prev = l;
}

void utim_tm_wheel_init(utim_tm_wheel_t *w, uint64_t now) {
  w->clk = now;
  for (unsigned i = 0; i < LEVELS; i++) {
    w->used[i] = 0u;
  }
  for (unsigned i = 0; i < LEVELS * SLOTS; i++) {
    list_init(&w->slot[i]);
    w->low[i] = 0u;
  }
  list_init(&w->far);
  w->far_low = 0u;
  w->count = 0u;
}

/* Put a node (off every list) where its expiry says, relative to clk.
 * Inline into utim_tm_wheel_insert(), for the reason the manager's put()
 * is (tm.c). */
static inline void place(utim_tm_wheel_t *w, utim_tm_node_t *n) {
  const uint64_t e = n->expiry;
  if (e - w->clk >= HALF || e == w->clk) {
    /* Due: the current slot of level 0, which advance() empties first. */
    const unsigned s = digit(w->clk, 0u);
    list_append(&w->slot[s], &n->link);
    w->used[0] |= bit_of(s);
    return;
  }
  if (beyond_levels(e, w->clk)) {
    if (w->far.next == &w->far || e - w->clk < w->far_low - w->clk) {
      w->far_low = e;
    }
    list_append(&w->far, &n->link);
    return;
  }
  const unsigned level = level_of(top_bit(e ^ w->clk));
  const unsigned s = digit(e, level);
  const unsigned i = level * SLOTS + s;
  const utim_tm_bitmap_t bit = bit_of(s);
  if ((w->used[level] & bit) == 0u || e < w->low[i]) {
    w->low[i] = e; /* same digits above the level as clk: plain comparison */
  }
  w->used[level] |= bit;
  list_append(&w->slot[i], &n->link);
}

bool utim_tm_wheel_remove(utim_tm_wheel_t *w, utim_tm_node_t *node) {
  return wheel_take(w, node);
}

void utim_tm_wheel_insert(utim_tm_wheel_t *w, utim_tm_node_t *node, uint64_t expiry) {
  node->expiry = expiry;
  place(w, node);
  w->count++;
}

bool utim_tm_wheel_next(const utim_tm_wheel_t *w, uint64_t *out) {
  const uint64_t clk = w->clk;
  /* Level 0: from the current slot on (it holds what is due). */
  utim_tm_bitmap_t m = w->used[0] & from(digit(clk, 0u));
  if (m != 0u) {
    *out = (clk & ~MASK) | low_bit(m);
    return true;
  }
  for (unsigned level = 1; level < LEVELS; level++) {
    const unsigned d = digit(clk, level);
    m = d + 1u < SLOTS ? w->used[level] & from(d + 1u) : 0u;
#if UTIM_TM_WHEEL_BITS * UTIM_TM_WHEEL_LEVELS == 64
    if (m == 0u && level == LEVELS - 1u) {
      /* Levels up to bit 63, no far list: the top level's slots below clk's
       * digit lie past the wrap of the tick count, after those above it. */
      m = w->used[level] & (utim_tm_bitmap_t)~from(d);
    }
#endif
    if (m != 0u) {
      *out = w->low[level * SLOTS + low_bit(m)];
      return true;
    }
  }
  if (w->far.next != &w->far) {
    *out = w->far_low;
    return true;
  }
  return false;
}

/* Entries of the far list that now share clk's digits above the levels go
 * onto the levels; the lower bound of the rest is recomputed. */
static void refile_far(utim_tm_wheel_t *w) {
  utim_tm_link_t *l = w->far.next;
  bool any = false;
  while (l != &w->far) {
    utim_tm_link_t *next = l->next;
    utim_tm_node_t *n = (utim_tm_node_t *)(void *)l;
    if (!beyond_levels(n->expiry, w->clk)) {
      (void)utim_tm_wheel_remove(w, n);
      utim_tm_wheel_insert(w, n, n->expiry);
    } else if (!any || n->expiry - w->clk < w->far_low - w->clk) {
      w->far_low = n->expiry;
      any = true;
    }
    l = next;
  }
}

/* Move clk to t, ahead of it and not past the earliest entry (next()). */
static void jump(utim_tm_wheel_t *w, uint64_t t) {
  const uint64_t x = w->clk ^ t;
  w->clk = t;
  if (beyond_levels(x, 0u)) {
    refile_far(w);
    return;
  }
  const unsigned level = level_of(top_bit(x));
  if (level == 0u) {
    return;
  }
  utim_tm_link_t *head = &w->slot[level * SLOTS + digit(t, level)];
  while (head->next != head) {
    utim_tm_node_t *n = (utim_tm_node_t *)(void *)head->next;
    (void)utim_tm_wheel_remove(w, n);
    utim_tm_wheel_insert(w, n, n->expiry);
  }
}

uint32_t utim_tm_wheel_advance(utim_tm_wheel_t *w, uint64_t now, utim_tm_expire_fn fn, void *ctx) {
  uint32_t fired = 0;
  if (now - w->clk >= HALF) {
    return 0; /* behind the wheel's time */
  }
  for (;;) {
    /* Everything in the current slot of level 0 is due now; fn may add to it. */
    utim_tm_link_t *head = &w->slot[digit(w->clk, 0u)];
    while (head->next != head) {
      utim_tm_node_t *n = (utim_tm_node_t *)(void *)head->next;
      (void)utim_tm_wheel_remove(w, n);
      fired++;
      if (!fn(n, ctx)) {
        return fired;
      }
      head = &w->slot[digit(w->clk, 0u)];
    }
    if (w->clk == now) {
      return fired;
    }
    uint64_t t = now;
    uint64_t next = 0;
    if (utim_tm_wheel_next(w, &next) && next - w->clk < now - w->clk) {
      t = next;
    }
    jump(w, t);
  }
}
