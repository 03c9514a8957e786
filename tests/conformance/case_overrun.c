/**
 * @file case_overrun.c
 * @brief Conformance cases: periodic channels that cannot be sustained (a
 *        period at the minimum distance; callbacks longer than the period),
 *        and chained instances with interrupts held off across the low half's
 *        wraps.
 */
#include <stdatomic.h>

#include "ct.h"
#include "utim/chain.h"
#include "utim/port.h"

/* ---- periodic overruns ------------------------------------------------------ */

/* Arm channel 0 periodically, let `span` ticks pass, and check: the call
 * returned (a hang fails the run), callbacks came, none before its grid
 * point, and callbacks plus overruns account for every grid point passed. */
static void ct_overrun_run(const utim_periph_t *p, uint64_t period, uint64_t spin, uint64_t span) {
  ct_ev_reset();
  const uint64_t ref = utim_read(p);
  ct_tally_begin(ref, period, spin);
  ct_set_phase(CT_IN);
  TH_EQ(utim_set_periodic(p, 0, period), 0);
  ct_set_phase(CT_AFTER);
  tb_wait_ticks(p, span);
  /* Masked: the credit is final while the counter is read. */
  TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
  const uint64_t passed = ct_dist(p, ref, utim_read(p)) / period;
  const ct_tally_t t = ct_tally();
  const uint64_t credit = t.credit;
  const unsigned early = t.early;
  const unsigned ov_max = t.ov_max;
  const unsigned calls = ct_count();
  TH_EQ(utim_clear(p, 0), 0);
  TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
  ct_set_action(NULL);
  TH_CHECKF(calls >= 2u, "%u callbacks in %llu ticks", calls, (unsigned long long)span);
  TH_CHECKF(early == 0u, "%u callbacks before their grid point", early);
  /* Every grid point passed is accounted for, except those of a callback
   * still due (pending behind the mask, as many as a callback stands for;
   * or within the latency), and those before the core's own reference
   * (read inside the arming call, after ref). */
  const uint64_t slack = 3u + (ct_lat(p) + 2u * spin) / period + 2u * (uint64_t)ov_max;
  TH_CHECKF(credit + slack >= passed, "callbacks and overruns count %llu grid points, %llu passed",
            (unsigned long long)credit, (unsigned long long)passed);
}

/* Every channel periodic at once: main's progress, and the callbacks that
 * found it moved since the callback before (loads and stores only, see
 * ct_recorder.c). */
static atomic_uint ct_all_steps;
static atomic_uint ct_all_calls;
static atomic_uint ct_all_fresh;
static atomic_uint ct_all_seen;
static atomic_uint ct_all_streak;
static atomic_uint ct_all_streak_max;
static unsigned ct_all_limit;
/* Callbacks in a row without the program running, at most, per channel. */
#define CT_ALL_STREAK 24u

static void ct_act_all(const utim_periph_t *p, unsigned ch) {
  (void)ch;
  const unsigned n = atomic_load_explicit(&ct_all_calls, memory_order_relaxed) + 1u;
  atomic_store_explicit(&ct_all_calls, n, memory_order_relaxed);
  const unsigned steps = atomic_load_explicit(&ct_all_steps, memory_order_relaxed);
  if (steps != atomic_load_explicit(&ct_all_seen, memory_order_relaxed)) {
    atomic_store_explicit(&ct_all_seen, steps, memory_order_relaxed);
    atomic_store_explicit(&ct_all_fresh,
                          atomic_load_explicit(&ct_all_fresh, memory_order_relaxed) + 1u,
                          memory_order_relaxed);
    atomic_store_explicit(&ct_all_streak, 0u, memory_order_relaxed);
  } else {
    const unsigned k = atomic_load_explicit(&ct_all_streak, memory_order_relaxed) + 1u;
    atomic_store_explicit(&ct_all_streak, k, memory_order_relaxed);
    if (k > atomic_load_explicit(&ct_all_streak_max, memory_order_relaxed)) {
      atomic_store_explicit(&ct_all_streak_max, k, memory_order_relaxed);
    }
  }
  if (n >= ct_all_limit) {
    for (unsigned c = 0; c < utim_channels(p); c++) {
      (void)utim_clear(p, c);
    }
  }
}

/*
 * Every channel periodic at the minimum distance at once, at the fastest
 * frequency, with callbacks that return at once: each arming call returns,
 * and the program between the interrupts keeps running (before the
 * overload guard also counted matches whose callback was still
 * undelivered, two such channels of SIM_CHAIN32 kept the interrupt busy for
 * good, inside the second utim_set_periodic()). The callbacks stop every
 * channel after a fixed count.
 */
static void ct_overrun_all(const utim_periph_t *p) {
  if (!ct_init_start(p, ct_hz_fastest(p))) {
    return;
  }
  const uint64_t md = ct_md(p);
  const uint64_t span = ct_min64(ct_max64(400u * md, 80u * ct_lat(p)), utim_max(p) / 4u);
  th_context("%s every channel at period %llu", utim_name(p), (unsigned long long)md);
  ct_ev_reset();
  atomic_store_explicit(&ct_all_steps, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_all_calls, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_all_fresh, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_all_seen, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_all_streak, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_all_streak_max, 0u, memory_order_relaxed);
  ct_all_limit = 240u;
  ct_set_action(ct_act_all);
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    TH_EQ(utim_set_periodic(p, ch, md), 0);
  }
  /* Counted from here: callbacks during the arming calls ran while the
   * program was in them. */
  unsigned steps = 1u;
  atomic_store_explicit(&ct_all_steps, steps, memory_order_relaxed);
  atomic_store_explicit(&ct_all_streak, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_all_streak_max, 0u, memory_order_relaxed);
  const uint64_t start = utim_read(p);
  while (atomic_load_explicit(&ct_all_calls, memory_order_relaxed) < ct_all_limit &&
         ct_dist(p, start, utim_read(p)) < span) {
    atomic_store_explicit(&ct_all_steps, ++steps, memory_order_relaxed);
  }
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    TH_EQ(utim_clear(p, ch), 0);
  }
  ct_set_action(NULL);
  const unsigned calls = atomic_load_explicit(&ct_all_calls, memory_order_relaxed);
  const unsigned fresh = atomic_load_explicit(&ct_all_fresh, memory_order_relaxed);
  const unsigned streak = atomic_load_explicit(&ct_all_streak_max, memory_order_relaxed);
  TH_CHECKF(calls >= 2u, "%u callbacks in %llu ticks", calls, (unsigned long long)span);
  TH_CHECKF(streak <= CT_ALL_STREAK * utim_channels(p),
            "%u callbacks in a row without the program running (%u of %u after it ran, %u "
            "loop steps): interrupts took the CPU over",
            streak, fresh, calls, steps);
  th_note("%u callbacks, %u after the program ran, at most %u in a row without it, %u loop steps",
          calls, fresh, streak, steps);
}

/* Every channel of @p p periodic at the minimum distance, then the
 * program's own loop for a span (*span: how long, in ticks): its steps.
 * The cases below arm them so that no callback paces the interrupts. */
static unsigned all_at_min_period(const utim_periph_t *p, uint64_t *span) {
  const uint64_t md = ct_md(p);
  *span = ct_min64(ct_max64(400u * md, 80u * ct_lat(p)), utim_max(p) / 4u);
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    TH_EQ(utim_set_periodic(p, ch, md), 0);
  }
  unsigned steps = 0u;
  const uint64_t start = utim_read(p);
  while (ct_dist(p, start, utim_read(p)) < *span) {
    steps++;
  }
  return steps;
}

/*
 * The same with every channel masked: no callback runs, so none paces the
 * interrupts; the re-arm of a masked channel served a period late leaves
 * that lateness free twice over. Each arming call returns and the program
 * keeps running (before that lead, the fuzzer's input
 * two_masked_fast_periodic_channels_keep_the_cpu had two masked channels of
 * SIM_NRF32 keep the interrupt busy for good, inside utim_set_periodic()).
 * The unmask delivers one callback per channel for its coalesced matches.
 */
static void ct_overrun_all_masked(const utim_periph_t *p) {
  if (!ct_init_start(p, ct_hz_fastest(p))) {
    return;
  }
  const unsigned nch = utim_channels(p);
  const uint32_t all = nch >= 16u ? 0xffffu : (1u << nch) - 1u;
  th_context("%s every channel masked at period %llu", utim_name(p), (unsigned long long)ct_md(p));
  ct_ev_reset();
  TH_EQ(utim_mask(p, all), 0);
  uint64_t span = 0;
  const unsigned steps = all_at_min_period(p, &span);
  TH_EQ(ct_count(), 0);
  /* Cleared from inside the first callbacks: unmasked at this period, the
   * channels would run on at the overload guard's pace. */
  ct_all_limit = 1u;
  atomic_store_explicit(&ct_all_calls, 0u, memory_order_relaxed);
  ct_set_action(ct_act_all);
  TH_EQ(utim_unmask(p, all), 0);
  for (unsigned ch = 0; ch < nch; ch++) {
    TH_EQ(utim_clear(p, ch), 0);
  }
  ct_set_action(NULL);
  TH_CHECKF(ct_count() >= 1u, "%u callbacks after the unmask", ct_count());
  TH_CHECKF(steps >= 2u, "%u loop steps in %llu ticks", steps, (unsigned long long)span);
  th_note("%u loop steps with every channel masked", steps);
}

/*
 * The same unmasked, with no compare callback (its events are dropped): no
 * callback paces the interrupts either. Before the re-arm left the lateness
 * free for such channels too, two channels of SIM_TIMER16 at period 1
 * (10 ns per register access) kept the interrupt busy for good, inside
 * utim_set_periodic() of the third.
 */
static void ct_overrun_all_no_callback(const utim_periph_t *p) {
  if (!ct_init_start(p, ct_hz_fastest(p))) {
    return;
  }
  const unsigned nch = utim_channels(p);
  th_context("%s every channel at period %llu, no callback", utim_name(p),
             (unsigned long long)ct_md(p));
  ct_ev_reset();
  TH_EQ(utim_set_compare_cb(p, NULL, NULL), 0);
  uint64_t span = 0;
  const unsigned steps = all_at_min_period(p, &span);
  for (unsigned ch = 0; ch < nch; ch++) {
    TH_EQ(utim_clear(p, ch), 0);
  }
  TH_EQ(utim_set_compare_cb(p, ct_cmp_cb, ct_arg(p)), 0);
  TH_EQ(ct_count(), 0);
  TH_CHECKF(steps >= 2u, "%u loop steps in %llu ticks", steps, (unsigned long long)span);
  th_note("%u loop steps with every channel at the minimum period, no callback", steps);
}

/*
 * A period utim_set_periodic() accepts but the instance may not sustain:
 * the minimum distance (each re-arm finds its target already due), and a
 * callback that takes three periods. Before the re-arm skipped ahead on the
 * grid, the first livelocked in utim_set_periodic() or in the interrupt
 * (sim, microbit); and handlers running back to back must not starve the
 * rest of the program (the wait here would never end).
 */
void ct_case_overrun(const utim_periph_t *p) {
  if (!ct_begin_channels(p)) {
    return;
  }
  const uint64_t md = ct_md(p);
  const uint64_t lat = ct_lat(p);
  th_context("%s period %llu (the minimum distance)", utim_name(p), (unsigned long long)md);
  ct_overrun_run(p, md, 0u, ct_min64(ct_max64(200u * md, 40u * lat), utim_max(p) / 4u));
  const uint64_t period = ct_max64(md, ct_max64(20u, 2u * lat));
  if (period * 64u < utim_max(p) / 2u) {
    th_context("%s period %llu, callbacks of 3 periods", utim_name(p), (unsigned long long)period);
    ct_overrun_run(p, period, 3u * period, 40u * period);
  }
  ct_overrun_all(p);
  ct_overrun_all_masked(p);
  ct_overrun_all_no_callback(p);
}

/* ---- chained instances: interrupts held off across low wraps --------------- */

/* Hold interrupts off (the port lock) while `ticks` ticks pass. */
static void ct_hold_off(const utim_periph_t *p, uint64_t ticks) {
  uint32_t key = utim_port_lock();
  tb_wait_ticks(p, ticks);
  utim_port_unlock(key);
}

/* Let time pass until the counter is `before` ticks short of `at`. */
static void ct_wait_until_before(const utim_periph_t *p, uint64_t at, uint64_t before) {
  const uint64_t d = ct_dist(p, utim_read(p), at);
  if (d > before && d < utim_max(p) / 2u) {
    tb_wait_ticks(p, d - before);
  }
}

/*
 * A compare two low periods ahead, its low half near the end of a low
 * period, with interrupts held off across each low wrap right after a
 * low-half match (so each match is serviced in the next low period), well
 * within the documented tolerance (chain.h: under one low period). The
 * software carry used to take the first match for the target (65,520 ticks
 * early on a 16-bit low half) and the target's own for a mismatch (lost
 * until the counter's wrap). And reads while held off stay continuous.
 */
void ct_case_chain_held_off(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  uint64_t lw = 0;
  if (!ct_has(p, UTIM_CAP_CHAINED) || utim_get_property(p, UTIM_CHAIN_PROP_LO_WIDTH, &lw) != 0) {
    TH_SKIP("not a chained instance");
  }
  if (utim_channels(p) == 0u || !ct_has(p, UTIM_CAP_WRITE)) {
    TH_SKIP("no channel or not writable");
  }
  uint32_t hz = ct_hz_fastest(p);
  if (!ct_init_start(p, hz)) {
    return;
  }
  const uint64_t lo_period = 1ull << lw;
  const uint64_t lat = ct_lat(p);
  if (lo_period + 4u * lat > tb_long_wait_ticks(p) || 3u * lo_period > utim_max(p) / 2u) {
    TH_SKIP("a low period (%llu ticks) is longer than the board's longest wait",
            (unsigned long long)lo_period);
  }
  /* Held off from `before` ticks ahead of each match to past the wrap. */
  const uint64_t before = 8u + lat;
  const uint64_t hold = 2u * before + 32u;
  const uint64_t target = 3u * lo_period - 16u;
  const uint64_t matches[] = {2u * lo_period - 16u, target};
  TH_CHECK(hold < lo_period / 4u);
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    th_context("%s ch %u target 0x%llx", utim_name(p), ch, (unsigned long long)target);
    ct_ev_reset();
    TH_EQ(utim_stop(p), 0);
    TH_EQ(utim_write(p, matches[0] - 4u * hold), 0);
    TH_EQ(utim_set_abs(p, ch, target), 0);
    TH_EQ(utim_start(p), 0);
    for (unsigned i = 0; i < 2u && !th_test_failed(); i++) {
      ct_wait_until_before(p, matches[i], before);
      uint32_t key = utim_port_lock();
      uint64_t prev = utim_read(p);
      for (unsigned k = 0; k < 8u; k++) {
        tb_wait_ticks(p, hold / 8u);
        uint64_t c = utim_read(p);
        TH_CHECKF(ct_dist(p, prev, c) <= hold / 8u + 2u * lat + 8u,
                  "read 0x%llx then 0x%llx, interrupts held off", (unsigned long long)prev,
                  (unsigned long long)c);
        prev = c;
      }
      utim_port_unlock(key);
      if (i == 0u) {
        tb_wait_ticks(p, lat);
        TH_CHECKF(ct_count() == 0u, "callback at 0x%llx, target 0x%llx",
                  (unsigned long long)ct_event(0).at, (unsigned long long)target);
      }
    }
    tb_wait_ticks(p, 2u * lat);
    if (TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count())) {
      const uint64_t late = ct_dist(p, target, ct_event(0).at);
      TH_CHECKF(late <= hold + 2u * lat, "callback at 0x%llx, target 0x%llx",
                (unsigned long long)ct_event(0).at, (unsigned long long)target);
    }
    TH_EQ(utim_clear(p, ch), 0);
  }
  /* One carry held off for most of a low period is still counted. */
  th_context("%s held off for 3/4 of a low period across a wrap", utim_name(p));
  TH_EQ(utim_write(p, lo_period - lo_period / 4u), 0);
  const uint64_t c0 = utim_read(p);
  ct_hold_off(p, lo_period / 2u + lo_period / 4u);
  const uint64_t c1 = utim_read(p);
  const uint64_t moved = ct_dist(p, c0, c1);
  TH_CHECKF(moved >= lo_period / 2u + lo_period / 4u && moved < lo_period,
            "the counter moved 0x%llx ticks while 0x%llx passed", (unsigned long long)moved,
            (unsigned long long)(lo_period / 2u + lo_period / 4u));
}
