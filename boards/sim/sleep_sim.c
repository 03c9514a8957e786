/*
 * Precise-sleep hooks of the sim board (include/utim/port.h) on virtual
 * time: the time line is sim_now(), the coarse sleep lets virtual time pass
 * with sim_advance() (the simulated CPU sleeps: interrupts due meanwhile are
 * delivered, unless the CPU masks them, the port lock, as WFI with PRIMASK
 * set would only wake the core), and the CPU time is the model's busy time
 * (register accesses and relax steps). Everything is deterministic, so the
 * margin a sleeper learns and every result are the same on each run.
 */
#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "utim/port.h"
#include "utim/time.h"

static bool sleeper_ready;
static utim_sleeper_t sleeper;

/* Virtual time is unsigned; beyond 292 years it no longer fits the signed
 * time line, which then stays at its end rather than wrapping negative. */
static utim_ns_t to_ns(uint64_t v) {
  return v > (uint64_t)UTIM_NS_MAX ? UTIM_NS_MAX : (utim_ns_t)v;
}

utim_ns_t utim_port_now_ns(void) {
  return to_ns(sim_now());
}

/* Interrupt handlers run by sim_advance() may spend time of their own and
 * carry the time past t; it never stops short of t, so this never wakes
 * early. */
int utim_port_block_until(utim_ns_t t) {
  utim_ns_t now = utim_port_now_ns();
  if (t > now) {
    sim_advance((uint64_t)t - (uint64_t)now);
  }
  return 0;
}

int64_t utim_port_cpu_ns(void) {
  return to_ns(sim_busy_ns());
}

/* The sim machine has one CPU and one thread of execution: one sleeper. Its
 * set-up calibration costs 8 x 20 us of virtual time. */
utim_sleeper_t *utim_port_sleeper(void) {
  return utim_port_sleeper_setup(&sleeper, &sleeper_ready);
}
