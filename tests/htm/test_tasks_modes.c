/*
 * The time manager's task-delay interface (TaskDelay, GetTasksToWake,
 * ClearTask, GetTime, SetTime, the wake hook) in its three modes, with the
 * same checks: software tickless (the manager on SIM_MTIME64 at 10 kHz),
 * software ticked (at 100 kHz, a tick of 10 counts: the scheduler-tick
 * style) and hardware (the HTM's RTL co-simulated on the sim machine, both
 * architectures, its time base at 10 kHz). Times are each mode's own
 * (utim_tm_tasks_now()), so the checks are the same:
 * - a delay of d wakes its task once, never before d has passed, and at
 *   most the mode's lateness after (0 tickless and hardware; one tick of 10
 *   ticked), the hook naming it, utim_tm_tasks_to_wake() returning its bit
 *   once;
 * - a clear before the end: no wake; after it: the bit is gone;
 * - set-time while delays run: they keep their remaining ticks;
 * - 16 tasks with seeded random delays, clears and reloads: every wake once,
 *   never early, within the lateness.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "sim_htm.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/tm_htm.h"
#include "utim_htm.h"

#define NTASKS  16u
#define HTM_HZ  10000u
#define HTM_CYC 50u
#define LINE    63u
#define NRANDOM 1500u

typedef enum mode { M_TICKLESS, M_TICKED, M_HTM0, M_HTM1, M_COUNT } mode_t_;
static const char *const mode_name[M_COUNT] = {"software tickless", "software ticked",
                                               "hardware ARCH 0", "hardware ARCH 1"};

static utim_tm_t g_tm;
static utim_tm_tasks_t g_ts;
static utim_tm_timer_t g_timers[NTASKS];
static uint32_t g_wake[UTIM_TM_TASK_WORDS(NTASKS)];
static utim_htm_t g_htm;
static uint64_t g_late;    /* the mode's lateness bound, in its ticks */
static uint64_t g_unit_ns; /* ns of one of its ticks */
static unsigned g_hooks[NTASKS];
static uint64_t g_hook_at[NTASKS]; /* the mode's time in the hook */
/* What task 0's hook does to task 1: 0 nothing, 1 clear, 2 a new delay of 100. */
static unsigned g_hook_act;

static void hook(utim_tm_t *tm, unsigned id, void *arg) {
  (void)tm;
  (void)arg;
  g_hooks[id]++;
  g_hook_at[id] = utim_tm_tasks_now(&g_ts);
  if (id == 0u && g_hook_act == 1u) {
    TH_EQ(utim_tm_task_clear(&g_ts, 1u), 0);
  } else if (id == 0u && g_hook_act == 2u) {
    TH_EQ(utim_tm_task_delay(&g_ts, 1u, 100u), 0);
  }
}

static void htm_isr(const void *arg) {
  (void)arg;
  utim_tm_tasks_htm_isr(&g_ts);
}

static bool setup(mode_t_ m) {
  sim_htm_detach_all();
  sim_board_init();
  memset(g_hooks, 0, sizeof g_hooks);
  memset(g_hook_at, 0, sizeof g_hook_at);
  if (m == M_HTM0 || m == M_HTM1) {
    const int dev = sim_htm_attach(m == M_HTM0 ? 0u : 1u, HTM_HZ, HTM_CYC, LINE);
    if (!TH_CHECKF(dev >= 0, "attach %d", dev)) {
      return false;
    }
    g_htm = (utim_htm_t){&utim_htm_sim_ops, (uintptr_t)dev};
    sim_irq_attach(LINE, htm_isr, NULL);
    g_late = 0;
    g_unit_ns = 1000000000u / HTM_HZ;
    return TH_EQ(utim_tm_tasks_init_htm(&g_ts, &g_htm, g_wake, NTASKS, hook, NULL), 0);
  }
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  const uint32_t hz = m == M_TICKLESS ? 10000u : 100000u;
  g_late = m == M_TICKLESS ? 0u : 10u;
  g_unit_ns = 1000000000u / hz;
  return TH_EQ(utim_init(p, hz, UTIM_CLOCK_DEFAULT), 0) && TH_EQ(utim_start(p), 0) &&
         TH_EQ(utim_tm_init(&g_tm, p, 0u, m == M_TICKLESS ? UTIM_TM_TICKLESS : UTIM_TM_TICKED,
                            m == M_TICKLESS ? 0u : 10u),
               0) &&
         TH_EQ(utim_tm_tasks_init(&g_ts, &g_tm, g_timers, g_wake, NTASKS, hook, NULL), 0);
}

static void teardown(mode_t_ m) {
  if (m == M_TICKLESS || m == M_TICKED) {
    (void)utim_tm_deinit(&g_tm);
  }
  sim_htm_detach_all();
}

static void t_one(void *arg) {
  const mode_t_ m = (mode_t_)(uintptr_t)arg;
  if (!setup(m)) {
    return;
  }
  sim_advance(g_unit_ns * 3u + g_unit_ns / 3u);
  const uint64_t t0 = utim_tm_tasks_now(&g_ts);
  TH_EQ(utim_tm_task_delay(&g_ts, 5u, 20u), 0);
  /* Beyond the interface's 2^62 ticks: refused in every mode, the pending
   * delay kept (the hardware backend took up to its block's 2^64 - 18). */
  TH_EQ(utim_tm_task_delay(&g_ts, 5u, ((uint64_t)1 << 62) + 1u), -EINVAL);
  TH_EQ(utim_tm_task_delay(&g_ts, 5u, UINT64_MAX - NTASKS - 1u), -EINVAL);
  sim_advance(g_unit_ns * (19u + g_late) - g_unit_ns / 2u);
  /* Not yet: its own time has not gone 20 ticks on, or it came with it. */
  TH_CHECKF(g_hooks[5] == 0u || g_hook_at[5] >= t0 + 20u, "woke at %llu, loaded at %llu",
            (unsigned long long)g_hook_at[5], (unsigned long long)t0);
  sim_advance(g_unit_ns * (2u + g_late));
  TH_EQU(g_hooks[5], 1u);
  TH_CHECKF(g_hook_at[5] >= t0 + 20u && g_hook_at[5] <= t0 + 20u + 1u + g_late,
            "woke at %llu, loaded at %llu (late bound %llu)", (unsigned long long)g_hook_at[5],
            (unsigned long long)t0, (unsigned long long)g_late);
  uint32_t out[1] = {0};
  TH_EQU(utim_tm_tasks_to_wake(&g_ts, out, 1u), 1u);
  TH_EQU(out[0], 1u << 5);
  TH_EQU(utim_tm_tasks_to_wake(&g_ts, out, 1u), 0u);
  /* Clear before the end: no wake; clear after: no bit. */
  TH_EQ(utim_tm_task_delay(&g_ts, 6u, 10u), 0);
  sim_advance(g_unit_ns * 5u);
  TH_EQ(utim_tm_task_clear(&g_ts, 6u), 0);
  sim_advance(g_unit_ns * (20u + g_late));
  TH_EQU(g_hooks[6], 0u);
  TH_EQ(utim_tm_task_delay(&g_ts, 7u, 3u), 0);
  sim_advance(g_unit_ns * (5u + g_late));
  TH_EQU(g_hooks[7], 1u);
  TH_EQ(utim_tm_task_clear(&g_ts, 7u), 0);
  TH_EQU(utim_tm_tasks_to_wake(&g_ts, out, 1u), 0u);
  teardown(m);
}

static void t_set_time(void *arg) {
  const mode_t_ m = (mode_t_)(uintptr_t)arg;
  if (!setup(m)) {
    return;
  }
  sim_advance(g_unit_ns * 7u);
  const uint64_t t0 = utim_tm_tasks_now(&g_ts);
  TH_EQ(utim_tm_task_delay(&g_ts, 1u, 30u), 0);
  sim_advance(g_unit_ns * 10u);
  const uint64_t before = utim_tm_tasks_now(&g_ts);
  TH_EQ(utim_tm_tasks_set_time(&g_ts, 1000000u), 0);
  const uint64_t shift = 1000000u - before; /* what set-time added to the reading */
  TH_CHECKF(utim_tm_tasks_now(&g_ts) - 1000000u <= 1u, "time %llu after set",
            (unsigned long long)utim_tm_tasks_now(&g_ts));
  sim_advance(g_unit_ns * (30u + g_late));
  TH_EQU(g_hooks[1], 1u);
  /* In the old time line: never before t0 + 30, at most the lateness after. */
  const uint64_t at = g_hook_at[1] - shift;
  TH_CHECKF(at >= t0 + 30u && at <= t0 + 31u + g_late, "woke at %llu (old time), loaded at %llu",
            (unsigned long long)at, (unsigned long long)t0);
  teardown(m);
}

static void t_random(void *arg) {
  const mode_t_ m = (mode_t_)(uintptr_t)arg;
  if (!setup(m)) {
    return;
  }
  uint64_t loaded_at[NTASKS] = {0};
  uint64_t d_of[NTASKS] = {0};
  bool pending[NTASKS] = {false};
  unsigned seen[NTASKS] = {0};
  unsigned early = 0;
  unsigned late = 0;
  unsigned spurious = 0;
  unsigned wakes = 0;
  uint32_t rng = 2024u;
  for (unsigned k = 0; k < NRANDOM; k++) {
    rng = rng * 1664525u + 1013904223u;
    const unsigned id = (rng >> 20) % NTASKS;
    if ((rng >> 8) % 6u == 0u) {
      (void)utim_tm_task_clear(&g_ts, id);
      pending[id] = false;
      seen[id] = g_hooks[id];
    } else {
      d_of[id] = 1u + (rng >> 4) % 40u;
      loaded_at[id] = utim_tm_tasks_now(&g_ts);
      pending[id] = utim_tm_task_delay(&g_ts, id, d_of[id]) == 0;
      seen[id] = g_hooks[id];
    }
    sim_advance(g_unit_ns * ((rng >> 12) % 7u) + 70u);
    for (unsigned i = 0; i < NTASKS; i++) {
      if (g_hooks[i] == seen[i]) {
        continue;
      }
      wakes++;
      spurious += pending[i] && g_hooks[i] == seen[i] + 1u ? 0u : 1u;
      early += g_hook_at[i] < loaded_at[i] + d_of[i] ? 1u : 0u;
      late += g_hook_at[i] > loaded_at[i] + d_of[i] + 1u + g_late ? 1u : 0u;
      seen[i] = g_hooks[i];
      pending[i] = false;
    }
  }
  uint32_t out[1];
  (void)utim_tm_tasks_to_wake(&g_ts, out, 1u);
  TH_CHECKF(early == 0u && late == 0u && spurious == 0u && wakes > NRANDOM / 8u,
            "%u wakes: %u early, %u late, %u not once per delay", wakes, early, late, spurious);
  teardown(m);
}

/* A hook that clears or delays again another task whose delay ended in the
 * same interrupt: that task is not woken (the clear's "the hook does not
 * run for it", the delay's "replaced"); delayed again, it wakes once at
 * its new end. The hardware backend used to deliver the wakes it had taken
 * from the block regardless. */
static void t_hook_acts(void *arg) {
  const mode_t_ m = (mode_t_)(uintptr_t)arg;
  for (unsigned act = 1u; act <= 2u; act++) {
    th_context("%s", act == 1u ? "clear" : "delay again");
    if (!setup(m)) {
      return;
    }
    g_hook_act = act;
    TH_EQ(utim_tm_task_delay(&g_ts, 0u, 10u), 0);
    TH_EQ(utim_tm_task_delay(&g_ts, 1u, 10u), 0);
    sim_advance(g_unit_ns * (12u + g_late));
    g_hook_act = 0u;
    TH_EQU(g_hooks[0], 1u);
    TH_EQU(g_hooks[1], 0u);
    uint32_t out[1] = {0};
    TH_EQU(utim_tm_tasks_to_wake(&g_ts, out, 1u), 1u);
    TH_EQU(out[0], 1u);
    sim_advance(g_unit_ns * (100u + 2u * g_late));
    TH_EQU(g_hooks[1], act == 2u ? 1u : 0u);
    teardown(m);
  }
  th_context("%s", "");
}

/* A delay that ended while interrupts were held off (its wake not yet
 * served), delayed again before they are: the wake of the replaced delay is
 * dropped, as a restarted timer's expiry is ("a pending delay is
 * replaced"); the task wakes once, at its new end, never before it. The
 * hardware backend used to deliver the old wake the block still held. */
static void t_reload_unserved(void *arg) {
  const mode_t_ m = (mode_t_)(uintptr_t)arg;
  if (!setup(m)) {
    return;
  }
  sim_advance(g_unit_ns * 2u + g_unit_ns / 3u);
  TH_EQ(utim_tm_task_delay(&g_ts, 4u, 5u), 0);
  const uint32_t key = utim_port_lock();
  sim_advance(g_unit_ns * (8u + g_late));
  const uint64_t t1 = utim_tm_tasks_now(&g_ts);
  TH_EQ(utim_tm_task_delay(&g_ts, 4u, 50u), 0);
  utim_port_unlock(key);
  sim_advance(g_unit_ns);
  TH_CHECKF(g_hooks[4] == 0u, "woke %u time(s) at %llu, delayed again for 50 at %llu", g_hooks[4],
            (unsigned long long)g_hook_at[4], (unsigned long long)t1);
  uint32_t out[1] = {0};
  TH_EQU(utim_tm_tasks_to_wake(&g_ts, out, 1u), 0u);
  sim_advance(g_unit_ns * (55u + g_late));
  TH_EQU(g_hooks[4], 1u);
  TH_CHECKF(g_hook_at[4] >= t1 + 50u, "woke at %llu, delayed for 50 at %llu",
            (unsigned long long)g_hook_at[4], (unsigned long long)t1);
  teardown(m);
}

/* Hardware mode: utim_tm_tasks_init_htm()'s refusals (a NULL pointer, no
 * task, more tasks than the block's slots, no block answering) and a delay
 * beyond the block's counters; none disturbs the table set up before. */
static void t_htm_args(void *arg) {
  (void)arg;
  if (!setup(M_HTM0)) {
    return;
  }
  unsigned slots = 0;
  unsigned width = 0;
  TH_EQ(utim_htm_probe(&g_htm, &slots, &width), 0);
  utim_tm_tasks_t ts;
  uint32_t wake[UTIM_TM_TASK_WORDS(64u)];
  TH_EQ(utim_tm_tasks_init_htm(NULL, &g_htm, wake, 1u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init_htm(&ts, NULL, wake, 1u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init_htm(&ts, &g_htm, NULL, 1u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init_htm(&ts, &g_htm, wake, 0u, NULL, NULL), -EINVAL);
  TH_EQ(utim_tm_tasks_init_htm(&ts, &g_htm, wake, slots + 1u, NULL, NULL), -EINVAL);
  const utim_htm_t absent = {&utim_htm_sim_ops, g_htm.base + 1u};
  TH_EQ(utim_tm_tasks_init_htm(&ts, &absent, wake, 1u, NULL, NULL), -ENODEV);
  TH_EQ(utim_tm_task_delay(&g_ts, NTASKS, 5u), -EINVAL);
  if (width < 64u) {
    TH_EQ(utim_tm_task_delay(&g_ts, 2u, (uint64_t)1 << width), -EINVAL);
  }
  /* The table set up before still delays and wakes; a clear of an id
   * beyond the block's 64 (which its 6-bit id field would read as id % 64)
   * leaves it alone. */
  TH_EQ(utim_tm_task_delay(&g_ts, 2u, 4u), 0);
  utim_htm_clear(&g_htm, 64u + 2u);
  sim_advance(g_unit_ns * 6u);
  TH_EQU(g_hooks[2], 1u);
  uint32_t out[1] = {0};
  TH_EQU(utim_tm_tasks_to_wake(&g_ts, out, 1u), 1u);
  TH_EQU(out[0], 1u << 2);
  /* Virtual time set back (sim_reset() keeps the block): its clock runs on
   * from where it was, and a delay still ends (it used to wait until
   * virtual time came back past its old position). */
  const uint64_t before = utim_tm_tasks_now(&g_ts);
  sim_reset();
  TH_EQ(utim_tm_task_delay(&g_ts, 3u, 5u), 0);
  sim_advance(g_unit_ns * 7u);
  TH_EQU(g_hooks[3], 1u);
  TH_CHECK(utim_tm_tasks_now(&g_ts) >= before + 5u);
  teardown(M_HTM0);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  static char names[M_COUNT][5][112];
  for (unsigned m = 0; m < M_COUNT; m++) {
    (void)th_snprintf(names[m][0], sizeof names[m][0],
                      "%s: a delay wakes once, never early, within its lateness; clear",
                      mode_name[m]);
    (void)th_snprintf(names[m][1], sizeof names[m][1],
                      "%s: set-time keeps a pending delay's remaining ticks", mode_name[m]);
    (void)th_snprintf(names[m][2], sizeof names[m][2],
                      "%s: random delays, clears, reloads on 16 tasks", mode_name[m]);
    th_run(names[m][0], t_one, (void *)(uintptr_t)m);
    th_run(names[m][1], t_set_time, (void *)(uintptr_t)m);
    th_run(names[m][2], t_random, (void *)(uintptr_t)m);
    (void)th_snprintf(names[m][3], sizeof names[m][3],
                      "%s: a hook's clear or new delay of a task woken with it holds",
                      mode_name[m]);
    th_run(names[m][3], t_hook_acts, (void *)(uintptr_t)m);
    (void)th_snprintf(names[m][4], sizeof names[m][4],
                      "%s: a delay again after an end not yet served drops the old wake",
                      mode_name[m]);
    th_run(names[m][4], t_reload_unserved, (void *)(uintptr_t)m);
  }
  th_run("hardware: bad arguments refused, the set-up before kept", t_htm_args, NULL);
  return th_finish();
}
