/*
 * test_board_native: what board_native.h promises about its clock
 * counters' frequencies and about native_irq_service()'s handler context.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "board_native.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"

/* board_native.h: the clock counters count at 1 GHz down to 1 MHz (dividers
 * 1..1000): 1 MHz and 10 MHz exact, 1 kHz refused with the set-up kept. */
static void t_clock_counter_freqs(void *arg) {
  (void)arg;
  static const char *const names[] = {"NATIVE_MONOTONIC", "NATIVE_MONOTONIC_RAW",
                                      "NATIVE_BOOTTIME"};
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
    const utim_periph_t *p = utim_by_name(names[i]);
    TH_CHECK(p != NULL);
    if (p == NULL) {
      continue;
    }
    TH_EQ(utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT), 0);
    TH_EQ(utim_init(p, 10000000u, UTIM_CLOCK_DEFAULT), 0);
    TH_EQU(utim_freq(p), 10000000u);
    /* Below 1 MHz (a divider above 1000): refused, the set-up kept. */
    TH_EQ(utim_init(p, 1000u, UTIM_CLOCK_DEFAULT), -ERANGE);
    TH_EQU(utim_freq(p), 10000000u);
  }
}

/* Written by the callback (on this thread), read by the test. */
static atomic_int g_isr_before = -1;
static atomic_int g_isr_after = -1;
static atomic_bool g_here;
static atomic_int g_runs;
static _Thread_local bool t_test_thread;

static void nested_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_runs++;
  g_here = t_test_thread;
  g_isr_before = utim_port_in_isr();
  native_irq_service(); /* a wait helper that takes due interrupts */
  g_isr_after = utim_port_in_isr();
}

/* A handler pass of native_irq_service() stays interrupt context to its
 * end, also after a nested call of native_irq_service(). */
static void t_service_nested(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  TH_CHECK(p != NULL);
  if (p == NULL) {
    return;
  }
  t_test_thread = true;
  g_runs = 0;
  TH_EQ(utim_init(p, 100000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_compare_cb(p, nested_cb, NULL), 0);
  TH_EQ(utim_start(p), 0);
  /* The lock held past the match keeps the interrupt thread out: the
   * handler pass (and its callback) runs in this thread. */
  uint32_t key = utim_port_lock();
  uint64_t c0 = utim_read(p);
  TH_EQ(utim_set_abs(p, 0u, c0 + 100u), 0);
  while (utim_read(p) - c0 < 101u) {
  }
  TH_EQ(g_runs, 0);
  native_irq_service();
  utim_port_unlock(key);
  TH_EQ(g_runs, 1);
  TH_CHECK(g_here);
  TH_EQ(g_isr_before, 1);
  TH_EQ(g_isr_after, 1);
  TH_EQ(utim_port_in_isr(), 0);
  TH_EQ(utim_set_compare_cb(p, NULL, NULL), 0);
}

static void count_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_runs++;
}

/* A periodic channel faster than the spin window: the interrupt thread
 * (SCHED_FIFO) must not spin from one match to the next for good, or a
 * program on its CPU gets none of the time the overload guard leaves it. It
 * spins at most one window per sleep, so over 50 ms it sleeps hundreds of
 * times (before: not once). */
static void t_spin_bounded(void *arg) {
  (void)arg;
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  TH_CHECK(p != NULL);
  if (p == NULL) {
    return;
  }
  native_irq_set_spin(NATIVE_IRQ_SPIN_NS);
  g_runs = 0;
  TH_EQ(utim_init(p, 100000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_compare_cb(p, count_cb, NULL), 0);
  TH_EQ(utim_start(p), 0);
  TH_EQ(utim_set_periodic(p, 0u, 1u), 0); /* 10 us, below the 50 us window */
  const uint64_t w0 = native_irq_info().wakeups;
  const struct timespec nap = {0, 50000000};
  (void)nanosleep(&nap, NULL);
  const uint64_t w1 = native_irq_info().wakeups;
  TH_EQ(utim_clear(p, 0u), 0);
  TH_EQ(utim_set_compare_cb(p, NULL, NULL), 0);
  TH_CHECK(g_runs > 0);
  TH_CHECKF(w1 - w0 >= 20u, "%llu sleeps in 50 ms", (unsigned long long)(w1 - w0));
}

int main(void) {
  th_set_putc(th_stdio_putc);
  native_board_init();
  th_run("native board: clock counters at 1 MHz and 10 MHz, 1 kHz refused", t_clock_counter_freqs,
         NULL);
  th_run("native board: a nested native_irq_service() keeps the handler context", t_service_nested,
         NULL);
  th_run("native board: the interrupt thread's spin is bounded under a fast periodic channel",
         t_spin_bounded, NULL);
  return th_finish();
}
