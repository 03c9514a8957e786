/*
 * hAPI driver for the emulated alarm timer of a Linux host (see
 * utim_native_alarm.h for the model).
 *
 * Everything but utim_read() runs under the port lock: set_channel, init and
 * set_property because the core calls them inside its compound operations,
 * enable, write and get_property because they take it here, and the
 * interrupt handler because its caller holds it. So only the time base
 * needs a lock-free protocol (utim_seqlock.h), for readers on any thread,
 * and the next-event time an atomic one, for the spinning interrupt thread
 * and utim_native_alarm_due().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include "utim_native_alarm.h"

#include <errno.h>
#include <time.h>

#include "utim/port.h"
#include "utim_native_hw.h"
#include "utim_seqlock.h"

#define NA_NEVER    UINT64_MAX
#define NA_NS_PER_S 1000000000u
/* Deadlines further out than this are clamped: the handler then runs once
 * early, finds nothing due and the interrupt thread sleeps on. */
#define NA_FAR_NS (UINT64_C(1) << 62)

typedef struct na_base {
  uint64_t base_ns;
  uint64_t e_base;
  uint64_t adj;
  uint64_t div;
  uint32_t running;
} na_base_t;

static const utim_native_alarm_cfg_t *na_cfg(const utim_periph_t *p) {
  return (const utim_native_alarm_cfg_t *)(const void *)p->dev;
}

static utim_native_alarm_rt_t *na_rt(const utim_periph_t *p) {
  return na_cfg(p)->rt;
}

/* The counter's clock: CLOCK_MONOTONIC, the clock the line's wait runs on. */
static uint64_t na_clock_ns(void) {
  return (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC);
}

/* Lock-free snapshot of the time base, with the clock read inside the same
 * read section when @p now is not NULL, so a reader never applies an old
 * base to a clock value taken after a stop or a write replaced it. */
static na_base_t na_load(const utim_periph_t *p, uint64_t *now) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  na_base_t b;
  uint32_t seq;
  do {
    seq = utim_seq_read_begin(&rt->seq);
    b.base_ns = UTIM_SEQ_LOAD(rt->base_ns);
    b.e_base = UTIM_SEQ_LOAD(rt->e_base);
    b.adj = UTIM_SEQ_LOAD(rt->adj);
    b.div = UTIM_SEQ_LOAD(rt->div);
    b.running = UTIM_SEQ_LOAD(rt->running);
    if (now != NULL) {
      *now = na_clock_ns();
    }
  } while (utim_seq_read_retry(&rt->seq, seq));
  return b;
}

/* Publish a new time base; callers hold the port lock, so writers never race. */
static void na_store(utim_native_alarm_rt_t *rt, const na_base_t *b) {
  utim_seq_write_begin(&rt->seq);
  UTIM_SEQ_STORE(rt->base_ns, b->base_ns);
  UTIM_SEQ_STORE(rt->e_base, b->e_base);
  UTIM_SEQ_STORE(rt->adj, b->adj);
  UTIM_SEQ_STORE(rt->div, b->div);
  UTIM_SEQ_STORE(rt->running, b->running);
  utim_seq_write_end(&rt->seq);
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
  if (rt->ovf_on != 0u && rt->ovf_due != 0u) {
    return 0u; /* a flagged wrap: due now */
  }
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
 * Raise the line when the earliest event moved before the deadline the
 * interrupt thread is prepared for. Writers never sleep on a kernel timer
 * for the thread: a timer armed from a thread fires on that thread's CPU,
 * and the interrupt's entry would then stall the very thread whose
 * operation it is about to race with; and programming one costs a
 * hypervisor trap in a virtual machine. One raise covers any number of
 * writes until the interrupt thread has looked again; a deadline that is
 * now too early (a compare cleared or moved later) costs one wake-up for
 * nothing.
 */
static void na_request(utim_native_alarm_rt_t *rt, const na_base_t *b) {
  int64_t d = na_deadline(rt, b);
  __atomic_store_n(&rt->next_ns, d > 0 ? d : INT64_MAX, __ATOMIC_RELAXED);
  if (d <= 0 || rt->raise_pending != 0u || rt->line == NULL ||
      (rt->armed_ns > 0 && d >= rt->armed_ns)) {
    return;
  }
  rt->raise_pending = 1u;
  utim_native_line_raise(rt->line);
}

static int na_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_clock_desc_t *c = &p->dev->clocks[clk];
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint64_t ns_per_tick = (uint64_t)div * (NA_NS_PER_S / c->hz);
  na_base_t b = {.base_ns = na_clock_ns(), .e_base = 0u, .adj = 0u, .div = ns_per_tick};
  rt->enabled = 0u;
  rt->ovf_on = 0u;
  rt->ovf_due = 0u;
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
   * from the written value. A compare or a wrap already reached, whose
   * interrupt has not been taken (the interrupt thread is still waking, or
   * the port lock is held), stays flagged, as on hardware: the write moves
   * only what is still to come. */
  for (unsigned ch = 0; ch < UTIM_NATIVE_ALARM_CHANNELS; ch++) {
    if ((rt->enabled & (1u << ch)) != 0u && e_now < rt->match[ch]) {
      rt->match[ch] = na_match_e(e_now, value, rt->cmp[ch]);
    }
  }
  if (rt->ovf_on != 0u) {
    if (e_now >= rt->wrap_e) {
      rt->ovf_due = 1u;
    }
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
  int rc = 0;
  /* The counts are written by the handler, under the lock. */
  uint32_t key = utim_port_lock();
  switch (id) {
  case UTIM_NATIVE_ALARM_PROP_CLOCK_NS:
    *value = na_clock_ns();
    break;
  case UTIM_NATIVE_ALARM_PROP_ISR_RUNS:
    *value = rt->isr_runs;
    break;
  case UTIM_NATIVE_ALARM_PROP_ISR_EVENTS:
    *value = rt->isr_events;
    break;
  default:
    rc = -ENOTSUP;
    break;
  }
  utim_port_unlock(key);
  return rc;
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
    rt->ovf_due = 0u;
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

void utim_native_alarm_attach(const utim_periph_t *p, utim_native_line_t *line) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  uint32_t key = utim_port_lock();
  rt->line = line;
  rt->armed_ns = -1;
  rt->raise_pending = 0u;
  utim_port_unlock(key);
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
  if (rt->ovf_on != 0u && (rt->ovf_due != 0u || e_now >= rt->wrap_e)) {
    /* The next wrap is 2^64 ticks after this one (a wrap flagged before a
     * write leaves the one the written value brings). */
    if (e_now >= rt->wrap_e) {
      rt->wrap_e = NA_NEVER;
    }
    rt->ovf_due = 0u;
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
  int64_t next = __atomic_load_n(&rt->next_ns, __ATOMIC_RELAXED);
  return next != INT64_MAX && (int64_t)na_clock_ns() >= next;
}

int64_t utim_native_alarm_irq(const utim_periph_t *p) {
  utim_native_alarm_rt_t *rt = na_rt(p);
  /* This thread takes care of the next deadline right after the handler:
   * raising its own line from the handler would only cost a wake-up for
   * nothing. */
  rt->raise_pending = 1u;
  utim_native_alarm_isr(p);
  rt->raise_pending = 0u;
  na_base_t b = na_load(p, NULL);
  int64_t d = na_deadline(rt, &b);
  /* Recorded before the thread sleeps or spins towards it: a writer that
   * moves the earliest event before d from now on raises the line, and the
   * thread reads the line's count under this same lock, so a later change
   * is never lost. */
  rt->armed_ns = d;
  return d;
}

int64_t utim_native_alarm_next(const utim_periph_t *p) {
  return __atomic_load_n(&na_rt(p)->next_ns, __ATOMIC_RELAXED);
}
