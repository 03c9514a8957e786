/*
 * RIOT's periph_timer API over the uAPI (utim/riot_timer.h) on the sim
 * board, in virtual time: return conventions and errors, one-shot,
 * absolute, clear, several channels, periodic with each flag, stop/start,
 * the query functions, claims; and our port of RIOT's tests/periph/timer
 * method (every channel of every device set to its own timeout, each
 * callback once, in order, on its channel), written only against the RIOT
 * API so that it would run unchanged on RIOT.
 */
#include <stdbool.h>
#include <stdint.h>

#include "board_sim.h"
#include "harness.h"
#include "sim.h"
#include "utim/riot_timer.h"
#include "utim/utim.h"

#define HZ 1000000u
#define NS ((uint64_t)(1000000000u / HZ))

static unsigned g_calls[8];
static unsigned g_order[32];
static unsigned g_norder;
static unsigned g_read_at[8];
static tim_t g_dev;
static int g_arg_ok;

// cppcheck-suppress constParameter ; the signature is timer_cb_t
static void cb(void *arg, int channel) {
  g_arg_ok += arg == &g_calls;
  if (channel >= 0 && channel < 8) {
    g_calls[channel]++;
    g_read_at[channel] = timer_read(g_dev);
  }
  if (g_norder < 32u) {
    g_order[g_norder++] = (unsigned)channel;
  }
}

static void reset_counts(void) {
  for (unsigned i = 0; i < 8u; i++) {
    g_calls[i] = 0;
  }
  g_norder = 0;
  g_arg_ok = 0;
}

/* The device number of @p name on this board. */
static tim_t dev_named(const char *name) {
  for (unsigned i = 0; i < utim_count(); i++) {
    if (utim_by_index(i) == utim_by_name(name)) {
      return TIMER_DEV(i);
    }
  }
  return TIMER_UNDEF;
}

static bool setup(void) {
  sim_board_init();
  reset_counts();
  g_dev = dev_named("SIM_TIMER16");
  return TH_CHECK(g_dev != TIMER_UNDEF) && TH_EQ(timer_init(g_dev, HZ, cb, &g_calls), 0);
}

static void t_errors(void *arg) {
  (void)arg;
  sim_board_init();
  g_dev = dev_named("SIM_TIMER16");
  TH_EQ(timer_init(TIMER_UNDEF, HZ, cb, NULL), -1);
  TH_EQ(timer_init(g_dev, HZ, NULL, NULL), -1);
  TH_EQ(timer_init(g_dev, 7u, cb, NULL), -1); /* not a frequency it counts at */
  /* Refused, it stays free for another subsystem. */
  TH_EQ(utim_claim(utim_by_index(g_dev), &g_order), 0);
  TH_EQ(utim_release(utim_by_index(g_dev), &g_order), 0);
  TH_EQ(timer_set(g_dev, 0, 10u), -1); /* not initialised */
  TH_EQ(timer_init(g_dev, HZ, cb, &g_calls), 0);
  TH_EQ(timer_set(g_dev, -1, 10u), -1);
  TH_EQ(timer_set(g_dev, (int)timer_query_channel_numof(g_dev), 10u), -1);
  TH_EQ(timer_set_absolute(g_dev, 99, 10u), -1);
  TH_EQ(timer_clear(g_dev, 99), -1);
  TH_EQ(timer_set_periodic(g_dev, 0, 100u, 0u), -1); /* no TIM_FLAG_RESET_ON_MATCH */
  TH_EQ(timer_set_periodic(g_dev, 0, 0u, TIM_FLAG_RESET_ON_MATCH), -1);
  TH_EQ(timer_set(g_dev, 0, 0x10000u), -1); /* beyond the 16-bit counter */
  TH_EQU(timer_read(TIMER_UNDEF), 0u);
  /* Claimed by another subsystem: refused. */
  const tim_t other = dev_named("SIM_NRF32");
  TH_EQ(utim_claim(utim_by_index(other), &g_order), 0);
  TH_EQ(timer_init(other, HZ, cb, NULL), -1);
  TH_EQ(utim_release(utim_by_index(other), &g_order), 0);
}

static void t_oneshot(void *arg) {
  (void)arg;
  if (!setup()) {
    return;
  }
  const unsigned t0 = timer_read(g_dev);
  TH_EQ(timer_set(g_dev, 1, 1000u), 0);
  sim_advance(999u * NS);
  TH_EQU(g_calls[1], 0u); /* never early */
  sim_advance(5000u * NS);
  TH_EQU(g_calls[1], 1u); /* exactly once */
  TH_CHECK(g_arg_ok == 1);
  TH_CHECKF(((g_read_at[1] - t0) & 0xFFFFu) >= 1000u, "read %u at the callback, set at %u",
            g_read_at[1], t0);
  /* Absolute. */
  const unsigned v = (timer_read(g_dev) + 500u) & 0xFFFFu;
  TH_EQ(timer_set_absolute(g_dev, 2, v), 0);
  sim_advance(600u * NS);
  TH_EQU(g_calls[2], 1u);
  /* A value wider than the counter is truncated, as RIOT's narrow timers do. */
  TH_EQ(timer_set_absolute(g_dev, 2, ((timer_read(g_dev) + 300u) & 0xFFFFu) | 0x30000u), 0);
  sim_advance(400u * NS);
  TH_EQU(g_calls[2], 2u);
  /* Just passed, or the counter's value itself: at once (after the
   * minimum compare distance), never a wrap of the 16-bit counter late. */
  const uint64_t soon = 2u * utim_min_distance(utim_by_index(g_dev)) + 10u;
  TH_EQ(timer_set_absolute(g_dev, 2, (timer_read(g_dev) - 5u) & 0xFFFFu), 0);
  sim_advance(soon * NS);
  TH_EQU(g_calls[2], 3u);
  TH_EQ(timer_set_absolute(g_dev, 2, timer_read(g_dev)), 0);
  sim_advance(soon * NS);
  TH_EQU(g_calls[2], 4u);
  /* Stopped: once started, not before. */
  timer_stop(g_dev);
  TH_EQ(timer_set_absolute(g_dev, 2, (timer_read(g_dev) - 100u) & 0xFFFFu), 0);
  sim_advance(1000u * NS);
  TH_EQU(g_calls[2], 4u);
  timer_start(g_dev);
  sim_advance(soon * NS);
  TH_EQU(g_calls[2], 5u);
  sim_advance(0x20000u * NS); /* once: nothing a wrap later */
  TH_EQU(g_calls[2], 5u);
  /* Cleared: never. */
  TH_EQ(timer_set(g_dev, 0, 200u), 0);
  TH_EQ(timer_clear(g_dev, 0), 0);
  sim_advance(1000u * NS);
  TH_EQU(g_calls[0], 0u);
}

/* A 64-bit counter seen through RIOT's unsigned int: timer_set_absolute()
 * names the next moment the low 32 bits equal the value (up to half their
 * range ahead), across a carry into the upper half; a value just passed
 * fires at once, as on the narrow counters, never a wrap of the low bits
 * late. */
static void t_wide(void *arg) {
  (void)arg;
  sim_board_init();
  reset_counts();
  g_dev = dev_named("SIM_MTIME64");
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (g_dev == TIMER_UNDEF || p == NULL) {
    TH_CHECK(!"the board has SIM_MTIME64");
    return;
  }
  TH_EQ(timer_init(g_dev, HZ, cb, &g_calls), 0);
  /* 10 ticks before the low half's wrap: value 5 is 15 ticks ahead. */
  TH_EQ(utim_write(p, 0xFFFFFFF6u), 0);
  TH_EQ(timer_set_absolute(g_dev, 0, 5u), 0);
  sim_advance(14u * NS);
  TH_EQU(g_calls[0], 0u); /* never early */
  sim_advance(2u * NS);
  TH_EQU(g_calls[0], 1u);
  TH_CHECKF(utim_read(p) >= 0x100000005ull, "fired at 0x%llx", (unsigned long long)utim_read(p));
  const uint64_t soon = 2u * utim_min_distance(p) + 10u;
  /* Just passed, and the counter's own value: at once, not 2^32 ticks on. */
  unsigned now = timer_read(g_dev);
  TH_EQ(timer_set_absolute(g_dev, 0, now - 10u), 0);
  sim_advance(soon * NS);
  TH_EQU(g_calls[0], 2u);
  now = timer_read(g_dev);
  TH_EQ(timer_set_absolute(g_dev, 0, now), 0);
  sim_advance(soon * NS);
  TH_EQU(g_calls[0], 3u);
  TH_EQU(utim_pending(p), 0u);
  /* Half the low range ahead: in the future, on time (2^31 - 1 ticks on). */
  TH_EQ(utim_write(p, 0x200000000ull), 0);
  TH_EQ(timer_set_absolute(g_dev, 0, 0x7FFFFFFFu), 0);
  sim_advance(soon * NS);
  TH_EQU(g_calls[0], 3u);
  TH_EQ(utim_write(p, 0x27FFFFFF0ull), 0);
  sim_advance(14u * NS);
  TH_EQU(g_calls[0], 3u); /* never early */
  sim_advance(2u * NS);
  TH_EQU(g_calls[0], 4u);
  /* More than half the low range ahead is just passed: at once. */
  TH_EQ(utim_write(p, 0x300000000ull), 0);
  TH_EQ(timer_set_absolute(g_dev, 0, 0x80000001u), 0);
  sim_advance(soon * NS);
  TH_EQU(g_calls[0], 5u);
  TH_EQU(utim_pending(p), 0u);
}

static void t_periodic(void *arg) {
  (void)arg;
  if (!setup()) {
    return;
  }
  TH_EQ(timer_set_periodic(g_dev, 0, 100u, TIM_FLAG_RESET_ON_MATCH | TIM_FLAG_RESET_ON_SET), 0);
  sim_advance(1050u * NS);
  TH_EQU(g_calls[0], 10u); /* every 100 ticks */
  TH_EQ(timer_clear(g_dev, 0), 0);
  /* Set stopped: nothing until timer_start(). */
  TH_EQ(timer_set_periodic(g_dev, 1, 100u, TIM_FLAG_RESET_ON_MATCH | TIM_FLAG_SET_STOPPED), 0);
  const unsigned r = timer_read(g_dev);
  sim_advance(1000u * NS);
  TH_EQU(timer_read(g_dev), r); /* stopped */
  TH_EQU(g_calls[1], 0u);
  timer_start(g_dev);
  sim_advance(250u * NS);
  TH_EQU(g_calls[1], 2u);
  timer_stop(g_dev);
  sim_advance(1000u * NS);
  TH_EQU(g_calls[1], 2u);
  timer_start(g_dev);
  TH_EQ(timer_clear(g_dev, 1), 0);
  /* Refused (beyond the 16-bit counter): neither stopped nor reset. */
  sim_advance(3000u * NS);
  const unsigned before = timer_read(g_dev);
  TH_EQ(timer_set_periodic(g_dev, 0, 0x10000u,
                           TIM_FLAG_RESET_ON_MATCH | TIM_FLAG_RESET_ON_SET | TIM_FLAG_SET_STOPPED),
        -1);
  TH_CHECKF(timer_read(g_dev) >= before, "counter %u, was %u: reset", timer_read(g_dev), before);
  sim_advance(100u * NS);
  TH_CHECKF(timer_read(g_dev) > before, "counter %u, was %u: stopped", timer_read(g_dev), before);
  /* Stopped by timer_stop(), set without TIM_FLAG_SET_STOPPED: running
   * again, as on RIOT's boards. */
  reset_counts();
  timer_stop(g_dev);
  TH_EQ(timer_set_periodic(g_dev, 3, 100u, TIM_FLAG_RESET_ON_MATCH), 0);
  sim_advance(1050u * NS);
  TH_EQU(g_calls[3], 10u);
  TH_EQ(timer_clear(g_dev, 3), 0);
}

/* A period the uAPI refuses near the counter's top (on an instance with a
 * minimum compare distance of 3: utim_max_period() is 253 on 8 bits) is
 * refused before the device is stopped or reset, as the shim's own checks
 * are: it used to check only the counter's range, and stopped and reset
 * the device before utim_set_periodic() refused. */
static void t_periodic_top(void *arg) {
  (void)arg;
  sim_board_init();
  reset_counts();
  g_dev = dev_named("SIM_TIMER8");
  const utim_periph_t *p = utim_by_name("SIM_TIMER8");
  if (!TH_CHECK(g_dev != TIMER_UNDEF && p != NULL && utim_min_distance(p) == 3u)) {
    return;
  }
  TH_EQ(timer_init(g_dev, timer_query_freqs(g_dev, 0u), cb, &g_calls), 0);
  TH_EQU(utim_max_period(p), 253u);
  sim_advance(10000u);
  const unsigned before = timer_read(g_dev);
  TH_EQ(timer_set_periodic(g_dev, 0, 254u,
                           TIM_FLAG_RESET_ON_MATCH | TIM_FLAG_RESET_ON_SET | TIM_FLAG_SET_STOPPED),
        -1);
  TH_EQU(timer_read(g_dev), before); /* neither reset nor moved on yet */
  sim_advance(10000u);
  TH_CHECKF(timer_read(g_dev) != before, "counter %u, was %u: stopped", timer_read(g_dev), before);
  TH_EQU(utim_pending(p), 0u);
  TH_EQ(timer_set_periodic(g_dev, 0, 253u, TIM_FLAG_RESET_ON_MATCH), 0);
  TH_EQ(timer_clear(g_dev, 0), 0);
}

/* TIM_FLAG_SET_STOPPED on a counter that cannot be stopped (a 64-bit
 * machine timer): refused, nothing armed, the counter running. */
static void t_periodic_unstoppable(void *arg) {
  (void)arg;
  sim_board_init();
  reset_counts();
  g_dev = dev_named("SIM_MTIME64");
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (g_dev == TIMER_UNDEF || p == NULL || (utim_caps(p) & UTIM_CAP_STOP) != 0u) {
    TH_CHECK(!"the board has SIM_MTIME64, which cannot be stopped");
    return;
  }
  TH_EQ(timer_init(g_dev, HZ, cb, &g_calls), 0);
  const unsigned r0 = timer_read(g_dev);
  TH_EQ(timer_set_periodic(g_dev, 0, 100u, TIM_FLAG_RESET_ON_MATCH | TIM_FLAG_SET_STOPPED), -1);
  sim_advance(1000u * NS);
  TH_CHECKF(timer_read(g_dev) - r0 >= 1000u, "counter moved %u ticks", timer_read(g_dev) - r0);
  TH_EQU(g_calls[0], 0u); /* nothing armed */
  TH_EQU(utim_pending(p), 0u);
  /* Without the flag it is accepted. */
  TH_EQ(timer_set_periodic(g_dev, 0, 100u, TIM_FLAG_RESET_ON_MATCH), 0);
  sim_advance(1050u * NS);
  TH_EQU(g_calls[0], 10u);
  TH_EQ(timer_clear(g_dev, 0), 0);
}

static void t_query(void *arg) {
  (void)arg;
  if (!setup()) {
    return;
  }
  TH_EQU(timer_query_channel_numof(g_dev), utim_channels(utim_by_index(g_dev)));
  const uword_t n = timer_query_freqs_numof(g_dev);
  TH_CHECK(n >= 1u);
  for (uword_t i = 1; i < n; i++) {
    TH_CHECK(timer_query_freqs(g_dev, i) < timer_query_freqs(g_dev, i - 1u)); /* highest first */
  }
  TH_EQU(timer_query_freqs(g_dev, n), 0u);
  TH_EQU(timer_query_freqs_numof(TIMER_UNDEF), 0u);
  /* Every input timer_init() may pick is listed, not only input 0's (it
   * accepted 32768 Hz on SIM_TIMER16, 1 MHz and 10 MHz elsewhere, none of
   * them listed); every listed frequency initialises the device. */
  static const struct {
    const char *name;
    uint32_t hz;
  } picks[] = {{"SIM_TIMER16", 32768u},
               {"SIM_SYSTICK24", 1000000u},
               {"SIM_MTIME64", 10000000u},
               /* its lowest: more than 32 frequencies (41), every one listed */
               {"SIM_TIMER8", 32u}};
  for (unsigned i = 0; i < sizeof picks / sizeof picks[0]; i++) {
    const tim_t d = dev_named(picks[i].name);
    th_context("%s at %lu Hz", picks[i].name, (unsigned long)picks[i].hz);
    if (!TH_CHECK(d != TIMER_UNDEF) || !TH_EQ(timer_init(d, picks[i].hz, cb, &g_calls), 0)) {
      continue;
    }
    bool listed = false;
    for (uword_t j = 0; j < timer_query_freqs_numof(d); j++) {
      listed = listed || timer_query_freqs(d, j) == picks[i].hz;
      TH_CHECKF(timer_init(d, timer_query_freqs(d, j), cb, &g_calls) == 0,
                "listed %lu Hz refused by timer_init", (unsigned long)timer_query_freqs(d, j));
    }
    TH_CHECKF(listed, "timer_init accepts it, timer_query_freqs does not list it");
  }
}

/* A device timer_init() has not set up, owned by another subsystem: the
 * shim's timer_stop() and timer_start() leave it alone, as its timer_set()
 * does (they stopped and started the other owner's counter). */
static void t_foreign(void *arg) {
  (void)arg;
  sim_board_init();
  const tim_t d = dev_named("SIM_NRF32");
  const utim_periph_t *p = utim_by_name("SIM_NRF32");
  if (d == TIMER_UNDEF || p == NULL) {
    TH_CHECKF(false, "the sim board has no SIM_NRF32");
    return;
  }
  if (!TH_EQ(utim_claim(p, &g_order), 0)) {
    return;
  }
  TH_EQ(utim_init(p, HZ, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_start(p), 0);
  TH_EQ(timer_set(d, 0, 100u), -1);
  uint64_t before = utim_read(p);
  timer_stop(d);
  sim_advance(1000u * NS);
  TH_CHECKF(utim_read(p) - before >= 1000u, "the owner's counter moved %llu ticks: stopped",
            (unsigned long long)(utim_read(p) - before));
  TH_EQ(utim_stop(p), 0);
  before = utim_read(p);
  timer_start(d);
  sim_advance(1000u * NS);
  TH_CHECKF(utim_read(p) == before, "the owner's stopped counter moved %llu ticks: started",
            (unsigned long long)(utim_read(p) - before));
  TH_EQ(utim_release(p, &g_order), 0);
}

/* RIOT's tests/periph/timer method, through the RIOT API only: on every
 * device the shim can initialise, channel c set to (c + 1) x 100 ticks; every
 * callback comes once, on its channel, in that order. */
static unsigned g_dev_calls;
static int g_last_chan;
static bool g_in_order;

static void cb_all(void *arg, int channel) {
  (void)arg;
  g_in_order = g_in_order && channel == g_last_chan + 1;
  g_last_chan = channel;
  g_dev_calls++;
}

static void t_riot_method(void *arg) {
  (void)arg;
  sim_board_init();
  unsigned tested = 0;
  for (tim_t dev = 0; dev < UTIM_RIOT_TIMER_NUMOF && dev < utim_count(); dev++) {
    const uword_t nch = timer_query_channel_numof(dev);
    const uint32_t f = timer_query_freqs(dev, 0u);
    if (nch == 0u || f == 0u || timer_init(dev, f, cb_all, NULL) != 0) {
      continue; /* no channel, or owned by another driver (a chain's halves) */
    }
    th_context("device %u (%s) at %lu Hz", (unsigned)dev, utim_name(utim_by_index(dev)),
               (unsigned long)f);
    g_dev_calls = 0;
    g_last_chan = -1;
    g_in_order = true;
    for (uword_t c = 0; c < nch; c++) {
      TH_EQ(timer_set(dev, (int)c, (unsigned)(c + 1u) * 100u), 0);
    }
    sim_advance((uint64_t)(nch + 2u) * 100u * (1000000000u / f) + 1000u);
    TH_EQU(g_dev_calls, nch);
    TH_CHECK(g_in_order);
    tested++;
  }
  TH_CHECK(tested >= 3u);
  th_note("%u devices with channels tested", tested);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  th_run("errors: unknown device, NULL callback, inexact frequency, not initialised, "
         "channels, periodic without its flag, claimed device",
         t_errors, NULL);
  th_run("timer_set, timer_set_absolute (truncated; just passed: at once), timer_clear", t_oneshot,
         NULL);
  th_run("timer_set_absolute on a 64-bit counter: the low 32 bits, across the carry; just passed: "
         "at once",
         t_wide, NULL);
  th_run("timer_set_periodic: every value ticks; set stopped; timer_stop/timer_start", t_periodic,
         NULL);
  th_run("timer_set_periodic: a period above utim_max_period() refused before stop and reset",
         t_periodic_top, NULL);
  th_run("timer_set_periodic: TIM_FLAG_SET_STOPPED refused on a counter that cannot be stopped",
         t_periodic_unstoppable, NULL);
  th_run("timer_query_*: channels, frequencies highest first", t_query, NULL);
  th_run("timer_stop, timer_start: a device another subsystem owns is left alone", t_foreign, NULL);
  th_run("RIOT's tests/periph/timer method on every device", t_riot_method, NULL);
  return th_finish();
}
