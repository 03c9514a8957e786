/*
 * hAPI driver for the STM32 general-purpose timers TIM2..TIM5 (register map
 * and choices in utim_stm32_gptim.h): up-counting, ARR at the width's
 * maximum, update event = overflow, CC1..CC4 as one-shot compares, and a
 * frozen value in RAM that makes stop exact where CEN does not stop CNT.
 */
#include "utim_stm32_gptim.h"

#include <errno.h>

#include "utim/port.h"

static const utim_stm32_gptim_cfg_t *stm_cfg(const utim_periph_t *p) {
  return (const utim_stm32_gptim_cfg_t *)(const void *)p->dev;
}

/* 32-bit arithmetic on the read path: width 16 or 32 from the props. */
static inline uint32_t stm_mask(const utim_periph_t *p) {
  return 0xFFFFFFFFu >> (31u - (p->props & 0x1fu));
}

/* SR is rc_w0: writing 0 clears a flag, 1 leaves it, so clearing some
 * flags is one write that cannot lose a flag the hardware sets meanwhile. */
static inline void stm_clear_flags(utim_stm32_gptim_regs_t *r, uint32_t flags) {
  r->sr = ~flags;
}

static int stm_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_stm32_gptim_cfg_t *cfg = stm_cfg(p);
  utim_stm32_gptim_regs_t *r = cfg->regs;

  (void)clk; /* CK_INT is the only input; the divider is PSC + 1 */
  uint32_t key = utim_port_lock();
  /* Stopped, up-counting, edge-aligned, no one-pulse, ARR not preloaded;
   * URS so that the UG below raises no update flag. */
  r->cr1 = UTIM_STM32_GPTIM_CR1_URS;
  r->dier = 0u;
  r->smcr = 0u;
  r->ccer = 0u;
  r->ccmr1 = 0u;
  r->ccmr2 = 0u;
  r->arr = stm_mask(p);
  r->psc = div - 1u;
  /* PSC is preloaded: UG loads it now (and clears CNT). */
  r->egr = UTIM_STM32_GPTIM_EGR_UG;
  r->cnt = 0u;
  r->sr = 0u;
  cfg->ram->frozen = 0u;
  cfg->ram->running = 0u;
  cfg->ram->seq++;
  utim_port_unlock(key);
  return 0;
}

static int stm_enable(const utim_periph_t *p, bool on) {
  const utim_stm32_gptim_cfg_t *cfg = stm_cfg(p);
  utim_stm32_gptim_regs_t *r = cfg->regs;
  /* The frozen value, CNT and CEN change together: nothing in interrupt
   * context may interleave (reads retry on seq by themselves). */
  uint32_t key = utim_port_lock();

  if (on && cfg->ram->running == 0u) {
    r->cnt = cfg->ram->frozen;
    r->cr1 |= UTIM_STM32_GPTIM_CR1_CEN;
    cfg->ram->running = 1u;
    cfg->ram->seq++;
  } else if (!on && cfg->ram->running != 0u) {
    r->cr1 &= ~UTIM_STM32_GPTIM_CR1_CEN;
    cfg->ram->frozen = r->cnt & stm_mask(p);
    cfg->ram->running = 0u;
    cfg->ram->seq++;
  }
  utim_port_unlock(key);
  return 0;
}

static uint64_t stm_read(const utim_periph_t *p) {
  const utim_stm32_gptim_cfg_t *cfg = stm_cfg(p);
  utim_stm32_gptim_ram_t *ram = cfg->ram;
  uint32_t seq;
  uint32_t v;
  /* A stop, start or write from a callback interrupting this read bumps
   * seq: the read is taken again rather than mixing both sides. */
  do {
    seq = ram->seq;
    v = ram->running != 0u ? cfg->regs->cnt : ram->frozen;
  } while (seq != ram->seq);
  return v & stm_mask(p);
}

static int stm_write(const utim_periph_t *p, uint64_t value) {
  const utim_stm32_gptim_cfg_t *cfg = stm_cfg(p);
  uint32_t key = utim_port_lock();

  cfg->regs->cnt = (uint32_t)value;
  cfg->ram->frozen = (uint32_t)value;
  cfg->ram->seq++;
  utim_port_unlock(key);
  return 0;
}

static void stm_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                            uint64_t value) {
  utim_stm32_gptim_regs_t *r = stm_cfg(p)->regs;
  const uint32_t bit = UTIM_STM32_GPTIM_CCIF(ch);

  /* DIER is shared with the interrupt handler, which disables matched
   * channels: keep each read-modify-write whole. */
  uint32_t key = utim_port_lock();
  r->dier &= ~bit;
  if (mode == UTIM_CH_ONESHOT) {
    r->ccr[ch] = (uint32_t)value;
  }
  stm_clear_flags(r, bit);
  if (mode == UTIM_CH_ONESHOT) {
    r->dier |= bit;
  }
  utim_port_unlock(key);
}

static int stm_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_stm32_gptim_regs_t *r = stm_cfg(p)->regs;

  switch (id) {
  case UTIM_HPROP_OVF_IRQ:
    *value = (r->dier & UTIM_STM32_GPTIM_UIF) != 0u ? 1u : 0u;
    return 0;
  case UTIM_HPROP_OVF_PENDING:
    *value = (r->sr & UTIM_STM32_GPTIM_UIF) != 0u ? 1u : 0u;
    return 0;
  default:
    return -ENOTSUP;
  }
}

static int stm_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  utim_stm32_gptim_regs_t *r = stm_cfg(p)->regs;

  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  uint32_t key = utim_port_lock();
  if (value == 0u) {
    r->dier &= ~UTIM_STM32_GPTIM_UIF;
    stm_clear_flags(r, UTIM_STM32_GPTIM_UIF);
  } else if ((r->dier & UTIM_STM32_GPTIM_UIF) == 0u) {
    /* UIF rises at every overflow, wanted or not: drop an old one. An
     * interrupt already on keeps its flag, which may wait behind the lock. */
    stm_clear_flags(r, UTIM_STM32_GPTIM_UIF);
    r->dier |= UTIM_STM32_GPTIM_UIF;
  }
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_stm32_gptim_driver = {
    .init = stm_init,
    .enable = stm_enable,
    .read = stm_read,
    .write = stm_write,
    .set_channel = stm_set_channel,
    .get_property = stm_get_property,
    .set_property = stm_set_property,
};

void utim_stm32_gptim_isr(const utim_periph_t *p) {
  utim_stm32_gptim_regs_t *r = stm_cfg(p)->regs;
  /* Flags of disabled events belong to disarmed channels (the counter
   * passes every CCRx once a wrap) or to a wrap nobody listens to. Under
   * the port lock: DIER is shared with set_channel() and set_property(),
   * whose read-modify-writes take it, so an interrupt of a higher priority
   * arming this timer cannot have its change written over here; held until
   * the report (utim_core_event_unlock()), so that no such arming falls
   * between the clear and the report either, where it was taken for the
   * old match. */
  const uint32_t key = utim_port_lock();
  const uint32_t dier = r->dier;
  const uint32_t flags = r->sr & dier & (UTIM_STM32_GPTIM_UIF | UTIM_STM32_GPTIM_CCIF_ALL);
  const uint32_t matched = flags & UTIM_STM32_GPTIM_CCIF_ALL;
  uint32_t events = 0u;

  if (flags == 0u) {
    utim_port_unlock(key);
    return;
  }
  /* Disable before clearing: a one-shot must not match again a wrap later. */
  r->dier = dier & ~matched;
  stm_clear_flags(r, flags);
  /* Read back so the clear reached the peripheral before the handler
   * returns; a line still high would re-enter the handler. */
  (void)r->sr;
  for (unsigned ch = 0u; ch < UTIM_STM32_GPTIM_CHANNELS; ch++) {
    if ((matched & UTIM_STM32_GPTIM_CCIF(ch)) != 0u) {
      events |= UTIM_EVT_CH(ch);
    }
  }
  if ((flags & UTIM_STM32_GPTIM_UIF) != 0u) {
    events |= UTIM_EVT_OVF;
  }
  utim_core_event_unlock(p, events, key);
}
