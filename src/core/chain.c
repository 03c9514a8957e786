/*
 * Virtual chain driver: a low timer counting at the instance frequency and a
 * high timer counting the low one's overflows, seen as one counter of both
 * widths (see chain.h). The high timer counts either in hardware (clocked by
 * the low timer's overflow) or by software carry (stopped, written in the
 * low timer's overflow interrupt).
 *
 * A compare waits in stages on the sub-timers; their events arrive through
 * the core's callbacks of the two timers. No stage decides on its own that a
 * target is reached: every event runs service(), which compares the chained
 * counter with each armed channel's distance from where it was armed. A
 * stage that matched in another low period than the target's (or whose
 * interrupt came after a low wrap) then only arms the next stage, and all the
 * channels found due are reported to the core in one event, which delivers
 * them channel 0 first and the overflow last.
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

/* Whether the low timer has flagged a wrap its interrupt has not serviced. */
static bool lo_wrap_pending(const utim_chain_cfg_t *c) {
  uint64_t v = 0u;
  return c->lo->drv->get_property != NULL &&
         c->lo->drv->get_property(c->lo, UTIM_HPROP_OVF_PENDING, &v) == 0 && v != 0u;
}

/* Whether the low timer's delivery loop has taken a wrap off `pending` and
 * committed to lo_overflow(), which has not counted it yet (the loop runs it
 * with the lock released: an interrupt of a higher priority may come first). */
static bool carry_committed(const utim_chain_cfg_t *c) {
  return c->lo->dev->state->in_dispatch == UTIM_STATE_DISPATCH_OVF;
}

/*
 * Software carry, lock held (the carry is counted in the low timer's
 * interrupt, which the lock holds off). A wrap not yet counted shows either
 * as the low timer's pending overflow in the core (its interrupt ran and is
 * still delivering the channels' callbacks, the carry's last), as a carry the
 * core has committed to (carry_committed()), or as the
 * hardware flag. The flag may belong to a wrap before the low value was read
 * (then it is this value's carry) or to one just after it: a second read of
 * the low half tells, as it is smaller than the first only when the half
 * wrapped in between. Exact as long as the wrap interrupt is serviced within
 * one low period (chain.h).
 */
static uint64_t soft_read_locked(const utim_chain_cfg_t *c) {
  uint64_t h = c->hi->drv->read(c->hi);
  uint64_t l = c->lo->drv->read(c->lo);
  bool carry = (c->lo->dev->state->pending & UTIM_EVT_OVF) != 0u || carry_committed(c);
  if (!carry && lo_wrap_pending(c)) {
    carry = c->lo->drv->read(c->lo) >= l;
  }
  if (carry) {
    h = (h + 1u) & utim_max(c->hi);
  }
  return (h << lo_width(c)) | l;
}

static uint64_t chain_read(const utim_periph_t *p) {
  const utim_chain_cfg_t *c = cfg_of(p);
  if (soft(c)) {
    uint32_t key = utim_port_lock();
    uint64_t v = soft_read_locked(c);
    utim_port_unlock(key);
    return v;
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
 * Ticks from chained counter value `v` to channel `ch`'s target, counted
 * from where the channel was armed; 0 once the target is reached. A target
 * equal to the counter at arming (after a counter write) is a full wrap
 * away, as for one wide compare register; stage() first waits for half of
 * that wrap and then moves the reference, before the counter comes round.
 */
static uint64_t remaining(const utim_periph_t *p, unsigned ch, uint64_t v) {
  const uint64_t mask = utim_max(p);
  const uint64_t ref = cfg_of(p)->ch[ch].ref;
  const uint64_t gone = (v - ref) & mask;
  uint64_t dist = (p->dev->state->ch[ch].target - ref) & mask;
  if (dist == 0u) {
    return mask - gone + (gone != 0u ? 1u : 0u);
  }
  return gone >= dist ? 0u : dist - gone;
}

/* A stage's compare is only touched when it is still armed: one that
 * matched was switched off by its interrupt handler. */
static void drop_stage(const utim_periph_t *t, unsigned ch) {
  if ((t->dev->state->armed & UTIM_EVT_CH(ch)) != 0u) {
    utim__disarm(t, ch);
  } else {
    utim__forget(t, ch);
  }
}

static void disarm_stages(const utim_chain_cfg_t *c, unsigned ch) {
  drop_stage(c->lo, ch);
  drop_stage(c->hi, ch);
}

/* Passes of stage(): each one reaches a later stage, so three suffice unless
 * the CPU stalls for a whole low period between them. */
#define STAGE_PASSES 4u

/*
 * Arm the stage channel `ch` waits in next, from the chained counter `v`
 * (read by the caller, and again after a stage got there while arming): the
 * low timer alone within one low period of the target; else the high timer
 * at the target's high half (hardware chaining); else the low timer at the
 * target's low half in the current low period. Never busy-waits. Returns
 * true when the target is reached (no stage left armed). Lock held.
 */
static bool stage(const utim_periph_t *p, unsigned ch, uint64_t v) {
  const utim_chain_cfg_t *c = cfg_of(p);
  const uint64_t lomask = utim_max(c->lo);
  const uint64_t d = c->lo->dev->min_distance;
  const unsigned w = lo_width(c);
  const uint64_t mask = utim_max(p);
  const uint64_t half = (mask >> 1) + 1u;
  uint64_t *ref = &c->ch[ch].ref;
  for (unsigned pass = 0u; pass < STAGE_PASSES; pass++, v = chain_read(p)) {
    uint64_t target = p->dev->state->ch[ch].target;
    uint64_t rem;
    if (((target - *ref) & mask) == 0u) {
      /* A full wrap: first wait for its half-way point, then count the rest
       * from half a range before the target. */
      if (((v - *ref) & mask) < half) {
        target = (*ref + half) & mask;
        rem = half - ((v - *ref) & mask);
      } else {
        *ref = (target - half) & mask;
        rem = remaining(p, ch, v);
      }
    } else {
      rem = remaining(p, ch, v);
    }
    if (rem == 0u) {
      return true;
    }
    if (rem <= lomask) {
      /* The low timer alone. Closer than its minimum distance, the compare
       * goes where it can still be armed, at most that much after the
       * target (never a busy-wait: the counter may be stopped). */
      if (utim__arm(c->lo, ch, v & lomask, rem >= d ? rem : d, false) == UTIM__ARMED) {
        return false;
      }
      continue; /* the low half got there while arming */
    }
    const uint64_t hmask = utim_max(c->hi);
    const uint64_t hdist = ((target >> w) - (v >> w)) & hmask;
    if (!soft(c) && hdist >= c->hi->dev->min_distance) {
      if (utim__arm(c->hi, ch, (v >> w) & hmask, hdist != 0u ? hdist : hmask + 1u, false) ==
          UTIM__ARMED) {
        return false;
      }
      continue;
    }
    /* Software carry (or a high half too close to arm): the target's low
     * half in this low period, or in the next one when it is too close to
     * arm; service() lets the matches of earlier periods pass. */
    const uint64_t dist = ((target & lomask) - v) & lomask;
    if (utim__arm(c->lo, ch, v & lomask, dist >= d ? dist : dist + lomask + 1u, false) ==
        UTIM__ARMED) {
      return false;
    }
  }
  /* Stalled at every pass: wait a low period, then look again. */
  (void)utim__arm(c->lo, ch, c->lo->drv->read(c->lo), lomask + 1u, false);
  return false;
}

/*
 * (Re)arm chain channel `ch` for the target the core recorded, counting from
 * the counter now. Returns true when the target is already reached (no stage
 * armed). Lock held.
 */
static bool chain_arm(const utim_periph_t *p, unsigned ch) {
  const utim_chain_cfg_t *c = cfg_of(p);
  disarm_stages(c, ch);
  c->ch[ch].ref = chain_read(p);
  return stage(p, ch, c->ch[ch].ref);
}

/*
 * Every sub-timer event ends here: move the channels in `moved` (whose stage
 * matched) to their next stage, then report every armed channel whose
 * target is reached, from one read of the counter taken after the staging
 * (time passes while arming), in one event together with `extra` (the
 * chain's overflow). Targets reached at the same tick are thus always
 * reported together, whichever stage noticed first.
 */
static void service(const utim_periph_t *p, uint32_t moved, uint32_t extra) {
  const utim_chain_cfg_t *c = cfg_of(p);
  uint32_t due = 0u;
  uint32_t key = utim_port_lock();
  const uint32_t armed = p->dev->state->armed;
  uint64_t v = chain_read(p);
  bool staged = false;
  for (unsigned ch = 0u; ch < utim_channels(p); ch++) {
    if ((armed & moved & UTIM_EVT_CH(ch)) != 0u && remaining(p, ch, v) != 0u) {
      /* Reached meanwhile: no stage left armed, found below. */
      (void)stage(p, ch, v);
      staged = true;
    }
  }
  if (staged) {
    v = chain_read(p);
  }
  for (unsigned ch = 0u; ch < utim_channels(p); ch++) {
    if ((armed & UTIM_EVT_CH(ch)) != 0u && remaining(p, ch, v) == 0u) {
      disarm_stages(c, ch);
      due |= UTIM_EVT_CH(ch);
    }
  }
  /* Reported under the same lock (driver.h): an arming from an interrupt of
   * a higher priority in between was taken for the match found here. */
  if ((due | extra) != 0u) {
    utim_core_event_unlock(p, due | extra, key);
  } else {
    utim_port_unlock(key);
  }
}

static void lo_match(const utim_periph_t *lo, unsigned ch, void *arg) {
  (void)lo;
  service((const utim_periph_t *)arg, UTIM_EVT_CH(ch), 0u);
}

static void hi_match(const utim_periph_t *hi, unsigned ch, void *arg) {
  (void)hi;
  service((const utim_periph_t *)arg, UTIM_EVT_CH(ch), 0u);
}

static void hi_overflow(const utim_periph_t *hi, void *arg) {
  (void)hi;
  service((const utim_periph_t *)arg, 0u, UTIM_EVT_OVF);
}

/*
 * Software carry: the low timer wrapped. Count it in the high timer, and
 * report the chain's own wrap together with the channels due at it.
 */
static void lo_overflow(const utim_periph_t *lo, void *arg) {
  (void)lo;
  const utim_periph_t *p = (const utim_periph_t *)arg;
  const utim_chain_cfg_t *c = cfg_of(p);
  uint32_t key = utim_port_lock();
  bool wrapped = false;
  /* Not committed any more: a counter write from an interrupt of a higher
   * priority came after the core took the wrap off `pending` and dropped it
   * (chain_write()), or nothing is owed. */
  if (carry_committed(c)) {
    uint64_t h = (c->hi->drv->read(c->hi) + 1u) & utim_max(c->hi);
    (void)c->hi->drv->write(c->hi, h);
    c->lo->dev->state->in_dispatch = 1u; /* counted */
    wrapped = h == 0u && p->dev->state->ovf_cb != NULL;
  }
  utim_port_unlock(key);
  service(p, 0u, wrapped ? UTIM_EVT_OVF : 0u);
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
  /* The board may leave UTIM_CAP_STOP out though the low half could stop. */
  if (!on && (utim_caps(p) & UTIM_CAP_STOP) == 0u) {
    return -ENOTSUP;
  }
  return c->lo->drv->enable(c->lo, on);
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
  if (rc == 0 && soft(c)) {
    /* A wrap of the old count must not be carried into the new one: not
     * one the hardware still flags, nor one its interrupt took and the
     * core has yet to deliver (a write from a channel's callback that came
     * with the wrap: the carry is delivered after the channels). */
    if (lo_wrap_pending(c)) {
      (void)c->lo->drv->set_property(c->lo, UTIM_HPROP_OVF_IRQ, 0u);
      (void)c->lo->drv->set_property(c->lo, UTIM_HPROP_OVF_IRQ, 1u);
    }
    c->lo->dev->state->pending &= ~UTIM_EVT_OVF;
    if (carry_committed(c)) {
      /* taken off `pending` already, lo_overflow() not yet run */
      c->lo->dev->state->in_dispatch = 1u;
    }
  }
  if (rc == 0) {
    rc = c->hi->drv->write(c->hi, (value >> w) & utim_max(c->hi));
  }
  if (rc == 0) {
    rc = c->lo->drv->write(c->lo, value & utim_max(c->lo));
  }
  /*
   * A stage is only right for the counter it was armed against: arm every
   * armed channel again for its absolute value, as a single wide compare
   * register would simply keep it (a value equal to the new counter is then
   * a full wrap away).
   */
  const utim_state_t *st = p->dev->state;
  uint32_t due = 0u;
  for (unsigned ch = 0u; ch < utim_channels(p); ch++) {
    if ((st->armed & UTIM_EVT_CH(ch)) != 0u && chain_arm(p, ch)) {
      due |= UTIM_EVT_CH(ch);
    }
  }
  if (due != 0u) {
    /* Reached while being re-armed (the counter ran on): due now, reported
     * under the same lock. */
    utim_core_event_unlock(p, due, key);
  } else {
    utim_port_unlock(key);
  }
  return rc;
}

static void chain_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                              uint64_t value) {
  /* The core recorded `value` as the channel's target before this call. */
  (void)value;
  uint32_t key = utim_port_lock();
  if (mode == UTIM_CH_ONESHOT) {
    /* A target reached meanwhile is the core's to deliver: utim__arm()
     * checks the counter after set_channel. */
    (void)chain_arm(p, ch);
  } else {
    disarm_stages(cfg_of(p), ch);
  }
  utim_port_unlock(key);
}

static int chain_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_chain_cfg_t *c = cfg_of(p);
  switch (id) {
  case UTIM_CHAIN_PROP_LO_WIDTH:
    *value = lo_width(c);
    return 0;
  case UTIM_CHAIN_PROP_SOFTWARE:
    *value = soft(c) ? 1u : 0u;
    return 0;
  default:
    return -ENOTSUP;
  }
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
    .get_property = chain_get_property,
    .set_property = chain_set_property,
};
