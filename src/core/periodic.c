/*
 * Periodic channels: arming on a grid, re-arming at each match (skipping
 * ahead when the period cannot be sustained), and the handling time that
 * keeps matches from taking the CPU over. utim.c reaches the hooks through
 * weak declarations (core.h), so this file is only linked into programs
 * that call utim_set_periodic().
 */
#include "core.h"

static inline utim_state_t *state_of(const utim_periph_t *p) {
  return p->dev->state;
}

/*
 * After a periodic callback that began at counter `t0`: the time the next
 * re-arm leaves free before the following match (periodic_advance()).
 *
 * It is at least what the callback took. It doubles (plus that) when the
 * channel's next match is nearer to the end of the callback than the match
 * being handled was long (`since`: from the match to its re-arm, which
 * covers the interrupt's entry and the wait behind other handlers, plus the
 * callback), whether the next match is already past or still ahead:
 * handlers would otherwise run back to back, or with too little time
 * between them for the rest of the program (the interrupt's exit, which the
 * core cannot see, comes out of that time). Otherwise it decays by half. A
 * match serviced late (interrupts held off, a counter written past it) adds
 * to `since` once: one doubling step, which grows the time by the
 * callback's, not by the delay. It doubles as well when the delivery loop
 * runs the channel's callback a second time before the program got back
 * the CPU (`again`), and utim__periodic_matched() doubles it when a match
 * finds the previous callback still undelivered. Lock held.
 */
void utim__periodic_handled(const utim_periph_t *p, unsigned ch, uint64_t t0, bool again) {
  utim_state_t *st = state_of(p);
  utim_chan_state_t *cs = &st->ch[ch];
  const uint64_t mask = utim_max(p);
  const uint64_t now = p->drv->read(p);
  const uint64_t took = (now - t0) & mask;
  const uint64_t since = (uint64_t)cs->late + took;
  const uint64_t past = (now - cs->target) & mask;
  const uint64_t ahead = (cs->target - now) & mask;
  uint64_t h = cs->handled;
  if ((st->armed & UTIM_EVT_CH(ch)) != 0u && (again || past < since || ahead < since)) {
    h = 2u * h + (again ? since : took) + 1u;
  } else {
    h = h / 2u > took ? h / 2u : took;
  }
  cs->handled = utim__add_sat32(0u, h);
}

/* Re-arm attempts of a periodic channel with the lock held (see
 * utim_set_periodic()): the lead doubles at each, and the last one tries
 * with the largest lead, half the counter's range. */
#define REARM_TRIES 8u

/*
 * Move periodic channel `ch`, whose target has been reached, to the first
 * grid point the hardware can still be armed for: at least min_distance plus
 * a lead ahead of the counter.
 *
 * The lead starts at the channel's handling time (utim__periodic_handled()): when
 * matches come faster than they are handled, the CPU still gets time
 * between two of them instead of running handlers back to back (an
 * interrupt storm starving everything else). An attempt that finds its own
 * target reached anyway (the period is shorter than a re-arm, or the CPU
 * stalled) makes the lead twice what that attempt took, so a period that
 * cannot be sustained skips ahead on the grid instead of chasing a target
 * that is always due. Grid points left without a callback of their own are
 * counted in `skipped`. When every attempt fails (the last one with half the
 * range as lead: each arming stalled that long), the reached target is left
 * pending with the channel's re-arm bit set: the delivery loop re-arms before
 * the callback, with the lock released in between. Returns whether the
 * channel is armed. Lock held.
 */
bool utim__periodic_advance(const utim_periph_t *p, unsigned ch) {
  utim_state_t *st = state_of(p);
  utim_chan_state_t *cs = &st->ch[ch];
  const uint64_t period = cs->period;
  const uint64_t mask = utim_max(p);
  const uint64_t lead_max = mask >> 1;
  const uint64_t d = p->dev->min_distance;
  const uint32_t bit = UTIM_EVT_CH(ch);
  uint64_t lead = cs->handled < lead_max ? cs->handled : lead_max;
  for (unsigned attempt = 0u; attempt < REARM_TRIES; attempt++) {
    if (attempt == REARM_TRIES - 1u) {
      lead = lead_max;
    }
    const uint64_t now = p->drv->read(p);
    const uint64_t late = (now - cs->target) & mask;
    if (attempt == 0u) {
      cs->late = utim__add_sat32(0u, late);
      if (late >= period && late <= lead_max &&
          ((st->mask & st->pending & bit) != 0u || st->cmp_cb == NULL)) {
        /* A masked channel's match served a period or more late, or one of
         * an instance without a compare callback (its events are dropped):
         * its interrupts, which no callback paces
         * (utim__periodic_handled()), come faster than the CPU serves them
         * (other handlers, other fast channels). Leave twice that lateness
         * free: they cannot take the CPU over, and the lead lasts only
         * while they are late. */
        const uint64_t twice = late < lead_max / 2u ? 2u * late : lead_max;
        lead = lead > twice ? lead : twice;
      }
    }
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
    cs->skipped = utim__add_sat32(cs->skipped, late / period + (dist - first) / period);
    if (utim__arm(p, ch, now, dist, false) == UTIM__ARMED) {
      return true;
    }
    /* Reached while arming: one more grid point without a callback. */
    cs->skipped = utim__add_sat32(cs->skipped, 1u);
    const uint64_t took = (p->drv->read(p) - now) & mask;
    lead = lead > took ? lead : took;
    lead = lead < lead_max / 2u ? 2u * lead + 1u : lead_max;
  }
  if ((st->pending & bit) == 0u) {
    /* The reached target becomes the next callback's own match. */
    cs->skipped--;
  }
  st->pending |= bit;
  st->rearm |= (uint16_t)bit;
  return false;
}

void utim__periodic_matched(const utim_periph_t *p, uint32_t events) {
  utim_state_t *st = state_of(p);
  for (unsigned ch = 0u; events != 0u; ch++, events >>= 1) {
    if ((events & 1u) != 0u) {
      const uint32_t bit = UTIM_EVT_CH(ch);
      utim_chan_state_t *cs = &st->ch[ch];
      if ((st->pending & bit) != 0u) {
        /* The callback of an earlier match is still undelivered (masked, or
         * the delivery loop is busy): this match coalesces into it. */
        cs->skipped = utim__add_sat32(cs->skipped, 1u);
        if ((st->mask & bit) == 0u) {
          /* Not masked: matches come faster than the program gets to their
           * callbacks (the interrupt alone may take longer than the gap
           * the re-arm leaves, and no callback runs to measure it). */
          cs->handled = utim__add_sat32(0u, 2u * (uint64_t)cs->handled + cs->late + 1u);
        }
      }
      (void)utim__periodic_advance(p, ch);
    }
  }
}

int utim_set_periodic(const utim_periph_t *p, unsigned ch, uint64_t period) {
  int rc = utim__check_channel(p, ch);
  if (rc != 0) {
    return rc;
  }
  if (period == 0u) {
    return -EINVAL;
  }
  /* A period within min_distance - 1 of a wrap can leave its next grid
   * point too close to arm while the one after it is beyond one compare:
   * the re-arm would wait for the counter to get there, for ever when the
   * counter was stopped meanwhile (utim_max_period()). */
  if (period < p->dev->min_distance || period > utim_max_period(p)) {
    return -ERANGE;
  }
  utim_state_t *st = state_of(p);
  uint32_t key = utim_port_lock();
  utim__forget_setting(st, ch);
  st->ch[ch].period = period;
  st->periodic |= UTIM_EVT_CH(ch);
  if (utim__arm(p, ch, p->drv->read(p), period, true) == UTIM__DUE) {
    (void)utim__periodic_advance(p, ch);
  }
  utim__unlock_deliver(p, key);
  return 0;
}
