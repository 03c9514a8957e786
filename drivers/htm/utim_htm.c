/**
 * @file utim_htm.c
 * @brief Driver of the hardware time manager block (see utim_htm.h).
 */
#include "utim_htm.h"

#include <errno.h>
#include <stddef.h>

static uint32_t rd(const utim_htm_t *h, unsigned reg) {
  return h->ops->read(h, reg);
}

static void wr(const utim_htm_t *h, unsigned reg, uint32_t v) {
  h->ops->write(h, reg, v);
}

int utim_htm_probe(const utim_htm_t *h, unsigned *tasks, unsigned *width) {
  if (h == NULL) {
    return -EINVAL;
  }
  if (rd(h, UTIM_HTM_ID) != UTIM_HTM_ID_VALUE || (rd(h, UTIM_HTM_VERSION) >> 16) != 1u) {
    return -ENODEV;
  }
  const uint32_t cfg = rd(h, UTIM_HTM_CONFIG);
  if (tasks != NULL) {
    *tasks = cfg & 0xffu;
  }
  if (width != NULL) {
    *width = (cfg >> 8) & 0xffu;
  }
  return 0;
}

uint64_t utim_htm_time(const utim_htm_t *h) {
  const uint32_t lo = rd(h, UTIM_HTM_TIME_LO); /* latches the high word */
  return (uint64_t)rd(h, UTIM_HTM_TIME_HI) << 32 | lo;
}

void utim_htm_set_time(const utim_htm_t *h, uint64_t t) {
  wr(h, UTIM_HTM_SET_LO, (uint32_t)t);
  wr(h, UTIM_HTM_SET_HI, (uint32_t)(t >> 32));
}

uint64_t utim_htm_delay_max(unsigned tasks, unsigned width) {
  return width >= 64u ? ~(uint64_t)0 - tasks - 1u : ((uint64_t)1 << width) - tasks - 2u;
}

int utim_htm_delay(const utim_htm_t *h, unsigned tasks, unsigned width, unsigned id,
                   uint64_t ticks) {
  if (id >= tasks || ticks > utim_htm_delay_max(tasks, width)) {
    return -EINVAL;
  }
  wr(h, UTIM_HTM_DELAY_LO, (uint32_t)ticks);
  wr(h, UTIM_HTM_DELAY_HI, (uint32_t)(ticks >> 32));
  wr(h, UTIM_HTM_DELAY_ID, id);
  return 0;
}

void utim_htm_clear(const utim_htm_t *h, unsigned id) {
  /* The block decodes the id's low 6 bits (it has at most 64 tasks): a
   * larger id would name task id % 64. */
  if (id < 64u) {
    wr(h, UTIM_HTM_CLEAR_ID, id);
  }
}

uint64_t utim_htm_take_wakes(const utim_htm_t *h, unsigned tasks) {
  uint64_t w = rd(h, UTIM_HTM_WAKE0);
  if (w != 0u) {
    wr(h, UTIM_HTM_WAKE0, (uint32_t)w);
  }
  if (tasks > 32u) {
    const uint32_t hi = rd(h, UTIM_HTM_WAKE1);
    if (hi != 0u) {
      wr(h, UTIM_HTM_WAKE1, hi);
    }
    w |= (uint64_t)hi << 32;
  }
  return w;
}

uint64_t utim_htm_active(const utim_htm_t *h, unsigned tasks) {
  uint64_t a = rd(h, UTIM_HTM_ACTIVE0);
  if (tasks > 32u) {
    a |= (uint64_t)rd(h, UTIM_HTM_ACTIVE1) << 32;
  }
  return a;
}

void utim_htm_irq_enable(const utim_htm_t *h, bool on) {
  wr(h, UTIM_HTM_CTRL, on ? 1u : 0u);
}

static uint32_t mmio_read(const utim_htm_t *h, unsigned reg) {
  return ((const volatile uint32_t *)h->base)[reg];
}

static void mmio_write(const utim_htm_t *h, unsigned reg, uint32_t value) {
  ((volatile uint32_t *)h->base)[reg] = value;
}

const utim_htm_ops_t utim_htm_mmio_ops = {mmio_read, mmio_write};
