/*
 * utim core: the uAPI's compound operations, callback dispatch and instance
 * look-up. Everything here works for every driver; drivers only move raw
 * ticks in and out of their hardware.
 */
#include "core.h"

/* ---- small helpers ------------------------------------------------------ */

static bool periodic_advance(const utim_periph_t *p, unsigned ch);

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
static void unlock_deliver(const utim_periph_t *p, uint32_t key) {
  utim_state_t *st = state_of(p);
  if (st->in_dispatch != 0u) {
    utim_port_unlock(key);
    return;
  }
  st->in_dispatch = 1u;
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
        utim_port_unlock(key);
        cb(p, arg);
        key = utim_port_lock();
      }
    } else {
      unsigned ch = 0u;
      while ((bit >> ch) != 1u) {
        ch++;
      }
      if ((st->rearm & bit) != 0u) {
        st->rearm &= (uint16_t)~bit;
        (void)periodic_advance(p, ch);
      }
      utim_chan_state_t *cs = &st->ch[ch];
      cs->overrun = cs->skipped;
      cs->skipped = 0u;
      utim_cmp_cb_t cb = st->cmp_cb;
      void *arg = st->cmp_arg;
      if (cb != NULL) {
        utim_port_unlock(key);
        cb(p, ch, arg);
        key = utim_port_lock();
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

/* Forget a channel's setting in the core state (not the hardware). */
static void forget(utim_state_t *st, unsigned ch) {
  const uint32_t bit = UTIM_EVT_CH(ch);
  st->periodic &= ~bit;
  st->armed &= ~bit;
  st->rearm &= (uint16_t)~bit;
  st->pending &= ~bit;
  st->ch[ch].period = 0u;
  st->ch[ch].skipped = 0u;
  st->ch[ch].overrun = 0u;
}

void utim__disarm(const utim_periph_t *p, unsigned ch) {
  forget(state_of(p), ch);
  p->drv->set_channel(p, ch, UTIM_CH_OFF, 0u);
}

void utim__forget(const utim_periph_t *p, unsigned ch) {
  forget(state_of(p), ch);
}

void utim__reset_state(const utim_periph_t *p) {
  utim_state_t *st = state_of(p);
  st->mask = 0u;
  for (unsigned ch = 0u; ch < utim_channels(p); ch++) {
    forget(st, ch);
    st->ch[ch].target = 0u;
  }
  st->pending = 0u;
}

static uint32_t add_sat32(uint32_t a, uint64_t b) {
  return b >= (uint64_t)(UINT32_MAX - a) ? UINT32_MAX : a + (uint32_t)b;
}

/* Re-arm attempts of a periodic channel with the lock held (see
 * utim_set_periodic()): the lead doubles at each, and the last one tries
 * with the largest lead, half the counter's range. */
#define REARM_TRIES 8u

/*
 * Move periodic channel `ch`, whose target has been reached, to the first
 * grid point the hardware can still be armed for: at least min_distance plus
 * a lead ahead of the counter. The lead starts at 0; an attempt that finds
 * its own target reached (the period is shorter than a re-arm, or the CPU
 * stalled) makes it twice what that attempt took, so a period that cannot be
 * sustained skips ahead on the grid instead of chasing a target that is
 * always due. Grid points left without a callback of their own are counted
 * in `skipped`. When every attempt fails (the last one with half the range as
 * lead: each arming stalled that long), the reached target is left pending
 * with the channel's re-arm bit set: the delivery loop re-arms before the
 * callback, with the lock released in between. Returns whether the channel
 * is armed. Lock held.
 */
static bool periodic_advance(const utim_periph_t *p, unsigned ch) {
  utim_state_t *st = state_of(p);
  utim_chan_state_t *cs = &st->ch[ch];
  const uint64_t period = cs->period;
  const uint64_t mask = utim_max(p);
  const uint64_t lead_max = mask >> 1;
  const uint64_t d = p->dev->min_distance;
  uint64_t lead = 0u;
  for (unsigned attempt = 0u; attempt < REARM_TRIES; attempt++) {
    if (attempt == REARM_TRIES - 1u) {
      lead = lead_max;
    }
    const uint64_t now = p->drv->read(p);
    const uint64_t late = (now - cs->target) & mask;
    /* Distance to the first grid point after `now` (1 .. period), then on by
     * whole periods to the first one at least d + lead ahead, as far as one
     * compare reaches (utim_max()). */
    const uint64_t first = period - late % period;
    const uint64_t need = d + lead;
    uint64_t dist = first;
    if (dist < need) {
      uint64_t k = (need - dist - 1u) / period + 1u;
      uint64_t k_max = (mask - dist) / period;
      dist += (k < k_max ? k : k_max) * period;
    }
    cs->skipped = add_sat32(cs->skipped, late / period + (dist - first) / period);
    if (utim__arm(p, ch, now, dist, false) == UTIM__ARMED) {
      return true;
    }
    /* Reached while arming: one more grid point without a callback. */
    cs->skipped = add_sat32(cs->skipped, 1u);
    const uint64_t took = (p->drv->read(p) - now) & mask;
    lead = lead > took ? lead : took;
    lead = lead < lead_max / 2u ? 2u * lead + 1u : lead_max;
  }
  const uint32_t bit = UTIM_EVT_CH(ch);
  if ((st->pending & bit) == 0u) {
    /* The reached target becomes the next callback's own match. */
    cs->skipped--;
  }
  st->pending |= bit;
  st->rearm |= (uint16_t)bit;
  return false;
}

/* ---- interrupt entry ----------------------------------------------------- */

void utim_core_event(const utim_periph_t *p, uint32_t events) {
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  /*
   * A match reported for a channel that is no longer armed is stale: it was
   * cleared or re-armed after the hardware flagged it but before this ran.
   */
  events &= st->armed | UTIM_EVT_OVF;
  st->armed &= ~(events & ~st->periodic);
  uint32_t rearm = events & st->periodic;
  for (unsigned ch = 0u; rearm != 0u; ch++, rearm >>= 1) {
    if ((rearm & 1u) != 0u) {
      if ((st->pending & UTIM_EVT_CH(ch)) != 0u) {
        /* The callback of an earlier match is still undelivered (masked, or
         * the delivery loop is busy): this match coalesces into it. */
        st->ch[ch].skipped = add_sat32(st->ch[ch].skipped, 1u);
      }
      (void)periodic_advance(p, ch);
    }
  }
  st->pending |= events & valid_events(p);
  unlock_deliver(p, key);
}

/* ---- instances ------------------------------------------------------------ */

unsigned utim_count(void) {
  return utim_board.count;
}

const utim_periph_t *utim_by_index(unsigned index) {
  return index < utim_board.count ? utim_board.instances[index] : NULL;
}

static bool str_eq(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

const utim_periph_t *utim_by_name(const char *name) {
  if (name == NULL) {
    return NULL;
  }
  for (unsigned i = 0u; i < utim_board.count; i++) {
    const utim_periph_t *p = utim_board.instances[i];
    if (p->dev->name != NULL && str_eq(p->dev->name, name)) {
      return p;
    }
  }
  return NULL;
}

int utim_claim(const utim_periph_t *p, const void *owner) {
  if (p == NULL || owner == NULL) {
    return -EINVAL;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  int rc = 0;
  if (st->owner == NULL) {
    st->owner = owner;
  } else if (st->owner != owner) {
    rc = -EBUSY;
  }
  utim_port_unlock(key);
  return rc;
}

int utim_release(const utim_periph_t *p, const void *owner) {
  if (p == NULL || owner == NULL) {
    return -EINVAL;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  int rc = 0;
  if (st->owner == NULL) {
    rc = -EINVAL;
  } else if (st->owner != owner) {
    rc = -EBUSY;
  } else {
    st->owner = NULL;
  }
  utim_port_unlock(key);
  return rc;
}

/* ---- frequency math --------------------------------------------------------- */

/* Whether divider `div` belongs to the divider set of clock input `c`. */
static bool div_in_set(const utim_clock_desc_t *c, uint32_t div) {
  if (div == 0u) {
    return false;
  }
  if (c->div_kind == UTIM_DIV_POW2) {
    if ((div & (div - 1u)) != 0u) {
      return false;
    }
    uint32_t e = 0u;
    while ((div >> e) != 1u) {
      e++;
    }
    return e >= c->div_lo && e <= c->div_hi;
  }
  return div >= c->div_lo && div <= c->div_hi;
}

/* Number of dividers of `c`; divider number i in increasing order. */
static uint32_t div_count(const utim_clock_desc_t *c) {
  if (c->div_hi < c->div_lo) {
    return 0u;
  }
  if (c->div_kind == UTIM_DIV_POW2 && c->div_hi > 31u) {
    return 32u - c->div_lo;
  }
  return c->div_hi - c->div_lo + 1u;
}

static uint32_t div_at(const utim_clock_desc_t *c, uint32_t i) {
  return c->div_kind == UTIM_DIV_POW2 ? (1u << (c->div_lo + i)) : (c->div_lo + i);
}

/* The divider giving exactly `hz` from input `c`, or 0 when there is none. */
static uint32_t exact_div(const utim_clock_desc_t *c, uint32_t hz) {
  if (c->hz == 0u || hz == 0u || c->hz % hz != 0u) {
    return 0u;
  }
  uint32_t div = c->hz / hz;
  return div_in_set(c, div) ? div : 0u;
}

/*
 * Closest integer frequency input `c` offers to `hz`: the exact frequencies
 * are c->hz / d for the dividers d that divide c->hz, decreasing in d, so the
 * answer is next to the divider c->hz / hz. Searching the divider list
 * outwards from there costs at most the size of the divider set.
 */
static bool closest_on(const utim_clock_desc_t *c, uint32_t hz, uint32_t *best, bool have) {
  uint32_t n = div_count(c);
  if (c->hz == 0u || n == 0u) {
    return have;
  }
  /* First index whose divider is >= c->hz / hz (frequency <= hz). */
  uint32_t lo = 0u;
  uint32_t hi = n;
  /* Rounded up, so the scan up starts at the nearest frequency <= hz. */
  uint32_t want = c->hz / hz + (c->hz % hz != 0u ? 1u : 0u);
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2u;
    if (div_at(c, mid) < want) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  /* Scan up (lower frequencies) and down (higher) to the first exact divider. */
  for (uint32_t i = lo; i < n; i++) {
    uint32_t d = div_at(c, i);
    if (c->hz % d == 0u) {
      uint32_t f = c->hz / d;
      uint32_t err = f > hz ? f - hz : hz - f;
      uint32_t berr = *best > hz ? *best - hz : hz - *best;
      if (!have || err < berr || (err == berr && f < *best)) {
        *best = f;
        have = true;
      }
      break;
    }
  }
  for (uint32_t i = lo; i-- > 0u;) {
    uint32_t d = div_at(c, i);
    if (c->hz % d == 0u) {
      uint32_t f = c->hz / d;
      uint32_t err = f > hz ? f - hz : hz - f;
      uint32_t berr = *best > hz ? *best - hz : hz - *best;
      if (!have || err < berr || (err == berr && f < *best)) {
        *best = f;
        have = true;
      }
      break;
    }
  }
  return have;
}

/*
 * Clock inputs selected by `clock`, in the order they are tried: bit i of
 * the result selects input i; `first_hf` asks for high-frequency inputs to be
 * tried before the others. Returns false when the selector names no input.
 */
static bool select_inputs(const utim_periph_t *p, unsigned clock, uint32_t *sel) {
  const utim_dev_t *dev = p->dev;
  *sel = 0u;
  if (clock >= UTIM_CLOCK_PLATFORM(0)) {
    unsigned n = clock - UTIM_CLOCK_PLATFORM(0);
    if (n >= dev->nclocks) {
      return false;
    }
    *sel = 1u << n;
    return true;
  }
  if (clock > UTIM_CLOCK_LP) {
    return false;
  }
  for (unsigned i = 0u; i < dev->nclocks && i < 32u; i++) {
    uint8_t cls = dev->clocks[i].cls;
    if ((clock == UTIM_CLOCK_DEFAULT && cls != UTIM_CLASS_CHAIN) ||
        (clock == UTIM_CLOCK_HF && cls == UTIM_CLASS_HF) ||
        (clock == UTIM_CLOCK_LP && cls == UTIM_CLASS_LP)) {
      *sel |= 1u << i;
    }
  }
  return *sel != 0u;
}

/* Try inputs in `sel`: high-frequency ones first, then the rest, each in index order. */
static bool find_exact(const utim_periph_t *p, uint32_t sel, uint32_t hz, unsigned *clk,
                       uint32_t *div) {
  const utim_dev_t *dev = p->dev;
  for (unsigned pass = 0u; pass < 2u; pass++) {
    for (unsigned i = 0u; i < dev->nclocks && i < 32u; i++) {
      bool hf = dev->clocks[i].cls == UTIM_CLASS_HF;
      if ((sel & (1u << i)) == 0u || hf != (pass == 0u)) {
        continue;
      }
      uint32_t d = exact_div(&dev->clocks[i], hz);
      if (d != 0u) {
        *clk = i;
        *div = d;
        return true;
      }
    }
  }
  return false;
}

int utim_init(const utim_periph_t *p, uint32_t hz, unsigned clock) {
  uint32_t sel;
  if (hz == 0u || !select_inputs(p, clock, &sel)) {
    return -EINVAL;
  }
  unsigned clk;
  uint32_t div;
  if (!find_exact(p, sel, hz, &clk, &div)) {
    return -ERANGE;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  int rc = p->drv->init(p, clk, div);
  if (rc == 0) {
    utim__reset_state(p);
    st->hz = hz;
    st->clk = (uint8_t)clk;
    if (st->ovf_cb != NULL && p->drv->set_property != NULL) {
      (void)p->drv->set_property(p, UTIM_HPROP_OVF_IRQ, 1u);
    }
  }
  utim_port_unlock(key);
  return rc;
}

int utim_closest_freq(const utim_periph_t *p, uint32_t hz, unsigned clock, uint32_t *out) {
  uint32_t sel;
  if (hz == 0u || out == NULL || !select_inputs(p, clock, &sel)) {
    return -EINVAL;
  }
  uint32_t best = 0u;
  bool have = false;
  for (unsigned i = 0u; i < p->dev->nclocks && i < 32u; i++) {
    if ((sel & (1u << i)) != 0u) {
      have = closest_on(&p->dev->clocks[i], hz, &best, have);
    }
  }
  if (!have) {
    return -ERANGE;
  }
  *out = best;
  return 0;
}

int utim_freqs(const utim_periph_t *p, unsigned clk, uint32_t *out, size_t cap) {
  if (clk >= p->dev->nclocks || (out == NULL && cap > 0u)) {
    return -EINVAL;
  }
  const utim_clock_desc_t *c = &p->dev->clocks[clk];
  uint32_t n = div_count(c);
  int count = 0;
  if (c->hz == 0u) {
    return 0;
  }
  for (uint32_t i = 0u; i < n; i++) {
    uint32_t d = div_at(c, i);
    if (c->hz % d == 0u) {
      if ((size_t)count < cap) {
        out[count] = c->hz / d;
      }
      count++;
    }
  }
  return count;
}

/* ---- channels --------------------------------------------------------------- */

static int check_channel(const utim_periph_t *p, unsigned ch) {
  if (ch >= utim_channels(p) || state_of(p)->hz == 0u) {
    return -EINVAL;
  }
  return 0;
}

int utim_set_abs(const utim_periph_t *p, unsigned ch, uint64_t value) {
  int rc = check_channel(p, ch);
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
  forget(st, ch);
  (void)utim__arm(p, ch, now, ahead, true);
  unlock_deliver(p, key);
  return 0;
}

int utim_set_rel(const utim_periph_t *p, unsigned ch, uint64_t ticks) {
  int rc = check_channel(p, ch);
  if (rc != 0) {
    return rc;
  }
  if (ticks > utim_max(p)) {
    return -ERANGE;
  }
  utim_state_t *st = state_of(p);
  uint64_t dist = ticks < p->dev->min_distance ? p->dev->min_distance : ticks;
  uint32_t key = utim_port_lock();
  forget(st, ch);
  (void)utim__arm(p, ch, p->drv->read(p), dist, true);
  unlock_deliver(p, key);
  return 0;
}

int utim_set_periodic(const utim_periph_t *p, unsigned ch, uint64_t period) {
  int rc = check_channel(p, ch);
  if (rc != 0) {
    return rc;
  }
  if (period == 0u) {
    return -EINVAL;
  }
  if (period > utim_max(p) || period < p->dev->min_distance) {
    return -ERANGE;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  forget(st, ch);
  st->ch[ch].period = period;
  st->periodic |= UTIM_EVT_CH(ch);
  if (utim__arm(p, ch, p->drv->read(p), period, true) == UTIM__DUE) {
    (void)periodic_advance(p, ch);
  }
  unlock_deliver(p, key);
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
  unlock_deliver(p, key);
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

/* ---- properties ------------------------------------------------------------------ */

int utim_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  if (value == NULL) {
    return -EINVAL;
  }
  const utim_state_t *st = state_of(p);
  switch (id) {
  case UTIM_PROP_WIDTH:
    *value = utim_width(p);
    return 0;
  case UTIM_PROP_MAX:
    *value = utim_max(p);
    return 0;
  case UTIM_PROP_CHANNELS:
    *value = utim_channels(p);
    return 0;
  case UTIM_PROP_COUNT_DOWN:
    *value = utim_count_down(p);
    return 0;
  case UTIM_PROP_CAPS:
    *value = utim_caps(p);
    return 0;
  case UTIM_PROP_FREQ:
    *value = st->hz;
    return 0;
  case UTIM_PROP_MIN_DISTANCE:
    *value = p->dev->min_distance;
    return 0;
  case UTIM_PROP_CLOCKS:
    *value = p->dev->nclocks;
    return 0;
  case UTIM_PROP_CLOCK:
    *value = st->clk;
    return 0;
  case UTIM_PROP_DIVIDER:
    *value = st->hz != 0u ? p->dev->clocks[st->clk].hz / st->hz : 0u;
    return 0;
  default:
    break;
  }
  if (id < UTIM_PROP_DRIVER_BASE || p->drv->get_property == NULL) {
    return -ENOTSUP;
  }
  return p->drv->get_property(p, id, value);
}

int utim_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  if (id >= UTIM_PROP_WIDTH && id <= UTIM_PROP_DIVIDER) {
    return -EINVAL;
  }
  if (id < UTIM_PROP_DRIVER_BASE || p->drv->set_property == NULL) {
    return -ENOTSUP;
  }
  return p->drv->set_property(p, id, value);
}
