/*
 * hAPI driver for the simulated timer peripheral (sim_regs.h).
 *
 * One driver struct serves every simulated shape, so shape differences are
 * decided at run time from the instance's packed properties: capture reads,
 * down-counting (converted to the up-counting view here and nowhere else),
 * writability and stoppability.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim_regs.h"
#include "utim/port.h"
#include "utim_sim.h"

static const utim_sim_cfg_t *sim_cfg(const utim_periph_t *p) {
  return (const utim_sim_cfg_t *)(const void *)p->dev;
}

static unsigned sim_timer(const utim_periph_t *p) {
  return sim_cfg(p)->timer;
}

static bool sim_has(const utim_periph_t *p, uint32_t cap) {
  return (utim_caps(p) & cap) != 0u;
}

/* Bits of the instance's channels in INTEN / EVENTS. */
static uint32_t sim_channel_bits(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  return n >= 31u ? 0x7fffffffu : ((1u << n) - 1u);
}

/* Up-counting view <-> hardware direction; the mapping is its own inverse. */
static uint64_t sim_flip(const utim_periph_t *p, uint64_t v) {
  return utim_count_down(p) ? utim_max(p) - v : v;
}

/* The counter in the hardware's direction. */
static uint64_t sim_raw_read(const utim_periph_t *p) {
  unsigned t = sim_timer(p);
  if (sim_has(p, UTIM_CAP_CAPTURE_READ)) {
    unsigned cc = sim_cfg(p)->cap_cc;
    sim_bus_write(t, SIM_REG_TASK_CAPTURE, cc);
    return sim_bus_read(t, SIM_REG_CC0 + cc) & utim_max(p);
  }
  return sim_bus_read(t, SIM_REG_COUNT) & utim_max(p);
}

static int sim_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  unsigned t = sim_timer(p);
  /* Interrupts off first so nothing of the old configuration fires while the
   * timer is being reconfigured. */
  sim_bus_write(t, SIM_REG_INTEN_CLR, UINT32_MAX);
  sim_bus_write(t, SIM_REG_CTRL, 0u);
  sim_bus_write(t, SIM_REG_CLKSEL, clk);
  /* On shapes without a writable counter, this write (clock registers while
   * stopped) is what restarts the counter from its start value. */
  sim_bus_write(t, SIM_REG_DIV, div);
  if (sim_has(p, UTIM_CAP_WRITE)) {
    sim_bus_write(t, SIM_REG_COUNT, sim_flip(p, 0u));
  }
  sim_bus_write(t, SIM_REG_EVENTS_CLR, UINT32_MAX);
  return 0;
}

static int sim_enable(const utim_periph_t *p, bool on) {
  if (!on && !sim_has(p, UTIM_CAP_STOP)) {
    return -ENOTSUP;
  }
  sim_bus_write(sim_timer(p), SIM_REG_CTRL, on ? SIM_CTRL_EN : 0u);
  return 0;
}

static uint64_t sim_read(const utim_periph_t *p) {
  return sim_flip(p, sim_raw_read(p));
}

static int sim_write(const utim_periph_t *p, uint64_t value) {
  if (!sim_has(p, UTIM_CAP_WRITE)) {
    return -ENOTSUP;
  }
  sim_bus_write(sim_timer(p), SIM_REG_COUNT, sim_flip(p, value & utim_max(p)));
  return 0;
}

static void sim_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                            uint64_t value) {
  unsigned t = sim_timer(p);
  uint32_t bit = 1u << ch;
  /* The order is the driver.h contract: a match of the old compare value
   * can neither interrupt nor survive as a flag once the new one is set. */
  sim_bus_write(t, SIM_REG_INTEN_CLR, bit);
  if (mode == UTIM_CH_ONESHOT) {
    sim_bus_write(t, SIM_REG_CC0 + ch, sim_flip(p, value & utim_max(p)));
  }
  sim_bus_write(t, SIM_REG_EVENTS_CLR, bit);
  if (mode == UTIM_CH_ONESHOT) {
    sim_bus_write(t, SIM_REG_INTEN_SET, bit);
  }
}

static int sim_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  if (value == NULL) {
    return -EINVAL;
  }
  if (id != UTIM_HPROP_OVF_PENDING || !sim_has(p, UTIM_CAP_OVERFLOW)) {
    return -ENOTSUP;
  }
  *value = (sim_bus_read(sim_timer(p), SIM_REG_EVENTS) & SIM_EVT_OVF) != 0u ? 1u : 0u;
  return 0;
}

static int sim_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  if (id != UTIM_HPROP_OVF_IRQ || !sim_has(p, UTIM_CAP_OVERFLOW)) {
    return -ENOTSUP;
  }
  if (value > 1u) {
    return -EINVAL;
  }
  unsigned t = sim_timer(p);
  if (value == 1u) {
    /* A wrap flagged while the interrupt was off belongs to no one: drop it
     * when switching on, but never touch the flag of an interrupt already on,
     * whose wrap may be waiting for the lock to be released. */
    if ((sim_bus_read(t, SIM_REG_INTEN) & SIM_EVT_OVF) == 0u) {
      sim_bus_write(t, SIM_REG_EVENTS_CLR, SIM_EVT_OVF);
      sim_bus_write(t, SIM_REG_INTEN_SET, SIM_EVT_OVF);
    }
  } else {
    sim_bus_write(t, SIM_REG_INTEN_CLR, SIM_EVT_OVF);
    sim_bus_write(t, SIM_REG_EVENTS_CLR, SIM_EVT_OVF);
  }
  return 0;
}

const utim_driver_t utim_sim_driver = {
    .init = sim_init,
    .enable = sim_enable,
    .read = sim_read,
    .write = sim_write,
    .set_channel = sim_set_channel,
    .get_property = sim_get_property,
    .set_property = sim_set_property,
};

/* The order of driver.h / the template: under the port lock, find the
 * enabled flags, disable the matched one-shot channels, clear the flags,
 * then report and unlock. */
void utim_sim_isr(const void *periph) {
  const utim_periph_t *p = periph;
  unsigned t = sim_timer(p);
  const uint32_t key = utim_port_lock();
  uint32_t ev = (uint32_t)(sim_bus_read(t, SIM_REG_EVENTS) & sim_bus_read(t, SIM_REG_INTEN));
  if (ev == 0u) {
    utim_port_unlock(key);
    return;
  }
  /* Every armed channel is a one-shot: left enabled, its compare would match
   * again after a full wrap of the counter. */
  uint32_t ch = ev & sim_channel_bits(p);
  if (ch != 0u) {
    sim_bus_write(t, SIM_REG_INTEN_CLR, ch);
  }
  sim_bus_write(t, SIM_REG_EVENTS_CLR, ev);
  uint32_t events = 0;
  for (unsigned n = 0; ch != 0u; n++, ch >>= 1) {
    if ((ch & 1u) != 0u) {
      events |= UTIM_EVT_CH(n);
    }
  }
  if ((ev & SIM_EVT_OVF) != 0u) {
    events |= UTIM_EVT_OVF;
  }
  if (events != 0u) {
    utim_core_event_unlock(p, events, key);
  } else {
    utim_port_unlock(key);
  }
}
