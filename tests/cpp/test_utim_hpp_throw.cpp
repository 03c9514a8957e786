/*
 * utim/utim.hpp on the sim board (callbacks run deterministically inside
 * sim_advance(), in this thread): an exception thrown by a utim::tm_timer's
 * callable ends the program (std::terminate()) at the callback's boundary.
 * It used to unwind through the time manager's and the core's C frames to
 * the caller, leaving the port lock held (the simulated interrupts off) and
 * the manager mid-interrupt: no timer fired again.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "board_sim.h"
#include "sim.h"
#include "utim/utim.hpp"

namespace {

bool g_thrown;

/* TAP for the harness: one check, then the program ends. */
[[noreturn]] void finish(bool ok, const char *what) {
  std::printf("%s 1 - %s\n1..1\n%d passed, %d failed\n", ok ? "ok" : "not ok", what, ok ? 1 : 0,
              ok ? 0 : 1);
  std::fflush(stdout);
  std::_Exit(ok ? 0 : 1);
}

[[noreturn]] void on_terminate() {
  finish(g_thrown, "an exception from the callable calls std::terminate()");
}

} // namespace

int main() {
  sim_board_init();
  std::printf("TAP version 13\n");
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (p == nullptr || utim_init(p, 1000000u, UTIM_CLOCK_DEFAULT) != 0 || utim_start(p) != 0) {
    finish(false, "SIM_MTIME64 starts at 1 MHz");
  }
  static utim_tm_t tm{};
  if (utim_tm_init(&tm, p, 0u, UTIM_TM_TICKLESS, 0u) != 0) {
    finish(false, "the manager starts");
  }
  std::set_terminate(on_terminate);
  utim::tm_timer t(tm, [] {
    g_thrown = true;
    throw std::runtime_error("from the callback");
  });
  if (t.start(std::chrono::milliseconds(1)) != 0) {
    finish(false, "the timer starts");
  }
  try {
    sim_advance(2000000u); /* 2 ms: the callback runs in here */
  } catch (const std::exception &) {
    finish(false, "the exception reached the caller through the manager's frames");
  }
  finish(false, "the callback ran");
}
