/**
 * @file tm_wakeup.c
 * @brief The paper's Fig. 3 on a Cortex-M board under QEMU: wake-up latency
 *        of the time manager against the number of delayed tasks, tickless
 *        and ticked, in guest instructions.
 *
 * @par Method
 * QEMU runs the firmware with `-icount shift=N,align=off,sleep=off`: every
 * guest instruction is 2^N ns of virtual time, and the board's timers count
 * that virtual time (see main.c, "How instructions are counted"). The
 * manager runs on the board's first instance at its fastest clock; N tasks
 * are delayed (utim_tm_task_delay()) to distinct moments, spaced so that one
 * task wakes per interrupt, and the wake hook reads the manager's system
 * time. Latency = that time - the moment the wake was due: the task's
 * expiry tickless, the tick point that serves it ticked (1 ms tick). The
 * figure therefore covers the exception entry, the driver's interrupt
 * handler, the uAPI's delivery, the manager's wheel advance, the task's
 * expiry function and the read of the time in the hook. Each sample is
 * quantised to one counter tick (62.5 instructions at 16 MHz and shift 0);
 * the mean over the samples averages that over the phases at which the
 * compare hits.
 *
 * @par Memory
 * The nRF51 has 16 KiB of RAM: this firmware builds the manager with a
 * smaller wheel (UTIM_TM_WHEEL_BITS 4 x UTIM_TM_WHEEL_LEVELS 6: 96 slots,
 * 2^24 ticks = 1 s at 16 MHz before the far list) and stops at 128 tasks
 * (32 bytes each; 4 KiB of the stack must stay free).
 *
 * @par Checks
 * The run is also a test: each wake-up wakes exactly the expected task and
 * none comes before it was due; a second run must print the same bytes.
 */
#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "mcu.h"
#include "utim/tm.h"
#include "utim/utim.h"

#ifndef UTIM_QEMU_ICOUNT_SHIFT
#error "UTIM_QEMU_ICOUNT_SHIFT must be the -icount shift QEMU runs with"
#endif

#define MAX_TASKS 128u
#define SAMPLES   32u /* wake-ups measured per configuration */

static const unsigned task_counts[] = {1u, 4u, 16u, 64u, 128u};
#define NCOUNTS (sizeof task_counts / sizeof task_counts[0])

static utim_tm_t tm;
static utim_tm_tasks_t tasks;
static utim_tm_timer_t timers[MAX_TASKS];
static uint32_t wake[UTIM_TM_TASK_WORDS(MAX_TASKS)];
static uint32_t due[MAX_TASKS]; /* system time the wake was due at (< 2^32 ticks here) */
static volatile unsigned woken;
static volatile unsigned last_id;
static volatile uint64_t last_at;

static void hook(utim_tm_t *m, unsigned id, void *arg) {
  (void)arg;
  last_at = utim_tm_now(m);
  last_id = id;
  woken++;
}

typedef struct result {
  uint64_t sum;   /* ticks */
  uint64_t min;   /* ticks */
  uint64_t max;   /* ticks */
  unsigned early; /* wake-ups before they were due */
  unsigned wrong; /* a wake-up of another task than expected */
  unsigned n;
} result_t;

static result_t results[2][NCOUNTS];
static uint32_t hz;
static uint64_t tick;

/* Instructions in @p ticks of the counter: ticks x (1e9 / hz) ns / 2^shift. */
static uint64_t insns(uint64_t ticks_x1000) {
  return ticks_x1000 * (1000000000u / hz) / (1000u << UTIM_QEMU_ICOUNT_SHIFT);
}

static void run(unsigned mode, unsigned ci) {
  const unsigned n = task_counts[ci];
  result_t *r = &results[mode][ci];
  const utim_periph_t *p = utim_by_index(0u);
  th_context("%s, %u tasks, %s", utim_name(p), n, mode == 0u ? "tickless" : "ticked");
  hz = utim_clock(p, 0u)->hz;
  tick = hz / 1000u;
  if (!TH_EQ(utim_init(p, hz, UTIM_CLOCK_DEFAULT), 0) || !TH_EQ(utim_start(p), 0) ||
      !TH_EQ(utim_tm_init(&tm, p, 0u, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, tick), 0) ||
      !TH_EQ(utim_tm_tasks_init(&tasks, &tm, timers, wake, n, hook, NULL), 0)) {
    return;
  }
  /* One wake per interrupt: 0.2 ms apart tickless, 1.1 ticks ticked. */
  const uint64_t gap = mode == 0u ? hz / 5000u : tick + tick / 10u;
  const uint64_t first = 2u * tick;
  for (unsigned i = 0; i < n; i++) {
    (void)TH_EQ(utim_tm_task_delay(&tasks, i, first + gap * i), 0);
    uint64_t at = 0;
    (void)TH_EQ(utim_tm_expiry(&tm, &timers[i], &at), 0);
    /* Ticked: served by the first tick point at or after it. */
    due[i] = (uint32_t)(mode == 0u ? at : (at + tick - 1u) / tick * tick);
  }
  r->min = UINT64_MAX;
  const unsigned samples = n < SAMPLES ? n : SAMPLES;
  for (unsigned k = 0; k < samples; k++) {
    while (woken == k) {
    }
    const unsigned id = last_id;
    if (id != k) {
      r->wrong++;
      continue;
    }
    if (last_at < due[id]) {
      r->early++;
      continue;
    }
    const uint64_t lat = last_at - due[id];
    r->sum += lat;
    r->min = lat < r->min ? lat : r->min;
    r->max = lat > r->max ? lat : r->max;
    r->n++;
  }
  (void)TH_EQ(utim_tm_deinit(&tm), 0);
  (void)utim_stop(p);
  woken = 0;
  TH_CHECKF(r->wrong == 0u && r->early == 0u && r->n == samples,
            "%u wake-ups of another task, %u early, %u measured of %u", r->wrong, r->early, r->n,
            samples);
}

static void t_mode(void *arg) {
  const unsigned mode = (unsigned)(uintptr_t)arg;
  for (unsigned ci = 0; ci < NCOUNTS; ci++) {
    run(mode, ci);
  }
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  th_printf("TAP version 13\n");
  th_note("Fig. 3 on %s under QEMU -icount shift=%d: wake-up latency of the time manager, "
          "instructions from the due moment to the wake hook (see tm_wakeup.c)",
          utim_board.name, UTIM_QEMU_ICOUNT_SHIFT);
  th_run("Fig. 3 tickless: one task woken per interrupt, never early", t_mode, (void *)0u);
  th_run("Fig. 3 ticked (1 ms): one task woken per tick, never early", t_mode, (void *)1u);
  const utim_periph_t *p = utim_by_index(0u);
  th_note("instance %s at %lu Hz: one counter tick is %lu instructions; %u wake-ups per row",
          utim_name(p), (unsigned long)hz, (unsigned long)insns(1000u), SAMPLES);
  th_note(" tasks  mode            mean        min        max   (instructions)");
  for (unsigned mode = 0; mode < 2u; mode++) {
    for (unsigned ci = 0; ci < NCOUNTS; ci++) {
      const result_t *r = &results[mode][ci];
      if (r->n == 0u) {
        continue;
      }
      th_note("%6u  %s  %10lu %10lu %10lu", task_counts[ci], mode == 0u ? "tickless" : "ticked  ",
              (unsigned long)insns(r->sum * 1000u / r->n), (unsigned long)insns(r->min * 1000u),
              (unsigned long)insns(r->max * 1000u));
    }
  }
  th_printf("{\"benchmark\":\"tm_wakeup\",\"board\":\"%s\",\"icount_shift\":%d,\"rows\":[",
            utim_board.name, UTIM_QEMU_ICOUNT_SHIFT);
  bool comma = false;
  for (unsigned mode = 0; mode < 2u; mode++) {
    for (unsigned ci = 0; ci < NCOUNTS; ci++) {
      const result_t *r = &results[mode][ci];
      if (r->n == 0u) {
        continue;
      }
      th_printf("%s{\"mode\":\"%s\",\"tasks\":%u,\"mean_insns\":%lu,\"min_insns\":%lu,"
                "\"max_insns\":%lu,\"samples\":%u}",
                comma ? "," : "", mode == 0u ? "tickless" : "ticked", task_counts[ci],
                (unsigned long)insns(r->sum * 1000u / r->n), (unsigned long)insns(r->min * 1000u),
                (unsigned long)insns(r->max * 1000u), r->n);
      comma = true;
    }
  }
  th_printf("]}\n");
  return th_finish();
}
