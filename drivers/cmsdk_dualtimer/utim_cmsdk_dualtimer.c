/*
 * hAPI driver for one counter of the CMSDK APB dual timer (register map and
 * choices in utim_cmsdk_dualtimer.h): free-running mode, the wrap is the
 * interrupt.
 */
#include "utim_cmsdk_dualtimer.h"

#include <errno.h>

#include "utim/port.h"

static utim_cmsdk_dualtimer_counter_t *dual_regs(const utim_periph_t *p) {
  const utim_cmsdk_dualtimer_cfg_t *cfg = (const utim_cmsdk_dualtimer_cfg_t *)(const void *)p->dev;
  return &cfg->regs->counter[cfg->counter & 1u];
}

/* The width is 16 or 32: a 32-bit mask, no 64-bit arithmetic. */
static uint32_t dual_mask(const utim_periph_t *p) {
  return UTIM_PROPS_WIDTH(p->props) > 16u ? 0xFFFFFFFFu : 0xFFFFu;
}

/* The counter holds 0 for one tick and then wraps to its maximum: negation
 * within the width is the up-count of the same period, its own inverse. */
static uint32_t dual_flip(const utim_periph_t *p, uint64_t v) {
  return (0u - (uint32_t)v) & dual_mask(p);
}

static int dual_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  utim_cmsdk_dualtimer_counter_t *r = dual_regs(p);
  uint32_t pre;

  (void)clk; /* every input is TIMCLK; the divider is the prescaler */
  /* The divider set of the inputs is {1, 16, 256}: PRESCALE 0, 1, 2. */
  if (div == 1u) {
    pre = 0u;
  } else if (div == 16u) {
    pre = 1u;
  } else {
    pre = 2u;
  }
  /* Stop (and silence) before the size, prescaler and mode change. */
  r->control = 0u;
  r->control = (dual_mask(p) > 0xFFFFu ? UTIM_CMSDK_DUALTIMER_CTRL_SIZE32 : 0u) |
               (pre << UTIM_CMSDK_DUALTIMER_CTRL_PRE_POS);
  r->load = dual_flip(p, 0u);
  r->intclr = 1u;
  return 0;
}

static int dual_enable(const utim_periph_t *p, bool on) {
  utim_cmsdk_dualtimer_counter_t *r = dual_regs(p);
  /* Control also carries IntEnable, which set_property() may change from a
   * callback in interrupt context: keep the read-modify-write whole. */
  uint32_t key = utim_port_lock();
  uint32_t ctrl = r->control;
  r->control = on ? (ctrl | UTIM_CMSDK_DUALTIMER_CTRL_EN) : (ctrl & ~UTIM_CMSDK_DUALTIMER_CTRL_EN);
  utim_port_unlock(key);
  return 0;
}

static uint64_t dual_read(const utim_periph_t *p) {
  return dual_flip(p, dual_regs(p)->value);
}

static int dual_write(const utim_periph_t *p, uint64_t value) {
  dual_regs(p)->load = dual_flip(p, value);
  return 0;
}

static int dual_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_cmsdk_dualtimer_counter_t *r = dual_regs(p);

  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    *value = (r->control & UTIM_CMSDK_DUALTIMER_CTRL_INTEN) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_OVF_PENDING:
    /* RIS rises at every wrap, whether the interrupt is enabled or not */
    *value = r->ris & 1u;
    return 0;
  default:
    return -ENOTSUP;
  }
}

static int dual_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  utim_cmsdk_dualtimer_counter_t *r = dual_regs(p);

  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  uint32_t ctrl = r->control;
  if (value == 0u) {
    r->control = ctrl & ~UTIM_CMSDK_DUALTIMER_CTRL_INTEN;
    r->intclr = 1u;
  } else if ((ctrl & UTIM_CMSDK_DUALTIMER_CTRL_INTEN) == 0u) {
    /* RIS rises on every wrap, wanted or not: drop the old one. An interrupt
     * already on keeps its flag, which may be waiting behind the lock. */
    r->intclr = 1u;
    r->control = ctrl | UTIM_CMSDK_DUALTIMER_CTRL_INTEN;
  }
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_cmsdk_dualtimer_driver = {
    .init = dual_init,
    .enable = dual_enable,
    .read = dual_read,
    .write = dual_write,
    .set_channel = NULL, /* no compare register: 0 channels */
    .get_property = dual_get_property,
    .set_property = dual_set_property,
};

void utim_cmsdk_dualtimer_isr(const utim_periph_t *p) {
  utim_cmsdk_dualtimer_counter_t *r = dual_regs(p);

  /* The line is shared with the other counter: only this counter's masked
   * status says whether this call has anything to do. */
  if ((r->mis & 1u) == 0u) {
    return;
  }
  r->intclr = 1u;
  /* Read back so the clear reached the peripheral before the handler
   * returns; a level line still high would re-enter the handler. */
  (void)r->mis;
  utim_core_event(p, UTIM_EVT_OVF);
}
