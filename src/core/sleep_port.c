/*
 * The precise sleep on the port's own hooks: the one sleeper set-up every
 * port's utim_port_sleeper() uses, and utim_sleep_until() / utim_sleep_for().
 * Kept apart from time.c, whose algorithm calls no port hook so that it is
 * tested over a fake port.
 */
#include <stddef.h>

#include "utim/port.h"
#include "utim/time.h"

const utim_sleep_ops_t utim_port_sleep_ops = {
    .now = utim_port_now_ns,
    .block_until = utim_port_block_until,
    .cpu_ns = utim_port_cpu_ns,
    .relax = utim_port_relax,
};

/* Probes of the first calibration: enough samples for the margin's
 * percentile, short enough (8 x (20 us + the wake-up latency)) not to
 * be noticed at start. Sleeps shorter than the margin never teach it
 * anything, so without them the margin would stay at its default guess. */
#define SETUP_PROBES   8u
#define SETUP_PROBE_NS (20 * UTIM_NS_PER_US)

utim_sleeper_t *utim_port_sleeper_setup(utim_sleeper_t *s, bool *ready) {
  if (*ready) {
    return s;
  }
  if (utim_sleeper_init(s, &utim_port_sleep_ops, NULL) != 0) {
    return NULL;
  }
  /* -ENOTSUP (no coarse sleep: the port spins) leaves the default margin. */
  (void)utim_sleeper_calibrate(s, SETUP_PROBES, SETUP_PROBE_NS);
  *ready = true;
  return s;
}

int utim_sleep_until(utim_ns_t deadline) {
  return utim_sleeper_until(utim_port_sleeper(), deadline, NULL);
}

int utim_sleep_for(utim_ns_t duration) {
  return utim_sleeper_for(utim_port_sleeper(), duration, NULL);
}
