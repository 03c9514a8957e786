/*
 * utim/utim.hpp on the native board, with g++ -std=c++17: the Clock
 * requirements of utim::clock, std::chrono interop (durations of any
 * period, time points of another precision), the precise sleep, tick
 * conversions, and the RAII owners (a claimed instance; a time-manager
 * timer that stops when it goes out of scope).
 */
#include "utim/utim.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "board_native.h"

namespace {

int g_failed;
int g_passed;

void check(bool ok, const char *what, int line) {
  if (ok) {
    g_passed++;
    std::printf("ok %d - %s\n", g_passed + g_failed, what);
  } else {
    g_failed++;
    std::printf("not ok %d - %s (line %d)\n", g_passed + g_failed, what, line);
  }
}
#define CHECK(c) check((c), #c, __LINE__)

using namespace std::chrono_literals;

/* Waits (up to 2 s, in 1 ms sleeps) until @p done() holds: a callback due
 * at a time runs when the timer thread gets the CPU, which on a loaded
 * machine may be well after it. Returns done(). */
template <class F> bool wait_until(F done) {
  const auto end = std::chrono::steady_clock::now() + 2s;
  while (!done() && std::chrono::steady_clock::now() < end) {
    (void)utim::sleep_for(1ms);
  }
  return done();
}

/* The Clock requirements (C++17 has no is_clock_v: spelled out). */
static_assert(std::is_same_v<utim::clock::rep, utim::clock::duration::rep>);
static_assert(std::is_same_v<utim::clock::period, utim::clock::duration::period>);
static_assert(std::is_same_v<utim::clock::duration, utim::clock::time_point::duration>);
static_assert(std::is_same_v<utim::clock, utim::clock::time_point::clock>);
static_assert(std::is_same_v<decltype(utim::clock::now()), utim::clock::time_point>);
static_assert(utim::clock::is_steady);
static_assert(noexcept(utim::clock::now()));

void test_clock() {
  const auto a = utim::clock::now();
  const auto b = utim::clock::now();
  CHECK(b >= a);
  /* Elapsed time agrees with std::chrono::steady_clock over 20 ms: utim's
   * interval read inside steady_clock's, so a preemption between the reads
   * only makes steady_clock's longer; the rates may differ by ppm. */
  const auto s0 = std::chrono::steady_clock::now();
  const auto u0 = utim::clock::now();
  CHECK(utim::sleep_for(20ms) == 0);
  const auto u = utim::clock::now() - u0;
  const auto s = std::chrono::steady_clock::now() - s0;
  CHECK(u >= 20ms);
  CHECK(u <= s + 50us);
}

void test_sleep() {
  const auto t0 = utim::clock::now();
  CHECK(utim::sleep_for(std::chrono::microseconds(1500)) == 0);
  CHECK(utim::clock::now() - t0 >= 1500us);
  /* A time point of microsecond precision on utim::clock. */
  const auto target = std::chrono::time_point_cast<std::chrono::microseconds>(utim::clock::now()) +
                      std::chrono::milliseconds(2);
  CHECK(utim::sleep_until(target) == 0);
  CHECK(utim::clock::now() >= target);
  /* A fractional duration rounds up: never less than asked. */
  const auto t1 = utim::clock::now();
  CHECK(utim::sleep_for(std::chrono::duration<double, std::milli>(1.25)) == 0);
  CHECK(utim::clock::now() - t1 >= 1250us);
  CHECK(utim::sleep_for(-1ms) == -EINVAL);
  /* Negative below a nanosecond too (rounded up it was 0 ns: slept, 0). */
  CHECK(utim::sleep_for(std::chrono::duration<std::int64_t, std::pico>(-1)) == -EINVAL);
  CHECK(utim::sleep_for(std::chrono::duration<double, std::nano>(-0.5)) == -EINVAL);
  /* Beyond int64 ns either way: saturated, never wrapped (a far sleep
   * wrapped to a negative or short one; only the conversion is run). */
  using hours = std::chrono::hours;
  CHECK(utim::ceil_ns(hours::max()) == utim::clock::duration::max());
  CHECK(utim::ceil_ns(hours(3000000)) == utim::clock::duration::max()); /* ~342 years */
  CHECK(utim::ceil_ns(hours::min()) == utim::clock::duration::min());
  CHECK(utim::ceil_ns(std::chrono::duration<double>(1e300)) == utim::clock::duration::max());
  CHECK(utim::ceil_ns(hours(2000000)) == std::chrono::nanoseconds(hours(2000000))); /* 228 years */
  CHECK(utim::ceil_ns(std::chrono::duration<double, std::milli>(1.25)) == 1250us);
  CHECK(utim::sleep_for(hours::min()) == -EINVAL);
  /* Exact for any period within range: std::chrono's cast multiplied the
   * count by the factor first and wrapped long before the result did (a
   * 4.8-year RTC-tick duration came out negative, so sleep_for() refused it,
   * and its negation slept for years). */
  using rtc = std::chrono::duration<std::int64_t, std::ratio<1, 32768>>;
  using third = std::chrono::duration<std::int64_t, std::ratio<1, 3>>;
  CHECK(utim::ceil_ns(rtc(5'000'000'000'000LL)).count() == 152'587'890'625'000'000LL);
  CHECK(utim::ceil_ns(-rtc(5'000'000'000'000LL)).count() == -152'587'890'625'000'000LL);
  CHECK(utim::ceil_ns(rtc(1)).count() == 30518 && utim::ceil_ns(-rtc(1)).count() == -30517);
  CHECK(utim::ceil_ns(third(20'000'000'000LL)).count() == 6'666'666'666'666'666'667LL);
  CHECK(utim::ceil_ns(-third(20'000'000'000LL)).count() == -6'666'666'666'666'666'666LL);
  /* A float count rounds up from its exact value: std::chrono::ceil
   * converted in float, whose rounding of the ns (4 ms steps at an uptime
   * of 11 hours) fell below it, so a sleep_until() of a float time point
   * returned early. */
  using fseconds = std::chrono::duration<float>;
  CHECK(utim::ceil_ns(fseconds(1.00000048f)).count() == 1'000'000'477LL);
  CHECK(utim::ceil_ns(fseconds(40000.00390625f)).count() == 40'000'003'906'250LL);
  CHECK(utim::ceil_ns(-fseconds(1.00000048f)).count() == -1'000'000'476LL);
  /* NaN: min(), refused by sleep_for() (it converted NaN to an integer: UB). */
  const std::chrono::duration<double> nan(std::numeric_limits<double>::quiet_NaN());
  CHECK(utim::ceil_ns(nan) == utim::clock::duration::min());
  CHECK(utim::sleep_for(nan) == -EINVAL);
}

/* ceil_ns() stays usable in constant expressions. */
static_assert(utim::ceil_ns(std::chrono::milliseconds(1)) == std::chrono::milliseconds(1));
static_assert(utim::ceil_ns(std::chrono::duration<std::int64_t, std::ratio<1, 32768>>(1)) ==
              std::chrono::nanoseconds(30518));

void test_ticks() {
  CHECK(utim::to_ticks(1ms, 1000000u) == 1000u);
  CHECK(utim::to_ticks(1ns, 1000000u) == 1u); /* rounded up */
  CHECK(utim::to_ticks(std::chrono::seconds(3), 32768u) == std::uint64_t{3u} * 32768u);
  CHECK(utim::to_ticks(std::chrono::duration<double>(0.5), 10u) == 5u);
  CHECK(utim::to_ticks(-1ms, 1000u) == 0u);
  CHECK(utim::from_ticks<std::chrono::microseconds>(1500u, 1000000u) == 1500us);
  CHECK(utim::from_ticks(3u, 1000u) == 3ms);
  CHECK(utim::from_ticks<std::chrono::milliseconds>(1u, 3u) == 333ms); /* rounded down */
}

/* Durations beyond int64 nanoseconds (~292 years) convert in their own
 * units, exactly, rounded up; what does not fit in 64 bits saturates, never
 * wraps. Ticks beyond the duration's range saturate to its max, never
 * negative. */
void test_ticks_range() {
  using std::chrono::seconds;
  using years = std::chrono::duration<std::int64_t, std::ratio<31556952>>;
  using third = std::chrono::duration<std::int64_t, std::ratio<1, 3>>;
  using seven_thirds = std::chrono::duration<std::int64_t, std::ratio<7, 3>>;
  using seconds32 = std::chrono::duration<std::int32_t>;
  using fseconds = std::chrono::duration<double>;
  CHECK(utim::to_ticks(seconds(10'000'000'000LL), 1000000u) == 10'000'000'000'000'000ull);
  CHECK(utim::to_ticks(years(1000), 1u) == 31'556'952'000ull);
  CHECK(utim::to_ticks(seconds::max(), 1000000u) == UINT64_MAX);
  CHECK(utim::to_ticks(seconds::max(), 1u) == static_cast<std::uint64_t>(INT64_MAX));
  CHECK(utim::to_ticks(std::chrono::nanoseconds::max(), 1000000000u) ==
        static_cast<std::uint64_t>(INT64_MAX));
  CHECK(utim::to_ticks(std::chrono::nanoseconds::max(), 1000000u) ==
        static_cast<std::uint64_t>(INT64_MAX) / 1000u + 1u); /* rounded up */
  CHECK(utim::to_ticks(fseconds(1e12), 1000000000u) == UINT64_MAX);
  /* Exact where nanoseconds would not be: 1 / 3 s at 3 Hz is one tick. */
  CHECK(utim::to_ticks(third(1), 3u) == 1u);
  CHECK(utim::to_ticks(third(1), 4u) == 2u);
  CHECK(utim::to_ticks(seven_thirds(INT64_MAX), 3u) == UINT64_MAX); /* 7 * (2^63 - 1) ticks */
  CHECK(utim::to_ticks(seven_thirds(INT64_MAX / 4), 3u) ==
        7u * static_cast<std::uint64_t>(INT64_MAX / 4));
  CHECK(utim::to_ticks(1ms, 0u) == 0u);
  /* from_ticks: positive and exact beyond 2^63 ns, or saturated. */
  CHECK(utim::from_ticks<seconds>(10'000'000'000ull, 1u) == seconds(10'000'000'000LL));
  CHECK(utim::from_ticks(10'000'000'000ull, 1u) == std::chrono::nanoseconds::max());
  CHECK(utim::from_ticks(UINT64_MAX, 1000u) == std::chrono::nanoseconds::max());
  CHECK(utim::from_ticks<seconds>(UINT64_MAX, 1u) == seconds::max());
  CHECK(utim::from_ticks<seconds32>(1ull << 31, 1u) == seconds32::max());
  CHECK(utim::from_ticks<seconds32>((1ull << 31) - 1u, 1u).count() == INT32_MAX);
  CHECK(utim::from_ticks<years>(UINT64_MAX, 1u) == years(584554049253LL)); /* rounded down */
  CHECK(utim::from_ticks<seven_thirds>(7u, 3u).count() == 1);              /* 7/3 s */
  CHECK(utim::from_ticks<seven_thirds>(6u, 3u).count() == 0);              /* rounded down */
  CHECK(utim::from_ticks(UINT64_MAX, 2'000'000'000u) ==
        std::chrono::nanoseconds(static_cast<std::int64_t>(UINT64_MAX / 2u)));
  CHECK(utim::from_ticks(5u, 0u) == std::chrono::nanoseconds::max());
  CHECK(utim::from_ticks<fseconds>(3u, 2u).count() == 1.5);
  /* Round trips stay never early: to_ticks covers, from_ticks does not exceed. */
  for (std::uint64_t hz : {1u, 3u, 32768u, 1000000u, 1000000000u, 3000000000u}) {
    for (std::int64_t s : {1LL, 7LL, 1'000'000LL, 10'000'000'000LL}) {
      const std::uint64_t t = utim::to_ticks(seconds(s), hz);
      if (hz > UINT64_MAX / static_cast<std::uint64_t>(s)) {
        CHECK(t == UINT64_MAX); /* 3 x 10^19 ticks: saturated */
        continue;
      }
      CHECK(utim::from_ticks<seconds>(t, hz) == seconds(s));
      CHECK(utim::from_ticks<seconds>(t - 1u, hz) < seconds(s));
    }
  }
}

void test_instance() {
  {
    utim::instance a("NATIVE_ALARM");
    CHECK(a.ok());
    utim::instance b("NATIVE_ALARM");
    CHECK(!b.ok() && b.error() == -EBUSY);
    CHECK(b.init(1000u) == -EBUSY); /* refused without the claim */
  }
  utim::instance c("NATIVE_ALARM"); /* released when a went out of scope */
  CHECK(c.ok());
  utim::instance none("NO_SUCH_TIMER");
  CHECK(!none.ok() && none.error() == -EINVAL);
  /* No instance (a null pointer inside): every operation refused, the
   * counter and the frequency read as 0. */
  CHECK(none.read() == 0u && none.hz() == 0u);
  CHECK(none.init(1000u) == -EINVAL && none.set_in(0u, 1ms) == -EINVAL);
}

std::atomic<int> g_calls{0};

void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_calls++;
}

void test_instance_ops() {
  utim::instance t("NATIVE_ALARM");
  uint32_t hz = 0;
  CHECK(utim_closest_freq(t.get(), 1000000u, UTIM_CLOCK_DEFAULT, &hz) == 0);
  CHECK(t.init(hz) == 0 && t.start() == 0 && t.hz() == hz);
  g_calls = 0;
  CHECK(t.on_compare(on_compare, nullptr) == 0);
  CHECK(t.set_in(0u, 2ms) == 0);
  CHECK(wait_until([] { return g_calls >= 1; }));
  (void)utim::sleep_for(5ms);
  CHECK(g_calls == 1);
  (void)t.on_compare(nullptr, nullptr);
}

/* An owner's end disarms what it armed: a periodic channel left armed (its
 * counter only stopped) resumed, with the dead owner's callback and
 * argument, when the next owner started the counter; on a counter that
 * cannot be stopped it never even paused. */
void test_instance_end() {
  uint32_t hz = 0;
  {
    utim::instance t("NATIVE_ALARM");
    CHECK(utim_closest_freq(t.get(), 1000000u, UTIM_CLOCK_DEFAULT, &hz) == 0);
    CHECK(t.init(hz) == 0 && t.start() == 0);
    CHECK(t.on_compare(on_compare, nullptr) == 0 && t.set_every(0u, 1ms) == 0);
    CHECK(wait_until([] { return g_calls >= 1; }));
  }
  (void)utim::sleep_for(5ms); /* a delivery already under way at the end ends too */
  g_calls = 0;
  utim::instance next("NATIVE_ALARM");
  CHECK(next.ok() && next.hz() == hz && next.start() == 0); /* still initialised: no init */
  (void)utim::sleep_for(10ms);
  CHECK(g_calls == 0);
}

void test_tm_timer() {
  utim::instance alarm("NATIVE_ALARM");
  uint32_t hz = 0;
  if (!alarm.ok() || utim_closest_freq(alarm.get(), 1000000u, UTIM_CLOCK_DEFAULT, &hz) != 0 ||
      alarm.init(hz) != 0 || alarm.start() != 0) {
    CHECK(!"NATIVE_ALARM starts");
    return;
  }
  utim_tm_t tm{};
  std::atomic<int> n{0};
  {
    /* A manager that is not running (its init refused): start() answers
     * utim_tm_start()'s -EINVAL (it read the frequency of the manager's
     * instance first, through a NULL pointer). */
    CHECK(utim_tm_init(&tm, alarm.get(), utim_channels(alarm.get()), UTIM_TM_TICKLESS, 0u) ==
          -EINVAL);
    utim::tm_timer idle(tm, [&n] { n++; });
    CHECK(idle.start(1ms) == -EINVAL);
  }
  CHECK(utim_tm_init(&tm, alarm.get(), 0u, UTIM_TM_TICKLESS, 0u) == 0);
  {
    utim::tm_timer t(tm, [&n] { n++; }); /* the callable's type deduced */
    /* pending() checked on a setting far enough ahead that no scheduling
     * delay (a loaded CI machine) lets it expire first; the restart then
     * replaces it. */
    CHECK(t.start(1s) == 0);
    CHECK(t.pending());
    CHECK(t.start(3ms) == 0);
    CHECK(wait_until([&n] { return n >= 1; }));
    (void)utim::sleep_for(5ms);
    CHECK(n == 1);
    CHECK(!t.pending());
    CHECK(t.start(1ms, 2ms) == 0); /* periodic */
    CHECK(wait_until([&n] { return n >= 3; }));
    CHECK(t.stop() == 1); /* it was pending */
    const int k = n;
    CHECK(k >= 3);
    (void)utim::sleep_for(6ms);
    CHECK(n == k); /* nothing after the stop */
  }
  {
    /* Far enough ahead that no scheduling delay (TSan, a loaded machine)
     * lets it expire before the scope ends. */
    utim::tm_timer gone(tm, [&n] { n += 1000; });
    CHECK(gone.start(200ms) == 0);
  } /* out of scope: stopped */
  (void)utim::sleep_for(250ms);
  CHECK(n < 1000);
  {
    /* 10^10 s (10^16 ticks at 1 MHz, within the manager's 2^62): pending,
     * not due; beyond the manager's range: refused, never wrapped to 0. */
    utim::tm_timer far(tm, [&n] { n += 1000000; });
    const int before = n;
    const std::uint64_t ticks = utim::to_ticks(std::chrono::seconds(10'000'000'000LL), hz);
    CHECK(ticks > 0u && ticks <= (1ull << 62));
    CHECK(far.start(std::chrono::seconds(10'000'000'000LL)) == 0);
    (void)utim::sleep_for(5ms);
    CHECK(far.pending() && n == before);
    CHECK(far.stop() == 1);
    CHECK(far.start(std::chrono::hours::max()) == -EINVAL);
    CHECK(far.start(1ms, std::chrono::hours::max()) == -EINVAL);
    /* A negative period is refused, not run once (to_ticks() made it 0). */
    CHECK(far.start(1ms, -2ms) == -EINVAL);
    (void)utim::sleep_for(5ms);
    CHECK(!far.pending() && n == before);
  }
  CHECK(utim_tm_deinit(&tm) == 0);
}

} // namespace

int main() {
  native_board_init();
  std::printf("TAP version 13\n");
  test_clock();
  test_sleep();
  test_ticks();
  test_ticks_range();
  test_instance();
  test_instance_ops();
  test_instance_end();
  test_tm_timer();
  std::printf("1..%d\n%d passed, %d failed\n", g_passed + g_failed, g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
