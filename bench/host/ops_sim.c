/**
 * @file ops_sim.c
 * @brief `ops` loops on the sim board's SIM_TIMER16 instance.
 *
 * The board's instance table lives in another translation unit, so the
 * compile-time path needs an instance visible here: `sim_ct` describes the
 * same simulated timer (number 0) exactly as board_sim.h documents
 * SIM_TIMER16, with its own core state. bench_sim_setup() checks it field by
 * field against the board's instance, so the two cannot drift apart
 * silently. The sim driver's functions are static in its own file, so even
 * the compile-time and direct hAPI paths load the function pointer from
 * utim_sim_driver (an extern object): that is the honest direct call here.
 *
 * Virtual time is frozen during the runs (access cost 0): no compare ever
 * matches, so no interrupt reaches the board's instance while `sim_ct`
 * drives the timer.
 */
#include <stdio.h>
#include <string.h>

#include "bench_host.h"
#include "bench_riot.h"
#include "board_sim.h"
#include "sim.h"
#include "utim_sim.h"

static const utim_clock_desc_t sim_ct_clocks[2] = {
    {.hz = 16000000u, .cls = UTIM_CLASS_HF, .div_kind = UTIM_DIV_POW2, .div_lo = 0u, .div_hi = 9u},
    {.hz = 32768u, .cls = UTIM_CLASS_LP, .div_kind = UTIM_DIV_POW2, .div_lo = 0u, .div_hi = 9u},
};
UTIM_STATE_DEFINE(sim_ct_state, 4);
static const utim_sim_cfg_t sim_ct_cfg = {.common = {.state = &sim_ct_state,
                                                     .name = "SIM_TIMER16",
                                                     .clocks = sim_ct_clocks,
                                                     .nclocks = 2u,
                                                     .min_distance = 1u},
                                          .timer = 0u,
                                          .cap_cc = 0u};
static const utim_periph_t sim_ct = {
    .drv = &utim_sim_driver,
    .dev = &sim_ct_cfg.common,
    .props = UTIM_PROPS(16, 4, 0, UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP)};

static const utim_periph_t *volatile sim_rt = &sim_ct;

BENCH_OPS_DEFINE(sim, "sim", &sim_ct, utim_sim_driver, sim_rt);

static bool same_clock(const utim_clock_desc_t *a, const utim_clock_desc_t *b) {
  return a->hz == b->hz && a->cls == b->cls && a->div_kind == b->div_kind &&
         a->div_lo == b->div_lo && a->div_hi == b->div_hi;
}

int bench_sim_setup(char *err, size_t errcap) {
  sim_board_init();
  sim_set_access_cost(BENCH_SIM_ACCESS_COST_NS);
  const utim_periph_t *b = utim_by_name("SIM_TIMER16");
  if (b == NULL) {
    snprintf(err, errcap, "the sim board has no instance named SIM_TIMER16");
    return -1;
  }
  const utim_sim_cfg_t *bc = (const utim_sim_cfg_t *)(const void *)b->dev;
  const char *what = NULL;
  if (b->drv != sim_ct.drv) {
    what = "driver";
  } else if (b->props != sim_ct.props) {
    what = "packed properties";
  } else if (b->dev->min_distance != sim_ct_cfg.common.min_distance) {
    what = "min_distance";
  } else if (b->dev->nclocks != sim_ct_cfg.common.nclocks) {
    what = "clock count";
  } else if (bc->timer != sim_ct_cfg.timer) {
    what = "simulated timer number";
  } else {
    for (unsigned i = 0; i < sim_ct_cfg.common.nclocks; i++) {
      if (!same_clock(&b->dev->clocks[i], &sim_ct_clocks[i])) {
        what = "clock inputs";
      }
    }
  }
  if (what != NULL) {
    snprintf(err, errcap,
             "bench/host/ops_sim.c: the compile-time copy of SIM_TIMER16 differs from the "
             "board's instance (%s); update it to match boards/sim",
             what);
    return -1;
  }
  sim_rt = b;
  return 0;
}

/* RIOT's periph_timer shim on the same timer (the board's instance). */
BENCH_RIOT_DEFINE(sim, sim_rt)
