/*
 * hAPI driver for the emulated alarm timer of a Linux host (see
 * utim_native_alarm.h for the model).
 *
 * Everything but utim_read() runs under the port lock: set_channel, init and
 * set_property because the core calls them inside its compound operations,
 * enable and write because they take it here, and the interrupt handler
 * because its caller holds it. So only the time base needs a lock-free
 * protocol, for readers on any thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include "utim_native_alarm.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "utim/port.h"

#define NA_NEVER    UINT64_MAX
#define NA_NS_PER_S 1000000000u
/* Deadlines further out than this are clamped: the handler then runs once
 * early, finds nothing due and the interrupt thread programs the rest. */
#define NA_FAR_NS (UINT64_C(1) << 62)

typedef struct na_base {
  uint64_t base_ns;
  uint64_t e_base;
  uint64_t adj;
  uint64_t div;
  unsigned running;
} na_base_t;

static const utim_native_alarm_cfg_t *na_cfg(const utim_periph_t *p) {
  return (const utim_native_alarm_cfg_t *)(const void *)p->dev;
}

static utim_native_alarm_rt_t *na_rt(const utim_periph_t *p) {
  return na_cfg(p)->rt;
}

static uint64_t na_clock_ns(const utim_periph_t *p) {
  struct timespec ts;
  if (clock_gettime((clockid_t)na_cfg(p)->clock_id, &ts) != 0) {
    return 0u;
  }
  return (uint64_t)ts.tv_sec * NA_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Lock-free snapshot of the time base (see utim_native_counter.c for the
 * sequence-lock pattern), with the clock read inside the same window when
 * @p now is not NULL, so a reader never applies an old base to a clock value
 * taken after a stop or a write replaced it. */
static na_base_t na_load(const utim_periph_t *p, uint64_t *now) {
  const utim_native_alarm_rt_t *rt = na_rt(p);
  na_base_t b;
  for (;;) {
    unsigned s = atomic_load_explicit(&rt->seq, memory_order_acquire);
    b.base_ns = atomic_load_explicit(&rt->base_ns, memory_order_relaxed);
    b.e_base = atomic_load_explicit(&rt->e_base, memory_order_relaxed);
    b.adj = atomic_load_explicit(&rt->adj, memory_order_relaxed);
    b.div = atomic_load_explicit(&rt->div, memory_order_relaxed);
    b.running = atomic_load_explicit(&rt->running, memory_order_relaxed);
    if (now != NULL) {
      *now = na_clock_ns(p);
    }
    atomic_thread_fence(memory_order_acquire);
    if ((s & 1u) == 0u && atomic_load_explicit(&rt->seq, memory_order_relaxed) == s) {
      return b;
    }
  }
}

/* Publish a new time base; callers hold the port lock, so writers never race. */
static void na_store(utim_native_alarm_rt_t *rt, const na_base_t *b) {
  unsigned s = atomic_load_explicit(&rt->seq, memory_order_relaxed);
  atomic_store_explicit(&rt->seq, s + 1u, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&rt->base_ns, b->base_ns, memory_order_relaxed);
  atomic_store_explicit(&rt->e_base, b->e_base, memory_order_relaxed);
  atomic_store_explicit(&rt->adj, b->adj, memory_order_relaxed);
  atomic_store_explicit(&rt->div, b->div, memory_order_relaxed);
  atomic_store_explicit(&rt->running, b->running, memory_order_relaxed);
  atomic_store_explicit(&rt->seq, s + 2u, memory_order_release);
}

/* E at clock time now. A clock read taken before base_ns (another thread
 * rebased meanwhile) counts as no time elapsed, never as a huge one. */
static uint64_t na_e_at(const na_base_t *b, uint64_t now) {
  if (b->running == 0u || b->div == 0u || now <= b->base_ns) {
    return b->e_base;
  }
  return b->e_base + (now - b->base_ns) / b->div;
}

/* Ticks from counter value `from` forward to `to`; 0 (the counter is on the
 * value) means the next pass, a full 2^64 ticks away: never, here. */
static uint64_t na_match_e(uint64_t e_now, uint64_t from, uint64_t to) {
  uint64_t d = to - from;
  /* E counts from utim_init() and is far from 2^64; a distance that would
   * carry E past it lies beyond any run of the program: never. */
  return (d == 0u || d >= NA_NEVER - e_now) ? NA_NEVER : e_now + d;
}

/* Earliest E at which the handler has something to report. */
static uint64_t na_earliest(const utim_native_alarm_rt_t *rt) {
  uint64_t e = rt->ovf_on != 0u ? rt->wrap_e : NA_NEVER;
  for (unsigned ch = 0; ch < UTIM_NATIVE_ALARM_CHANNELS; ch++) {
    if ((rt->enabled & (1u << ch)) != 0u && rt->match[ch] < e) {
      e = rt->match[ch];
    }
  }
  return e;
}

/* Clock deadline of the earliest event, -1 when none can come (nothing
 * enabled, or stopped). */
static int64_t na_deadline(const utim_native_alarm_rt_t *rt, const na_base_t *b) {
  uint64_t e = na_earliest(rt);
  if (e == NA_NEVER || b->running == 0u || b->div == 0u) {
    return -1;
  }
  uint64_t ticks = e > b->e_base ? e - b->e_base : 0u;
  uint64_t room = NA_FAR_NS > b->base_ns ? NA_FAR_NS - b->base_ns : 0u;
  uint64_t ns = ticks > room / b->div ? NA_FAR_NS : b->base_ns + ticks * b->div;
  return ns == 0u ? 1 : (int64_t)ns;
}

/*
 * Ask the interrupt thread for an earlier wake-up when the earliest event
 * moved before the deadline its timerfd holds. Writers never program the
 * timerfd themselves: a timer armed from a thread fires on that thread's
 * CPU, and the interrupt's entry would then stall the very thread whose
 * operation it is about to race with. One kick covers any number of writes
 * until the interrupt thread has re-programmed; a deadline that is now too
 * early (a compare cleared or moved later) costs one wake-up for nothing.
 */
static void na_request(utim_native_alarm_rt_t *rt, const na_base_t *b) {
  int64_t d = na_deadline(rt, b);
  atomic_store_explicit(&rt->next_ns, d > 0 ? d : INT64_MAX, memory_order_relaxed);
  if (d <= 0 || rt->kick_pending != 0u || rt->kick_fd < 0 ||
      (rt->armed_ns > 0 && d >= rt->armed_ns)) {
    return;
  }
  uint64_t one = 1u;
  if (write(rt->kick_fd, &one, sizeof one) == (ssize_t)sizeof one) {
    rt->kick_pending = 1u;
  }
}

static int na_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_clock_desc_t *c = &p->dev->clocks[clk];
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint64_t ns_per_tick = (uint64_t)div * (NA_NS_PER_S / c->hz);
  na_base_t b = {.base_ns = na_clock_ns(p), .e_base = 0u, .adj = 0u, .div = ns_per_tick};
  rt->enabled = 0u;
  rt->ovf_on = 0u;
  rt->wrap_e = NA_NEVER;
  for (unsigned ch = 0; ch < UTIM_NATIVE_ALARM_CHANNELS; ch++) {
    rt->cmp[ch] = 0u;
    rt->match[ch] = NA_NEVER;
  }
  na_store(rt, &b);
  return 0;
}

static int na_enable(const utim_periph_t *p, bool on) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint32_t key = utim_port_lock();
  uint64_t now = 0u;
  na_base_t b = na_load(p, &now);
  if (on && b.running == 0u) {
    /* E resumes from where it froze: the time stopped does not count. */
    b.base_ns = now;
    b.running = 1u;
    na_store(rt, &b);
  } else if (!on && b.running != 0u) {
    b.e_base = na_e_at(&b, now);
    b.base_ns = now;
    b.running = 0u;
    na_store(rt, &b);
  }
  /* Starting can bring a deadline; stopping leaves a stale one, which only
   * costs one handler run that finds the counter stopped. */
  na_request(rt, &b);
  utim_port_unlock(key);
  return 0;
}

static uint64_t na_read(const utim_periph_t *p) {
  uint64_t now = 0u;
  na_base_t b = na_load(p, &now);
  return na_e_at(&b, now) + b.adj;
}

static int na_write(const utim_periph_t *p, uint64_t value) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint32_t key = utim_port_lock();
  uint64_t now = 0u;
  na_base_t b = na_load(p, &now);
  uint64_t e_now = na_e_at(&b, now);
  b.adj = value - e_now;
  na_store(rt, &b);
  /* Compares are absolute counter values: their distance is now measured
   * from the written value. */
  for (unsigned ch = 0; ch < UTIM_NATIVE_ALARM_CHANNELS; ch++) {
    if ((rt->enabled & (1u << ch)) != 0u) {
      rt->match[ch] = na_match_e(e_now, value, rt->cmp[ch]);
    }
  }
  if (rt->ovf_on != 0u) {
    rt->wrap_e = na_match_e(e_now, value, 0u);
  }
  na_request(rt, &b);
  utim_port_unlock(key);
  return 0;
}

static void na_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                           uint64_t value) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint32_t bit = 1u << ch;
  if (mode == UTIM_CH_ONESHOT) {
    /* Replacing the compare and its match in one step under the lock is the
     * emulated "disable, write, clear flag, enable": the handler can only
     * ever see the new setting. */
    uint64_t now = 0u;
    na_base_t b = na_load(p, &now);
    uint64_t e_now = na_e_at(&b, now);
    rt->cmp[ch] = value;
    rt->match[ch] = na_match_e(e_now, e_now + b.adj, value);
    rt->enabled |= bit;
    na_request(rt, &b);
    return;
  }
  /* UTIM_CH_OFF. next_ns may now be early: a poll then runs the handler once
   * for nothing, which recomputes it. */
  rt->enabled &= ~bit;
  rt->match[ch] = NA_NEVER;
}

static int na_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_native_alarm_rt_t *rt = na_rt(p);
  switch (id) {
  case UTIM_NATIVE_ALARM_PROP_CLOCK_NS:
    *value = na_clock_ns(p);
    return 0;
  case UTIM_NATIVE_ALARM_PROP_ISR_RUNS:
    *value = rt->isr_runs;
    return 0;
  case UTIM_NATIVE_ALARM_PROP_ISR_EVENTS:
    *value = rt->isr_events;
    return 0;
  case UTIM_NATIVE_ALARM_PROP_FD:
    *value = (uint64_t)(int64_t)rt->fd;
    return 0;
  case UTIM_NATIVE_ALARM_PROP_KICK_FD:
    *value = (uint64_t)(int64_t)rt->kick_fd;
    return 0;
  default:
    return -ENOTSUP;
  }
}

static int na_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  utim_native_alarm_rt_t *rt = na_rt(p);
  if (value == 1u) {
    /* Wraps from before the interrupt was switched on belong to no one;
     * an interrupt already on keeps the wrap it is waiting for. */
    if (rt->ovf_on == 0u) {
      uint64_t now = 0u;
      na_base_t b = na_load(p, &now);
      uint64_t e_now = na_e_at(&b, now);
      rt->ovf_on = 1u;
      rt->wrap_e = na_match_e(e_now, e_now + b.adj, 0u);
      na_request(rt, &b);
    }
  } else {
    rt->ovf_on = 0u;
    rt->wrap_e = NA_NEVER;
  }
  return 0;
}

const utim_driver_t utim_native_alarm_driver = {
    .init = na_init,
    .enable = na_enable,
    .read = na_read,
    .write = na_write,
    .set_channel = na_set_channel,
    .get_property = na_get_property,
    .set_property = na_set_property,
};

int utim_native_alarm_attach(const utim_periph_t *p) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint32_t key = utim_port_lock();
  int rc = 0;
  if (rt->fd < 0) {
    int fd = timerfd_create((clockid_t)na_cfg(p)->clock_id, TFD_NONBLOCK | TFD_CLOEXEC);
    int kick = eventfd(0u, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0 || kick < 0) {
      rc = -errno;
      if (fd >= 0) {
        (void)close(fd);
      }
      if (kick >= 0) {
        (void)close(kick);
      }
    } else {
      rt->fd = fd;
      rt->kick_fd = kick;
      rt->armed_ns = -1;
      rt->kick_pending = 0u;
    }
  }
  utim_port_unlock(key);
  return rc;
}

void utim_native_alarm_isr(const utim_periph_t *p) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint64_t now = 0u;
  na_base_t b = na_load(p, &now);
  rt->isr_runs++;
  if (b.div == 0u) {
    return;
  }
  uint64_t e_now = na_e_at(&b, now);
  uint32_t events = 0u;
  for (unsigned ch = 0; ch < UTIM_NATIVE_ALARM_CHANNELS; ch++) {
    uint32_t bit = 1u << ch;
    if ((rt->enabled & bit) != 0u && e_now >= rt->match[ch]) {
      /* One-shot: off before reporting, as a hardware handler disables the
       * matched channel before it clears the flag. */
      rt->enabled &= ~bit;
      rt->match[ch] = NA_NEVER;
      events |= UTIM_EVT_CH(ch);
    }
  }
  if (rt->ovf_on != 0u && e_now >= rt->wrap_e) {
    /* The next wrap is 2^64 ticks after this one. */
    rt->wrap_e = NA_NEVER;
    events |= UTIM_EVT_OVF;
  }
  if (events != 0u) {
    rt->isr_events++;
    utim_core_event(p, events);
  }
  /* The core may have re-armed periodic channels. */
  b = na_load(p, NULL);
  na_request(rt, &b);
}

bool utim_native_alarm_due(const utim_periph_t *p) {
  const utim_native_alarm_rt_t *rt = na_rt(p);
  int64_t next = atomic_load_explicit(&rt->next_ns, memory_order_relaxed);
  return next != INT64_MAX && (int64_t)na_clock_ns(p) >= next;
}

int64_t utim_native_alarm_irq(const utim_periph_t *p) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  /* This thread takes care of the next deadline right after the handler:
   * kicking itself from the handler would only cost a wake-up for nothing. */
  rt->kick_pending = 1u;
  utim_native_alarm_isr(p);
  rt->kick_pending = 0u;
  na_base_t b = na_load(p, NULL);
  int64_t d = na_deadline(rt, &b);
  /* Recorded before the thread sleeps or spins towards it: a writer that
   * moves the earliest event before d from now on kicks, and the kick is
   * seen after this, so a later change is never lost. */
  rt->armed_ns = d;
  return d;
}

int64_t utim_native_alarm_next(const utim_periph_t *p) {
  return atomic_load_explicit(&na_rt(p)->next_ns, memory_order_relaxed);
}

void utim_native_alarm_arm(const utim_periph_t *p, int64_t wake_ns) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  /* A zero it_value disarms; one in the past fires at once. */
  struct itimerspec its = {{0, 0}, {0, 0}};
  if (wake_ns > 0) {
    its.it_value.tv_sec = (time_t)(wake_ns / (int64_t)NA_NS_PER_S);
    its.it_value.tv_nsec = (long)(wake_ns % (int64_t)NA_NS_PER_S);
  }
  if (rt->fd >= 0 && timerfd_settime(rt->fd, TFD_TIMER_ABSTIME, &its, NULL) != 0) {
    /* Unknown kernel state: make the next request kick again. */
    uint32_t key = utim_port_lock();
    rt->armed_ns = 0;
    utim_port_unlock(key);
  }
}
