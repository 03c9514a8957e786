/*
 * utim core: the uAPI's compound operations (arming, periodic re-arming,
 * clearing, masking) and the dispatch of events to callbacks. Everything
 * here works for every driver; drivers only move raw ticks in and out of
 * their hardware. Frequency selection is in freq.c, instances, claims and
 * properties in instances.c.
 */
#include "core.h"

/* ---- small helpers ------------------------------------------------------ */

static inline utim_state_t *state_of(const utim_periph_t *p) {
  return p->dev->state;
}

/* Events an instance can raise: its channels, and the overflow if it has one. */
static uint32_t valid_events(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  uint32_t ev = (n >= 32u) ? 0xffffffffu : ((1u << n) - 1u);
  ev &= ~UTIM_EVT_OVF;
  if ((utim_caps(p) & UTIM_CAP_OVERFLOW) != 0u) {
    ev |= UTIM_EVT_OVF;
  }
  return ev;
}

/*
 * Release the lock and run the callbacks of every pending, unmasked event,
 * lowest bit first (channel 0 first, the overflow last). The lock is dropped
 * around each callback so that it may call the API; a delivery loop already
 * running for this instance (an outer frame, or the interrupt context) picks
 * up whatever becomes pending meanwhile, so callbacks never nest per instance.
 */
void utim__unlock_deliver(const utim_periph_t *p, uint32_t key) {
  utim_state_t *st = state_of(p);
  if (st->in_dispatch != 0u) {
    utim_port_unlock(key);
    return;
  }
  st->in_dispatch = 1u;
  uint32_t done = 0u; /* channels whose callback this loop has run */
  for (;;) {
    uint32_t ev = st->pending & ~st->mask;
    if (ev == 0u) {
      break;
    }
    uint32_t bit = ev & (~ev + 1u);
    st->pending &= ~bit;
    if (bit == UTIM_EVT_OVF) {
      utim_ovf_cb_t cb = st->ovf_cb;
      void *arg = st->ovf_arg;
      if (cb != NULL) {
        /* The wrap leaves `pending` here, before its callback runs: mark it
         * as committed (driver.h, utim_state_t::in_dispatch) so a layer that
         * counts wraps in that callback (the chain's software carry) can tell,
         * from an interrupt that preempts in between, a wrap not yet counted. */
        st->in_dispatch = UTIM_STATE_DISPATCH_OVF;
        utim_port_unlock(key);
        cb(p, arg);
        key = utim_port_lock();
        st->in_dispatch = 1u;
      }
    } else {
      unsigned ch = 0u;
      while ((bit >> ch) != 1u) {
        ch++;
      }
      if ((st->rearm & bit) != 0u) {
        st->rearm &= (uint16_t)~bit;
        (void)utim__periodic_advance(p, ch);
      }
      utim_chan_state_t *cs = &st->ch[ch];
      cs->overrun = cs->skipped;
      cs->skipped = 0u;
      utim_cmp_cb_t cb = st->cmp_cb;
      void *arg = st->cmp_arg;
      if (cb != NULL) {
        const bool timed = (st->periodic & bit) != 0u;
        const uint64_t t0 = timed ? p->drv->read(p) : 0u;
        utim_port_unlock(key);
        cb(p, ch, arg);
        key = utim_port_lock();
        // cppcheck-suppress knownConditionTrueFalse ; the callback may clear or re-arm it
        if (timed && (st->periodic & bit) != 0u) {
          utim__periodic_handled(p, ch, t0, (done & bit) != 0u);
        }
        done |= bit;
      }
    }
  }
  st->in_dispatch = 0u;
  utim_port_unlock(key);
}

/* ---- arming primitive ----------------------------------------------------- */

int utim__arm(const utim_periph_t *p, unsigned ch, uint64_t ref, uint64_t dist, bool pend) {
  utim_state_t *st = state_of(p);
  const uint64_t mask = utim_max(p);
  const uint64_t d = p->dev->min_distance;
  const uint64_t target = (ref + dist) & mask;
  const bool hw = dist >= d;

  st->ch[ch].target = target;
  if (hw) {
    st->armed |= UTIM_EVT_CH(ch);
  } else {
    st->armed &= ~UTIM_EVT_CH(ch);
  }
  p->drv->set_channel(p, ch, hw ? UTIM_CH_ONESHOT : UTIM_CH_OFF, target);

  /*
   * Time passed since `ref` was read: if the counter got to the target, or
   * so close to it that the hardware may not honour the compare, the
   * hardware match cannot be trusted. A reached target is due now; a target
   * less than min_distance ahead is waited for (at most min_distance ticks),
   * so the event is never early and never a full wrap late.
   */
  uint64_t elapsed = (p->drv->read(p) - ref) & mask;
  if (elapsed < dist && dist - elapsed >= d) {
    return UTIM__ARMED;
  }
  while (elapsed < dist) {
    utim_port_relax();
    elapsed = (p->drv->read(p) - ref) & mask;
  }
  if (hw) {
    st->armed &= ~UTIM_EVT_CH(ch);
    p->drv->set_channel(p, ch, UTIM_CH_OFF, 0u);
  }
  if (pend) {
    st->pending |= UTIM_EVT_CH(ch);
  }
  return UTIM__DUE;
}

void utim__forget_setting(utim_state_t *st, unsigned ch) {
  const uint32_t bit = UTIM_EVT_CH(ch);
  st->periodic &= ~bit;
  st->armed &= ~bit;
  st->rearm &= (uint16_t)~bit;
  st->pending &= ~bit;
  st->ch[ch].period = 0u;
  st->ch[ch].skipped = 0u;
  st->ch[ch].overrun = 0u;
  st->ch[ch].handled = 0u;
}

void utim__disarm(const utim_periph_t *p, unsigned ch) {
  utim__forget_setting(state_of(p), ch);
  p->drv->set_channel(p, ch, UTIM_CH_OFF, 0u);
}

void utim__forget(const utim_periph_t *p, unsigned ch) {
  utim__forget_setting(state_of(p), ch);
}

void utim__reset_state(const utim_periph_t *p) {
  utim_state_t *st = state_of(p);
  st->mask = 0u;
  for (unsigned ch = 0u; ch < utim_channels(p); ch++) {
    utim__forget_setting(st, ch);
    st->ch[ch].target = 0u;
  }
  st->pending = 0u;
}

/* ---- interrupt entry ----------------------------------------------------- */

void utim_core_event(const utim_periph_t *p, uint32_t events) {
  utim_core_event_unlock(p, events, utim_port_lock());
}

void utim_core_event_unlock(const utim_periph_t *p, uint32_t events, uint32_t key) {
  utim_state_t *st = state_of(p);
  /*
   * A match reported for a channel that is no longer armed is stale: it was
   * cleared or re-armed after the hardware flagged it but before this ran.
   */
  events &= st->armed | UTIM_EVT_OVF;
  st->armed &= ~(events & ~st->periodic);
  if ((events & st->periodic) != 0u) {
    /* Only ever set by utim_set_periodic(), which links periodic.c. */
    utim__periodic_matched(p, events & st->periodic);
  }
  st->pending |= events & valid_events(p);
  utim__unlock_deliver(p, key);
}

/* ---- channels --------------------------------------------------------------- */

int utim__check_channel(const utim_periph_t *p, unsigned ch) {
  if (ch >= utim_channels(p) || state_of(p)->hz == 0u) {
    return -EINVAL;
  }
  return 0;
}

int utim_set_abs(const utim_periph_t *p, unsigned ch, uint64_t value) {
  int rc = utim__check_channel(p, ch);
  if (rc != 0) {
    return rc;
  }
  const uint64_t mask = utim_max(p);
  if (value > mask) {
    return -ERANGE;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  uint64_t now = p->drv->read(p);
  uint64_t ahead = (value - now) & mask;
  if (ahead < p->dev->min_distance || ahead > (mask >> 1)) {
    utim_port_unlock(key);
    return -ETIME;
  }
  utim__forget_setting(st, ch);
  (void)utim__arm(p, ch, now, ahead, true);
  utim__unlock_deliver(p, key);
  return 0;
}

int utim_set_rel(const utim_periph_t *p, unsigned ch, uint64_t ticks) {
  int rc = utim__check_channel(p, ch);
  if (rc != 0) {
    return rc;
  }
  if (ticks > utim_max(p)) {
    return -ERANGE;
  }
  utim_state_t *st = state_of(p);
  uint64_t dist = ticks < p->dev->min_distance ? p->dev->min_distance : ticks;
  uint32_t key = utim_port_lock();
  utim__forget_setting(st, ch);
  (void)utim__arm(p, ch, p->drv->read(p), dist, true);
  utim__unlock_deliver(p, key);
  return 0;
}

int utim_clear(const utim_periph_t *p, unsigned ch) {
  if (ch >= utim_channels(p)) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  utim__disarm(p, ch);
  utim_port_unlock(key);
  return 0;
}

/* ---- callbacks and interrupts ------------------------------------------------- */

int utim_set_compare_cb(const utim_periph_t *p, utim_cmp_cb_t cb, void *arg) {
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  st->cmp_cb = cb;
  st->cmp_arg = arg;
  utim_port_unlock(key);
  return 0;
}

int utim_set_overflow_cb(const utim_periph_t *p, utim_ovf_cb_t cb, void *arg) {
  if ((utim_caps(p) & UTIM_CAP_OVERFLOW) == 0u || p->drv->set_property == NULL) {
    return -ENOTSUP;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  int rc = p->drv->set_property(p, UTIM_HPROP_OVF_IRQ, cb != NULL ? 1u : 0u);
  if (rc == 0) {
    st->ovf_cb = cb;
    st->ovf_arg = arg;
    if (cb == NULL) {
      st->pending &= ~UTIM_EVT_OVF;
    }
  }
  utim_port_unlock(key);
  return rc;
}

int utim_mask(const utim_periph_t *p, uint32_t events) {
  if ((events & ~valid_events(p)) != 0u) {
    return -EINVAL;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  st->mask |= events;
  utim_port_unlock(key);
  return 0;
}

int utim_unmask(const utim_periph_t *p, uint32_t events) {
  if ((events & ~valid_events(p)) != 0u) {
    return -EINVAL;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  st->mask &= ~events;
  utim__unlock_deliver(p, key);
  return 0;
}

int utim_overrun(const utim_periph_t *p, unsigned ch) {
  if (ch >= utim_channels(p)) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  uint32_t n = state_of(p)->ch[ch].overrun;
  utim_port_unlock(key);
  return n > (uint32_t)INT32_MAX ? INT32_MAX : (int)n;
}

uint32_t utim_pending(const utim_periph_t *p) {
  /* Under the lock: on a threaded port the interrupt context writes the
   * word concurrently, and a plain read would be a data race. */
  uint32_t key = utim_port_lock();
  uint32_t pending = state_of(p)->pending;
  utim_port_unlock(key);
  return pending & valid_events(p);
}
