/*
 * The chain driver on the sim board, in virtual time: the cases where a
 * chained instance's compare stages or its software carry used to go wrong
 * (a low-half match serviced after the low half wrapped, a stall inside the
 * chain's locked read, interrupts held off across low wraps, events of two
 * channels due at the same tick reported by different sub-timers, a counter
 * written onto an armed compare). Each case drives the uAPI and checks the
 * chained counter against the virtual time that passed. Host only.
 */
#include <stdint.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "utim/chain.h"
#include "utim/port.h"
#include "utim/utim.h"
#include "utim_sim.h"

#define HZ         16000000u
#define LO_PERIOD  65536u /* both sim chains have 16-bit low halves */
#define MAX_EVENTS 16u

/* ---- recorder --------------------------------------------------------------- */

static struct {
  unsigned n;
  unsigned ch[MAX_EVENTS];
  uint64_t at[MAX_EVENTS];
} ev;

static void record(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)arg;
  if (ev.n < MAX_EVENTS) {
    ev.ch[ev.n] = ch;
    ev.at[ev.n] = utim_read(p);
  }
  ev.n++;
}

/* ---- helpers ------------------------------------------------------------------ */

static const utim_periph_t *soft32;
static const utim_periph_t *chain32;

/* Virtual ns until the chained counter of a 16 MHz instance, now at
 * `from`, reaches `to` (ticks are 62.5 ns). */
static uint64_t ns_until(uint64_t from, uint64_t to) {
  return ((to - from) & 0xffffffffu) * 1000u / 16u;
}

/* Reset the machine and start `p` at 16 MHz from counter `c0`, recording. */
static void start_at(const utim_periph_t *p, uint64_t c0) {
  sim_reset();
  ev.n = 0;
  TH_EQ(utim_init(p, HZ, UTIM_CLOCK_HF), 0);
  TH_EQ(utim_set_compare_cb(p, record, NULL), 0);
  TH_EQ(utim_write(p, c0), 0);
  TH_EQ(utim_start(p), 0);
}

/* The counter as virtual time says it must be: `c0` at time `t0`. */
static uint64_t expected_count(uint64_t c0, uint64_t t0) {
  return (c0 + (sim_now() - t0) * 16u / 1000u) & 0xffffffffu;
}

/* |a - b| on the 32-bit circle. */
static uint64_t circ_dist(uint64_t a, uint64_t b) {
  uint64_t d = (a - b) & 0xffffffffu;
  return d > 0x80000000u ? 0x100000000u - d : d;
}

/* Hold interrupts off for `ns` of virtual time (the model delivers nothing
 * while the CPU masks them: the port lock), then let them in. */
static void hold_off(uint64_t ns) {
  uint32_t key = utim_port_lock();
  sim_advance(ns);
  utim_port_unlock(key);
}

/* ---- cases --------------------------------------------------------------------- */

/*
 * A compare two or more low periods ahead waits on the low half in every low
 * period; here each of those low matches is held off across the low half's
 * wrap, so it is serviced in the next low period. Before the fix the chain
 * compared its high half at service time with the target's: a match of the
 * period before the target's was taken for the target (65,520 ticks early),
 * and the target's own match for a mismatch (no callback until the 32-bit
 * wrap).
 */
static void t_match_serviced_after_wrap(void *arg) {
  const utim_periph_t *p = arg;
  static const uint64_t targets[] = {0x1fff0u, 0x2fff0u, 0x5fffeu, 0x3ffe0u};
  for (unsigned i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    const uint64_t target = targets[i];
    th_context("%s target 0x%llx", utim_name(p), (unsigned long long)target);
    start_at(p, 0u);
    TH_EQ(utim_set_abs(p, 0, target), 0);
    /* Around every occurrence of the target's low half up to the target:
     * interrupts off from 0.5 us before it to 1.5 us after (past the wrap). */
    for (uint64_t hi = 0; hi <= target >> 16; hi++) {
      const uint64_t match = (hi << 16) | (target & 0xffffu);
      const uint64_t now = utim_read(p);
      sim_advance(ns_until(now, match) - 500u);
      hold_off(2000u);
      if (hi < target >> 16) {
        TH_CHECKF(ev.n == 0u, "callback at 0x%llx, before the target",
                  (unsigned long long)ev.at[0]);
      }
    }
    sim_advance(100000u);
    if (TH_CHECKF(ev.n == 1u, "%u callbacks", ev.n)) {
      const uint64_t late = (ev.at[0] - target) & 0xffffffffu;
      /* 2 us held off = 32 ticks, plus the service itself */
      TH_CHECKF(late < 64u, "callback at 0x%llx, %llu ticks after the target",
                (unsigned long long)ev.at[0], (unsigned long long)late);
    }
  }
}

/*
 * A CPU stall (time passing between two register accesses with interrupts
 * held off) at every register access of a short set_rel() on the
 * software-carry chain, at several phases of the low half. A stall shorter
 * than one low period is tolerated: exactly one callback, never early, and
 * the counter stays right. Before the fix a stall landing inside the chain's
 * locked read (between its reads of the halves and the wrap flag) could drop
 * a carry and lose the callback.
 */
static void t_stall_inside_arming(void *arg) {
  (void)arg;
  const utim_periph_t *p = soft32;
  const uint64_t stall = 4000000u; /* 64,000 ticks, under one low period (65,536) */
  for (uint64_t phase = 0; phase < LO_PERIOD && !th_test_failed(); phase += 4099u) {
    for (unsigned k = 0; k < 40u && !th_test_failed(); k++) {
      th_context("%s phase 0x%llx, stall before access %u", utim_name(p), (unsigned long long)phase,
                 k);
      start_at(p, phase);
      const uint64_t t0 = sim_now();
      const uint64_t c0 = utim_read(p);
      sim_inject(k, stall);
      const uint64_t before = utim_read(p);
      TH_EQ(utim_set_rel(p, 1, 0xffu), 0);
      sim_inject(0u, 0u);
      sim_advance(1000000u);
      if (TH_CHECKF(ev.n == 1u, "%u callbacks", ev.n)) {
        TH_CHECKF(((ev.at[0] - before) & 0xffffffffu) >= 0xffu, "early: 0x%llx, armed at 0x%llx",
                  (unsigned long long)ev.at[0], (unsigned long long)before);
      }
      TH_CHECKF(circ_dist(utim_read(p), expected_count(c0, t0)) <= 2u,
                "counter 0x%llx, virtual time says 0x%llx", (unsigned long long)utim_read(p),
                (unsigned long long)expected_count(c0, t0));
    }
  }
}

/*
 * The documented interrupt-off tolerance of the software carry (chain.h):
 * held off for 0.95 of a low period across a low wrap, reads taken while
 * held off and the counter afterwards are exact and a compare across it
 * fires once, on time; held off for 1.5 low periods (two wraps, one overflow
 * flag), one carry is lost: the counter is then exactly one low period
 * behind, and a compare armed afterwards still never fires early on it.
 */
static void t_interrupt_off_tolerance(void *arg) {
  (void)arg;
  const utim_periph_t *p = soft32;
  uint64_t v = 0;
  TH_EQ(utim_get_property(p, UTIM_CHAIN_PROP_LO_WIDTH, &v), 0);
  TH_EQU(v, 16u);
  TH_EQ(utim_get_property(p, UTIM_CHAIN_PROP_SOFTWARE, &v), 0);
  TH_EQU(v, 1u);
  const uint64_t period_ns = (uint64_t)LO_PERIOD * 1000u / 16u;

  /* Within the tolerance: one compare due while held off (delivered when
   * interrupts are let in), one after. */
  start_at(p, 0x2fff0u);
  uint64_t t0 = sim_now();
  uint64_t c0 = utim_read(p);
  TH_EQ(utim_set_abs(p, 0, 0x3c000u), 0);
  TH_EQ(utim_set_abs(p, 1, 0x40800u), 0);
  uint32_t key = utim_port_lock();
  uint64_t prev = utim_read(p);
  for (unsigned i = 0; i < 19u; i++) {
    sim_advance(period_ns / 20u);
    uint64_t c = utim_read(p);
    TH_CHECKF(circ_dist(c, expected_count(c0, t0)) <= 2u, "read 0x%llx held off, expected 0x%llx",
              (unsigned long long)c, (unsigned long long)expected_count(c0, t0));
    TH_CHECKF(((c - prev) & 0xffffffffu) < 0x80000000u, "read went back: 0x%llx then 0x%llx",
              (unsigned long long)prev, (unsigned long long)c);
    prev = c;
  }
  TH_CHECKF(ev.n == 0u, "%u callbacks while held off", ev.n);
  utim_port_unlock(key);
  const uint64_t released = utim_read(p);
  TH_CHECKF(circ_dist(released, expected_count(c0, t0)) <= 2u, "counter 0x%llx, expected 0x%llx",
            (unsigned long long)released, (unsigned long long)expected_count(c0, t0));
  sim_advance(10000000u);
  if (TH_CHECKF(ev.n == 2u, "%u callbacks", ev.n)) {
    TH_CHECKF(ev.ch[0] == 0u && ((released - ev.at[0]) & 0xffffffffu) < 16u,
              "ch %u callback at 0x%llx, released at 0x%llx", ev.ch[0],
              (unsigned long long)ev.at[0], (unsigned long long)released);
    TH_CHECKF(ev.ch[1] == 1u && ((ev.at[1] - 0x40800u) & 0xffffffffu) < 16u,
              "ch %u callback at 0x%llx", ev.ch[1], (unsigned long long)ev.at[1]);
  }

  /* Beyond it: two wraps while held off, one of them lost. */
  start_at(p, 0x2fff0u);
  t0 = sim_now();
  c0 = utim_read(p);
  hold_off(period_ns * 3u / 2u);
  const uint64_t lag = circ_dist(utim_read(p), expected_count(c0, t0));
  TH_CHECKF(lag >= LO_PERIOD - 2u && lag <= LO_PERIOD + 2u, "%llu ticks behind, expected %u",
            (unsigned long long)lag, LO_PERIOD);
  const uint64_t behind = utim_read(p);
  TH_EQ(utim_set_rel(p, 1, 1000u), 0);
  sim_advance(1000000u);
  if (TH_CHECKF(ev.n == 1u, "%u callbacks", ev.n)) {
    TH_CHECKF(((ev.at[0] - behind) & 0xffffffffu) >= 1000u, "callback at 0x%llx, armed at 0x%llx",
              (unsigned long long)ev.at[0], (unsigned long long)behind);
  }
}

/*
 * Two channels due at the same tick, one completing on the high half (the
 * high timer's interrupt with hardware chaining, or the carry) and one on
 * the low half (the low timer's interrupt): delivered channel 0 first, as
 * utim.h promises, whichever sub-timer's interrupt runs first. The
 * differential test found the reverse order with seed 321186.
 */
static void t_same_tick_order(void *arg) {
  const utim_periph_t *p = arg;
  th_context("%s", utim_name(p));
  static const uint64_t targets[] = {0x30000u, 0x2ffffu, 0x30001u};
  for (unsigned i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    const uint64_t target = targets[i];
    for (unsigned first = 0; first < 2u; first++) {
      th_context("%s target 0x%llx, channel %u armed from afar", utim_name(p),
                 (unsigned long long)target, first);
      start_at(p, 0u);
      /* One channel from far away (waits on the high half first), the other
       * once the counter is within one low period (the low half alone). */
      TH_EQ(utim_set_abs(p, first, target), 0);
      sim_advance(ns_until(utim_read(p), target - 0x8000u));
      TH_EQ(utim_set_abs(p, 1u - first, target), 0);
      sim_advance(ns_until(utim_read(p), target) + 100000u);
      if (TH_CHECKF(ev.n == 2u, "%u callbacks", ev.n)) {
        TH_CHECKF(ev.ch[0] == 0u && ev.ch[1] == 1u, "delivered ch %u then ch %u", ev.ch[0],
                  ev.ch[1]);
        TH_CHECKF(((ev.at[0] - target) & 0xffffffffu) < 64u, "first callback at 0x%llx",
                  (unsigned long long)ev.at[0]);
      }
    }
  }
}

/*
 * Writing the counter onto an armed compare value: the match is a full wrap
 * of the chained counter away, as for one wide compare register, and it
 * comes exactly once. The 32-bit wrap is 268 s at 16 MHz; virtual time jumps
 * from event to event.
 */
static void t_write_onto_compare(void *arg) {
  const utim_periph_t *p = arg;
  th_context("%s", utim_name(p));
  const uint64_t x = 0x12345678u;
  start_at(p, 0u);
  TH_EQ(utim_stop(p), 0);
  TH_EQ(utim_set_abs(p, 1, x), 0);
  TH_EQ(utim_write(p, x), 0);
  TH_EQ(utim_start(p), 0);
  sim_advance(ns_until(utim_read(p), x - 0x100u));
  TH_CHECKF(ev.n == 0u, "callback at 0x%llx, before the wrap", (unsigned long long)ev.at[0]);
  sim_advance(ns_until(utim_read(p), x) + 100000u);
  if (TH_CHECKF(ev.n == 1u, "%u callbacks", ev.n)) {
    TH_CHECKF(((ev.at[0] - x) & 0xffffffffu) < 64u, "callback at 0x%llx",
              (unsigned long long)ev.at[0]);
  }

  /* Written (while stopped) to one tick before the compare, closer than the
   * low timer's minimum distance: the write returns (the fuzz target found
   * it busy-waiting on the stopped counter) and the match comes once, at
   * most the minimum distance late, after the start. */
  start_at(p, 0u);
  TH_EQ(utim_stop(p), 0);
  TH_EQ(utim_set_abs(p, 0, 0x1234u), 0);
  TH_EQ(utim_write(p, 0x1233u), 0);
  TH_EQ(ev.n, 0u);
  TH_EQ(utim_start(p), 0);
  sim_advance(100000u);
  if (TH_CHECKF(ev.n == 1u, "%u callbacks", ev.n)) {
    TH_CHECKF(((ev.at[0] - 0x1234u) & 0xffffffffu) < 16u, "callback at 0x%llx",
              (unsigned long long)ev.at[0]);
  }
}

static uint64_t g_written_at;

static void write_in_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)ch;
  (void)arg;
  ev.n++;
  TH_EQ(utim_write(p, 0x100u), 0);
  g_written_at = sim_now();
}

/*
 * The counter written from a channel's callback whose match came with the
 * low half's wrap (one delivery: the channels first, the carry last): the
 * old count's carry is not added to the new count (it was, and the
 * software-carried counter stayed a low period, 65536 ticks, ahead).
 */
static void t_write_in_wrap_cb(void *arg) {
  const utim_periph_t *p = arg;
  th_context("%s", utim_name(p));
  start_at(p, 0u);
  TH_EQ(utim_set_compare_cb(p, write_in_cb, NULL), 0);
  TH_EQ(utim_set_abs(p, 0, 0x10000u), 0);
  sim_advance(5000000u);
  TH_EQU(ev.n, 1u);
  const uint64_t want = expected_count(0x100u, g_written_at);
  TH_CHECKF(circ_dist(utim_read(p), want) < 64u, "count 0x%llx, 0x%llx expected",
            (unsigned long long)utim_read(p), (unsigned long long)want);
}

/*
 * A chained instance the board defines without UTIM_CAP_STOP refuses
 * utim_stop() with -ENOTSUP and keeps counting, though its low half could
 * stop (before, the chain stopped its low half and returned 0). Defined here
 * over SIM_CHAIN32's two timers (5 and 6) with their facts; no interrupt is
 * used, so the board's line owners do not matter.
 */
static const utim_clock_desc_t nostop_lo_clocks[] = {
    {HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 256},
};
static const utim_clock_desc_t nostop_hi_clocks[] = {
    {0u, UTIM_CLASS_CHAIN, UTIM_DIV_LINEAR, 0, 1, 1}};
#define NOSTOP_LO 16, 0, 2, 0, 1, 1, 0, 1, 1, -1, 0
#define NOSTOP_HI 16, 0, 2, 0, 1, 1, 0, 1, 1, 5, 0
UTIM_SIM_DEFINE(nostop_lo, "NOSTOP_LO", 5, 2, 0, nostop_lo_clocks, NOSTOP_LO);
UTIM_SIM_DEFINE(nostop_hi, "NOSTOP_HI", 6, 2, 0, nostop_hi_clocks, NOSTOP_HI);
UTIM_CHAIN_DEFINE(nostop32, "NOSTOP32", nostop_lo, nostop_hi, 0u, nostop_lo_clocks, UTIM_CAP_WRITE);

static void t_no_stop_cap(void *arg) {
  (void)arg;
  const utim_periph_t *p = &nostop32;
  sim_reset();
  TH_EQ(utim_init(p, HZ, UTIM_CLOCK_HF), 0);
  TH_EQ(utim_start(p), 0);
  sim_advance(10000u);
  const uint64_t a = utim_read(p);
  TH_EQ(utim_stop(p), -ENOTSUP);
  sim_advance(10000u);
  TH_CHECKF(utim_read(p) - a >= 150u, "counter 0x%llx, 0x%llx 10 us before",
            (unsigned long long)utim_read(p), (unsigned long long)a);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  sim_board_init();
  soft32 = utim_by_name("SIM_SOFT32");
  chain32 = utim_by_name("SIM_CHAIN32");
  if (soft32 == NULL || chain32 == NULL) {
    th_note("the sim board lost its chained instances");
    return 1;
  }
  th_run("software carry: low match serviced after the low wrap", t_match_serviced_after_wrap,
         (void *)(uintptr_t)soft32);
  th_run("hardware chain: low match serviced after the low wrap", t_match_serviced_after_wrap,
         (void *)(uintptr_t)chain32);
  th_run("software carry: CPU stall at every access of an arming call", t_stall_inside_arming,
         NULL);
  th_run("software carry: interrupt-off tolerance, both sides", t_interrupt_off_tolerance, NULL);
  th_run("hardware chain: same-tick events in channel order", t_same_tick_order,
         (void *)(uintptr_t)chain32);
  th_run("software carry: same-tick events in channel order", t_same_tick_order,
         (void *)(uintptr_t)soft32);
  th_run("hardware chain: counter written onto a compare", t_write_onto_compare,
         (void *)(uintptr_t)chain32);
  th_run("software carry: counter written onto a compare", t_write_onto_compare,
         (void *)(uintptr_t)soft32);
  th_run("hardware chain: counter written in a callback that came with the low wrap",
         t_write_in_wrap_cb, (void *)(uintptr_t)chain32);
  th_run("software carry: counter written in a callback that came with the low wrap",
         t_write_in_wrap_cb, (void *)(uintptr_t)soft32);
  th_run("hardware chain without UTIM_CAP_STOP: stop refused", t_no_stop_cap, NULL);
  return th_finish();
}
