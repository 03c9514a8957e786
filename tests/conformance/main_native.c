/**
 * @file main_native.c
 * @brief conformance_native: the conformance suite on the native board.
 *
 * The test thread asks for SCHED_FIFO just below the interrupt thread, so
 * the suite's waits are not stretched by other processes of a shared machine
 * (the suite's "nothing yet" checks after a wait have margins of a few ticks);
 * where refused it runs as a normal thread. The two threads are pinned to
 * different CPUs (see below). What the board got (TSC source,
 * interrupt thread policy, mlockall) goes to stderr before the TAP output,
 * and the interrupt statistics after it, so the TAP stream on stdout stays
 * exactly the suite's. A case that fails is run again, up to three times in
 * all (each failed attempt is printed as a TAP diagnostic).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "board_native.h"
#include "conformance.h"
#include "harness.h"

/** Attempts per conformance case (th_set_attempts()). */
#define NATIVE_CASE_ATTEMPTS 3u

static const char *tsc_source_name(native_tsc_source_t s) {
  switch (s) {
  case NATIVE_TSC_CPUID_15:
    return "CPUID 0x15";
  case NATIVE_TSC_CPUID_16:
    return "CPUID 0x16";
  case NATIVE_TSC_HYPERVISOR:
    return "hypervisor leaf 0x40000010";
  case NATIVE_TSC_MEASURED:
    return "measured against CLOCK_MONOTONIC_RAW";
  case NATIVE_TSC_CNTFRQ:
    return "CNTFRQ_EL0";
  default:
    return "unknown";
  }
}

int main(void) {
  th_set_putc(th_stdio_putc);
  native_board_init();

  struct sched_param sp = {.sched_priority = NATIVE_IRQ_PRIORITY - 10};
  int test_rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
  /*
   * Test thread and interrupt thread on different CPUs: the timer then
   * fires on the interrupt thread's CPU (it arms the kernel timer), so the
   * kernel's interrupt entry does not stall the test thread between its last
   * counter read and its next call, the moment its race checks look at.
   */
  int cpu = sched_getcpu();
  int irq_cpu = -1;
  int pin_rc = -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu >= 0 && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2) {
    for (int i = 0; i < CPU_SETSIZE && irq_cpu < 0; i++) {
      if (i != cpu && CPU_ISSET(i, &set)) {
        irq_cpu = i;
      }
    }
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0) {
      pin_rc = native_irq_pin(irq_cpu);
    }
  }

  const native_tsc_info_t *tsc = native_tsc_info();
  native_irq_info_t irq = native_irq_info();
  fprintf(stderr,
          "native: CPU counter %llu Hz (%s; measured %llu Hz, bracket %llu ns), invariant %d "
          "constant %d nonstop %d hypervisor %d\n",
          (unsigned long long)tsc->hz, tsc_source_name(tsc->source),
          (unsigned long long)tsc->measured_hz, (unsigned long long)tsc->measure_bracket_ns,
          tsc->invariant, tsc->constant, tsc->nonstop, tsc->hypervisor);
  fprintf(stderr, "native: interrupt thread %s, %s priority %d%s%s; mlockall %s%s\n",
          irq.running ? "running" : "NOT running",
          irq.policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER", irq.priority,
          irq.fifo_error != 0 ? ", SCHED_FIFO refused: " : "",
          irq.fifo_error != 0 ? strerror(irq.fifo_error) : "",
          irq.mlocked ? "ok" : "not done: ", irq.mlocked ? "" : strerror(irq.mlock_error));
  fprintf(stderr, "native: test thread %s on CPU %d, interrupt thread %s %d\n",
          test_rc == 0 ? "SCHED_FIFO" : "SCHED_OTHER (SCHED_FIFO refused)", cpu,
          pin_rc == 0 ? "pinned to CPU" : "NOT pinned (one CPU, or refused):", irq_cpu);
  fflush(stderr);

  /* Real time on a shared machine: a stall of this process (another
   * process, the hypervisor) fails a latency bound of one case now and then;
   * such a case is run again, a defect fails every attempt. */
  th_set_attempts(NATIVE_CASE_ATTEMPTS);
  int rc = utim_conformance_run();
  fflush(stdout);

  irq = native_irq_info();
  fprintf(stderr,
          "native: interrupt thread woke %llu times; test thread took interrupts %llu times\n",
          (unsigned long long)irq.wakeups, (unsigned long long)irq.services);
  return rc;
}
