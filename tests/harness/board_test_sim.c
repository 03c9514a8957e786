/**
 * @file board_test_sim.c
 * @brief board_test.h for the sim board: virtual time and race injection.
 */
#include "board_test.h"

#include "sim.h"

/* Interrupt delivery on sim is exact; the allowance covers the register
 * accesses the driver ISR, the core dispatch and a callback's counter read
 * make (10 ns each by default), with a wide margin. */
#define TB_SIM_LATENCY_NS 2000ull
#define TB_SIM_IDLE_NS    1000ull
/* Virtual time is cheap (the model jumps from event to event), but stay
 * reasonable so a broken driver that raises an interrupt per tick still ends. */
#define TB_SIM_LONG_WAIT_S 4ull

/* Before utim_init() there is no frequency; 1 MHz keeps waits meaningful. */
static uint64_t tb_hz(const utim_periph_t *p) {
  uint32_t hz = utim_freq(p);
  return hz == 0u ? 1000000u : hz;
}

/* Smallest time in which at least @p ticks counter ticks happen, whatever the
 * prescaler phase: ceil(ticks * 1e9 / hz), without overflowing. */
static uint64_t tb_ticks_to_ns(const utim_periph_t *p, uint64_t ticks) {
  uint64_t ns = utim_ticks_to_ns_ceil(ticks, tb_hz(p));
  return ns > UINT64_MAX / 2u ? UINT64_MAX / 2u : ns;
}

const char *tb_board_name(void) {
  return "sim";
}

void tb_setup(void) {
  sim_reset();
  sim_set_access_cost(10u);
  sim_set_relax_step(10u);
}

void tb_idle(void) {
  sim_advance(TB_SIM_IDLE_NS);
}

void tb_wait_ticks(const utim_periph_t *p, uint64_t ticks) {
  sim_advance(tb_ticks_to_ns(p, ticks));
}

bool tb_wait_until(const utim_periph_t *p, tb_cond_t cond, const void *ctx, uint64_t limit) {
  uint64_t step = tb_ticks_to_ns(p, 1u);
  for (uint64_t i = 0; i < limit; i++) {
    if (cond(ctx)) {
      return true;
    }
    sim_advance(step);
  }
  return cond(ctx);
}

uint64_t tb_latency_ticks(const utim_periph_t *p) {
  return utim_ns_to_ticks_ceil(TB_SIM_LATENCY_NS, tb_hz(p)) + 2u;
}

uint64_t tb_long_wait_ticks(const utim_periph_t *p) {
  return TB_SIM_LONG_WAIT_S * tb_hz(p);
}

bool tb_race_supported(void) {
  return true;
}

uint64_t tb_race_mark(void) {
  return sim_accesses();
}

unsigned tb_race_count(uint64_t mark) {
  uint64_t n = sim_accesses() - mark;
  return n > 100000u ? 100000u : (unsigned)n;
}

void tb_race_set(const utim_periph_t *p, unsigned k, uint64_t ticks) {
  sim_inject(k, tb_ticks_to_ns(p, ticks));
}

/* A zero advance before the next access is harmless and replaces the pending
 * injection (sim has one injection slot). */
void tb_race_cancel(void) {
  if (sim_inject_pending()) {
    sim_inject(0u, 0u);
  }
}
