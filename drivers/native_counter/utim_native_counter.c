/*
 * hAPI driver for the free-running counters of a Linux host (see
 * utim_native_counter.h). The sources cannot be stopped, written or
 * programmed, so the driver only turns a raw value into the up-counting view
 * that starts at 0 on utim_init() and counts at the chosen frequency.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include "utim_native_counter.h"

#include <errno.h>
#include <time.h>

#include "utim/port.h"
#include "utim_seqlock.h"

static const utim_native_counter_cfg_t *nc_cfg(const utim_periph_t *p) {
  return (const utim_native_counter_cfg_t *)(const void *)p->dev;
}

/* The source's value before the board's shift. */
static uint64_t nc_raw(const utim_native_counter_cfg_t *cfg) {
  switch (cfg->src) {
#if defined(__x86_64__)
  case UTIM_NATIVE_SRC_TSC:
    return utim_native_rdtsc_ordered();
#endif
#if defined(__aarch64__)
  case UTIM_NATIVE_SRC_CNTVCT:
    return utim_native_cntvct();
#endif
  default:
    return (uint64_t)utim_native_clock_ns((clockid_t)cfg->clock_id);
  }
}

static int nc_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_native_counter_cfg_t *cfg = nc_cfg(p);
  (void)clk; /* one input per instance */
  utim_native_counter_rt_t *rt = cfg->rt;
  /* Writers are serialised by the core's lock around init; readers never
   * combine the new base with the old divider. */
  utim_seq_write_begin(&rt->seq);
  UTIM_SEQ_STORE(rt->div, (uint64_t)div);
  UTIM_SEQ_STORE(rt->base, nc_raw(cfg) >> UTIM_SEQ_LOAD(rt->shift));
  utim_seq_write_end(&rt->seq);
  return 0;
}

void utim_native_counter_set_shift(const utim_periph_t *p, unsigned shift) {
  utim_native_counter_rt_t *rt = nc_cfg(p)->rt;
  uint32_t key = utim_port_lock();
  utim_seq_write_begin(&rt->seq);
  UTIM_SEQ_STORE(rt->shift, (uint32_t)(shift & 63u));
  utim_seq_write_end(&rt->seq);
  utim_port_unlock(key);
}

static int nc_enable(const utim_periph_t *p, bool on) {
  (void)p;
  return on ? 0 : -ENOTSUP;
}

static uint64_t nc_read(const utim_periph_t *p) {
  const utim_native_counter_cfg_t *cfg = nc_cfg(p);
  utim_native_counter_rt_t *rt = cfg->rt;
  uint64_t base;
  uint64_t div;
  uint64_t raw;
  uint32_t seq;
  do {
    seq = utim_seq_read_begin(&rt->seq);
    base = UTIM_SEQ_LOAD(rt->base);
    div = UTIM_SEQ_LOAD(rt->div);
    raw = nc_raw(cfg) >> UTIM_SEQ_LOAD(rt->shift);
  } while (utim_seq_read_retry(&rt->seq, seq));
  /* Before utim_init() there is no divider: report the raw count. A
   * divider of 1 (the fast path for the TSC) skips the division. */
  if (div <= 1u) {
    return raw - base;
  }
  return (raw - base) / div;
}

static int nc_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  const utim_native_counter_cfg_t *cfg = nc_cfg(p);
  switch (id) {
  case UTIM_NATIVE_COUNTER_PROP_RAW:
    *value = nc_raw(cfg);
    return 0;
  case UTIM_NATIVE_COUNTER_PROP_SOURCE:
    *value = cfg->src;
    return 0;
  default:
    return -ENOTSUP;
  }
}

/* No write, no channels, no run-time settings: those entries stay NULL and
 * the uAPI answers -ENOTSUP. */
const utim_driver_t utim_native_counter_driver = {
    .init = nc_init,
    .enable = nc_enable,
    .read = nc_read,
    .write = NULL,
    .set_channel = NULL,
    .get_property = nc_get_property,
    .set_property = NULL,
};
