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

static const utim_native_counter_cfg_t *nc_cfg(const utim_periph_t *p) {
  return (const utim_native_counter_cfg_t *)(const void *)p->dev;
}

static uint64_t nc_clock_ns(int clock_id) {
  struct timespec ts;
  /* The clocks of this driver exist on every kernel this port supports; a
   * failure would leave ts unset, so report 0 rather than garbage. */
  if (clock_gettime((clockid_t)clock_id, &ts) != 0) {
    return 0u;
  }
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
    return nc_clock_ns(cfg->clock_id);
  }
}

static int nc_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_native_counter_cfg_t *cfg = nc_cfg(p);
  (void)clk; /* one input per instance */
  utim_native_counter_rt_t *rt = cfg->rt;
  /* Writers are serialised by the core's lock around init; readers retry
   * while the sequence is odd or changed, so they never combine the new base
   * with the old divider. */
  unsigned s = atomic_load_explicit(&rt->seq, memory_order_relaxed);
  atomic_store_explicit(&rt->seq, s + 1u, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&rt->div, div, memory_order_relaxed);
  atomic_store_explicit(&rt->base, nc_raw(cfg) >> rt->shift, memory_order_relaxed);
  atomic_store_explicit(&rt->seq, s + 2u, memory_order_release);
  return 0;
}

static int nc_enable(const utim_periph_t *p, bool on) {
  (void)p;
  return on ? 0 : -ENOTSUP;
}

static uint64_t nc_read(const utim_periph_t *p) {
  const utim_native_counter_cfg_t *cfg = nc_cfg(p);
  utim_native_counter_rt_t *rt = cfg->rt;
  for (;;) {
    unsigned s = atomic_load_explicit(&rt->seq, memory_order_acquire);
    uint64_t base = atomic_load_explicit(&rt->base, memory_order_relaxed);
    uint64_t div = atomic_load_explicit(&rt->div, memory_order_relaxed);
    uint64_t raw = nc_raw(cfg) >> rt->shift;
    atomic_thread_fence(memory_order_acquire);
    if ((s & 1u) != 0u || atomic_load_explicit(&rt->seq, memory_order_relaxed) != s) {
      continue;
    }
    /* Before utim_init() there is no divider: report the raw count. A
     * divider of 1 (the fast path for the TSC) skips the division. */
    if (div <= 1u) {
      return raw - base;
    }
    return (raw - base) / div;
  }
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
