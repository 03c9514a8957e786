/**
 * @file board_test_native.c
 * @brief board_test.h for the native board: real time, no race injection.
 *
 * Waits are real: clock_nanosleep() in short naps until shortly before the
 * end, then a spin with the pause instruction, on CLOCK_MONOTONIC (the clock
 * of NATIVE_ALARM, so "ticks passed" is exact for it). Interrupts are
 * delivered meanwhile by the board's interrupt thread, and the waiting test
 * thread also takes the interrupts that are due after each nap, every few
 * microseconds of the spin and when the wait ends (native_irq_service()), as
 * an MCU's busy loop is interrupted by the ISR, instead of depending only on
 * a kernel wake-up of the interrupt thread that comes tens of microseconds
 * (on a loaded machine, milliseconds) later. Tests therefore see "every
 * event due by the end of the wait has been delivered", the guarantee the
 * sim board gives, while the delivery itself is still the driver's handler
 * under the port lock. main_native.c reports how many handler runs each
 * thread made.
 *
 * The latency allowance is a wall-clock budget converted to ticks: generous
 * against scheduling delays on a shared machine (several times the worst
 * kernel-timer wake-up measured on a loaded 2-core VM), far below a wrap of any
 * native instance (all are 64 bits wide).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include "board_test.h"

#include <sched.h>
#include <time.h>

#include "board_native.h"
#include "utim/port.h"

#define TB_NS_PER_S 1000000000ull
/* Latency budget with the interrupt thread at SCHED_FIFO, and without. */
#define TB_LATENCY_FIFO_NS  1000000ull
#define TB_LATENCY_OTHER_NS 4000000ull
/* Sleep in the kernel until this long before the end of a wait, then spin:
 * longer than a timer wake-up is late, so the spin absorbs the lateness. */
#define TB_SPIN_NS 300000ull
/* Longest nap of a long wait, and the poll period while spinning. */
#define TB_CHUNK_NS     250000ull
#define TB_SPIN_POLL_NS 5000ull
#define TB_IDLE_NS      1000ull
#define TB_LONG_WAIT_S  1ull

static uint64_t tb_now(void) {
  return (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC);
}

/* Before utim_init() there is no frequency; 1 MHz keeps waits meaningful. */
static uint64_t tb_hz(const utim_periph_t *p) {
  uint32_t hz = utim_freq(p);
  return hz == 0u ? 1000000u : hz;
}

/* Time in which at least @p ticks ticks happen whatever the phase within a
 * tick: ceil(ticks * 1e9 / hz), plus 100 ppm for a counter whose frequency
 * was measured (the TSC) and so may run a little slower than stated. */
static uint64_t tb_ticks_to_ns(const utim_periph_t *p, uint64_t ticks) {
  uint64_t ns = utim_ticks_to_ns_ceil(ticks, tb_hz(p));
  if (ns > UINT64_MAX / 4u) {
    return UINT64_MAX / 4u;
  }
  ns += ns / 10000u;
  return ns > UINT64_MAX / 4u ? UINT64_MAX / 4u : ns;
}

/*
 * Wait until @p deadline, taking due interrupts along the way: sleep in
 * chunks while the end is far, spin for the last stretch. The polls make the
 * test thread a second CPU that takes timer interrupts while it waits, as an
 * MCU's busy loop is interrupted by the ISR; on a loaded machine a kernel
 * wake-up of either thread can come milliseconds late, both rarely at once.
 */
static void tb_wait_until_ns(uint64_t deadline) {
  uint64_t next_poll = 0;
  for (;;) {
    uint64_t now = tb_now();
    if (now >= deadline) {
      return;
    }
    if (deadline - now > TB_SPIN_NS) {
      uint64_t nap = deadline - now - TB_SPIN_NS;
      nap = nap < TB_CHUNK_NS ? nap : TB_CHUNK_NS;
      struct timespec ts = {(time_t)(nap / TB_NS_PER_S), (long)(nap % TB_NS_PER_S)};
      (void)clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
      native_irq_service();
    } else if (now >= next_poll) {
      native_irq_service();
      next_poll = now + TB_SPIN_POLL_NS;
    } else {
      utim_port_relax();
    }
  }
}

const char *tb_board_name(void) {
  return "native";
}

/* Nothing to reset on a real machine: the instances' state belongs to the
 * suite, and time cannot be rewound. */
void tb_setup(void) {
  native_irq_service();
}

void tb_idle(void) {
  tb_wait_until_ns(tb_now() + TB_IDLE_NS);
  native_irq_service();
}

void tb_wait_ticks(const utim_periph_t *p, uint64_t ticks) {
  tb_wait_until_ns(tb_now() + tb_ticks_to_ns(p, ticks));
  native_irq_service();
}

bool tb_wait_until(const utim_periph_t *p, tb_cond_t cond, const void *ctx, uint64_t limit) {
  uint64_t step = tb_ticks_to_ns(p, 1u);
  uint64_t t = tb_now();
  for (uint64_t i = 0; i < limit; i++) {
    if (cond(ctx)) {
      return true;
    }
    t += step;
    tb_wait_until_ns(t);
    native_irq_service();
  }
  return cond(ctx);
}

uint64_t tb_latency_ticks(const utim_periph_t *p) {
  native_irq_info_t irq = native_irq_info();
  uint64_t ns = irq.policy == SCHED_FIFO ? TB_LATENCY_FIFO_NS : TB_LATENCY_OTHER_NS;
  return utim_ns_to_ticks_ceil(ns, tb_hz(p)) + 2u;
}

uint64_t tb_long_wait_ticks(const utim_periph_t *p) {
  return TB_LONG_WAIT_S * tb_hz(p);
}

/* Real time cannot be advanced between two register accesses. */
bool tb_race_supported(void) {
  return false;
}

uint64_t tb_race_mark(void) {
  return 0u;
}

unsigned tb_race_count(uint64_t mark) {
  (void)mark;
  return 0u;
}

void tb_race_set(const utim_periph_t *p, unsigned k, uint64_t ticks) {
  (void)p;
  (void)k;
  (void)ticks;
}

void tb_race_cancel(void) {}
