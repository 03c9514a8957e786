/**
 * @file main_mcu.c
 * @brief sleep_<board>: the precise-sleep test as firmware of a Cortex-M
 *        board under QEMU, plus the MCU port's own checks: the time line
 *        crosses a wrap of its counter without a jump, and the coarse sleep
 *        is the alarm interrupt and WFI.
 *
 * QEMU runs with -icount (sleep=off): each instruction is a fixed amount of
 * virtual time and a WFI with a timer pending jumps virtual time forward, so
 * every figure printed here is the same on every run.
 */
#include <stdint.h>

#include "board.h"
#include "harness.h"
#include "mcu.h"
#include "sleep_mcu.h"
#include "sleep_test.h"
#include "utim/port.h"
#include "utim/utim.h"

/* Miss allowed: interrupt entry, the driver's dispatch and the 64-bit time
 * reads of a Cortex-M0 take a few thousand instructions at most. */
#define MCU_MISS_ALLOWANCE (100 * UTIM_NS_PER_US)

static const utim_ns_t durations[] = {
    0,
    UTIM_NS_PER_US,
    10 * UTIM_NS_PER_US,
    100 * UTIM_NS_PER_US,
    UTIM_NS_PER_MS,
    10 * UTIM_NS_PER_MS,
    30 * UTIM_NS_PER_MS,
};

/* The board starts the counter shortly before its first wrap: 1 ms sleeps
 * until the wrap count moves, each taking 1 ms on the time line (a lost or
 * doubled wrap would be a jump of a whole counter range). */
static void t_wrap(void *arg) {
  (void)arg;
  /* Set up (and calibrated) first, so each step below is a sleep only. */
  TH_CHECK(utim_port_sleeper() != NULL);
  mcu_sleep_info_t i0 = mcu_sleep_info();
  TH_EQ(i0.init_error, 0);
  if (i0.init_error != 0) {
    return;
  }
  if (mcu_sleep_board.wrap == MCU_SLEEP_WRAP_NONE) {
    TH_SKIP("the clock is 64 bits wide (%s): its time line has no wrap to cross",
            utim_name(mcu_sleep_board.clock));
  }
  unsigned steps = 0u;
  mcu_sleep_info_t i = i0;
  while (i.wraps == i0.wraps && steps < 500u) {
    utim_ns_t before = utim_port_now_ns();
    TH_EQ(utim_sleep_for(UTIM_NS_PER_MS), 0);
    utim_ns_t after = utim_port_now_ns();
    TH_CHECKF(after - before >= UTIM_NS_PER_MS &&
                  after - before <= UTIM_NS_PER_MS + MCU_MISS_ALLOWANCE,
              "step %u: %lld ns", steps, (long long)(after - before));
    i = mcu_sleep_info();
    TH_CHECK(i.ticks > i0.ticks);
    steps++;
  }
  TH_EQU(i.wraps, i0.wraps + 1u);
  th_note("wrap crossed after %u sleeps of 1 ms", steps);
}

static void t_alarm_wfi(void *arg) {
  (void)arg;
  mcu_sleep_info_t i0 = mcu_sleep_info();
  TH_EQ(utim_sleep_for(5 * UTIM_NS_PER_MS), 0);
  mcu_sleep_info_t i = mcu_sleep_info();
  const utim_sleep_result_t r = utim_port_sleeper()->last;
  TH_CHECK(r.blocks > 0u);
  TH_CHECK(i.alarms > i0.alarms);
  TH_CHECK(i.wakeups > i0.wakeups);
  /* Halted for nearly all of the coarse sleep, on the time line. */
  TH_CHECK(i.idle_ns - i0.idle_ns > (uint64_t)(r.blocked / 2));
  th_note("5 ms sleep: blocked %lld ns, spin %lld ns, cpu %lld ns, miss %lld ns, %u alarm(s), "
          "%u wake-up(s)",
          (long long)r.blocked, (long long)r.spin, (long long)r.cpu, (long long)r.miss,
          (unsigned)(i.alarms - i0.alarms), (unsigned)(i.wakeups - i0.wakeups));
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  th_note("precise sleep on %s", utim_board.name);
  th_run("mcu: the time line crosses a counter wrap", t_wrap, NULL);
  const sleep_test_board_t b = {
      .coarse = true,
      .cpu_known = true,
      .cpu_within = false,
      .cpu_free_coarse = true,
      .coarse_from = 100 * UTIM_NS_PER_US,
      .miss_allowance = MCU_MISS_ALLOWANCE,
      .durations = durations,
      .ndurations = sizeof durations / sizeof durations[0],
      .repeat = 3u,
  };
  sleep_test_run(&b);
  th_run("mcu: the coarse sleep is the alarm interrupt and WFI", t_alarm_wfi, NULL);
  mcu_sleep_info_t i = mcu_sleep_info();
  th_note("time line: %u wrap(s), %u alarm(s), %u WFI wake-up(s), halted %llu ns",
          (unsigned)i.wraps, (unsigned)i.alarms, (unsigned)i.wakeups,
          (unsigned long long)i.idle_ns);
  return th_finish();
}
