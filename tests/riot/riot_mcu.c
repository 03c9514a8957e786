/**
 * @file riot_mcu.c
 * @brief RIOT's tests/periph/timer and tests/periph/timer_short_relative_set,
 *        through the RIOT API (utim/riot_timer.h) on every device of a
 *        Cortex-M board, as firmware under QEMU: each callback once, from the
 *        timer's interrupt (never in the caller's context), never early,
 *        at most TEST_MAX_DIFF ticks late; channels in order with their
 *        argument; a set-and-cleared channel never fires.
 */
#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "mcu.h"
#include "utim/port.h"
#include "utim/riot_timer.h"
#include "utim/utim.h"

#define COOKIE        100u
#define MAX_CH        8u
#define TEST_MAX_DIFF 1000u

static volatile unsigned g_fired;
static volatile unsigned g_not_isr;
static volatile unsigned g_bad_args;
static volatile int g_order[MAX_CH];
static tim_t g_dev;

static void cb(void *arg, int chan) {
  g_not_isr += !utim_port_in_isr();
  g_bad_args += (uintptr_t)arg != (uintptr_t)(COOKIE * g_dev) || chan < 0 || chan >= (int)MAX_CH;
  if (g_fired < MAX_CH) {
    g_order[g_fired] = chan;
  }
  g_fired++;
}

static void cb_not_to_be_executed(void *arg, int chan) {
  (void)arg;
  (void)chan;
  g_fired = 1u;
}

/* Named reset on purpose: the RISC-V boards' image put a function of that
 * name (its -ffunction-sections section .text.reset) first, before their
 * start-up, and this firmware faulted at its first instruction. */
static void reset(void) {
  g_fired = g_not_isr = g_bad_args = 0u;
  for (unsigned i = 0; i < MAX_CH; i++) {
    g_order[i] = -1;
  }
}

static unsigned mask_of(tim_t dev) {
  const uint64_t max = utim_max(utim_by_index(dev));
  return max > 0xFFFFFFFFu ? 0xFFFFFFFFu : (unsigned)max;
}

/* Spin until @p n callbacks came or @p ticks passed since @p from. */
static unsigned wait_fired(tim_t dev, unsigned from, unsigned ticks, unsigned n) {
  unsigned diff = 0;
  while (g_fired < n && diff <= ticks) {
    diff = (timer_read(dev) - from) & mask_of(dev);
  }
  return diff;
}

static void check_short_relative_set(tim_t dev) {
  unsigned bad = 0;
  reset();
  for (unsigned interval = 16; interval-- > 0u;) {
    for (unsigned rep = 0; rep < 16u; rep++) {
      const unsigned before = timer_read(dev);
      const unsigned n = g_fired + 1u;
      bad += timer_set(dev, 0, interval) != 0;
      (void)wait_fired(dev, before, TEST_MAX_DIFF, n);
      bad += g_fired != n;
    }
  }
  TH_EQU(bad, 0u);
  TH_EQU(g_not_isr, 0u);
  TH_EQU(g_bad_args, 0u);
}

static void check_channels(tim_t dev, uint32_t freq) {
  const uword_t nch = timer_query_channel_numof(dev);
  const uint64_t five_ms = freq / 200u;
  const uint64_t cap = mask_of(dev) / (nch + 1u);
  const unsigned offset = (unsigned)(five_ms < 2u ? 2u : five_ms > cap ? cap : five_ms);
  reset();
  TH_EQ(timer_init(dev, freq, cb, (void *)(uintptr_t)(COOKIE * dev)), 0);
  for (uword_t i = 0; i < nch; i++) {
    TH_EQ(timer_set(dev, (int)i, (unsigned)(i + 1u) * offset), 0);
  }
  const unsigned t0 = timer_read(dev);
  (void)wait_fired(dev, t0, (unsigned)(nch + 1u) * offset, nch);
  TH_EQU(g_fired, nch);
  for (uword_t i = 0; i < nch && i < MAX_CH; i++) {
    TH_EQ(g_order[i], (int)i);
  }
  TH_EQU(g_bad_args, 0u);
  TH_EQU(g_not_isr, 0u);
  /* No spurious interrupts: set and cleared at once, waited past. */
  TH_EQ(timer_init(dev, freq, cb_not_to_be_executed, NULL), 0);
  const unsigned duration = offset;
  const unsigned target = timer_read(dev) + duration;
  TH_EQ(timer_set_absolute(dev, 0, target & mask_of(dev)), 0);
  TH_EQ(timer_clear(dev, 0), 0);
  g_fired = 0u;
  (void)wait_fired(dev, target - duration, 2u * duration, 1u);
  TH_EQU(g_fired, 0u);
}

static void t_device(void *arg) {
  const tim_t dev = (tim_t)(uintptr_t)arg;
  const uint32_t f = timer_query_freqs(dev, 0u);
  g_dev = dev;
  const unsigned nch = (unsigned)timer_query_channel_numof(dev);
  if (nch == 0u) {
    th_skip("device %u (%s): no compare channel, nothing for timer_set()", (unsigned)dev,
            utim_name(utim_by_index(dev)));
    return;
  }
  if (f == 0u || timer_init(dev, f, cb, (void *)(uintptr_t)(COOKIE * dev)) != 0) {
    th_skip("device %u (%s) at %lu Hz: timer_init() refused (owned by another subsystem)",
            (unsigned)dev, utim_name(utim_by_index(dev)), (unsigned long)f);
    return;
  }
  th_context("device %u (%s) at %lu Hz", (unsigned)dev, utim_name(utim_by_index(dev)),
             (unsigned long)f);
  check_short_relative_set(dev);
  check_channels(dev, f);
  timer_stop(dev);
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  for (unsigned dev = 0; dev < utim_count() && dev < UTIM_RIOT_TIMER_NUMOF; dev++) {
    th_run("RIOT tests/periph/timer and timer_short_relative_set on a device", t_device,
           (void *)(uintptr_t)dev);
  }
  return th_finish();
}
