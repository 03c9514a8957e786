/*
 * hAPI driver for the CMSDK APB timer (register map and choices in
 * utim_cmsdk_timer.h): a free-running 32-bit counter whose wrap is the
 * interrupt.
 */
#include "utim_cmsdk_timer.h"

#include <errno.h>

#include "utim/port.h"

static utim_cmsdk_timer_regs_t *cmsdk_regs(const utim_periph_t *p) {
  return ((const utim_cmsdk_timer_cfg_t *)(const void *)p->dev)->regs;
}

/* VALUE holds 0 for one tick and then reloads RELOAD, so it runs RELOAD,
 * ..., 1, 0 and the up-count of the same period of RELOAD + 1 ticks runs
 * 1, ..., RELOAD, 0: up = RELOAD + 1 - VALUE, except 0 at VALUE 0. The map
 * is its own inverse. With RELOAD 0xFFFFFFFF it is plain negation. */
static uint32_t cmsdk_flip(uint32_t reload, uint32_t v) {
  return v == 0u ? 0u : reload + 1u - v;
}

static int cmsdk_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);

  (void)clk; /* PCLK, divider 1: the only input */
  (void)div;
  r->ctrl = 0u;
  /* RELOAD first: writing it also loads VALUE, which is set right after. */
  r->reload = 0xFFFFFFFFu;
  r->value = 0u;
  r->intstatus = UTIM_CMSDK_TIMER_INT;
  return 0;
}

static int cmsdk_enable(const utim_periph_t *p, bool on) {
  utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);
  /* CTRL also carries IRQEN, which set_property() may change from a callback
   * in interrupt context: keep the read-modify-write whole. */
  uint32_t key = utim_port_lock();
  uint32_t ctrl = r->ctrl & UTIM_CMSDK_TIMER_CTRL_IRQEN;
  r->ctrl = on ? (ctrl | UTIM_CMSDK_TIMER_CTRL_EN) : ctrl;
  utim_port_unlock(key);
  return 0;
}

static uint64_t cmsdk_read(const utim_periph_t *p) {
  const utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);
  /* RELOAD first: it only changes by set_property(UTIM_HPROP_TOP), which
   * restarts the count, so VALUE read after it belongs to it. */
  const uint32_t reload = r->reload;
  return cmsdk_flip(reload, r->value);
}

static int cmsdk_write(const utim_periph_t *p, uint64_t value) {
  utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);
  const uint32_t reload = r->reload;
  if (value > reload) {
    return -ERANGE;
  }
  r->value = cmsdk_flip(reload, (uint32_t)value);
  return 0;
}

static int cmsdk_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);
  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    *value = (r->ctrl & UTIM_CMSDK_TIMER_CTRL_IRQEN) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_OVF_PENDING:
    *value = (r->intstatus & UTIM_CMSDK_TIMER_INT) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_TOP:
    *value = r->reload;
    return 0;
  default:
    return -ENOTSUP;
  }
}

static int cmsdk_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);

  if (id == UTIM_HPROP_TOP) {
    /* The core checked 1 <= value <= 0xFFFFFFFF. A write of RELOAD also
     * loads VALUE (CMSDK TRM 4.4.2; QEMU does the same), so the up-count
     * restarts at 1 and the next wrap is value ticks away. */
    r->reload = (uint32_t)value;
    return 0;
  }
  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  uint32_t ctrl = r->ctrl;
  if (value == 0u) {
    r->ctrl = ctrl & ~UTIM_CMSDK_TIMER_CTRL_IRQEN;
    r->intstatus = UTIM_CMSDK_TIMER_INT;
  } else if ((ctrl & UTIM_CMSDK_TIMER_CTRL_IRQEN) == 0u) {
    /* A flag from a wrap before the interrupt was wanted belongs to no one;
     * an interrupt already on keeps its flag, which may be waiting for the
     * lock to be released. */
    r->intstatus = UTIM_CMSDK_TIMER_INT;
    r->ctrl = ctrl | UTIM_CMSDK_TIMER_CTRL_IRQEN;
  }
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_cmsdk_timer_driver = {
    .init = cmsdk_init,
    .enable = cmsdk_enable,
    .read = cmsdk_read,
    .write = cmsdk_write,
    .set_channel = NULL, /* no compare register: 0 channels */
    .get_property = cmsdk_get_property,
    .set_property = cmsdk_set_property,
};

void utim_cmsdk_timer_isr(const utim_periph_t *p) {
  utim_cmsdk_timer_regs_t *r = cmsdk_regs(p);

  if ((r->intstatus & UTIM_CMSDK_TIMER_INT) == 0u) {
    return;
  }
  /* The line follows INTSTATUS alone: clear it even when IRQEN has just been
   * switched off, or the handler would be re-entered for ever. */
  r->intstatus = UTIM_CMSDK_TIMER_INT;
  /* Read back so the clear reached the peripheral before the handler
   * returns; a level line still high would re-enter the handler. */
  (void)r->intstatus;
  if ((r->ctrl & UTIM_CMSDK_TIMER_CTRL_IRQEN) != 0u) {
    utim_core_event(p, UTIM_EVT_OVF);
  }
}
