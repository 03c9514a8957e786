/*
 * The HTM driver (drivers/htm) against the RTL itself, co-simulated on the
 * sim machine (hw/htm/sim): both architectures, the block's time base at
 * 10 kHz (a 100 us tick, 50 clock cycles a tick), its interrupt on a line
 * of the simulated interrupt controller, every register access a bus access
 * of the machine (10 ns of virtual time).
 *
 * Checked: probe (ID, tasks, width); the time counts ticks of virtual time;
 * a 64-bit read across a carry of the low word; each task's wake comes in
 * the interrupt at exactly the tick its delay ends (virtual time), never
 * before; set-time while delays run keeps their remaining ticks; clear
 * before the end: no wake; simultaneous ends: one interrupt, both bits;
 * delays beyond the tasks or the width refused; 2,000 seeded random delays,
 * clears and reloads over the 16 tasks, every wake exactly when a reference
 * says, both architectures giving the same wakes at the same times.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "sim_htm.h"
#include "utim_htm.h"

#define TICK_HZ   10000u
#define TICK_NS   ((uint64_t)100000u)
#define CYCLES    50u
#define LINE      63u
#define NTASK     SIM_HTM_TASKS
#define NRANDOM   2000u
#define MAX_WAKES 4096u

static utim_htm_t g_h;
static uint64_t g_t0;
static uint64_t g_wake_at[NTASK]; /* virtual time of each task's last wake */
static unsigned g_wakes[NTASK];
static unsigned g_irqs;
static uint64_t g_both_bits;

static void isr(const void *arg) {
  (void)arg;
  const uint64_t at = sim_now(); /* the interrupt's moment, before the accesses */
  const uint64_t w = utim_htm_take_wakes(&g_h, NTASK);
  g_irqs++;
  if ((w & (w - 1u)) != 0u) {
    g_both_bits |= w;
  }
  for (unsigned i = 0; i < NTASK; i++) {
    if ((w >> i) & 1u) {
      g_wake_at[i] = at;
      g_wakes[i]++;
    }
  }
}

/* Machine and block fresh, architecture @p arch. */
static bool setup(unsigned arch) {
  sim_htm_detach_all();
  sim_board_init();
  g_t0 = sim_now();
  const int dev = sim_htm_attach(arch, TICK_HZ, CYCLES, LINE);
  if (!TH_CHECKF(dev >= 0, "sim_htm_attach: %d", dev)) {
    return false;
  }
  g_h = (utim_htm_t){&utim_htm_sim_ops, (uintptr_t)dev};
  sim_irq_attach(LINE, isr, NULL);
  for (unsigned i = 0; i < NTASK; i++) {
    g_wake_at[i] = 0;
    g_wakes[i] = 0;
  }
  g_irqs = 0;
  g_both_bits = 0;
  utim_htm_irq_enable(&g_h, true);
  return true;
}

/* The virtual time of the tick a delay of @p d loaded now ends at. */
static uint64_t end_of(uint64_t d) {
  const uint64_t since = sim_now() - g_t0;
  const uint64_t next = (since / TICK_NS + 1u) * TICK_NS; /* the first tick after now */
  return g_t0 + next + ((d == 0u ? 1u : d) - 1u) * TICK_NS;
}

static void t_probe_time(void *arg) {
  if (!setup((unsigned)(uintptr_t)arg)) {
    return;
  }
  unsigned tasks = 0;
  unsigned width = 0;
  TH_EQ(utim_htm_probe(&g_h, &tasks, &width), 0);
  TH_EQU(tasks, NTASK);
  TH_EQU(width, SIM_HTM_WIDTH);
  const uint64_t t = utim_htm_time(&g_h);
  sim_advance(10u * TICK_NS);
  TH_EQU(utim_htm_time(&g_h) - t, 10u);
  utim_htm_set_time(&g_h, 0x1fffffffeull);
  sim_advance(2u * TICK_NS);
  TH_EQU(utim_htm_time(&g_h), 0x200000000ull);
  sim_advance(TICK_NS);
  TH_EQU(utim_htm_time(&g_h), 0x200000001ull);
}

static void t_delays(void *arg) {
  if (!setup((unsigned)(uintptr_t)arg)) {
    return;
  }
  sim_advance(TICK_NS / 3u); /* mid-tick */
  uint64_t want = end_of(5u);
  TH_EQ(utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, 3u, 5u), 0);
  TH_EQU(utim_htm_active(&g_h, NTASK), 1u << 3);
  sim_advance(want - sim_now() - 1u);
  TH_EQU(g_wakes[3], 0u); /* not a ns early */
  sim_advance(2u * TICK_NS);
  TH_EQU(g_wakes[3], 1u);
  TH_EQU(g_wake_at[3], want);
  TH_EQU(utim_htm_active(&g_h, NTASK), 0u);

  /* Set-time while a delay runs: it still ends after its ticks. */
  want = end_of(7u);
  TH_EQ(utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, 4u, 7u), 0);
  sim_advance(3u * TICK_NS);
  utim_htm_set_time(&g_h, 123456789u);
  sim_advance(10u * TICK_NS);
  TH_EQU(g_wakes[4], 1u);
  TH_EQU(g_wake_at[4], want);

  /* Clear before the end: no wake. */
  TH_EQ(utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, 5u, 3u), 0);
  sim_advance(TICK_NS);
  utim_htm_clear(&g_h, 5u);
  sim_advance(10u * TICK_NS);
  TH_EQU(g_wakes[5], 0u);

  /* Simultaneous ends: one interrupt, both bits. */
  const unsigned irqs = g_irqs;
  TH_EQ(utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, 0u, 4u), 0);
  TH_EQ(utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, NTASK - 1u, 4u), 0);
  sim_advance(10u * TICK_NS);
  TH_EQU(g_irqs - irqs, 1u);
  TH_EQU(g_both_bits, (1ull << (NTASK - 1u)) | 1u);
  TH_EQU(g_wake_at[0], g_wake_at[NTASK - 1u]);

  /* Refused: a task beyond the block, a delay beyond its width. */
  TH_EQ(utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, NTASK, 1u), -EINVAL);
  TH_EQ(utim_htm_delay(&g_h, NTASK, 32u, 0u, 1ull << 32), -EINVAL);
  TH_EQ(utim_htm_delay(&g_h, 0u, SIM_HTM_WIDTH, 0u, 1u), -EINVAL);
}

/* Random delays, clears and reloads; every wake exactly when the reference says.
 * The wakes of architecture 0 are kept to compare with architecture 1's. */
static uint64_t g_log[2][MAX_WAKES];
static unsigned g_nlog[2];

static void t_random(void *arg) {
  const unsigned arch = (unsigned)(uintptr_t)arg;
  if (!setup(arch)) {
    return;
  }
  uint64_t due[NTASK] = {0}; /* expected wake time, 0: none pending */
  unsigned seen[NTASK] = {0};
  uint32_t rng = 12345u;
  unsigned bad = 0;
  g_nlog[arch] = 0;
  for (unsigned k = 0; k < NRANDOM; k++) {
    rng = rng * 1103515245u + 12345u;
    const unsigned id = (rng >> 16) % NTASK;
    const unsigned op = (rng >> 8) % 8u;
    if (op == 0u) {
      utim_htm_clear(&g_h, id);
      due[id] = 0;
    } else {
      const uint64_t d = (rng >> 4) % 12u;
      due[id] = end_of(d);
      (void)utim_htm_delay(&g_h, NTASK, SIM_HTM_WIDTH, id, d);
    }
    sim_advance(((rng >> 12) % 5u) * TICK_NS / 2u + 30u);
    for (unsigned i = 0; i < NTASK; i++) {
      if (g_wakes[i] != seen[i]) {
        seen[i] = g_wakes[i];
        bad += due[i] != g_wake_at[i] ? 1u : 0u;
        if (g_nlog[arch] < MAX_WAKES) {
          g_log[arch][g_nlog[arch]++] = g_wake_at[i] << 8 | i;
        }
        due[i] = 0;
      } else if (due[i] != 0u && sim_now() > due[i]) {
        bad++; /* lost: its tick passed without a wake */
        due[i] = 0;
      }
    }
  }
  TH_CHECKF(bad == 0u, "%u wakes not at their tick (or lost)", bad);
  TH_CHECKF(g_nlog[arch] > NRANDOM / 4u, "only %u wakes", g_nlog[arch]);
  if (arch == 1u) {
    bool same = g_nlog[0] == g_nlog[1];
    for (unsigned i = 0; same && i < g_nlog[1]; i++) {
      same = g_log[0][i] == g_log[1][i];
    }
    TH_CHECKF(same, "the two architectures woke differently (%u vs %u wakes)", g_nlog[0],
              g_nlog[1]);
  }
}

int main(void) {
  th_set_putc(th_stdio_putc);
  static const char *const names[2][3] = {
      {"ARCH 0: probe, time counts ticks, 64-bit read across the carry",
       "ARCH 0: delays wake at their tick exactly; set-time, clear, simultaneous, refusals",
       "ARCH 0: 2000 random delays, clears and reloads at their ticks"},
      {"ARCH 1: probe, time counts ticks, 64-bit read across the carry",
       "ARCH 1: delays wake at their tick exactly; set-time, clear, simultaneous, refusals",
       "ARCH 1: 2000 random delays, clears and reloads at their ticks, as ARCH 0's"},
  };
  for (unsigned arch = 0; arch < 2u; arch++) {
    th_run(names[arch][0], t_probe_time, (void *)(uintptr_t)arch);
    th_run(names[arch][1], t_delays, (void *)(uintptr_t)arch);
    th_run(names[arch][2], t_random, (void *)(uintptr_t)arch);
  }
  sim_htm_detach_all();
  return th_finish();
}
