/**
 * @file utim_nop.c
 * @brief NOP hAPI driver: state in RAM, no hardware (see utim_nop.h).
 */
#include "utim_nop.h"

/* Documented in utim_nop.h; a change of the channel limit must update the text. */
_Static_assert(sizeof(utim_nop_ram_t) == 152u || UTIM_MAX_CHANNELS != 16u,
               "utim_nop_ram_t size documented in utim_nop.h");

const utim_clock_desc_t utim_nop_clocks[2] = {
    {.hz = 64000000u, .cls = UTIM_CLASS_HF, .div_kind = UTIM_DIV_POW2, .div_lo = 0u, .div_hi = 10u},
    {.hz = 32768u, .cls = UTIM_CLASS_LP, .div_kind = UTIM_DIV_LINEAR, .div_lo = 1u, .div_hi = 1u},
};

const utim_driver_t utim_nop_driver = UTIM_NOP_DRIVER_INIT;

/* The casts from utim_dev_t are valid because utim_nop_cfg_t starts with it. */
static inline utim_nop_ram_t *nop_ram(const utim_periph_t *p) {
  return ((const utim_nop_cfg_t *)(const void *)p->dev)->ram;
}

int utim_nop_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  utim_nop_ram_t *r = nop_ram(p);
  *r = (utim_nop_ram_t){.clk = (uint8_t)clk, .div = div};
  return 0;
}

int utim_nop_enable(const utim_periph_t *p, bool on) {
  nop_ram(p)->running = on ? 1u : 0u;
  return 0;
}

uint64_t utim_nop_read(const utim_periph_t *p) {
  return nop_ram(p)->count;
}

int utim_nop_write(const utim_periph_t *p, uint64_t value) {
  nop_ram(p)->count = value;
  return 0;
}

void utim_nop_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                          uint64_t value) {
  utim_nop_ram_t *r = nop_ram(p);
  /* The core validates ch; the mask only keeps a bad direct hAPI call in bounds. */
  ch &= UTIM_MAX_CHANNELS - 1u;
  if (mode == UTIM_CH_ONESHOT) {
    r->cc[ch] = value;
    r->armed |= 1u << ch;
  } else {
    r->armed &= ~(1u << ch);
  }
}

int utim_nop_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_nop_ram_t *r = nop_ram(p);
  if (id == UTIM_HPROP_OVF_IRQ) {
    *value = r->ovf_irq;
  } else if (id == UTIM_NOP_PROP_ARMED) {
    *value = r->armed;
  } else if (id == UTIM_NOP_PROP_RUNNING) {
    *value = r->running;
  } else if (id >= UTIM_NOP_PROP_CC(0) && id < UTIM_NOP_PROP_CC(UTIM_PROPS_CHANNELS(p->props))) {
    *value = r->cc[id - UTIM_NOP_PROP_CC(0)];
  } else {
    return -ENOTSUP;
  }
  return 0;
}

int utim_nop_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  if (id != UTIM_HPROP_OVF_IRQ) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  nop_ram(p)->ovf_irq = (uint8_t)value;
  return 0;
}

/* The shared instances cannot use UTIM_NOP_INSTANCE_DEFINE(): it makes them static. */
static utim_nop_ram_t nop64_ram;
UTIM_STATE_DEFINE(nop64_state, 4);
static const utim_nop_cfg_t nop64_cfg = {.common = {.state = &nop64_state,
                                                    .name = "NOP64",
                                                    .clocks = utim_nop_clocks,
                                                    .nclocks = 2u,
                                                    .min_distance = 1u},
                                         .ram = &nop64_ram};
const utim_periph_t utim_nop64 = {.drv = &utim_nop_driver,
                                  .dev = &nop64_cfg.common,
                                  .props = UTIM_PROPS(64, 4, 0, UTIM_NOP_CAPS)};

static utim_nop_ram_t nop32_ram;
UTIM_STATE_DEFINE(nop32_state, 4);
static const utim_nop_cfg_t nop32_cfg = {.common = {.state = &nop32_state,
                                                    .name = "NOP32",
                                                    .clocks = utim_nop_clocks,
                                                    .nclocks = 2u,
                                                    .min_distance = 1u},
                                         .ram = &nop32_ram};
const utim_periph_t utim_nop32 = {.drv = &utim_nop_driver,
                                  .dev = &nop32_cfg.common,
                                  .props = UTIM_PROPS(32, 4, 0, UTIM_NOP_CAPS)};
