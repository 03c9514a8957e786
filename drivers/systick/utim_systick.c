/*
 * hAPI driver for the SysTick timer (register map and choices in
 * utim_systick.h): a free-running 24-bit counter whose wrap is the exception.
 */
#include "utim_systick.h"

#include <errno.h>

#include "utim/port.h"

static const utim_systick_cfg_t *systick_cfg(const utim_periph_t *p) {
  return (const utim_systick_cfg_t *)(const void *)p->dev;
}

static utim_systick_regs_t *systick_regs(const utim_periph_t *p) {
  return systick_cfg(p)->regs;
}

/* The counter holds 0 for one tick and then reloads RVR, so it runs RVR,
 * ..., 1, 0 and the up-count of the same period of RVR + 1 ticks runs
 * 1, ..., RVR, 0: up = RVR + 1 - CVR, 0 at CVR 0; its wrap coincides with
 * the hardware's 1 -> 0 step (the exception). With RVR 0xFFFFFF it is
 * negation modulo 2^24. */
static uint32_t systick_up(uint32_t rvr, uint32_t cvr) {
  return cvr == 0u ? 0u : rvr + 1u - cvr;
}

static int systick_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_systick_cfg_t *cfg = systick_cfg(p);
  utim_systick_regs_t *r = cfg->regs;

  (void)div; /* 1, the only divider of both inputs */
  /* Stopped and silent before anything else changes. */
  r->csr = clk == UTIM_SYSTICK_CLK_CPU ? UTIM_SYSTICK_CSR_CLKSOURCE : 0u;
  r->rvr = UTIM_SYSTICK_MAX;
  /* Any write clears CVR (up view 0) and COUNTFLAG without raising the exception. */
  r->cvr = 0u;
  *cfg->icsr = UTIM_SYSTICK_ICSR_PENDSTCLR;
  return 0;
}

static int systick_enable(const utim_periph_t *p, bool on) {
  utim_systick_regs_t *r = systick_regs(p);
  /* CSR is also written by set_property(), which a callback may call from
   * an interrupt: keep the read-modify-write whole. */
  uint32_t key = utim_port_lock();
  uint32_t csr = r->csr & (UTIM_SYSTICK_CSR_TICKINT | UTIM_SYSTICK_CSR_CLKSOURCE);
  r->csr = on ? (csr | UTIM_SYSTICK_CSR_ENABLE) : csr;
  utim_port_unlock(key);
  return 0;
}

static uint64_t systick_read(const utim_periph_t *p) {
  const utim_systick_regs_t *r = systick_regs(p);
  /* RVR first: it only changes by set_property(UTIM_HPROP_TOP), which
   * restarts the count, so CVR read after it belongs to it. */
  const uint32_t rvr = r->rvr;
  return systick_up(rvr, r->cvr);
}

static int systick_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_systick_regs_t *r = systick_regs(p);

  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    *value = (r->csr & UTIM_SYSTICK_CSR_TICKINT) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_OVF_PENDING:
    /* ICSR.PENDSTSET: the exception of a wrap is pending (COUNTFLAG would
     * be no use: reading CSR clears it). */
    *value = (*systick_cfg(p)->icsr & UTIM_SYSTICK_ICSR_PENDSTSET) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_TOP:
    *value = r->rvr & UTIM_SYSTICK_MAX;
    return 0;
  case UTIM_SYSTICK_PROP_CALIB:
    *value = r->calib;
    return 0;
  default:
    return -ENOTSUP;
  }
}

static int systick_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  const utim_systick_cfg_t *cfg = systick_cfg(p);
  utim_systick_regs_t *r = cfg->regs;

  if (id == UTIM_HPROP_TOP) {
    /* The core checked 1 <= value <= 0xFFFFFF. RVR is used at the next
     * reload; clearing CVR (without raising the exception) restarts the
     * count at 0 so that this next reload is the new top. */
    uint32_t key = utim_port_lock();
    r->rvr = (uint32_t)value;
    r->cvr = 0u;
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
  uint32_t csr = r->csr & (UTIM_SYSTICK_CSR_ENABLE | UTIM_SYSTICK_CSR_CLKSOURCE);
  uint32_t was = r->csr & UTIM_SYSTICK_CSR_TICKINT;
  if (value == 0u) {
    r->csr = csr;
    /* A wrap pended just before TICKINT went off belongs to no one. */
    *cfg->icsr = UTIM_SYSTICK_ICSR_PENDSTCLR;
  } else if (was == 0u) {
    /* With TICKINT off no wrap pended the exception, so nothing stale can
     * be delivered; an interrupt already on is left alone so that a wrap
     * waiting behind the lock is not lost. */
    r->csr = csr | UTIM_SYSTICK_CSR_TICKINT;
  }
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_systick_driver = {
    .init = systick_init,
    .enable = systick_enable,
    .read = systick_read,
    .write = NULL,       /* CVR can only be cleared: no UTIM_CAP_WRITE */
    .set_channel = NULL, /* no compare register: 0 channels */
    .get_property = systick_get_property,
    .set_property = systick_set_property,
};

void utim_systick_isr(const utim_periph_t *p) {
  /* The exception is the event (there is no flag to clear: reading CSR
   * clears COUNTFLAG, which nothing here relies on). An exception pended
   * just before TICKINT was cleared is not reported. */
  if ((systick_regs(p)->csr & UTIM_SYSTICK_CSR_TICKINT) != 0u) {
    utim_core_event(p, UTIM_EVT_OVF);
  }
}
