/*
 * Template hAPI driver for the TPL timer (register map in utim_template.h).
 *
 * How to use this file for a new timer type: copy drivers/template/ to
 * drivers/<type>/, rename utim_template_* to utim_<type>_*, replace the
 * register overlay and bit names with the ones of the reference manual, and
 * keep the structure: each operation below states the contract it fulfils
 * (from utim/driver.h) before the code that does it. Then follow the
 * checklist in README.md.
 *
 * Rules every driver keeps:
 * - Raw ticks only. No Hz, no ns, no callbacks, no board knowledge: the core
 *   converts units, owns callbacks and validates arguments (channel < count,
 *   value <= max, clk < nclocks) before calling a driver operation.
 * - The core sees an up-counter 0 .. 2^width - 1. TPL counts down, so this
 *   file converts in exactly three places: read, write and set_channel
 *   (up = max - down, which is its own inverse).
 * - Register access only through the typed volatile overlay; the register
 *   base comes from the board's configuration, never from a constant here.
 * - No malloc, no stdio, no global mutable state: everything mutable is in
 *   the hardware or in the core's per-instance utim_state_t.
 */
#include "utim_template.h"

#include <errno.h>

#include "utim/port.h"

/* The core hands drivers the common head; the driver's own configuration
 * starts with it, so this cast recovers the full configuration. */
static const utim_template_cfg_t *tpl_cfg(const utim_periph_t *p) {
  return (const utim_template_cfg_t *)(const void *)p->dev;
}

static utim_template_regs_t *tpl_regs(const utim_periph_t *p) {
  return tpl_cfg(p)->regs;
}

/* Down-to-up conversion of a counter or compare value. With max = 2^w - 1,
 * max - x equals the bitwise complement within the width, so the same
 * function converts in both directions and never leaves the width. */
static uint32_t tpl_flip(const utim_periph_t *p, uint64_t value) {
  return (uint32_t)(utim_max(p) - (value & utim_max(p)));
}

/*
 * init: stop the counter, select clock input `clk` with divider `div`, reset
 * the counter to 0 (up view), disable every channel and the overflow
 * interrupt, clear every event flag. The core has checked `clk` and `div`
 * against the instance's clock descriptions: map them, never re-check them.
 */
static int tpl_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  utim_template_regs_t *r = tpl_regs(p);

  /* Stop first, so nothing counts or matches while the rest is set up.
   * DBGFRZ is a debugging preference of the user, not timer state: keep it. */
  r->ctrl &= UTIM_TEMPLATE_CTRL_DBGFRZ;
  r->ienclr = UTIM_TEMPLATE_IRQ_ALL;
  r->ctrl =
      (r->ctrl & ~UTIM_TEMPLATE_CTRL_CLKSEL_MSK) | ((uint32_t)clk << UTIM_TEMPLATE_CTRL_CLKSEL_POS);
  r->psc = div - 1u;
  r->cnt = tpl_flip(p, 0u);
  /* Flags last: the counter writes above can raise a stale match or
   * underflow flag on some silicon, and none of them may survive init. */
  r->isr = UTIM_TEMPLATE_IRQ_ALL;
  return 0;
}

/*
 * enable: start (on) or stop the counter. A timer that cannot be stopped
 * returns -ENOTSUP for on == false (and the board leaves out UTIM_CAP_STOP).
 * Stopping keeps the counter value and the compare settings.
 */
static int tpl_enable(const utim_periph_t *p, bool on) {
  utim_template_regs_t *r = tpl_regs(p);

  /* Only thread context touches CTRL (the ISR never does), so this
   * read-modify-write cannot race with the interrupt handler. */
  if (on) {
    r->ctrl |= UTIM_TEMPLATE_CTRL_EN;
  } else {
    r->ctrl &= ~UTIM_TEMPLATE_CTRL_EN;
  }
  return 0;
}

/*
 * read: the counter in the up-counting view, within the width. Must be
 * callable from any context, including interrupt handlers and callbacks.
 */
static uint64_t tpl_read(const utim_periph_t *p) {
  return tpl_flip(p, tpl_regs(p)->cnt);
}

/*
 * write: set the counter (up view); the core has checked value <= max.
 * Compare values are absolute and stay as they are.
 */
static int tpl_write(const utim_periph_t *p, uint64_t value) {
  tpl_regs(p)->cnt = tpl_flip(p, value);
  return 0;
}

/*
 * set_channel: ONESHOT arms channel `ch` to match once when the counter (up
 * view) reaches `value`, replacing any previous setting; OFF disables it.
 * The order is part of the contract:
 *   1. disable the channel's interrupt,
 *   2. write the compare register,
 *   3. clear the channel's event flag,
 *   4. re-enable the interrupt (ONESHOT only).
 * Clearing after the compare write discards a match of the old value that
 * happened while the register was being changed; enabling last means the
 * only flag that can still raise the interrupt belongs to the new value.
 * The driver does not check whether `value` is already passed: the core
 * reads the counter afterwards and handles a match that the hardware missed.
 */
static void tpl_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                            uint64_t value) {
  utim_template_regs_t *r = tpl_regs(p);
  const uint32_t bit = UTIM_TEMPLATE_IRQ_CC(ch);

  r->ienclr = bit;
  if (mode == UTIM_CH_ONESHOT) {
    r->cc[ch] = tpl_flip(p, value);
  }
  r->isr = bit;
  if (mode == UTIM_CH_ONESHOT) {
    r->ienset = bit;
  }
}

/*
 * get_property: the hAPI properties the core asks for (UTIM_HPROP_*) and
 * this driver's own (UTIM_TEMPLATE_PROP_*); -ENOTSUP for anything else, so
 * the uAPI can report a missing feature at run time.
 */
static int tpl_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_template_regs_t *r = tpl_regs(p);

  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    *value = (r->ien & UTIM_TEMPLATE_IRQ_UF) != 0u ? 1u : 0u;
    return 0;
  case UTIM_TEMPLATE_PROP_RAW_COUNT:
    *value = r->cnt;
    return 0;
  case UTIM_TEMPLATE_PROP_DEBUG_FREEZE:
    *value = (r->ctrl & UTIM_TEMPLATE_CTRL_DBGFRZ) != 0u ? 1u : 0u;
    return 0;
  default:
    return -ENOTSUP;
  }
}

/*
 * set_property: UTIM_HPROP_OVF_IRQ is required with UTIM_CAP_OVERFLOW;
 * values other than 0 and 1 are refused with -EINVAL, changing nothing.
 */
static int tpl_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  utim_template_regs_t *r = tpl_regs(p);

  if (id != UTIM_HPROP_OVF_IRQ && id != UTIM_TEMPLATE_PROP_DEBUG_FREEZE) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  if (id == UTIM_HPROP_OVF_IRQ) {
    if (value != 0u) {
      /* UF rises on every wrap even while its interrupt is off: clear the
       * flag of wraps that happened before, or the first overflow callback
       * would report one that nobody asked for. */
      r->isr = UTIM_TEMPLATE_IRQ_UF;
      r->ienset = UTIM_TEMPLATE_IRQ_UF;
    } else {
      r->ienclr = UTIM_TEMPLATE_IRQ_UF;
    }
  } else if (value != 0u) {
    r->ctrl |= UTIM_TEMPLATE_CTRL_DBGFRZ;
  } else {
    r->ctrl &= ~UTIM_TEMPLATE_CTRL_DBGFRZ;
  }
  return 0;
}

/* Seven operations at most; unused ones would be NULL (the uAPI then
 * answers -ENOTSUP). TPL has them all. */
const utim_driver_t utim_template_driver = {
    .init = tpl_init,
    .enable = tpl_enable,
    .read = tpl_read,
    .write = tpl_write,
    .set_channel = tpl_set_channel,
    .get_property = tpl_get_property,
    .set_property = tpl_set_property,
};

/*
 * The interrupt handler: under the port lock, find the enabled events, make
 * the matched channels one-shot by disabling them, clear the flags, then
 * report to the core in the core's event bits and unlock. It never calls a
 * user callback itself.
 */
void utim_template_isr(const utim_periph_t *p) {
  utim_template_regs_t *r = tpl_regs(p);
  /* Under the port lock until the report: an interrupt of a higher priority
   * that arms a channel between the read of the flags and the report would
   * have its enable cleared below and its new setting taken for the old
   * match (utim_core_event_unlock()). */
  const uint32_t key = utim_port_lock();
  /* A flag whose interrupt is disabled belongs to a disarmed channel (or a
   * wrap nobody listens to) and must not be reported. */
  const uint32_t flags = r->isr & r->ien;
  const uint32_t matched = flags & UTIM_TEMPLATE_IRQ_CC_ALL;
  uint32_t events = 0u;

  if (flags == 0u) {
    utim_port_unlock(key);
    return;
  }
  /* Disable before clearing: a one-shot channel must not fire again on the
   * next pass of the counter over the same compare value. */
  r->ienclr = matched;
  r->isr = flags;
  /* Read back so the clearing write has reached the peripheral before the
   * handler returns; otherwise a buffered write can re-enter the handler
   * with the flag still set. */
  (void)r->isr;

  for (unsigned ch = 0u; ch < UTIM_TEMPLATE_CHANNELS; ch++) {
    if ((matched & UTIM_TEMPLATE_IRQ_CC(ch)) != 0u) {
      events |= UTIM_EVT_CH(ch);
    }
  }
  if ((flags & UTIM_TEMPLATE_IRQ_UF) != 0u) {
    events |= UTIM_EVT_OVF;
  }
  utim_core_event_unlock(p, events, key);
}
