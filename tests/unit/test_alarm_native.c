/*
 * test_alarm_native: NATIVE_ALARM's event flags across a counter write.
 * A compare or a wrap the counter reached while its interrupt could not be
 * taken (the port lock held, the interrupt thread still waking) stays
 * flagged as on hardware (sim keeps it too): a counter write moves only the
 * matches still to come, so the event is delivered once when the lock is
 * released, and the wrap a written value brings still comes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "board_native.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"

/* Written by the interrupt thread's callbacks, read by the test. */
static atomic_uint g_ovf;
static atomic_uint g_cmp;

static void ovf_cb(const utim_periph_t *p, void *arg) {
  (void)p;
  (void)arg;
  g_ovf++;
}

static void cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_cmp++;
}

/* Busy-wait n ticks (utim_read() is lock-free, so this works with the lock held). */
static void wait_ticks(const utim_periph_t *p, uint64_t n) {
  uint64_t s = utim_read(p);
  while (utim_read(p) - s < n) {
  }
}

/* Up to 1 s for *count to reach want, taking due interrupts here too; then
 * 20 ticks more, so an extra event would show. */
static unsigned wait_count(const utim_periph_t *p, const atomic_uint *count, unsigned want) {
  int64_t end = utim_native_clock_ns(CLOCK_MONOTONIC) + 1000000000;
  while (*count < want && utim_native_clock_ns(CLOCK_MONOTONIC) < end) {
    native_irq_service();
  }
  wait_ticks(p, 20u);
  native_irq_service();
  return *count;
}

static const utim_periph_t *alarm_setup(void) {
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  TH_CHECK(p != NULL);
  if (p == NULL) {
    return NULL;
  }
  TH_EQ(utim_init(p, 100000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_overflow_cb(p, ovf_cb, NULL), 0);
  TH_EQ(utim_set_compare_cb(p, cmp_cb, NULL), 0);
  TH_EQ(utim_start(p), 0);
  g_ovf = 0u;
  g_cmp = 0u;
  return p;
}

static void t_wrap_then_write(void *arg) {
  (void)arg;
  const utim_periph_t *p = alarm_setup();
  if (p == NULL) {
    return;
  }
  uint32_t key = utim_port_lock();
  TH_EQ(utim_write(p, utim_max(p) - 3u), 0);
  wait_ticks(p, 10u); /* wrapped, its interrupt held off */
  TH_EQ(utim_write(p, 1000u), 0);
  utim_port_unlock(key);
  TH_EQ(wait_count(p, &g_ovf, 1u), 1);
}

static void t_wrap_then_write_near_top(void *arg) {
  (void)arg;
  const utim_periph_t *p = alarm_setup();
  if (p == NULL) {
    return;
  }
  uint32_t key = utim_port_lock();
  TH_EQ(utim_write(p, utim_max(p) - 3u), 0);
  wait_ticks(p, 10u);
  TH_EQ(utim_write(p, utim_max(p) - 4999u), 0); /* the next wrap 50 ms on */
  utim_port_unlock(key);
  /* The flagged wrap at once, and the one the written value brings. */
  TH_EQ(wait_count(p, &g_ovf, 1u), 1);
  TH_EQ(wait_count(p, &g_ovf, 2u), 2);
}

/* Arm @p ch 5 ticks after a fresh read of the counter, which it returns:
 * a loaded machine can hold this thread off past those 5 ticks (50 us)
 * between the read and the arming, which then finds the value passed
 * (-ETIME, as documented): read again. */
static uint64_t arm_near(const utim_periph_t *p, unsigned ch) {
  for (unsigned i = 0; i < 1000u; i++) {
    const uint64_t c0 = utim_read(p);
    const int rc = utim_set_abs(p, ch, c0 + 5u);
    if (rc != -ETIME) {
      TH_EQ(rc, 0);
      return c0;
    }
  }
  TH_CHECKF(false, "channel %u: 1000 armings 5 ticks ahead all found the value passed", ch);
  return utim_read(p);
}

static void t_match_then_write(void *arg) {
  (void)arg;
  const utim_periph_t *p = alarm_setup();
  if (p == NULL) {
    return;
  }
  uint32_t key = utim_port_lock();
  uint64_t c0 = arm_near(p, 0u);
  wait_ticks(p, 20u); /* matched, its interrupt held off */
  TH_EQ(utim_write(p, c0 + 100000u), 0);
  utim_port_unlock(key);
  TH_EQ(wait_count(p, &g_cmp, 1u), 1);

  /* Written back before the compare: still the one match already reached. */
  g_cmp = 0u;
  key = utim_port_lock();
  c0 = arm_near(p, 1u);
  wait_ticks(p, 20u);
  TH_EQ(utim_write(p, c0), 0);
  utim_port_unlock(key);
  TH_EQ(wait_count(p, &g_cmp, 1u), 1);
  wait_ticks(p, 20u);
  native_irq_service();
  TH_EQ(g_cmp, 1);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  native_board_init();
  th_run("native alarm: a wrap reached before a counter write is delivered once", t_wrap_then_write,
         NULL);
  th_run("native alarm: a flagged wrap and the one a written value brings",
         t_wrap_then_write_near_top, NULL);
  th_run("native alarm: a match reached before a counter write is delivered once",
         t_match_then_write, NULL);
  return th_finish();
}
