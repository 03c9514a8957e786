/*
 * Task delays on the time manager (see utim/tm.h): one timer per task id,
 * whose callback sets the id's wake bit and calls the scheduler's hook.
 */
#include <stddef.h>

#include "tm_layer.h"
#include "utim/port.h"
#include "utim/tm.h"

static unsigned popcount32(uint32_t v) {
  unsigned n = 0;
  for (; v != 0u; v &= v - 1u) {
    n++;
  }
  return n;
}

// cppcheck-suppress constParameter ; the signature is utim_tm_cb_t
static void task_expired(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  utim_tm_tasks_t *ts = arg;
  const unsigned id = (unsigned)(t - ts->timers);
  ts->wake[id / 32u] |= (uint32_t)1 << (id % 32u);
  if (ts->hook != NULL) {
    ts->hook(tm, id, ts->hook_arg);
  }
}

int utim_tm_tasks_init(utim_tm_tasks_t *ts, utim_tm_t *tm, utim_tm_timer_t *timers, uint32_t *wake,
                       unsigned n, utim_tm_wake_fn hook, void *arg) {
  if (ts == NULL || tm == NULL || timers == NULL || wake == NULL || n == 0u || !tm->running) {
    return -EINVAL;
  }
  ts->tm = tm;
  ts->timers = timers;
  ts->wake = wake;
  ts->n = n;
  ts->hook = hook;
  ts->hook_arg = arg;
  ts->ops = NULL;
  ts->backend = NULL;
  ts->backend_n = 0u;
  ts->backend_width = 0u;
  ts->backend_taken = 0u;
  for (unsigned i = 0; i < n; i++) {
    utim_tm_timer_init(&timers[i], task_expired, ts);
  }
  for (unsigned w = 0; w < UTIM_TM_TASK_WORDS(n); w++) {
    wake[w] = 0u;
  }
  return 0;
}

int utim_tm_task_delay(utim_tm_tasks_t *ts, unsigned id, uint64_t ticks) {
  /* The range is the interface's, whatever the backend: a hardware block
   * with wider counters must not take what the manager's timers refuse. */
  if (ts == NULL || id >= ts->n || ticks > UTIM_TM__MAX_AHEAD) {
    return -EINVAL;
  }
  if (ts->ops != NULL) {
    const uint32_t key = utim_port_lock();
    const int rc = ts->ops->delay(ts, id, ticks);
    utim_port_unlock(key);
    return rc;
  }
  return utim_tm_start(ts->tm, &ts->timers[id], ticks, 0u);
}

int utim_tm_task_clear(utim_tm_tasks_t *ts, unsigned id) {
  if (ts == NULL || id >= ts->n) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  if (ts->ops != NULL) {
    ts->ops->clear(ts, id);
  } else if (utim_tm_stop(ts->tm, &ts->timers[id]) < 0) {
    /* The manager no longer runs: refused, the wake bit kept. */
    utim_port_unlock(key);
    return -EINVAL;
  }
  ts->wake[id / 32u] &= ~((uint32_t)1 << (id % 32u));
  utim_port_unlock(key);
  return 0;
}

unsigned utim_tm_tasks_to_wake(utim_tm_tasks_t *ts, uint32_t *out, unsigned words) {
  if (ts == NULL || out == NULL) {
    return 0u;
  }
  const unsigned have = UTIM_TM_TASK_WORDS(ts->n);
  unsigned count = 0;
  const uint32_t key = utim_port_lock();
  for (unsigned w = 0; w < words; w++) {
    out[w] = w < have ? ts->wake[w] : 0u;
    if (w < have) {
      ts->wake[w] = 0u;
    }
    count += popcount32(out[w]);
  }
  utim_port_unlock(key);
  return count;
}

uint64_t utim_tm_tasks_now(utim_tm_tasks_t *ts) {
  if (ts == NULL) {
    return 0u;
  }
  if (ts->ops == NULL) {
    return utim_tm_now(ts->tm);
  }
  const uint32_t key = utim_port_lock();
  const uint64_t t = ts->ops->now(ts);
  utim_port_unlock(key);
  return t;
}

int utim_tm_tasks_set_time(utim_tm_tasks_t *ts, uint64_t t) {
  if (ts == NULL) {
    return -EINVAL;
  }
  if (ts->ops == NULL) {
    return utim_tm_set_time(ts->tm, t);
  }
  const uint32_t key = utim_port_lock();
  ts->ops->set_time(ts, t);
  utim_port_unlock(key);
  return 0;
}
