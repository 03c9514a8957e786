/*
 * hAPI driver for the Stellaris LM3S GPTM in 32-bit periodic mode (register
 * map and choices in utim_stellaris_gptm.h): a down-counter from TAILR whose
 * time-out is the wrap of the up-counting view.
 */
#include "utim_stellaris_gptm.h"

#include <errno.h>

#include "utim/port.h"

static utim_stellaris_gptm_regs_t *gptm_regs(const utim_periph_t *p) {
  return ((const utim_stellaris_gptm_cfg_t *)(const void *)p->dev)->regs;
}

static int gptm_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  utim_stellaris_gptm_regs_t *r = gptm_regs(p);
  (void)clk; /* the system clock, the only input */
  (void)div; /* 1: no prescaler in the 32-bit modes */
  /* Stopped and silent before anything else changes. */
  r->ctl = 0u;
  r->imr = 0u;
  r->cfg = UTIM_STELLARIS_GPTM_CFG_32BIT;
  r->tamr = UTIM_STELLARIS_GPTM_TAMR_PERIODIC;
  r->tailr = UINT32_MAX;
  r->icr = UTIM_STELLARIS_GPTM_TATO;
  return 0;
}

/* Start only: a start after a stop would reload the count (no
 * UTIM_CAP_STOP, see the header). */
static int gptm_enable(const utim_periph_t *p, bool on) {
  if (!on) {
    return -ENOTSUP;
  }
  utim_stellaris_gptm_regs_t *r = gptm_regs(p);
  uint32_t key = utim_port_lock();
  r->ctl = r->ctl | UTIM_STELLARIS_GPTM_CTL_TAEN;
  utim_port_unlock(key);
  return 0;
}

/* TAILR first: it changes only by set_property(TOP), which restarts the
 * count, so TAR read after it belongs to it. */
static uint64_t gptm_read(const utim_periph_t *p) {
  const utim_stellaris_gptm_regs_t *r = gptm_regs(p);
  const uint32_t top = r->tailr;
  return (uint64_t)(top - r->tar);
}

static int gptm_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_stellaris_gptm_regs_t *r = gptm_regs(p);
  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    *value = (r->imr & UTIM_STELLARIS_GPTM_TATO) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_OVF_PENDING:
    *value = (r->ris & UTIM_STELLARIS_GPTM_TATO) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_TOP:
    *value = r->tailr;
    return 0;
  default:
    return -ENOTSUP;
  }
}

static int gptm_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  utim_stellaris_gptm_regs_t *r = gptm_regs(p);
  if (id == UTIM_HPROP_TOP) {
    /* The core checked 1 <= value <= 2^32 - 1. Stopped, loaded and started
     * again: the count restarts from the new top (view 0). */
    uint32_t key = utim_port_lock();
    const uint32_t ctl = r->ctl;
    r->ctl = ctl & ~UTIM_STELLARIS_GPTM_CTL_TAEN;
    r->tailr = (uint32_t)value;
    r->ctl = ctl;
    utim_port_unlock(key);
    return 0;
  }
  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  if (value == 0u) {
    r->imr &= ~UTIM_STELLARIS_GPTM_TATO;
    /* A time-out flagged just before belongs to no one. */
    r->icr = UTIM_STELLARIS_GPTM_TATO;
  } else if ((r->imr & UTIM_STELLARIS_GPTM_TATO) == 0u) {
    /* A flag raised while the interrupt was off is stale; one already on is
     * left alone, its time-out may be waiting behind the lock. */
    r->icr = UTIM_STELLARIS_GPTM_TATO;
    r->imr |= UTIM_STELLARIS_GPTM_TATO;
  }
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_stellaris_gptm_driver = {
    .init = gptm_init,
    .enable = gptm_enable,
    .read = gptm_read,
    .write = NULL,       /* GPTMTAR is read-only on this class of part */
    .set_channel = NULL, /* no match interrupt in 32-bit timer mode: 0 channels */
    .get_property = gptm_get_property,
    .set_property = gptm_set_property,
};

void utim_stellaris_gptm_isr(const utim_periph_t *p) {
  utim_stellaris_gptm_regs_t *r = gptm_regs(p);
  /* Masked status: a flag whose interrupt is off is not ours to report. */
  if ((r->mis & UTIM_STELLARIS_GPTM_TATO) == 0u) {
    return;
  }
  r->icr = UTIM_STELLARIS_GPTM_TATO;
  utim_core_event(p, UTIM_EVT_OVF);
}
