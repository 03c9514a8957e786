/**
 * @file stress_sim.c
 * @brief `utim-bench stress` on the sim board (in the helper program): every
 *        simulated timer with a compare channel at 1 MHz, measured against
 *        another simulated timer at 16 MHz, in virtual time.
 */
#include <string.h>

#include "board_sim.h"
#include "sim.h"
#include "stress_host.h"

#define SIM_TUT_HZ 1000000u
#define SIM_REF_HZ 16000000u
/* Virtual time one look for the callback lets pass (interrupts come at their exact time within). */
#define SIM_WAIT_NS 10000u
/* Virtual time of one step of the random CPU delays (utim_port_relax()): 37 ns, prime to the
 * timers' 1000 and 62.5 ns ticks, so the delays spread over their phases in fewer steps. */
#define SIM_RELAX_NS 37u

static void sim_init(void) {
  sim_board_init();
}

/* The reference for @p tut: SIM_NRF32 at 16 MHz, or SIM_CHAIN32 for SIM_NRF32 itself. */
static const utim_periph_t *sim_ref_for(const utim_periph_t *tut) {
  const utim_periph_t *ref = utim_by_name("SIM_NRF32");
  return ref == tut ? utim_by_name("SIM_CHAIN32") : ref;
}

static int sim_targets(const char *name, bench_stress_target_t *out, unsigned cap) {
  unsigned n = 0;
  for (unsigned i = 0; i < utim_count() && n < cap; i++) {
    const utim_periph_t *p = utim_by_index(i);
    uint32_t hz = 0;
    if (utim_channels(p) == 0u || (name != NULL && strcmp(name, utim_name(p)) != 0) ||
        utim_closest_freq(p, SIM_TUT_HZ, UTIM_CLOCK_DEFAULT, &hz) != 0 || hz != SIM_TUT_HZ) {
      continue;
    }
    out[n++] = (bench_stress_target_t){
        .tut = p, .ch = 0u, .tut_hz = SIM_TUT_HZ, .ref = sim_ref_for(p), .ref_hz = SIM_REF_HZ};
  }
  return n == 0u && name != NULL ? -1 : (int)n;
}

static void sim_prepare(const bench_stress_target_t *t) {
  (void)t;
  sim_reset();
  sim_set_relax_step(SIM_RELAX_NS);
}

static double sim_now_s(void) {
  return (double)sim_now() * 1e-9;
}

static void sim_wait(void *ctx) {
  (void)ctx;
  sim_advance(SIM_WAIT_NS);
}

const bench_stress_board_t bench_stress_board = {
    .name = "sim",
    .virtual_time = true,
    .time_note = "virtual time (10 ns per register access), timers at 1 MHz against a "
                 "16 MHz sim timer",
    .default_limit = 4096u,
    .min_abs = 4u,
    .lost_ns = 1000000u,
    .init = sim_init,
    .targets = sim_targets,
    .prepare = sim_prepare,
    .now_s = sim_now_s,
    .wait = sim_wait,
};
