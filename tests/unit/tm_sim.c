/*
 * The fixture of test_tm_sim's cases (tm_sim.h): the seeded random source,
 * the instance under test and a reference time from virtual time, the
 * manager, and the modes each instance runs.
 */
#include "tm_sim.h"

#include "board_sim.h"
#include "harness.h"
#include "sim.h"

#define HZ_WANT 16000000u /* counter frequency asked for */

unsigned long long opt_seed = 7u;
/* 75,000 per instance and mode: over a million operations in all. */
unsigned long long opt_ops = 75000u;

uint64_t rng_state;

uint64_t rnd(void) {
  return th_rand64(&rng_state);
}

/* ---- the instance under test and a reference time from virtual time -------- */

const utim_periph_t *inst;
uint32_t hz;
uint64_t t_init_ns; /* virtual time of utim_tm_init() */
utim_tm_t tm;

/* Counter ticks since the manager started, from virtual time: the manager's
 * internal time must stay within a tick or two of it. */
uint64_t ref_ticks(void) {
  return (uint64_t)(((unsigned __int128)(sim_now() - t_init_ns) * hz) / 1000000000u);
}

uint64_t ns_of(uint64_t ticks) {
  return (uint64_t)(((unsigned __int128)ticks * 1000000000u + hz - 1u) / hz);
}

/* Half the counter's range in ns (the manager's interrupt-off tolerance),
 * capped at 2 ms to keep the runs short on wide counters. */
uint64_t half_range_ns(const utim_periph_t *p) {
  const uint64_t half = (utim_max(p) >> 1) + 1u;
  const uint64_t cap = 2000000u;
  return half >= (uint64_t)hz ? cap : (ns_of(half) > cap ? cap : ns_of(half));
}

/* A fresh sim with @p p initialised and counting, no manager yet. */
bool setup_inst(const utim_periph_t *p) {
  sim_reset();
  inst = p;
  return TH_EQ(utim_closest_freq(p, HZ_WANT, UTIM_CLOCK_DEFAULT, &hz), 0) &&
         TH_EQ(utim_init(p, hz, UTIM_CLOCK_DEFAULT), 0) && TH_EQ(utim_start(p), 0);
}

bool setup(const utim_periph_t *p, unsigned ch, utim_tm_mode_t mode, uint64_t tick) {
  if (!setup_inst(p)) {
    return false;
  }
  /* The manager counts from the counter's value at init: start both at once. */
  t_init_ns = sim_now();
  const int rc = utim_tm_init(&tm, p, ch, mode, tick);
  return TH_EQ(rc, 0);
}

/* The ticked mode's tick: about 50 us, at most half the counter's range. */
uint64_t tick_for(const utim_periph_t *p) {
  uint64_t t = hz / 20000u;
  const uint64_t half = utim_max(p) >> 1;
  if (t > half) {
    t = half;
  }
  if (t < utim_min_distance(p)) {
    t = utim_min_distance(p);
  }
  return t;
}

/* The modes each instance runs: tickless and ticked on channel 0, and
 * ticked on the overflow (one tick per wrap: the sim timers have no top)
 * where the driver tells a pending wrap and a wrap is short. */
const char *const mode_names[N_MODES] = {"tickless", "ticked", "ticked on the overflow"};

bool mode_runs(const utim_periph_t *p, unsigned mode) {
  uint64_t v = 0;
  return mode < 2u ||
         (utim_width(p) <= 16u && utim_get_property(p, UTIM_PROP_OVF_PENDING, &v) == 0);
}

/* The tick of mode number `mode` (0 when tickless). */
uint64_t mode_tick(const utim_periph_t *p, unsigned mode) {
  return mode == 0u ? 0u : (mode == 1u ? tick_for(p) : utim_max(p) + 1u);
}
