/*
 * hAPI driver for the nRF51 TIMER (register map and choices in
 * utim_nrf51_timer.h): reads through CC[3], compares on CC[0..2] (CC[0..1]
 * when the board asks for an overflow, which CC[2] then gives), and an
 * offset in RAM that gives the counter a write and an exact stop/start.
 */
#include "utim_nrf51_timer.h"

#include <errno.h>

#include "utim/port.h"

#define NRF_TRIGGER 1u
#define NRF_CC_INT_ALL                                                                             \
  (UTIM_NRF51_TIMER_INT_COMPARE(0) | UTIM_NRF51_TIMER_INT_COMPARE(1) |                             \
   UTIM_NRF51_TIMER_INT_COMPARE(2) | UTIM_NRF51_TIMER_INT_COMPARE(3))

#define NRF_OVF_BIT UTIM_NRF51_TIMER_INT_COMPARE(UTIM_NRF51_TIMER_OVF_CC)

static const utim_nrf51_timer_cfg_t *nrf_cfg(const utim_periph_t *p) {
  return (const utim_nrf51_timer_cfg_t *)(const void *)p->dev;
}

/* 32-bit arithmetic only: on the Cortex-M0 a 64-bit shift is a library
 * call, and this sits on the read path. */
static inline uint32_t nrf_mask(const utim_periph_t *p) {
  /* Width 1..32: shift by 32 - width, i.e. 31 - (width - 1). */
  return 0xFFFFFFFFu >> (31u - (p->props & 0x1fu));
}

/* The counter is only visible through a capture into the reserved CC. */
static uint32_t nrf_capture(utim_nrf51_timer_regs_t *r) {
  r->tasks_capture[UTIM_NRF51_TIMER_CAPTURE_CC] = NRF_TRIGGER;
  return r->cc[UTIM_NRF51_TIMER_CAPTURE_CC];
}

/*
 * With the counter stopped: clear it and make the view read `view` from
 * there. Armed compares hold view - offset, so they move by the change of the
 * offset and keep their absolute values; a stopped counter cannot match
 * while they are rewritten.
 */
static void nrf_rebase(const utim_periph_t *p, uint32_t view) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;
  uint32_t mask = nrf_mask(p);
  uint32_t shift = cfg->ram->offset - view;
  uint32_t inten = r->intenset;

  r->tasks_clear = NRF_TRIGGER;
  if (cfg->ovf != 0u) {
    /* The overflow compare follows the view's 0, not the hardware's: the
     * hardware counter steps onto it exactly when the view wraps. */
    inten &= ~NRF_OVF_BIT;
    r->cc[UTIM_NRF51_TIMER_OVF_CC] = (0u - view) & mask;
  }
  for (unsigned ch = 0u; ch < UTIM_NRF51_TIMER_CHANNELS; ch++) {
    if ((inten & UTIM_NRF51_TIMER_INT_COMPARE(ch)) != 0u) {
      r->cc[ch] = (r->cc[ch] + shift) & mask;
    }
  }
  cfg->ram->offset = view & mask;
}

static int nrf_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;
  uint32_t bitmode;
  uint32_t exp = 0u;

  switch (utim_width(p)) {
  case 8u:
    bitmode = UTIM_NRF51_TIMER_BITMODE_08;
    break;
  case 16u:
    bitmode = UTIM_NRF51_TIMER_BITMODE_16;
    break;
  case 24u:
    bitmode = UTIM_NRF51_TIMER_BITMODE_24;
    break;
  case 32u:
    bitmode = UTIM_NRF51_TIMER_BITMODE_32;
    break;
  default:
    return -ERANGE;
  }
  (void)clk; /* HFCLK is the only input; the divider is 2^PRESCALER */
  while ((div >> exp) != 1u) {
    exp++;
  }
  /* PRESCALER and BITMODE may only change while the timer is stopped. */
  r->tasks_stop = NRF_TRIGGER;
  r->intenclr = NRF_CC_INT_ALL;
  r->shorts = 0u;
  r->mode = 0u;
  r->bitmode = bitmode;
  r->prescaler = exp;
  r->tasks_clear = NRF_TRIGGER;
  for (unsigned n = 0u; n < 4u; n++) {
    r->events_compare[n] = 0u;
  }
  if (cfg->ovf != 0u) {
    /* Counter and offset are 0: the overflow compare sits at 0. */
    r->cc[UTIM_NRF51_TIMER_OVF_CC] = 0u;
  }
  cfg->ram->offset = 0u;
  cfg->ram->running = 0u;
  return 0;
}

static int nrf_enable(const utim_periph_t *p, bool on) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;
  /* Offset, compares and hardware counter change together: no operation of a
   * callback in interrupt context may interleave (reads detect the change by
   * themselves, see nrf_read()). */
  uint32_t key = utim_port_lock();

  if (on && cfg->ram->running == 0u) {
    /* The counter is at 0 here (init or the stop below cleared it). */
    r->tasks_start = NRF_TRIGGER;
    cfg->ram->running = 1u;
  } else if (!on && cfg->ram->running != 0u) {
    /* The capture before the stop brings an emulated counter up to date;
     * the one after reads the value it froze at. */
    (void)nrf_capture(r);
    r->tasks_stop = NRF_TRIGGER;
    uint32_t frozen = nrf_capture(r);
    nrf_rebase(p, frozen + cfg->ram->offset);
    cfg->ram->running = 0u;
  }
  utim_port_unlock(key);
  return 0;
}

static uint64_t nrf_read(const utim_periph_t *p) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  volatile const uint32_t *offset = &cfg->ram->offset;
  uint32_t o;
  uint32_t hw;
  /*
   * Capture and offset must belong together, but a lock would double the
   * cost of the hottest operation. Only a stop or a write (under the lock,
   * possibly from a callback interrupting this read) rebases. A rebase that
   * moves the offset is seen as a change and retried; one that keeps it
   * (a stop at hardware count 0, a write of the current offset) leaves the
   * capture and the offset valid together on either side of it.
   */
  do {
    o = *offset;
    hw = nrf_capture(cfg->regs);
  } while (o != *offset);
  return (hw + o) & nrf_mask(p);
}

static int nrf_write(const utim_periph_t *p, uint64_t value) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;
  uint32_t key = utim_port_lock();

  /* Stopped for the rewrite, so no compare can match a half-moved setting;
   * the new value counts from the restart. */
  r->tasks_stop = NRF_TRIGGER;
  nrf_rebase(p, (uint32_t)value);
  if (cfg->ram->running != 0u) {
    r->tasks_start = NRF_TRIGGER;
  }
  utim_port_unlock(key);
  return 0;
}

static void nrf_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                            uint64_t value) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;
  const uint32_t bit = UTIM_NRF51_TIMER_INT_COMPARE(ch);

  /* The driver.h order: an old match can neither interrupt nor survive as
   * a flag once the new compare is in place. */
  r->intenclr = bit;
  if (mode == UTIM_CH_ONESHOT) {
    r->cc[ch] = ((uint32_t)value - cfg->ram->offset) & nrf_mask(p);
  }
  r->events_compare[ch] = 0u;
  if (mode == UTIM_CH_ONESHOT) {
    r->intenset = bit;
  }
}

static int nrf_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);

  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    if (cfg->ovf == 0u) {
      return -ENOTSUP;
    }
    *value = (cfg->regs->intenset & NRF_OVF_BIT) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_OVF_PENDING:
    if (cfg->ovf == 0u) {
      return -ENOTSUP;
    }
    /* Set at every wrap, whether its interrupt is enabled or not. */
    *value = cfg->regs->events_compare[UTIM_NRF51_TIMER_OVF_CC] != 0u ? 1u : 0u;
    return 0;
  default:
    return -ENOTSUP;
  }
}

/* Only the overflow interrupt, and only on instances that have one. */
static int nrf_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;

  if (id != UTIM_HPROP_OVF_IRQ || cfg->ovf == 0u) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  if (value == 0u) {
    r->intenclr = NRF_OVF_BIT;
    r->events_compare[UTIM_NRF51_TIMER_OVF_CC] = 0u;
  } else if ((r->intenset & NRF_OVF_BIT) == 0u) {
    /* The flag rises at every wrap, wanted or not: drop the old one. An
     * interrupt already on keeps its flag, which may be waiting behind the
     * lock. */
    r->events_compare[UTIM_NRF51_TIMER_OVF_CC] = 0u;
    r->intenset = NRF_OVF_BIT;
  }
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_nrf51_timer_driver = {
    .init = nrf_init,
    .enable = nrf_enable,
    .read = nrf_read,
    .write = nrf_write,
    .set_channel = nrf_set_channel,
    .get_property = nrf_get_property,
    .set_property = nrf_set_property,
};

void utim_nrf51_timer_isr(const utim_periph_t *p) {
  const utim_nrf51_timer_cfg_t *cfg = nrf_cfg(p);
  utim_nrf51_timer_regs_t *r = cfg->regs;
  /* Flags of disabled channels belong to disarmed settings (or to the
   * capture register) and are not reported. Under the port lock from the
   * INTEN read to the report (utim_core_event_unlock()), as set_channel()
   * (called under it) and set_property() run: an interrupt of a higher
   * priority re-arming a channel in between would otherwise have its new
   * INTEN bit cleared and its setting reported as matched, early and then
   * never again. */
  const uint32_t key = utim_port_lock();
  uint32_t inten = r->intenset;
  uint32_t off = 0u;
  uint32_t events = 0u;

  if (cfg->ovf != 0u) {
    /* The overflow compare stays armed: it matches again at the next wrap. */
    if ((inten & NRF_OVF_BIT) != 0u && r->events_compare[UTIM_NRF51_TIMER_OVF_CC] != 0u) {
      r->events_compare[UTIM_NRF51_TIMER_OVF_CC] = 0u;
      events |= UTIM_EVT_OVF;
    }
    inten &= ~NRF_OVF_BIT;
  }
  for (unsigned ch = 0u; ch < UTIM_NRF51_TIMER_CHANNELS; ch++) {
    if ((inten & UTIM_NRF51_TIMER_INT_COMPARE(ch)) != 0u && r->events_compare[ch] != 0u) {
      off |= UTIM_NRF51_TIMER_INT_COMPARE(ch);
      events |= UTIM_EVT_CH(ch);
    }
  }
  if (events == 0u) {
    utim_port_unlock(key);
    return;
  }
  /* Disable before clearing: a one-shot must not match again a wrap later. */
  r->intenclr = off;
  for (unsigned ch = 0u; ch < UTIM_NRF51_TIMER_CHANNELS; ch++) {
    if ((events & UTIM_EVT_CH(ch)) != 0u) {
      r->events_compare[ch] = 0u;
    }
  }
  /* Read back so the clears reached the peripheral before the handler
   * returns; a level line still high would re-enter the handler. */
  (void)r->events_compare[0];
  utim_core_event_unlock(p, events, key);
}
