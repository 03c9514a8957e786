/*
 * Virtual chain driver: a low timer counting at the instance frequency and a
 * high timer counting the low one's overflows, seen as one counter of both
 * widths. The high timer counts either in hardware (clocked by the low
 * timer's overflow) or by software carry (stopped, written in the low
 * timer's overflow interrupt). Compares go in two stages: first the high
 * half (the high timer's channel, or the carry interrupt), then the low
 * timer's channel for the low half. Sub-timer events arrive through the
 * core's callbacks of the two timers and are forwarded to the chained
 * instance with utim_core_event().
 */
#include "utim/chain.h"

#include "core.h"

static const utim_chain_cfg_t *cfg_of(const utim_periph_t *p) {
  return (const utim_chain_cfg_t *)(const void *)p->dev;
}

static unsigned lo_width(const utim_chain_cfg_t *c) {
  return utim_width(c->lo);
}

static bool soft(const utim_chain_cfg_t *c) {
  return c->hi_clk == UTIM_CHAIN_SOFTWARE;
}

/* Whether the low timer has wrapped without its interrupt having run yet. */
static bool lo_wrap_pending(const utim_chain_cfg_t *c) {
  uint64_t v = 0u;
  return c->lo->drv->get_property != NULL &&
         c->lo->drv->get_property(c->lo, UTIM_HPROP_OVF_PENDING, &v) == 0 && v != 0u;
}

static uint64_t chain_read(const utim_periph_t *p) {
  const utim_chain_cfg_t *c = cfg_of(p);
  if (soft(c)) {
    /*
     * The carry is counted in the interrupt, which the lock holds off: a
     * wrap flagged but not yet counted belongs to a low value read after it
     * (small), not to one read just before it (large).
     */
    uint32_t key = utim_port_lock();
    uint64_t h = c->hi->drv->read(c->hi);
    uint64_t l = c->lo->drv->read(c->lo);
    /* ... or taken by the low timer's interrupt, whose callbacks (channels
     * first, the overflow last) are still running */
    if ((c->lo->dev->state->pending & UTIM_EVT_OVF) != 0u ||
        (lo_wrap_pending(c) && l <= (utim_max(c->lo) >> 1))) {
      h = (h + 1u) & utim_max(c->hi);
    }
    utim_port_unlock(key);
    return (h << lo_width(c)) | l;
  }
  /*
   * The high half may step between the two reads; reading it on both sides
   * of the low half tells which high value the low value belongs to.
   */
  uint64_t h1 = c->hi->drv->read(c->hi);
  uint64_t l = c->lo->drv->read(c->lo);
  uint64_t h2 = c->hi->drv->read(c->hi);
  if (h1 != h2) {
    l = c->lo->drv->read(c->lo);
  }
  return (h2 << lo_width(c)) | l;
}

/*
 * The low timer matched. With hardware chaining it is only armed within one
 * low period of the target, so the chained counter is at the target. With
 * software carry it is armed at the target's low half in every low period
 * (see chain_arm()): a match in another period than the target's comes
 * round again one low period later.
 */
static void lo_match(const utim_periph_t *lo, unsigned ch, void *arg) {
  const utim_periph_t *p = (const utim_periph_t *)arg;
  const utim_chain_cfg_t *c = cfg_of(p);
  if (soft(c)) {
    uint64_t target = p->dev->state->ch[ch].target;
    uint32_t key = utim_port_lock();
    bool early = (chain_read(p) >> lo_width(c)) != (target >> lo_width(c));
    if (early) {
      (void)utim__arm(lo, ch, target & utim_max(lo), utim_max(lo) + 1u, false);
    }
    utim_port_unlock(key);
    if (early) {
      return;
    }
  }
  utim_core_event(p, UTIM_EVT_CH(ch));
}

/*
 * The high half stepped onto the target's high half, so the low timer has
 * just wrapped to 0: wait for the low half on the low timer.
 */
static void high_reached(const utim_periph_t *p, unsigned ch) {
  const utim_chain_cfg_t *c = cfg_of(p);
  uint64_t low = p->dev->state->ch[ch].target & utim_max(c->lo);
  uint32_t key = utim_port_lock();
  int r = utim__arm(c->lo, ch, 0u, low, false);
  utim_port_unlock(key);
  if (r == UTIM__DUE) {
    utim_core_event(p, UTIM_EVT_CH(ch));
  }
}

static void hi_match(const utim_periph_t *hi, unsigned ch, void *arg) {
  (void)hi;
  high_reached((const utim_periph_t *)arg, ch);
}

static void hi_overflow(const utim_periph_t *hi, void *arg) {
  (void)hi;
  utim_core_event((const utim_periph_t *)arg, UTIM_EVT_OVF);
}

/*
 * Software carry: the low timer wrapped. Count it in the high timer and
 * report the chain's own wrap. Runs in the low timer's interrupt context.
 */
static void lo_overflow(const utim_periph_t *lo, void *arg) {
  (void)lo;
  const utim_periph_t *p = (const utim_periph_t *)arg;
  const utim_chain_cfg_t *c = cfg_of(p);
  uint32_t key = utim_port_lock();
  uint64_t h = (c->hi->drv->read(c->hi) + 1u) & utim_max(c->hi);
  (void)c->hi->drv->write(c->hi, h);
  bool wrapped = h == 0u && p->dev->state->ovf_cb != NULL;
  utim_port_unlock(key);
  if (wrapped) {
    utim_core_event(p, UTIM_EVT_OVF);
  }
}

/* A clock input of the high timer and a divider it accepts (software carry). */
static uint32_t first_div(const utim_clock_desc_t *d) {
  return d->div_kind == UTIM_DIV_POW2 ? (1u << d->div_lo) : d->div_lo;
}

static int chain_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_chain_cfg_t *c = cfg_of(p);
  int rc = c->lo->drv->init(c->lo, clk, div);
  if (rc != 0) {
    return rc;
  }
  rc = soft(c) ? c->hi->drv->init(c->hi, 0u, first_div(&c->hi->dev->clocks[0]))
               : c->hi->drv->init(c->hi, c->hi_clk, 1u);
  if (rc != 0) {
    return rc;
  }
  /* The sub-timers belong to the chain; their core state serves it only. */
  (void)utim_claim(c->lo, p);
  (void)utim_claim(c->hi, p);
  utim__reset_state(c->lo);
  utim__reset_state(c->hi);
  (void)utim_set_compare_cb(c->lo, lo_match, (void *)(uintptr_t)p);
  if (soft(c)) {
    /* The high timer never runs: it is the carry register. */
    return utim_set_overflow_cb(c->lo, lo_overflow, (void *)(uintptr_t)p);
  }
  (void)utim_set_compare_cb(c->hi, hi_match, (void *)(uintptr_t)p);
  /* The high half only counts low overflows, so it may run all the time. */
  return c->hi->drv->enable(c->hi, true);
}

static int chain_enable(const utim_periph_t *p, bool on) {
  const utim_chain_cfg_t *c = cfg_of(p);
  return c->lo->drv->enable(c->lo, on);
}

/* Arm chain channel @p ch for @p value: low timer alone, or high then low. Lock held. */
static void chain_arm(const utim_periph_t *p, unsigned ch, uint64_t value) {
  const utim_chain_cfg_t *c = cfg_of(p);
  utim__disarm(c->lo, ch);
  utim__disarm(c->hi, ch);
  unsigned w = lo_width(c);
  uint64_t lomask = utim_max(c->lo);
  uint64_t now = chain_read(p);
  uint64_t ahead = (value - now) & utim_max(p);
  /*
   * A value less than the low timer's minimum distance ahead (only after a
   * counter write; the core never arms that close) is taken at its next
   * occurrence, a full wrap away, as a wide compare register would: this
   * never busy-waits, even on a stopped counter.
   */
  const uint64_t d = c->lo->dev->min_distance;
  if (ahead >= d && ahead <= lomask) {
    /*
     * Within one low period: the low timer alone. If it is found due, the
     * core sees the chained counter at the target too.
     */
    (void)utim__arm(c->lo, ch, now & lomask, ahead, false);
  } else if (soft(c)) {
    /*
     * Software carry: wait on the low half in every low period; lo_match()
     * lets the matches of other periods pass.
     */
    uint64_t low = value & lomask;
    uint64_t dist = (low - now) & lomask;
    if (dist < d) {
      dist += lomask + 1u; /* the next occurrence */
    }
    if (utim__arm(c->lo, ch, now & lomask, dist, false) == UTIM__DUE) {
      (void)utim__arm(c->lo, ch, low, lomask + 1u, false);
    }
  } else {
    uint64_t hnow = now >> w;
    uint64_t hdist = ((value >> w) - hnow) & utim_max(c->hi);
    if (hdist == 0u) {
      hdist = utim_max(c->hi) + 1u; /* same high half, one full chain wrap ahead */
    }
    if (utim__arm(c->hi, ch, hnow, hdist, false) == UTIM__DUE) {
      /* The high half got there while arming: continue as the interrupt would. */
      (void)utim__arm(c->lo, ch, 0u, value & lomask, false);
    }
  }
}

static int chain_write(const utim_periph_t *p, uint64_t value) {
  const utim_chain_cfg_t *c = cfg_of(p);
  unsigned w = lo_width(c);
  /*
   * Park the low half at 1 first (a whole period from its wrap, whichever
   * way the hardware counts) so it cannot carry into the high half while
   * that is written; the low half then resumes from its new value.
   */
  uint32_t key = utim_port_lock();
  int rc = c->lo->drv->write(c->lo, 1u);
  if (rc == 0 && soft(c) && lo_wrap_pending(c)) {
    /* A wrap of the old count must not be carried into the new one. */
    (void)c->lo->drv->set_property(c->lo, UTIM_HPROP_OVF_IRQ, 0u);
    (void)c->lo->drv->set_property(c->lo, UTIM_HPROP_OVF_IRQ, 1u);
  }
  if (rc == 0) {
    rc = c->hi->drv->write(c->hi, (value >> w) & utim_max(c->hi));
  }
  if (rc == 0) {
    rc = c->lo->drv->write(c->lo, value & utim_max(c->lo));
  }
  /*
   * A compare waiting on one half is only right for the counter it was
   * armed against: arm every armed channel again for its absolute value,
   * as a single wide compare register would simply keep it.
   */
  const utim_state_t *st = p->dev->state;
  for (unsigned ch = 0u; ch < utim_channels(p); ch++) {
    if ((st->armed & UTIM_EVT_CH(ch)) != 0u) {
      chain_arm(p, ch, st->ch[ch].target);
    }
  }
  utim_port_unlock(key);
  return rc;
}

static void chain_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                              uint64_t value) {
  const utim_chain_cfg_t *c = cfg_of(p);
  uint32_t key = utim_port_lock();
  if (mode == UTIM_CH_ONESHOT) {
    chain_arm(p, ch, value);
  } else {
    utim__disarm(c->lo, ch);
    utim__disarm(c->hi, ch);
  }
  utim_port_unlock(key);
}

static int chain_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  const utim_chain_cfg_t *c = cfg_of(p);
  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (soft(c)) {
    /* The carry interrupt runs anyway; lo_overflow() reports the chain's wrap. */
    return value <= 1u ? 0 : -EINVAL;
  }
  return utim_set_overflow_cb(c->hi, value != 0u ? hi_overflow : NULL, (void *)(uintptr_t)p);
}

const utim_driver_t utim_chain_driver = {
    .init = chain_init,
    .enable = chain_enable,
    .read = chain_read,
    .write = chain_write,
    .set_channel = chain_set_channel,
    .get_property = NULL, /* no run-time properties of its own */
    .set_property = chain_set_property,
};
