/**
 * @file tm_dlist.c
 * @brief `utim-bench tm`'s delta-list baseline (tm_bench.h): the structure
 *        of Zephyr's timeouts, RTX5, FreeRTOS's delayed list and RIOT's
 *        ztimer, written for the bench.
 *
 * Sorted by expiry, each node keeping its distance to its predecessor (the
 * head's to the list's time), so the time can advance by decrementing the
 * head. Insert walks from the head (O(position)), remove gives its delta to
 * its successor (O(1)).
 */
#include <stdlib.h>

#include "tm_bench.h"

static dl_node_t dl_head; /* sentinel */

void dl_remove(dl_node_t *n) {
  if (!n->linked) {
    return;
  }
  if (n->next != &dl_head) {
    n->next->delta += n->delta;
  }
  n->prev->next = n->next;
  n->next->prev = n->prev;
  n->linked = false;
}

void dl_insert(dl_node_t *n, uint64_t ticks) {
  dl_remove(n);
  dl_node_t *at = dl_head.next;
  while (at != &dl_head && at->delta <= ticks) {
    ticks -= at->delta;
    at = at->next;
  }
  if (at != &dl_head) {
    at->delta -= ticks;
  }
  n->delta = ticks;
  n->next = at;
  n->prev = at->prev;
  at->prev->next = n;
  at->prev = n;
  n->linked = true;
}

uint64_t dl_advance(uint64_t ticks) {
  uint64_t expired = 0;
  while (dl_head.next != &dl_head) {
    dl_node_t *n = dl_head.next;
    if (n->delta > ticks) {
      n->delta -= ticks;
      break;
    }
    ticks -= n->delta;
    /* Its delta is spent (the list's time has reached it): dl_remove() would
     * hand it on to the successor, which would then expire that much later. */
    n->delta = 0u;
    dl_remove(n);
    expired++;
    if (n->period != 0u) {
      dl_insert(n, n->period);
    }
  }
  return expired;
}

/* Order of (expiry, index) pairs by expiry. */
static int cmp_u64_idx(const void *a, const void *b) {
  const uint64_t *x = a;
  const uint64_t *y = b;
  return x[0] < y[0] ? -1 : (x[0] > y[0] ? 1 : 0);
}

void dl_build(dl_node_t *nodes, uint64_t (*pairs)[2], size_t n) {
  qsort(pairs, n, sizeof pairs[0], cmp_u64_idx);
  dl_head.next = &dl_head;
  dl_head.prev = &dl_head;
  uint64_t prev = 0;
  for (size_t i = 0; i < n; i++) {
    dl_node_t *d = &nodes[pairs[i][1]];
    d->delta = pairs[i][0] - prev;
    prev = pairs[i][0];
    d->prev = dl_head.prev;
    d->next = &dl_head;
    dl_head.prev->next = d;
    dl_head.prev = d;
    d->linked = true;
  }
}
