/*
 * RIOT's own periph_timer tests, ported to the shim (utim/riot_timer.h) on
 * the sim board in virtual time: the assertions of tests/periph/timer,
 * tests/periph/timer_periodic, tests/periph/timer_short_relative_set and
 * tests/bench/timers that apply, and the contract of periph/timer.h that
 * callbacks come from the timer's interrupt (never from inside the call
 * that armed them). Where the shim documents a difference (a periodic
 * channel needs TIM_FLAG_RESET_ON_MATCH; a timeout beyond the counter is
 * refused), the port asserts the documented behaviour.
 */
#include <stdbool.h>
#include <stdint.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "utim/riot_timer.h"
#include "utim/utim.h"

#define COOKIE 100u
#define MAX_CH 8u

static unsigned g_fired;
static unsigned g_not_isr;  /* callbacks outside the timer's interrupt */
static unsigned g_bad_args; /* callbacks with a wrong argument */
static unsigned g_at[MAX_CH];
static unsigned g_calls[MAX_CH];
static int g_order[MAX_CH];
static tim_t g_dev;

static void count_context(void) {
  g_fired++;
  g_not_isr += !sim_in_isr();
}

static void reset(void) {
  g_fired = g_not_isr = g_bad_args = 0u;
  for (unsigned i = 0; i < MAX_CH; i++) {
    g_at[i] = 0u;
    g_calls[i] = 0u;
    g_order[i] = -1;
  }
}

/* tests/periph/timer's callback: the argument is the device's cookie. */
static void cb(void *arg, int chan) {
  count_context();
  if (chan < 0 || (unsigned)chan >= MAX_CH) {
    g_bad_args++;
    return;
  }
  g_bad_args += (uintptr_t)arg != (uintptr_t)(COOKIE * g_dev);
  g_at[chan] = timer_read(g_dev);
  if (g_fired - 1u < MAX_CH) {
    g_order[g_fired - 1u] = chan;
  }
  g_calls[chan]++;
}

static void cb_not_to_be_executed(void *arg, int chan) {
  (void)arg;
  (void)chan;
  g_fired = 1u;
}

static tim_t dev_named(const char *name) {
  for (unsigned i = 0; i < utim_count(); i++) {
    if (utim_by_index(i) == utim_by_name(name)) {
      return TIMER_DEV(i);
    }
  }
  return TIMER_UNDEF;
}

static uint64_t ns_per_tick(uint32_t hz) {
  return (1000000000u + hz - 1u) / hz;
}

/* Let @p ticks of the device's counter pass. */
static void advance_ticks(uint32_t hz, uint64_t ticks) {
  sim_advance(ticks * ns_per_tick(hz));
}

static int set_rel(tim_t dev, int ch, unsigned t) {
  return timer_set(dev, ch, t);
}

static int set_abs(tim_t dev, int ch, unsigned v) {
  return timer_set_absolute(dev, ch, v);
}

/* periph/timer.h: the callback "is called in interrupt context". An arming
 * whose match is due before the call returns (a timeout of 0 or 1 tick, a
 * value just passed, register accesses slower than the ticks) must not call
 * back from inside timer_set()/timer_set_absolute(), nor while the caller
 * holds interrupts off (RIOT's ztimer arms its periph_timer so); it comes
 * from the interrupt, once, never early. */
static void t_isr_context(void *arg) {
  (void)arg;
  sim_board_init();
  reset();
  g_dev = dev_named("SIM_TIMER16");
  if (!TH_EQ(timer_init(g_dev, 1000000u, cb, (void *)(uintptr_t)(COOKIE * g_dev)), 0)) {
    return;
  }
  sim_set_access_cost(5000u); /* 5 ticks a register access */
  for (unsigned t = 0; t < 4u; t++) {
    reset();
    const unsigned t0 = timer_read(g_dev);
    TH_EQ(set_rel(g_dev, 0, t), 0);
    TH_EQU(g_fired, 0u); /* not from inside timer_set() */
    advance_ticks(1000000u, 1000u);
    th_context("timer_set(%u)", t);
    TH_EQU(g_fired, 1u);
    TH_EQU(g_not_isr, 0u);
    TH_CHECKF(((g_at[0] - t0) & 0xFFFFu) >= t, "called back %u ticks after",
              (g_at[0] - t0) & 0xFFFFu);
  }
  reset();
  TH_EQ(set_abs(g_dev, 1, (timer_read(g_dev) - 3u) & 0xFFFFu), 0);
  TH_EQU(g_fired, 0u);
  advance_ticks(1000000u, 1000u);
  TH_EQU(g_calls[1], 1u);
  TH_EQU(g_not_isr, 0u);
  /* Interrupts off around the call: nothing before they are on again. */
  reset();
  const uint32_t key = sim_irq_disable();
  TH_EQ(set_rel(g_dev, 2, 0u), 0);
  const unsigned before_restore = g_fired;
  sim_irq_restore(key);
  TH_EQU(before_restore, 0u);
  advance_ticks(1000000u, 1000u);
  TH_EQU(g_calls[2], 1u);
  TH_EQU(g_not_isr, 0u);
  /* Cleared right after the call returned: never. */
  reset();
  TH_EQ(set_rel(g_dev, 3, 0u), 0);
  TH_EQ(timer_clear(g_dev, 3), 0);
  advance_ticks(1000000u, 1000u);
  TH_EQU(g_fired, 0u);
  /* Accesses slower than half the 8-bit counter's range: no arming sticks;
   * the callback still comes once (from the call, the only place left). */
  sim_set_access_cost(10u);
  const tim_t d8 = dev_named("SIM_TIMER8");
  g_dev = d8;
  TH_EQ(timer_init(d8, 16000000u, cb, (void *)(uintptr_t)(COOKIE * d8)), 0);
  sim_set_access_cost(10000u); /* 160 ticks a register access */
  reset();
  TH_EQ(set_rel(d8, 0, 0u), 0);
  sim_advance(1000000u);
  TH_EQU(g_calls[0], 1u);
  sim_set_access_cost(10u);
}

/* tests/periph/timer_short_relative_set on every device, at its highest
 * frequency: timer_set() with intervals 15 down to 0, 128 times each; each
 * calls back once, from the interrupt, at least the interval and at most
 * TEST_MAX_DIFF (1000) ticks after timer_read() before the call. */
static void t_short_relative_set(void *arg) {
  (void)arg;
  sim_board_init();
  unsigned tested = 0;
  for (tim_t dev = 0; dev < UTIM_RIOT_TIMER_NUMOF && dev < utim_count(); dev++) {
    const uint32_t f = timer_query_freqs(dev, 0u);
    g_dev = dev;
    if (timer_query_channel_numof(dev) == 0u ||
        timer_init(dev, f, cb, (void *)(uintptr_t)(COOKIE * dev)) != 0) {
      continue;
    }
    const utim_periph_t *p = utim_by_index(dev);
    const unsigned mask = (unsigned)(utim_max(p) > 0xFFFFFFFFu ? 0xFFFFFFFFu : utim_max(p));
    th_context("device %u (%s) at %lu Hz", (unsigned)dev, utim_name(p), (unsigned long)f);
    unsigned bad = 0;
    unsigned worst = 0;
    reset();
    unsigned sets = 0;
    for (unsigned interval = 16; interval-- > 0u;) {
      for (unsigned rep = 0; rep < 128u; rep++) {
        const unsigned before = timer_read(dev);
        const unsigned fired = g_fired;
        if (set_rel(dev, 0, interval) != 0) {
          bad++;
          continue;
        }
        sets++;
        unsigned diff = 0;
        while (g_fired == fired && diff <= 1000u) {
          sim_advance(ns_per_tick(f));
          diff = (timer_read(dev) - before) & mask;
        }
        const unsigned at = (g_at[0] - before) & mask;
        bad += g_fired != fired + 1u || at < interval || diff > 1000u;
        worst = at > worst ? at : worst;
      }
    }
    TH_EQU(bad, 0u);
    TH_EQU(g_fired, sets);
    TH_EQU(g_not_isr, 0u);
    TH_EQU(g_bad_args, 0u);
    th_note("%s: at most %u ticks", utim_name(p), worst);
    tested++;
  }
  TH_CHECK(tested >= 3u);
}

/* The closest-frequency checks of tests/periph/timer's test_querying(). */
static void check_querying(tim_t dev) {
  const uword_t last = timer_query_freqs_numof(dev) - 1u;
  unsigned bad = 0;
  for (uword_t i = 0; i <= last && i <= 255u; i++) {
    const uint32_t freq = timer_query_freqs(dev, i);
    bad += freq == 0u || timer_get_closest_freq(dev, freq) != freq;
    uint32_t closest = timer_get_closest_freq(dev, freq - 1u);
    bad += !(freq >= closest && closest >= freq - 2u);
    closest = timer_get_closest_freq(dev, freq + 1u);
    bad += !(freq <= closest && closest <= freq + 2u);
  }
  TH_EQU(bad, 0u);
  TH_EQU(timer_query_freqs(dev, last + 1u), 0u);
}

/* tests/periph/timer's test_timer() for one device and frequency. Its
 * offsets of 5 ms per channel are capped to fit the counter (the shim
 * refuses a timeout beyond it, which RIOT's generic timer_set() would wrap). */
static void check_timer(tim_t num, uint32_t freq) {
  const utim_periph_t *p = utim_by_index(num);
  reset();
  g_dev = num;
  if (!TH_EQ(timer_init(num, freq, cb, (void *)(uintptr_t)(COOKIE * num)), 0)) {
    return;
  }
  timer_stop(num);
  const uword_t nch = timer_query_channel_numof(num);
  const uint64_t five_ms = (uint64_t)freq / 200u;
  const uint64_t cap = (utim_max(p) > 0xFFFFFFFFu ? 0xFFFFFFFFu : utim_max(p)) / (nch + 1u);
  const unsigned offset = (unsigned)(five_ms < 2u ? 2u : five_ms > cap ? cap : five_ms);
  for (uword_t i = 0; i < nch; i++) {
    TH_EQ(set_rel(num, (int)i, (unsigned)(i + 1u) * offset), 0);
  }
  advance_ticks(freq, 10u * (uint64_t)offset);
  if ((utim_caps(p) & UTIM_CAP_STOP) != 0u) {
    TH_EQU(g_fired, 0u); /* stopped: nothing */
  } else {
    /* A counter that cannot be stopped (documented): its channels run on. */
    TH_EQU(g_fired, nch);
    reset();
    for (uword_t i = 0; i < nch; i++) {
      TH_EQ(set_rel(num, (int)i, (unsigned)(i + 1u) * offset), 0);
    }
  }
  timer_start(num);
  advance_ticks(freq, (nch + 1u) * (uint64_t)offset + 100u);
  TH_EQU(g_fired, nch);
  TH_EQU(g_bad_args, 0u);
  TH_EQU(g_not_isr, 0u);
  for (uword_t i = 0; i < nch && i < MAX_CH; i++) {
    TH_EQ(g_order[i], (int)i);
    TH_EQU(g_calls[i], 1u);
  }
  /* No spurious interrupts: initialised again, set and cleared at once. */
  TH_EQ(timer_init(num, freq, cb_not_to_be_executed, NULL), 0);
  const uint64_t two_ms = (uint64_t)freq / 500u;
  const unsigned duration = (unsigned)(two_ms < 2u ? 2u : two_ms > cap ? cap : two_ms);
  const unsigned target = timer_read(num) + duration;
  TH_EQ(timer_set_absolute(num, 0, target), 0);
  TH_EQ(timer_clear(num, 0), 0);
  g_fired = 0u;
  advance_ticks(freq, 2u * (uint64_t)duration);
  TH_EQU(g_fired, 0u);
  advance_ticks(freq, 2u * (uint64_t)duration);
  TH_EQU(g_fired, 0u);
}

static void t_periph_timer(void *arg) {
  (void)arg;
  sim_board_init();
  unsigned tested = 0;
  for (tim_t dev = 0; dev < UTIM_RIOT_TIMER_NUMOF && dev < utim_count(); dev++) {
    const uword_t n = timer_query_freqs_numof(dev);
    if (timer_query_channel_numof(dev) == 0u || n == 0u ||
        timer_init(dev, timer_query_freqs(dev, 0u), cb, NULL) != 0) {
      continue; /* owned by another driver (a chain's halves) */
    }
    th_context("device %u (%s)", (unsigned)dev, utim_name(utim_by_index(dev)));
    check_querying(dev);
    for (uword_t j = 0; j < n && j < 3u; j++) {
      th_context("device %u (%s) at %lu Hz", (unsigned)dev, utim_name(utim_by_index(dev)),
                 (unsigned long)timer_query_freqs(dev, j));
      check_timer(dev, timer_query_freqs(dev, j));
    }
    tested++;
  }
  TH_CHECK(tested >= 3u);
  TH_EQU(timer_get_closest_freq(TIMER_UNDEF, 1000u), 0u);
}

/* timer_init() on a device already set up: every channel cleared (one-shot
 * and periodic), no callback of the old setting afterwards, and running. */
static void t_reinit(void *arg) {
  (void)arg;
  sim_board_init();
  reset();
  g_dev = dev_named("SIM_TIMER16");
  TH_EQ(timer_init(g_dev, 1000000u, cb, (void *)(uintptr_t)(COOKIE * g_dev)), 0);
  TH_EQ(timer_clear(g_dev, 1), 0); /* a channel never set */
  TH_EQ(timer_set_periodic(g_dev, 0, 100u, TIM_FLAG_RESET_ON_MATCH), 0);
  TH_EQ(set_rel(g_dev, 1, 150u), 0);
  timer_stop(g_dev);
  TH_EQ(timer_init(g_dev, 1000000u, cb, (void *)(uintptr_t)(COOKIE * g_dev)), 0);
  const unsigned r = timer_read(g_dev);
  advance_ticks(1000000u, 1000u);
  TH_EQU(g_fired, 0u);
  TH_CHECKF(timer_read(g_dev) - r >= 1000u, "counter moved %u ticks", timer_read(g_dev) - r);
}

/* tests/periph/timer_periodic: TIMER_DEV(0) at 1 MHz, channel 0 every 25
 * ms with TIM_FLAG_RESET_ON_MATCH, stopped from its callback after 12
 * ticks, resumed by timer_start() for three iterations; the other channels,
 * set with TIM_FLAG_RESET_ON_SET only, never tick (refused by the shim, as
 * documented). Then TIM_FLAG_SET_STOPPED keeps it stopped: no callback. */
static unsigned g_count[MAX_CH];
static unsigned g_last_at;
static unsigned g_worst_gap;
static unsigned g_best_gap;

static void cb_periodic(void *arg, int chan) {
  (void)arg;
  count_context();
  const unsigned now = timer_read(TIMER_DEV(0));
  if (chan == 0 && g_count[0] > 0u) {
    const unsigned gap = (now - g_last_at) & 0xFFFFu;
    g_worst_gap = gap > g_worst_gap ? gap : g_worst_gap;
    g_best_gap = gap < g_best_gap ? gap : g_best_gap;
  }
  g_last_at = now;
  const unsigned c = g_count[chan]++;
  if (c > 10u) {
    timer_stop(TIMER_DEV(0));
  }
}

static void t_timer_periodic(void *arg) {
  (void)arg;
  sim_board_init();
  reset();
  const unsigned steps = 25000u;
  if (!TH_EQ(timer_init(TIMER_DEV(0), 1000000u, cb_periodic, NULL), 0)) {
    return;
  }
  g_worst_gap = 0u;
  g_best_gap = UINT32_MAX;
  for (unsigned iter = 0; iter < 3u; iter++) {
    th_context("iteration %u", iter + 1u);
    for (unsigned i = 0; i < MAX_CH; i++) {
      g_count[i] = 0u;
    }
    for (unsigned chan = 1; chan < timer_query_channel_numof(TIMER_DEV(0)); chan++) {
      TH_EQ(timer_set_periodic(TIMER_DEV(0), (int)chan, (1u + chan) * steps, TIM_FLAG_RESET_ON_SET),
            -1);
    }
    if (iter == 0u) {
      TH_EQ(timer_set_periodic(TIMER_DEV(0), 0, steps, TIM_FLAG_RESET_ON_MATCH), 0);
    } else {
      timer_start(TIMER_DEV(0));
    }
    advance_ticks(1000000u, 20u * (uint64_t)steps);
    TH_EQU(g_count[0], 12u);
    for (unsigned i = 1; i < MAX_CH; i++) {
      TH_EQU(g_count[i], 0u);
    }
  }
  TH_EQU(g_not_isr, 0u);
  TH_CHECKF(g_best_gap >= steps && g_worst_gap <= steps + 10u, "ticks %u to %u apart", g_best_gap,
            g_worst_gap);
  reset();
  th_context("TIM_FLAG_SET_STOPPED");
  g_count[0] = 0u;
  TH_EQ(timer_init(TIMER_DEV(0), 1000000u, cb_periodic, NULL), 0);
  TH_EQ(timer_set_periodic(TIMER_DEV(0), 0, 25u, TIM_FLAG_RESET_ON_SET | TIM_FLAG_SET_STOPPED), -1);
  TH_EQ(timer_set_periodic(TIMER_DEV(0), 0, 25u,
                           TIM_FLAG_RESET_ON_MATCH | TIM_FLAG_RESET_ON_SET | TIM_FLAG_SET_STOPPED),
        0);
  advance_ticks(1000000u, 100000u);
  TH_EQU(g_fired, 0u);
  TH_EQU(timer_read(TIMER_DEV(0)), 0u); /* reset, and stopped */
  timer_start(TIMER_DEV(0));
  advance_ticks(1000000u, 24u);
  TH_EQU(g_fired, 0u);          /* never early */
  advance_ticks(1000000u, 27u); /* 50, and the phase of the first tick */
  TH_EQU(g_fired, 2u);
  TH_EQ(timer_clear(TIMER_DEV(0), 0), 0);
}

/* tests/bench/timers: timer_set() or timer_set_absolute(), after a
 * reschedule or not, on a stopped timer or not, random intervals and
 * random delays between the calls: each target calls back once, from the
 * interrupt, never before it. */
static uint32_t g_rng = 12345u;

static uint32_t rnd(uint32_t n) {
  g_rng = g_rng * 1103515245u + 12345u;
  return (g_rng >> 8) % n;
}

static void t_bench_timers(void *arg) {
  (void)arg;
  static const char *const names[] = {"SIM_TIMER16", "SIM_NRF32", "SIM_SYSTICK24", "SIM_TIMER8"};
  sim_board_init();
  for (unsigned n = 0; n < sizeof names / sizeof names[0]; n++) {
    const tim_t dev = dev_named(names[n]);
    const utim_periph_t *p = utim_by_index(dev);
    const uint32_t f = timer_query_freqs(dev, 0u);
    g_dev = dev;
    if (!TH_EQ(timer_init(dev, f, cb, (void *)(uintptr_t)(COOKIE * dev)), 0)) {
      continue;
    }
    const unsigned mask = (unsigned)utim_max(p);
    const unsigned top = mask / 4u < 2000u ? mask / 4u : 2000u;
    th_context("%s at %lu Hz", names[n], (unsigned long)f);
    reset();
    unsigned early = 0;
    unsigned missing = 0;
    for (unsigned k = 0; k < 512u; k++) {
      const unsigned variant = k % 8u;
      const unsigned interval = rnd(top);
      const unsigned fired = g_fired;
      sim_advance(rnd(2000u));
      if ((variant & 2u) != 0u) {
        (void)set_rel(dev, 0, interval + 100u);
        sim_advance(rnd(2000u) % (ns_per_tick(f) * 50u));
      }
      if ((variant & 4u) != 0u) {
        timer_stop(dev);
        sim_advance(rnd(2000u));
      }
      const unsigned target = (timer_read(dev) + interval) & mask;
      if ((variant & 1u) != 0u) {
        (void)set_abs(dev, 0, target);
      } else {
        (void)set_rel(dev, 0, interval);
      }
      if ((variant & 4u) != 0u) {
        sim_advance(rnd(2000u));
        timer_start(dev);
      }
      advance_ticks(f, (uint64_t)interval + 200u);
      missing += g_fired != fired + 1u;
      early += ((g_at[0] - target) & mask) > mask / 2u;
    }
    TH_EQU(missing, 0u);
    TH_EQU(early, 0u);
    TH_EQU(g_not_isr, 0u);
    TH_EQU(g_bad_args, 0u);
  }
}

int main(void) {
  th_set_putc(th_stdio_putc);
  th_run("callbacks from the interrupt, never from inside the arming call", t_isr_context, NULL);
  th_run("RIOT tests/periph/timer_short_relative_set on every device", t_short_relative_set, NULL);
  th_run("RIOT tests/periph/timer on every device: querying, channels, no spurious IRQs",
         t_periph_timer, NULL);
  th_run("timer_init on an initialised device clears every channel", t_reinit, NULL);
  th_run("RIOT tests/periph/timer_periodic", t_timer_periodic, NULL);
  th_run("RIOT tests/bench/timers variants: never early, once, from the interrupt", t_bench_timers,
         NULL);
  return th_finish();
}
