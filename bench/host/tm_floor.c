/**
 * @file tm_floor.c
 * @brief `utim-bench tm`, part 1's memory floors: the same batches of
 *        random pending timers as the cost figures, each operation reduced
 *        to what any structure, or the manager's lists, must at least do
 *        (tm_bench.h). What they show is in the README ("utim-bench tm").
 */
#include <stdlib.h>

#include "tm_bench.h"

/* The batch the floors run on (tm_floors_measure()'s). */
static const tm_floor_batch_t *fb;

static utim_tm_timer_t *batch_timer(size_t j) {
  return &fb->timers[fb->idx[j]];
}

static volatile uint64_t sink;
/* 0, but not known to the compiler: ANDed with a read's value it makes the
 * next read's address wait for that read without changing it. */
static volatile uint64_t zero_dep;

/* One read of each batch timer's memory. */
__attribute__((noinline)) static void touch_batch(size_t k) {
  uint64_t acc = 0;
  for (size_t j = 0; j < k; j++) {
    acc += *(volatile const uint64_t *)&batch_timer(j)->period;
  }
  sink = acc;
}

/* The same reads, each one's address waiting on the previous read's value:
 * one miss latency per read (the floor of an operation whose second access
 * depends on its first, as a stop's unlink on the timer's links). */
__attribute__((noinline)) static void chase_batch(size_t k) {
  const uint64_t z = zero_dep;
  uint64_t v = 0;
  for (size_t j = 0; j < k; j++) {
    v = *(volatile const uint64_t *)&fb->timers[fb->idx[j] + (size_t)(v & z)].period;
  }
  sink = v;
}

/* A bare unlink of each batch timer from its list in the manager's wheel:
 * the accesses an intrusive doubly linked list's removal cannot avoid (the
 * timer's links, then its two neighbours), none of the manager's other
 * work (lock, checks, bitmaps, count). The timer keeps its own links, so
 * relink_batch() puts the batch back exactly: the floor of a stop on the
 * manager's own lists. Nothing else runs in between (NOP instance, one
 * thread). */
__attribute__((noinline)) static void unlink_batch(size_t k) {
  for (size_t j = 0; j < k; j++) {
    utim_tm_link_t *l = &batch_timer(j)->node.link;
    l->prev->next = l->next;
    l->next->prev = l->prev;
  }
}

/* Undo unlink_batch() (untimed): in reverse order, each timer's neighbours
 * are back in place when it is relinked between them. */
static void relink_batch(size_t k) {
  for (size_t j = k; j-- > 0;) {
    utim_tm_link_t *l = &batch_timer(j)->node.link;
    l->prev->next = l;
    l->next->prev = l;
  }
}

/* The wheel's own remove of each batch timer (utim_tm_wheel_remove(): the
 * unlink, plus the slot's bit, the count and the node marked not pending),
 * none of the manager's lock and checks: between the bare unlink and the
 * manager's stop. */
__attribute__((noinline)) static void remove_batch(size_t k) {
  for (size_t j = 0; j < k; j++) {
    (void)utim_tm_wheel_remove(fb->wheel, &batch_timer(j)->node);
  }
}

/* Undo remove_batch() (untimed): each timer back at its expiry. */
static void reinsert_batch(size_t k) {
  for (size_t j = 0; j < k; j++) {
    utim_tm_node_t *nd = &batch_timer(j)->node;
    utim_tm_wheel_insert(fb->wheel, nd, nd->expiry);
  }
}

/* Median ns per operation of @p ops over @p rounds fresh batches, @p undo
 * (or NULL) run after each, untimed (v: scratch). */
static double floor_of(void (*ops)(size_t), void (*undo)(size_t), unsigned rounds, double *v) {
  for (unsigned rd = 0; rd < rounds; rd++) {
    fb->pick(fb->ctx);
    const double t0 = (double)utim_native_clock_ns(CLOCK_MONOTONIC);
    ops(fb->k);
    v[rd] = ((double)utim_native_clock_ns(CLOCK_MONOTONIC) - t0) / (double)fb->k;
    if (undo != NULL) {
      undo(fb->k);
    }
  }
  bench_stats_t st;
  bench_stats(v, rounds, &st);
  return st.median;
}

void tm_floors_measure(const tm_floor_batch_t *b, unsigned rounds, double *scratch,
                       tm_floors_t *out) {
  fb = b;
  out->read_ns = floor_of(touch_batch, NULL, rounds, scratch);
  out->dependent_ns = floor_of(chase_batch, NULL, rounds, scratch);
  out->unlink_ns = floor_of(unlink_batch, relink_batch, rounds, scratch);
  out->remove_ns = floor_of(remove_batch, reinsert_batch, rounds, scratch);
  fb = NULL;
}

/* The floors in the table's order, with what each line says. */
#define FLOOR_KINDS 4u
static const char *const floor_what[FLOOR_KINDS] = {
    "memory floor (the same batches, one read of each operation's timer)",
    "dependent (each read's address waits on the previous one: a miss's latency)",
    "bare unlink (a stop's list accesses on the manager's lists, nothing else)",
    "wheel remove (utim_tm_wheel_remove(): the unlink and its bookkeeping)",
};

static double floor_value(const tm_floors_t *fl, unsigned kind) {
  switch (kind) {
  case 0:
    return fl->read_ns;
  case 1:
    return fl->dependent_ns;
  case 2:
    return fl->unlink_ns;
  default:
    return fl->remove_ns;
  }
}

void tm_floors_table(FILE *f, const size_t *n, const tm_floors_t *fl, size_t nn) {
  for (unsigned kind = 0; kind < FLOOR_KINDS; kind++) {
    fprintf(f, "  %s, ns:", floor_what[kind]);
    for (size_t i = 0; i < nn; i++) {
      fprintf(f, " %zu: %.1f%s", n[i], floor_value(&fl[i], kind), i + 1u < nn ? "," : "\n");
    }
  }
}

void tm_floors_json(bench_jw_t *w, const size_t *n, const tm_floors_t *fl, size_t nn) {
  bench_jw_array(w, "memory_floor");
  for (size_t i = 0; i < nn; i++) {
    bench_jw_object(w, NULL);
    bench_jw_uint(w, "n", n[i]);
    bench_jw_num(w, "ns", true, fl[i].read_ns);
    bench_jw_num(w, "dependent_ns", true, fl[i].dependent_ns);
    bench_jw_num(w, "unlink_ns", true, fl[i].unlink_ns);
    bench_jw_num(w, "remove_ns", true, fl[i].remove_ns);
    bench_jw_end(w);
  }
  bench_jw_end(w);
}
