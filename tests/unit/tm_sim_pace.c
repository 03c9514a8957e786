/*
 * test_tm_sim's pacing cases (tm_sim.h): chains of expiries the manager's
 * interrupt feeds itself (a periodic timer or a tick shorter than the
 * interrupt, a one-shot restarting itself) leave the program time, and one
 * the CPU keeps up with is not paced.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "harness.h"
#include "sim.h"
#include "tm_sim.h"
#include "utim/port.h"

/* Callbacks after which a chain stops itself: without the manager's pacing
 * the program never runs again, and the test would hang instead of
 * failing. */
#define CHAIN_GIVE_UP 200000u

static uint64_t chain_calls;
static uint64_t chain_points; /* grid points the callbacks stood for */
static bool chain_self;       /* a one-shot that starts itself again from its callback */

static void chain_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)arg;
  chain_calls++;
  chain_points += 1u + utim_tm_overrun(m);
  if (chain_calls >= CHAIN_GIVE_UP) {
    (void)utim_tm_stop(m, t);
  } else if (chain_self) {
    (void)utim_tm_start(m, t, 1u, 0u);
  }
}

/*
 * A periodic timer of 1 to 4 ticks at 16 MHz, or a one-shot that starts
 * itself a tick ahead from its callback: shorter than the manager's
 * interrupt on sim, so its next expiry has passed at every re-arm. The
 * program still runs (100 reads of the time in well under a millisecond of
 * virtual time; they used to never end: the interrupt came back at once for
 * good), and the periodic timer keeps its grid, the points it skipped being
 * its overruns (its next expiry is the start plus a period for every point
 * a callback stood for).
 */
void t_chain(void *arg) {
  const utim_periph_t *p = arg;
  static const uint64_t periods[] = {1u, 2u, 3u, 4u, 0u};
  for (unsigned k = 0; k < sizeof periods / sizeof periods[0]; k++) {
    const uint64_t period = periods[k];
    th_context("period %" PRIu64 "%s", period, period == 0u ? " (one-shot restarting itself)" : "");
    if (!setup(p, 0u, UTIM_TM_TICKLESS, 0u)) {
      return;
    }
    utim_tm_timer_t t;
    utim_tm_timer_init(&t, chain_cb, NULL);
    chain_calls = 0u;
    chain_points = 0u;
    chain_self = period == 0u;
    const uint64_t first = utim_tm_now(&tm) + 1u;
    TH_EQ(utim_tm_start_at(&tm, &t, first, period), 0);
    const uint64_t t0 = sim_now();
    for (unsigned i = 0; i < 100u; i++) {
      (void)utim_tm_now(&tm);
    }
    const uint64_t took_ns = sim_now() - t0;
    TH_CHECKF(chain_calls < CHAIN_GIVE_UP && took_ns < 1000000u,
              "100 reads of the time took %" PRIu64 " ns of virtual time beside %" PRIu64
              " callbacks",
              took_ns, chain_calls);
    if (period != 0u) {
      uint64_t at = 0;
      TH_EQ(utim_tm_expiry(&tm, &t, &at), 0);
      TH_CHECKF(at == first + chain_points * period,
                "next expiry %" PRIu64 ", grid %" PRIu64 " + %" PRIu64 " points x %" PRIu64, at,
                first, chain_points, period);
    }
    chain_self = false;
    (void)utim_tm_stop(&tm, &t);
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
  th_context("%s", "");
}

/*
 * A periodic timer of 8 ticks at 16 MHz, a few times the manager's
 * interrupt on sim (a quarter to a half of the CPU): the CPU keeps up, so
 * the pacing leaves it alone and every grid point gets its own callback
 * over a millisecond (the first pacing took the wait the interrupt had been
 * armed for as its cost, and merged one point in nine into overruns).
 */
void t_chain_kept_up(void *arg) {
  const utim_periph_t *p = arg;
  if (!setup(p, 0u, UTIM_TM_TICKLESS, 0u)) {
    return;
  }
  utim_tm_timer_t t;
  utim_tm_timer_init(&t, chain_cb, NULL);
  chain_calls = 0u;
  chain_points = 0u;
  chain_self = false;
  const uint64_t period = 8u;
  const uint64_t first = utim_tm_now(&tm) + 10u;
  TH_EQ(utim_tm_start_at(&tm, &t, first, period), 0);
  sim_advance(1000000u);
  const uint64_t passed = (utim_tm_now(&tm) - first) / period + 1u;
  TH_CHECKF(chain_points == chain_calls && chain_calls + 1u >= passed,
            "%" PRIu64 " callbacks for %" PRIu64 " grid points passed, %" PRIu64
            " of them merged into overruns",
            chain_calls, passed, chain_points - chain_calls);
  (void)utim_tm_stop(&tm, &t);
  TH_EQ(utim_tm_deinit(&tm), 0);
}

/*
 * A ticked manager whose tick (1 to 4 ticks at 16 MHz, as far as the
 * instance takes it) is shorter than its interrupt on sim: the tick is a
 * chain the interrupt feeds itself, and the program still runs (its 100
 * reads of the time used to never end on SIM_NRF32 at 3 ticks and
 * SIM_CHAIN32 at 4); a timer of 1000 ticks still comes, never early.
 */
void t_tick_chain(void *arg) {
  const utim_periph_t *p = arg;
  for (uint64_t tick = 1u; tick <= 4u; tick++) {
    th_context("tick %" PRIu64, tick);
    if (!setup_inst(p)) {
      return;
    }
    if (utim_tm_init(&tm, p, 0u, UTIM_TM_TICKED, tick) != 0) {
      continue; /* below what the instance takes */
    }
    utim_tm_timer_t t;
    utim_tm_timer_init(&t, chain_cb, NULL);
    chain_calls = 0u;
    chain_points = 0u;
    chain_self = false;
    const uint64_t due = utim_tm_now(&tm) + 1000u;
    TH_EQ(utim_tm_start_at(&tm, &t, due, 0u), 0);
    const uint64_t t0 = sim_now();
    for (unsigned i = 0; i < 100u; i++) {
      (void)utim_tm_now(&tm);
    }
    TH_CHECKF(sim_now() - t0 < 1000000u, "100 reads of the time took %" PRIu64 " ns",
              sim_now() - t0);
    TH_CHECK(chain_calls == 0u || utim_tm_now(&tm) >= due);
    sim_advance(ns_of(1000u) + 1000000u);
    TH_EQU(chain_calls, 1u);
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
  th_context("%s", "");
}

/* The program runs beside the manager: 100 reads of the time and 100 us of
 * virtual time end within 1 ms of it (on_hang() reports a manager that
 * keeps the CPU, after 20 s of real time, armed by the caller). */
static void check_program_runs(void) {
  const uint64_t t0 = sim_now();
  for (unsigned i = 0; i < 100u; i++) {
    (void)utim_tm_now(&tm);
  }
  sim_advance(100000u);
  alarm(0u);
  TH_CHECKF(sim_now() - t0 < 1000000u, "100 reads of the time and 100 us took %" PRIu64 " ns",
            sim_now() - t0);
}

/*
 * A tick shorter than the interrupt whose interrupt comes to cost more in
 * the middle of its streak (register accesses of 1 ns, then of 20 ns: on
 * hardware, wait states, a busier bus, a slower driver path) still leaves
 * the program time. Found by fuzz_tm: the pace stayed at the least gap of
 * the streak's first interrupts plus a tick (2 ticks), the re-arm alone
 * then took longer, each interrupt came back at once, the streak never
 * ended and the program never ran again (sim_advance() never returned).
 */
static void on_hang(int sig) {
  (void)sig;
  static const char msg[] = "not ok - the manager's interrupt kept the CPU (no progress in 20 s)\n";
  (void)!write(1, msg, sizeof msg - 1u);
  _exit(1);
}

void t_tick_cost_grows(void *arg) {
  const utim_periph_t *p = arg;
  if (!setup_inst(p)) {
    return;
  }
  sim_set_access_cost(1u);
  if (utim_tm_init(&tm, p, 0u, UTIM_TM_TICKED, utim_min_distance(p)) != 0) {
    return; /* below what the instance takes */
  }
  utim_tm_timer_t t;
  utim_tm_timer_init(&t, chain_cb, NULL);
  chain_calls = 0u;
  chain_self = false;
  TH_EQ(utim_tm_start(&tm, &t, 0u, 0u), 0);
  sim_advance(1000u);
  sim_set_access_cost(20u);
  signal(SIGALRM, on_hang);
  alarm(20u);
  check_program_runs();
  TH_EQU(chain_calls, 1u);
  TH_EQ(utim_tm_deinit(&tm), 0);
  sim_set_access_cost(10u);
}

/*
 * A tick of the minimum distance, register accesses of 1 to 12 ns: the
 * manager's set-up returns and the program runs. Found by fuzz_tm: on
 * SIM_TIMER8 at 16 MHz (minimum distance 3) with accesses of 7 or 8 ns,
 * each tick's arming landed within the minimum distance, the core waited
 * for it and delivered it at once, the interrupt came "when due" (late 0,
 * so never near, never paced), and utim_tm_init() never returned.
 */
void t_tick_min_distance(void *arg) {
  const utim_periph_t *p = arg;
  for (uint32_t cost = 1u; cost <= 12u; cost++) {
    th_context("access %" PRIu32 " ns", cost);
    if (!setup_inst(p)) {
      return;
    }
    sim_set_access_cost(cost);
    signal(SIGALRM, on_hang);
    alarm(20u);
    if (utim_tm_init(&tm, p, 0u, UTIM_TM_TICKED, utim_min_distance(p)) != 0) {
      alarm(0u);
      continue;
    }
    check_program_runs();
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
  sim_set_access_cost(10u);
  th_context("%s", "");
}

/*
 * A paced ticked manager arms its channel no farther than half the
 * counter's range ahead, as the time's extension needs. On SIM_TIMER8 (a
 * range of 256 ticks at 16 MHz) ticked at 99 ticks, a periodic timer of 99
 * ticks (and 96, 102) whose callback takes 1.5 us (24 ticks) and a program whose critical
 * sections take 6 us (96 ticks): interrupts are never held off for more
 * than 120 ticks, under the 127 the time tolerates. Before 2026-11-26 the
 * paced interrupt rounded its moment up to a tick point past half a range
 * (up to 225 ticks ahead), a critical section then delayed it past a
 * whole range: the time lost 256 ticks at a time, the next tick point was
 * then more than a range ahead, its arming was refused (utim_set_rel()'s
 * -ERANGE) and the manager never interrupted again (20 callbacks in all).
 */
static uint64_t burn_calls;
static void burn_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
  burn_calls++;
  sim_advance(1500u); /* the callback's work, with the lock held */
}

void t_tick_paced_range(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("SIM_TIMER8");
  for (uint64_t tick = 96u; tick <= 102u; tick += 3u) {
    th_context("tick %" PRIu64, tick);
    if (!setup(p, 0u, UTIM_TM_TICKED, tick)) {
      return;
    }
    utim_tm_timer_t t;
    utim_tm_timer_init(&t, burn_cb, NULL);
    burn_calls = 0u;
    TH_EQ(utim_tm_start(&tm, &t, tick, tick), 0);
    for (unsigned i = 0; i < 400u; i++) {
      const uint32_t key = utim_port_lock();
      sim_advance(6000u);
      utim_port_unlock(key);
      sim_advance(1000u + (uint64_t)(i % 7u) * 300u);
    }
    const uint64_t ref0 = ref_ticks();
    const uint64_t now = utim_tm_now(&tm);
    const uint64_t ref = ref_ticks();
    /* The read's unlock may let in an interrupt of 24 ticks' work. */
    TH_CHECKF(now + 26u >= ref0 && now <= ref + 2u,
              "time %" PRIu64 ", virtual time says %" PRIu64 " to %" PRIu64, now, ref0, ref);
    TH_CHECKF(burn_calls > 300u, "%" PRIu64 " callbacks in %" PRIu64 " ticks", burn_calls, ref);
    TH_EQ(utim_tm_deinit(&tm), 0);
  }
  th_context("%s", "");
}
