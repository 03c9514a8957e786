/*
 * Virtual chain driver: a low timer counting at the instance frequency and a
 * high timer counting the low one's overflows in hardware, seen as one
 * counter of both widths. Compares go in two stages: the high timer's
 * channel waits for the high half, then the low timer's channel for the low
 * half. Sub-timer events arrive through the core's callbacks of the two
 * timers and are forwarded to the chained instance with utim_core_event().
 */
#include "utim/chain.h"

#include "core.h"

static const utim_chain_cfg_t *cfg_of(const utim_periph_t *p) {
  return (const utim_chain_cfg_t *)(const void *)p->dev;
}

/* Width of the low half, and the masks of both halves. */
static unsigned lo_width(const utim_chain_cfg_t *c) {
  return utim_width(c->lo);
}

static uint64_t chain_read(const utim_periph_t *p) {
  const utim_chain_cfg_t *c = cfg_of(p);
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

/* The low timer matched: the chained counter reached the target. */
static void lo_match(const utim_periph_t *lo, unsigned ch, void *arg) {
  (void)lo;
  utim_core_event((const utim_periph_t *)arg, UTIM_EVT_CH(ch));
}

/*
 * The high timer stepped onto the target's high half, so the low timer has
 * just wrapped to 0: wait for the low half on the low timer.
 */
static void hi_match(const utim_periph_t *hi, unsigned ch, void *arg) {
  (void)hi;
  const utim_periph_t *p = (const utim_periph_t *)arg;
  const utim_chain_cfg_t *c = cfg_of(p);
  uint64_t low = p->dev->state->ch[ch].target & utim_max(c->lo);
  uint32_t key = utim_port_lock();
  int r = utim__arm(c->lo, ch, 0u, low, false);
  utim_port_unlock(key);
  if (r == UTIM__DUE) {
    utim_core_event(p, UTIM_EVT_CH(ch));
  }
}

static void hi_overflow(const utim_periph_t *hi, void *arg) {
  (void)hi;
  utim_core_event((const utim_periph_t *)arg, UTIM_EVT_OVF);
}

static int chain_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_chain_cfg_t *c = cfg_of(p);
  int rc = c->lo->drv->init(c->lo, clk, div);
  if (rc != 0) {
    return rc;
  }
  rc = c->hi->drv->init(c->hi, c->hi_clk, 1u);
  if (rc != 0) {
    return rc;
  }
  /* The sub-timers belong to the chain; their core state serves it only. */
  (void)utim_claim(c->lo, p);
  (void)utim_claim(c->hi, p);
  utim__reset_state(c->lo);
  utim__reset_state(c->hi);
  (void)utim_set_compare_cb(c->lo, lo_match, (void *)(uintptr_t)p);
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
  /* ahead == 0 (a counter write onto the value): the next match is a full wrap away. */
  if (ahead != 0u && ahead <= lomask - (now & lomask)) {
    /*
     * Reached before the low half wraps: the low timer alone. If it is
     * found due, the core sees the chained counter at the target too.
     */
    (void)utim__arm(c->lo, ch, now & lomask, ahead, false);
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
   * Park the low half at 0 first so it cannot carry into the high half while
   * that is written; the low half then resumes from its new value.
   */
  uint32_t key = utim_port_lock();
  int rc = c->lo->drv->write(c->lo, 0u);
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

static int chain_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
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
  return 0;
}

static int chain_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  const utim_chain_cfg_t *c = cfg_of(p);
  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
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
