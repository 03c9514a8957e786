/**
 * @file main_native.c
 * @brief sleep_native: the precise-sleep test on the Linux host.
 *
 * Real time on a shared machine: only what holds however loaded the machine
 * is gets checked (never early, a consistent record, statistics that add
 * up); the miss and the use of the coarse sleep are reported, not bounded.
 */
#include "harness.h"
#include "sleep_test.h"
#include "utim/time.h"

static const utim_ns_t durations[] = {
    0, 10 * UTIM_NS_PER_US, 100 * UTIM_NS_PER_US, UTIM_NS_PER_MS, 5 * UTIM_NS_PER_MS,
};

int main(void) {
  th_set_putc(th_stdio_putc);
  const sleep_test_board_t b = {
      .coarse = true,
      .cpu_known = true,
      .cpu_within = false,
      .cpu_free_coarse = false,
      .coarse_from = 0,
      .miss_allowance = 0,
      .durations = durations,
      .ndurations = sizeof durations / sizeof durations[0],
      .repeat = 3u,
  };
  sleep_test_run(&b);
  return th_finish();
}
