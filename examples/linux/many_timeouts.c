/*
 * Many timeouts with the time manager on Linux: 10,000 one-shot software
 * timers on one hardware channel (the native board's alarm), each checked
 * to fire once and never early. Copy it for a network stack's or an event
 * loop's timeouts.
 *
 *   many_timeouts [timers]
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep() also under -std=c11 */

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board_native.h" /* native_board_init() */
#include "utim/tm.h"

#define SPREAD_MS 200u

typedef struct job {
  utim_tm_timer_t t; /* first: the manager hands it back to the callback */
  uint64_t due;
  unsigned fired;
} job_t;

static utim_tm_t tm;
/* Written by the callbacks (the board's interrupt thread), read by main(). */
static atomic_uint done;
static atomic_uint early;

static void on_timeout(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  job_t *j = arg;
  if (utim_tm_now(m) < j->due) {
    atomic_fetch_add(&early, 1u);
  }
  j->fired++;
  atomic_fetch_add(&done, 1u);
}

int main(int argc, char **argv) {
  const unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10000u;
  job_t *jobs = calloc(n, sizeof *jobs);
  if (n == 0u || jobs == NULL) {
    fprintf(stderr, "usage: many_timeouts [timers > 0]\n");
    free(jobs);
    return 2;
  }
  native_board_init();
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  uint32_t hz = 0;
  /* Claimed first: the manager is the instance's owner from here on. */
  if (p == NULL || utim_claim(p, &tm) != 0 ||
      utim_closest_freq(p, 1000000u, UTIM_CLOCK_DEFAULT, &hz) != 0 ||
      utim_init(p, hz, UTIM_CLOCK_DEFAULT) != 0 || utim_start(p) != 0 ||
      utim_tm_init(&tm, p, 0u, UTIM_TM_TICKLESS, 0u) != 0) {
    fprintf(stderr, "many_timeouts: cannot start the time manager on NATIVE_ALARM\n");
    free(jobs);
    return 1;
  }
  srand(1);
  const uint64_t spread = (uint64_t)hz * SPREAD_MS / 1000u;
  for (unsigned i = 0; i < n; i++) {
    utim_tm_timer_init(&jobs[i].t, on_timeout, &jobs[i]);
    const uint64_t ticks = 1u + (uint64_t)rand() % spread;
    jobs[i].due = utim_tm_now(&tm) + ticks;
    if (utim_tm_start(&tm, &jobs[i].t, ticks, 0u) != 0) {
      fprintf(stderr, "many_timeouts: utim_tm_start failed\n");
      (void)utim_tm_deinit(&tm);
      free(jobs);
      return 1;
    }
  }
  /* Wait (sleeping) for all of them, at most a second past the last. */
  const struct timespec step = {0, 10000000};
  for (unsigned waited = 0; done < n && waited < SPREAD_MS / 10u + 100u; waited++) {
    nanosleep(&step, NULL);
  }
  /* No callback runs after this: jobs[].fired can be read without a race. */
  (void)utim_tm_deinit(&tm);
  (void)utim_release(p, &tm);
  unsigned twice = 0;
  for (unsigned i = 0; i < n; i++) {
    twice += jobs[i].fired > 1u;
  }
  const unsigned n_done = atomic_load(&done);
  const unsigned n_early = atomic_load(&early);
  printf("many_timeouts: %u timers on one channel (%lu Hz): %u fired, %u early, %u twice\n", n,
         (unsigned long)hz, n_done, n_early, twice);
  free(jobs);
  return n_done == n && n_early == 0u && twice == 0u ? 0 : 1;
}
