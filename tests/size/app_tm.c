/*
 * An application of the time manager as an RTOS kernel would use it, built
 * for each Cortex-M board only to measure what the manager costs in flash
 * and RAM (size_<board>_tm): the manager on one instance (tickless on a
 * compare channel, or ticked on the overflow where the board's timers have
 * none), task delays with a wake hook, one software timer started and
 * stopped, and the system time. Queries it does not call (expiry,
 * remaining, set_time, deinit) are left out by --gc-sections and counted
 * only in the "objects" column.
 */
#include "utim/tm.h"

#define NTASKS 8u

static utim_tm_t tm;
static utim_tm_tasks_t tasks;
static utim_tm_timer_t task_timers[NTASKS];
static uint32_t wake[UTIM_TM_TASK_WORDS(NTASKS)];
static utim_tm_timer_t timeout;
static volatile unsigned woken;

static void on_wake(utim_tm_t *m, unsigned id, void *arg) {
  (void)m;
  (void)arg;
  woken |= 1u << id;
}

static void on_timeout(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
  woken |= 0x100u;
}

int main(void) {
  const utim_periph_t *p = utim_by_index(0u);
  if (p == NULL || utim_init(p, utim_clock(p, 0u)->hz, UTIM_CLOCK_DEFAULT) != 0 ||
      utim_start(p) != 0) {
    return 1;
  }
  const uint32_t hz = utim_freq(p);
  int rc = utim_channels(p) > 0u
               ? utim_tm_init(&tm, p, 0u, UTIM_TM_TICKLESS, 0u)
               : utim_tm_init(&tm, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, hz / 1000u);
  if (rc != 0 || utim_tm_tasks_init(&tasks, &tm, task_timers, wake, NTASKS, on_wake, NULL) != 0) {
    return 1;
  }
  utim_tm_timer_init(&timeout, on_timeout, NULL);
  (void)utim_tm_start(&tm, &timeout, hz, 0u);
  for (unsigned i = 0; i < NTASKS; i++) {
    (void)utim_tm_task_delay(&tasks, i, (uint64_t)(i + 1u) * (hz / 100u));
  }
  (void)utim_tm_task_clear(&tasks, 3u);
  (void)utim_tm_stop(&tm, &timeout);
  uint32_t got[UTIM_TM_TASK_WORDS(NTASKS)];
  return (int)((utim_tm_now(&tm) + utim_tm_tasks_to_wake(&tasks, got, 1u)) & 1u);
}
