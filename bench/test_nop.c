/**
 * @file test_nop.c
 * @brief Behaviour of the NOP driver, directly and through the uAPI.
 *        TAP lines, then "N passed, N failed"; exit status 1 on failure.
 */
#include <stdio.h>

#include "board_sim.h"
#include "utim_nop.h"

static unsigned passed;
static unsigned failed;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
  }
  printf("%s %u - %s\n", ok ? "ok" : "not ok", passed + failed, what);
}

static uint64_t prop(const utim_periph_t *p, unsigned id) {
  uint64_t v = UINT64_MAX;
  return utim_get_property(p, id, &v) == 0 ? v : UINT64_MAX;
}

int main(void) {
  const utim_periph_t *p = &utim_nop64;
  const utim_periph_t *q = &utim_nop32;
  sim_board_init(); /* the sim port serves the core's locks in this program */

  /* The core validates the divider set once (driver.h); the NOP driver trusts it. */
  check(utim_init(p, 64000000u / 3u, UTIM_CLOCK_HF) == -ERANGE,
        "the core refuses a divider that is not a power of two");
  check(utim_init(p, 31250u, UTIM_CLOCK_HF) == -ERANGE,
        "the core refuses 2^11 on the 2^0..2^10 input");
  check(utim_init(p, 1000000u, UTIM_CLOCK_PLATFORM(2)) == -EINVAL,
        "the core refuses a clock input the instance does not have");
  check(utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT) == 0, "1 MHz = 64 MHz / 2^6 is achievable");
  check(utim_init(p, 3000000u, UTIM_CLOCK_DEFAULT) == -ERANGE, "3 MHz is not achievable");
  check(utim_init(p, 32768u, UTIM_CLOCK_LP) == 0 && prop(p, UTIM_PROP_CLOCK) == 1u,
        "32768 Hz on the LP input");
  check(utim_init(p, 64000000u, UTIM_CLOCK_HF) == 0, "64 MHz on the HF input");

  check(prop(p, UTIM_NOP_PROP_RUNNING) == 0u, "stopped after init");
  check(utim_start(p) == 0 && prop(p, UTIM_NOP_PROP_RUNNING) == 1u, "start records running");
  check(utim_write(p, 0x123456789abcull) == 0 && utim_read(p) == 0x123456789abcull,
        "read returns what write stored");
  check(utim_read(p) == 0x123456789abcull, "the counter does not move by itself");

  check(utim_init(q, 64000000u, UTIM_CLOCK_HF) == 0, "32-bit instance initialises");
  check(utim_write(q, 0x100000000ull) == -ERANGE && utim_read(q) == 0u,
        "32-bit instance: a value beyond the width is refused, counter kept");

  check(utim_write(p, 1000u) == 0 && utim_set_abs(p, 1u, 1200u) == 0, "set_abs ahead is armed");
  check(prop(p, UTIM_NOP_PROP_ARMED) == 2u && prop(p, UTIM_NOP_PROP_CC(1)) == 1200u,
        "set_channel recorded channel 1 at 1200");
  check(utim_set_abs(p, 1u, 900u) == -ETIME, "set_abs of a passed value is -ETIME");
  check(utim_set_abs(p, 2u, 5000u) == 0 && (prop(p, UTIM_NOP_PROP_ARMED) & 4u) != 0u &&
            prop(p, UTIM_NOP_PROP_CC(2)) == 5000u,
        "channel 2 armed at 5000");
  check(utim_clear(p, 2u) == 0 && (prop(p, UTIM_NOP_PROP_ARMED) & 4u) == 0u, "clear disarms");
  utim_nop_set_channel(p, 1u, UTIM_CH_OFF, 0u);
  check(prop(p, UTIM_NOP_PROP_ARMED) == 0u, "set_channel OFF disarms");
  uint64_t ovf = 9u;
  check(utim_set_overflow_cb(p, NULL, NULL) == 0 &&
            utim_nop_get_property(p, UTIM_HPROP_OVF_IRQ, &ovf) == 0 && ovf == 0u,
        "utim_set_overflow_cb(NULL) disables the overflow interrupt");
  check(utim_nop_set_property(p, UTIM_HPROP_OVF_IRQ, 1u) == 0 &&
            utim_nop_get_property(p, UTIM_HPROP_OVF_IRQ, &ovf) == 0 && ovf == 1u,
        "overflow interrupt property reads back");
  check(utim_nop_set_property(p, UTIM_HPROP_OVF_IRQ, 2u) == -EINVAL, "bad property value refused");
  check(utim_get_property(p, UTIM_NOP_PROP_CC(4), &(uint64_t){0}) == -ENOTSUP,
        "no compare value property beyond the channel count");
  check(utim_stop(p) == 0 && prop(p, UTIM_NOP_PROP_RUNNING) == 0u, "stop records stopped");

  printf("%u passed, %u failed\n", passed, failed);
  return failed == 0u ? 0 : 1;
}
