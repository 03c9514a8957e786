/**
 * @file main_sim.c
 * @brief sleep_sim: the precise-sleep test on the sim board (virtual time),
 *        plus what only virtual time can check exactly: interrupts are
 *        delivered during the coarse sleep, and a quiet sleep's CPU time is
 *        exactly its spin.
 */
#include <stddef.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "sleep_test.h"
#include "utim/port.h"
#include "utim/utim.h"

static const utim_ns_t durations[] = {
    0,
    UTIM_NS_PER_US,
    10 * UTIM_NS_PER_US,
    100 * UTIM_NS_PER_US,
    UTIM_NS_PER_MS,
    10 * UTIM_NS_PER_MS,
    100 * UTIM_NS_PER_MS,
};

typedef struct alarm_seen {
  unsigned calls;
  uint64_t at;
} alarm_seen_t;

static void on_alarm(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  alarm_seen_t *a = arg;
  a->calls++;
  a->at = sim_now();
}

/* An alarm due in the middle of a coarse sleep runs then, at its time. */
static void t_irq_during_sleep(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_TIMER16");
  TH_CHECK(p != NULL);
  if (p == NULL) {
    return;
  }
  alarm_seen_t seen = {0, 0};
  TH_EQ(utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_compare_cb(p, on_alarm, &seen), 0);
  TH_EQ(utim_start(p), 0);
  uint64_t armed = sim_now();
  TH_EQ(utim_set_rel(p, 0, 50u), 0);
  TH_EQ(utim_sleep_for(200 * UTIM_NS_PER_US), 0);
  const utim_sleep_result_t r = utim_port_sleeper()->last;
  TH_EQU(seen.calls, 1u);
  TH_CHECKF(seen.at >= armed + 50000u && (utim_ns_t)seen.at <= r.wake, "alarm at %llu, armed %llu",
            (unsigned long long)seen.at, (unsigned long long)armed);
  TH_CHECK(r.blocks > 0u && r.wake >= r.deadline);
  /* The handler's register accesses are CPU time of the call. */
  TH_CHECK(r.cpu > r.spin);
  TH_EQ(utim_stop(p), 0);
  TH_EQ(utim_set_compare_cb(p, NULL, NULL), 0);
}

/* Nothing runs but the spin: the CPU time is exactly the relax steps. */
static void t_quiet_cpu(void *arg) {
  (void)arg;
  uint64_t busy0 = sim_busy_ns();
  TH_EQ(utim_sleep_for(10 * UTIM_NS_PER_MS), 0);
  const utim_sleep_result_t r = utim_port_sleeper()->last;
  TH_CHECK(r.blocks > 0u);
  TH_EQ(r.cpu, r.spin);
  TH_EQU(sim_busy_ns() - busy0, (uint64_t)r.cpu);
  TH_CHECK(r.blocked >= 10 * UTIM_NS_PER_MS - r.margin - r.spin);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  sim_board_init();
  const sleep_test_board_t b = {
      .coarse = true,
      .cpu_known = true,
      .cpu_within = true,
      .cpu_free_coarse = true,
      .coarse_from = 10 * UTIM_NS_PER_US,
      .miss_allowance = UTIM_NS_PER_US,
      .durations = durations,
      .ndurations = sizeof durations / sizeof durations[0],
      .repeat = 3u,
  };
  sleep_test_run(&b);
  th_run("sim: an interrupt due during the coarse sleep runs at its time", t_irq_during_sleep,
         NULL);
  th_run("sim: a quiet sleep's CPU time is its spin", t_quiet_cpu, NULL);
  return th_finish();
}
