/*
 * Wrong units must not compile with utim/utim.hpp. Built once with no
 * REJECT (it must compile: the control) and once per REJECT value (it must
 * not): tests/cpp/CMakeLists.txt.
 */
#include <chrono>

#include "utim/utim.hpp"

int reject_main();

int reject_main() {
  using namespace std::chrono_literals;
#if REJECT == 1
  return utim::sleep_for(5); /* a bare number: which unit? */
#elif REJECT == 2
  return utim::sleep_until(std::chrono::system_clock::now()); /* another clock's time point */
#elif REJECT == 3
  return static_cast<int>(utim::to_ticks(100, 1000u)); /* a bare number */
#elif REJECT == 4
  utim::clock::time_point t = std::chrono::steady_clock::now(); /* another clock */
  return utim::sleep_until(t);
#else
  /* The control: the same calls with units. */
  const auto t = utim::clock::now() + 1ms;
  return utim::sleep_for(5ms) + utim::sleep_until(t) +
         static_cast<int>(utim::to_ticks(100ms, 1000u));
#endif
}
