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
#include "board_sim.h"
#include "sim.h"
#include "utim/riot_timer.h"
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

/* ---- RIOT's periph_timer shim on the same timer (the board's instance) ---- */

static tim_t riot_dev = TIMER_UNDEF;

BENCH_NOINLINE static void bench_loop_sim_read_riot(uint32_t n) {
  const tim_t dev = riot_dev;
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc += timer_read(dev);
  }
  bench_sink = acc;
}

BENCH_NOINLINE static void bench_loop_sim_set_riot(uint32_t n) {
  const tim_t dev = riot_dev;
  const unsigned t = (unsigned)bench_ops_params.target;
  const int ch = (int)bench_ops_params.channel;
  int acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc |= timer_set_absolute(dev, ch, t + (i & 0xffu));
  }
  bench_sink = (uint64_t)acc;
}

BENCH_NOINLINE static void bench_loop_sim_clear_riot(uint32_t n) {
  const tim_t dev = riot_dev;
  const int ch = (int)bench_ops_params.channel;
  int acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc |= timer_clear(dev, ch);
  }
  bench_sink = (uint64_t)acc;
}

const bench_case_t bench_riot_sim_cases[BENCH_RIOT_NCASES] = {
    {"bench_loop_sim_read_riot", bench_loop_sim_read_riot, BENCH_OP_READ, BENCH_PATH_RIOT},
    {"bench_loop_sim_set_riot", bench_loop_sim_set_riot, BENCH_OP_SET, BENCH_PATH_RIOT},
    {"bench_loop_sim_clear_riot", bench_loop_sim_clear_riot, BENCH_OP_CLEAR, BENCH_PATH_RIOT},
};

static void riot_nop_cb(void *arg, int channel) {
  (void)arg;
  (void)channel;
}

int bench_riot_sim_prepare(uint32_t hz) {
  for (unsigned i = 0; i < utim_count() && riot_dev == TIMER_UNDEF; i++) {
    if (utim_by_index(i) == sim_rt) {
      riot_dev = TIMER_DEV(i);
    }
  }
  return riot_dev != TIMER_UNDEF ? timer_init(riot_dev, hz, riot_nop_cb, NULL) : -1;
}
