/**
 * @file stress_native.c
 * @brief `utim-bench stress` on the native board: NATIVE_ALARM (at 1 MHz,
 *        or its fastest frequency below) measured against the calibrated
 *        TSC (NATIVE_TSC, or the board's counter instance 0), in real time.
 *        Callbacks run in the board's interrupt thread; the benchmark's
 *        thread polls for them.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "board_native.h"
#include "stress_host.h"
#include "utim/port.h"

#define NATIVE_TUT_HZ 1000000u
#define NATIVE_POLL   32u /* utim_port_relax() steps between looks for the callback */

static void native_init(void) {
  native_board_init();
}

static int native_targets(const char *name, bench_stress_target_t *out, unsigned cap) {
  const utim_periph_t *tut = utim_by_name("NATIVE_ALARM");
  const utim_periph_t *ref = utim_by_index(0);
  uint32_t hz = 0;
  uint32_t ref_hz = 0;
  if (cap == 0u || tut == NULL || ref == NULL ||
      (name != NULL && strcmp(name, utim_name(tut)) != 0)) {
    return name != NULL ? -1 : 0;
  }
  if (utim_closest_freq(tut, NATIVE_TUT_HZ, UTIM_CLOCK_DEFAULT, &hz) != 0 ||
      utim_freqs(ref, UTIM_CLOCK_DEFAULT, &ref_hz, 1u) < 1) {
    fprintf(stderr, "utim-bench stress: NATIVE_ALARM or %s offers no frequency\n", utim_name(ref));
    return 0;
  }
  out[0] =
      (bench_stress_target_t){.tut = tut, .ch = 0u, .tut_hz = hz, .ref = ref, .ref_hz = ref_hz};
  return 1;
}

static double native_now_s(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void native_wait(void *ctx) {
  (void)ctx;
  for (unsigned i = 0; i < NATIVE_POLL; i++) {
    utim_port_relax();
  }
}

const bench_stress_board_t bench_stress_board = {
    .name = "native",
    .virtual_time = false,
    .time_note = "real time; NATIVE_ALARM's callbacks in the interrupt thread, the "
                 "reference the calibrated counter of instance 0",
    .default_limit = 1024u,
    .min_abs = 8u,
    .lost_ns = 1000000000u,
    .init = native_init,
    .targets = native_targets,
    .prepare = NULL,
    .now_s = native_now_s,
    .wait = native_wait,
};
