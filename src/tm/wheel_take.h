/*
 * The wheel's removal of a node, for wheel.c, the manager (tm.c) and its
 * stop for layers (tm_layer.h) only: utim_tm_wheel_remove() is this, and
 * the manager's start and stop, which are little else, inline it where the
 * build optimises for speed (WHEEL_TAKE).
 */
#ifndef UTIM_TM_WHEEL_TAKE_H
#define UTIM_TM_WHEEL_TAKE_H

#include <stdbool.h>
#include <stddef.h>

#include "utim/tm_wheel.h"

/* Take @p n off its list if it is on one (see utim_tm_wheel_remove()): its
 * links, its neighbours' links, and its slot's bit when it was the slot's
 * last entry. */
static inline bool wheel_take(utim_tm_wheel_t *w, utim_tm_node_t *n) {
  utim_tm_link_t *next = n->link.next;
  if (next == NULL) {
    return false;
  }
  utim_tm_link_t *prev = n->link.prev;
  if (next == prev && next != &w->far) {
    /* It was alone: next is its slot's head. */
    const size_t i = (size_t)(next - w->slot);
    w->used[i / UTIM_TM_WHEEL_SLOTS] &=
        (utim_tm_bitmap_t) ~((utim_tm_bitmap_t)1 << (i % UTIM_TM_WHEEL_SLOTS));
  }
  prev->next = next;
  next->prev = prev;
  n->link.next = NULL;
  n->link.prev = NULL;
  w->count--;
  return true;
}

/* The remove a start or stop makes: wheel_take() inline where the build
 * optimises for speed (a stop's own call and frame are a sixth of its
 * instructions on a host: 63 -> 54 with the bench's loop, utim-bench tm),
 * the wheel's one copy where it optimises for size (-Os, the MCU builds). */
#ifdef __OPTIMIZE_SIZE__
#define WHEEL_TAKE utim_tm_wheel_remove
#else
#define WHEEL_TAKE wheel_take
#endif

#endif /* UTIM_TM_WHEEL_TAKE_H */
