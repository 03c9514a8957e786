/*
 * The time manager's task delays on the hardware time manager block (see
 * utim/tm_htm.h): the backend operations of utim_tm_tasks_t over the HTM
 * driver.
 */
#include <errno.h>
#include <stddef.h>

#include "utim/port.h"
#include "utim/tm_htm.h"
#include "utim_htm.h"

static const utim_htm_t *block(const utim_tm_tasks_t *ts) {
  return (const utim_htm_t *)ts->backend;
}

/* A wake taken from the block and not yet delivered (the interrupt's loop,
 * while a hook runs) is dropped by a new delay or a clear of its id, as the
 * software backend drops a replaced or stopped timer's expiry. */
static void drop_taken(utim_tm_tasks_t *ts, unsigned id) {
  ts->backend_taken &= ~((uint64_t)1 << (id % 64u));
}

static int htm_delay(utim_tm_tasks_t *ts, unsigned id, uint64_t ticks) {
  if (ticks > utim_htm_delay_max(ts->backend_n, ts->backend_width)) {
    return -EINVAL;
  }
  /* The block keeps a wake bit over a new load: the wake of the replaced
   * delay, ended but not yet taken by the interrupt (held off by the lock),
   * would come as the new delay's. A clear drops the delay and its wake bit
   * in one bus cycle, before the load (an acknowledge after it could drop
   * the new delay's own wake). */
  utim_htm_clear(block(ts), id);
  const int rc = utim_htm_delay(block(ts), ts->backend_n, ts->backend_width, id, ticks);
  drop_taken(ts, id);
  return rc;
}

static void htm_clear(utim_tm_tasks_t *ts, unsigned id) {
  utim_htm_clear(block(ts), id);
  drop_taken(ts, id);
}

static uint64_t htm_now(utim_tm_tasks_t *ts) {
  return utim_htm_time(block(ts));
}

static void htm_set_time(utim_tm_tasks_t *ts, uint64_t t) {
  utim_htm_set_time(block(ts), t);
}

static const utim_tm_task_ops_t htm_ops = {htm_delay, htm_clear, htm_now, htm_set_time};

int utim_tm_tasks_init_htm(utim_tm_tasks_t *ts, const utim_htm_t *h, uint32_t *wake, unsigned n,
                           utim_tm_wake_fn hook, void *arg) {
  unsigned slots = 0;
  unsigned width = 0;
  if (ts == NULL || h == NULL || wake == NULL || n == 0u) {
    return -EINVAL;
  }
  const int rc = utim_htm_probe(h, &slots, &width);
  if (rc != 0) {
    return rc;
  }
  if (n > slots) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  utim_htm_irq_enable(h, false);
  for (unsigned i = 0; i < slots; i++) {
    utim_htm_clear(h, i);
  }
  (void)utim_htm_take_wakes(h, slots);
  *ts = (utim_tm_tasks_t){.tm = NULL,
                          .timers = NULL,
                          .wake = wake,
                          .n = n,
                          .hook = hook,
                          .hook_arg = arg,
                          .ops = &htm_ops,
                          .backend = h,
                          .backend_n = slots,
                          .backend_width = width,
                          .backend_taken = 0u};
  for (unsigned w = 0; w < UTIM_TM_TASK_WORDS(n); w++) {
    wake[w] = 0u;
  }
  utim_htm_irq_enable(h, true);
  utim_port_unlock(key);
  return 0;
}

void utim_tm_tasks_htm_isr(utim_tm_tasks_t *ts) {
  if (ts == NULL || ts->ops != &htm_ops) {
    return;
  }
  const uint32_t key = utim_port_lock();
  ts->backend_taken = utim_htm_take_wakes(block(ts), ts->backend_n);
  /* Re-read at each id: a hook may clear or delay another id (drop_taken()). */
  for (unsigned id = 0; ts->backend_taken != 0u && id < ts->n; id++) {
    const uint64_t bit = (uint64_t)1 << id;
    if ((ts->backend_taken & bit) != 0u) {
      ts->backend_taken &= ~bit;
      ts->wake[id / 32u] |= (uint32_t)1 << (id % 32u);
      if (ts->hook != NULL) {
        ts->hook(NULL, id, ts->hook_arg);
      }
    }
  }
  ts->backend_taken = 0u;
  utim_port_unlock(key);
}
