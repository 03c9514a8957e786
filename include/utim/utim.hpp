/**
 * @file utim.hpp
 * @brief utim for C++17 (header-only): a std::chrono clock on utim's time
 *        line, the precise sleep for chrono durations and time points,
 *        tick conversions through std::chrono, and RAII owners of a timer
 *        instance and of a time-manager timer.
 *
 * Units are types: every time goes in and out as a std::chrono::duration or
 * a utim::clock::time_point, so a bare integer (whose unit nobody knows) or a
 * time point of another clock (std::chrono::system_clock) does not compile
 * where utim expects one of utim's. Counter ticks stay integers, converted
 * only through to_ticks() / from_ticks() with the counter's frequency.
 *
 * @code
 *   using namespace std::chrono_literals;
 *   auto next = utim::clock::now();
 *   for (;;) {
 *     next += 1ms;                  // an absolute grid: no drift
 *     utim::sleep_until(next);      // precise: kernel sleep, then a short spin
 *   }
 * @endcode
 */
#ifndef UTIM_UTIM_HPP
#define UTIM_UTIM_HPP

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <ratio>
#include <type_traits>
#include <utility>

#include "utim/port.h"
#include "utim/time.h"
#include "utim/tm.h"
#include "utim/utim.h"

namespace utim {

/**
 * @brief The Clock (std::chrono requirements) of utim's time line:
 *        utim_port_now_ns(), utim_now() on Linux (the calibrated CPU
 *        counter or the clock utim chose), the board's time line on an MCU.
 *        Steady: never goes back.
 */
struct clock {
  using rep = std::int64_t;                                    /**< nanoseconds */
  using period = std::nano;                                    /**< 1 ns */
  using duration = std::chrono::duration<rep, period>;         /**< clock::duration */
  using time_point = std::chrono::time_point<clock, duration>; /**< clock::time_point */
  static constexpr bool is_steady = true;                      /**< it never goes back */

  /** @brief The time now on utim's time line. */
  static time_point now() noexcept { return time_point(duration(utim_port_now_ns())); }
};

/** @brief Implementation of the conversions: not an interface of its own. */
namespace detail {

/**
 * @brief @p m x @p F (a period's factor to nanoseconds, reduced), rounded
 *        up when @p up, else down; exact, for a result below 2^63 (the
 *        caller's check). std::chrono's own cast multiplies the count by
 *        F::num first, which overflows int64 long before the result does
 *        (a count of 1/32768 s beyond 4.7 x 10^12, of 1/3 s beyond 9.2 x 10^9).
 *
 * With m = a x F::den + b (b < F::den): a x F::num + (b x F::num) / F::den.
 */
template <class F> constexpr std::uint64_t scale_ns(std::uint64_t m, bool up) noexcept {
  constexpr std::uint64_t n = static_cast<std::uint64_t>(F::num);
  constexpr std::uint64_t e = static_cast<std::uint64_t>(F::den);
  const std::uint64_t a = m / e;
  const std::uint64_t b = m % e;
  std::uint64_t q = 0;
  if constexpr (n <= UINT64_MAX / e) {
    q = b * n / e; /* constexpr for every ordinary period */
  } else {
    (void)utim_muldiv(b, n, e, UTIM_ROUND_FLOOR, &q); /* < n: fits */
  }
  const std::uint64_t r = b * n - q * e; /* exact modulo 2^64, and r < e */
  return a * n + q + (up && r != 0u ? 1u : 0u);
}

} // namespace detail

/**
 * @brief A duration rounded up to whole nanoseconds (a sleep never ends
 *        early), exact for any period, saturated: beyond 9.2 x 10^18 ns
 *        (about 291 years) either way it is clock::duration::max() or min(),
 *        never a wrapped value. A floating-point NaN is min() (sleep_for()
 *        refuses it with -EINVAL).
 */
template <class Rep, class Period>
constexpr clock::duration ceil_ns(const std::chrono::duration<Rep, Period> &d) {
  /* Judged in long double ns first (no overflow; the margin below 2^63
   * covers its rounding where it is only a double). */
  constexpr long double lim = 9.2e18L;
  const long double ns = std::chrono::duration<long double, std::nano>(d).count();
  if (ns >= lim) {
    return clock::duration::max();
  }
  if (ns <= -lim || ns != ns) {
    return clock::duration::min();
  }
  if constexpr (std::is_floating_point_v<Rep>) {
    /* Rounded up from the long double ns (exact for a float count: 24 bits
     * times the factor), not with std::chrono::ceil, which converts in Rep:
     * a float's rounding of the ns (a 4 ms step at an uptime of 11 hours)
     * came out below the time point, and the sleep ended early. */
    const clock::rep t = static_cast<clock::rep>(ns);
    return clock::duration(static_cast<long double>(t) < ns ? t + 1 : t);
  } else {
    static_assert(std::is_integral_v<Rep> && std::numeric_limits<Rep>::digits <= 64,
                  "an integer count of at most 64 bits");
    using F = std::ratio_divide<Period, std::nano>;
    if constexpr (std::is_signed_v<Rep>) {
      if (d.count() < Rep(0)) { /* ceil(-x) = -floor(x) */
        const std::uint64_t m = std::uint64_t{0} - static_cast<std::uint64_t>(d.count());
        return clock::duration(-static_cast<clock::rep>(detail::scale_ns<F>(m, false)));
      }
    }
    return clock::duration(
        static_cast<clock::rep>(detail::scale_ns<F>(static_cast<std::uint64_t>(d.count()), true)));
  }
}

/**
 * @brief Sleep until @p t with utim's precise sleep (utim_sleep_until()):
 *        returns at or after @p t, a short spin after a kernel sleep.
 *        Only utim::clock time points: another clock's does not compile.
 * @return 0, or the negative errno of utim_sleep_until()
 */
template <class Duration> int sleep_until(const std::chrono::time_point<clock, Duration> &t) {
  return utim_sleep_until(ceil_ns(t.time_since_epoch()).count());
}

/**
 * @brief Sleep for @p d (rounded up to whole ns) with utim's precise sleep.
 *        Only std::chrono durations: a bare number does not compile.
 * @return 0, or the negative errno of utim_sleep_for() (-EINVAL for d < 0)
 */
template <class Rep, class Period> int sleep_for(const std::chrono::duration<Rep, Period> &d) {
  /* Judged before the rounding up: -1 ps is 0 ns rounded up. */
  if (d < d.zero()) {
    return -EINVAL;
  }
  return utim_sleep_for(ceil_ns(d).count());
}

namespace detail {

/**
 * @brief @p a * @p b / @p c (@p c > 0) into @p out with utim_muldiv()'s
 *        exact 128-bit intermediate, rounded by @p r.
 * @return false when the result does not fit in 64 bits
 */
inline bool muldiv(std::uint64_t a, std::uint64_t b, std::uint64_t c, utim_round_t r,
                   std::uint64_t &out) noexcept {
  return utim_muldiv(a, b, c, r, &out) == 0;
}

/**
 * @brief A duration's period as unsigned factors (std::ratio keeps them
 *        reduced, a duration's period is positive; both <= INTMAX_MAX).
 */
template <class Period> struct period_u64 {
  static_assert(Period::num > 0 && Period::den > 0, "a duration's period is positive");
  static constexpr std::uint64_t num = static_cast<std::uint64_t>(Period::num); /**< numerator */
  static constexpr std::uint64_t den = static_cast<std::uint64_t>(Period::den); /**< denominator */
};

/**
 * @brief ceil(@p count * @p num * @p hz / @p den) for @p count, @p hz > 0,
 *        exact; UINT64_MAX when it does not fit.
 *
 * With g = gcd(hz, den), hz = g * h and den = g * e, and count * num =
 * q * e + r (r < e): the ticks are q * h + ceil(r * h / e), each product
 * within 64 bits or saturated.
 */
inline std::uint64_t ticks_ceil(std::uint64_t count, std::uint64_t num, std::uint64_t den,
                                std::uint64_t hz) noexcept {
  const std::uint64_t g = std::gcd(hz, den);
  const std::uint64_t h = hz / g;
  const std::uint64_t e = den / g;
  std::uint64_t q = 0;
  std::uint64_t whole = 0;
  std::uint64_t part = 0;
  if (!muldiv(count, num, e, UTIM_ROUND_FLOOR, q) || !muldiv(q, h, 1u, UTIM_ROUND_FLOOR, whole)) {
    return UINT64_MAX;
  }
  const std::uint64_t r = count * num - q * e;  /* exact modulo 2^64, and r < e */
  (void)muldiv(r, h, e, UTIM_ROUND_CEIL, part); /* <= h: fits */
  return whole > UINT64_MAX - part ? UINT64_MAX : whole + part;
}

/**
 * @brief floor(@p ticks * @p den / (@p hz * @p num)) for @p hz > 0, exact;
 *        UINT64_MAX when it does not fit.
 *
 * With g = gcd(hz, den), hz = g * h, den = g * e, ticks = a * h + b (b < h)
 * and a * e = q * num + r (r < num): the count is
 * q + floor((r + floor(b * e / h)) / num), every term within 64 bits (num
 * and den are at most INTMAX_MAX).
 */
inline std::uint64_t count_floor(std::uint64_t ticks, std::uint64_t num, std::uint64_t den,
                                 std::uint64_t hz) noexcept {
  if (hz == 0u) {
    return UINT64_MAX; /* from_ticks()'s answer; the divisor h below is then nonzero */
  }
  const std::uint64_t g = std::gcd(hz, den);
  const std::uint64_t h = hz / g;
  const std::uint64_t e = den / g;
  const std::uint64_t a = ticks / h;
  const std::uint64_t b = ticks % h;
  std::uint64_t q = 0;
  std::uint64_t f = 0;
  if (!muldiv(a, e, num, UTIM_ROUND_FLOOR, q)) {
    return UINT64_MAX;
  }
  const std::uint64_t r = a * e - q * num;    /* exact modulo 2^64, and r < num */
  (void)muldiv(b, e, h, UTIM_ROUND_FLOOR, f); /* < e: fits */
  const std::uint64_t more = (r + f) / num;   /* r < num, f < den: each < 2^63 */
  return q > UINT64_MAX - more ? UINT64_MAX : q + more;
}

} // namespace detail

/**
 * @brief Counter ticks at @p hz covering at least @p d: ceil(d x @p hz),
 *        exact in @p d's own units (no intermediate in nanoseconds, so any
 *        duration converts); never early.
 * @return the ticks; 0 for @p d <= 0 or @p hz 0; UINT64_MAX when they do
 *         not fit in 64 bits (saturated, never wrapped: the uAPI and the
 *         time manager refuse that many with -ERANGE / -EINVAL). A
 *         floating-point @p d is converted in long double, rounded up.
 */
template <class Rep, class Period>
std::uint64_t to_ticks(const std::chrono::duration<Rep, Period> &d, std::uint64_t hz) {
  using P = detail::period_u64<Period>;
  if (!(d.count() > Rep(0)) || hz == 0u) {
    return 0u;
  }
  if constexpr (std::is_floating_point_v<Rep>) {
    const long double t =
        std::ceil(static_cast<long double>(d.count()) * static_cast<long double>(P::num) *
                  static_cast<long double>(hz) / static_cast<long double>(P::den));
    return t >= 18446744073709551616.0L ? UINT64_MAX : static_cast<std::uint64_t>(t);
  } else {
    static_assert(std::is_integral_v<Rep> && std::numeric_limits<Rep>::digits <= 64,
                  "an integer count of at most 64 bits");
    return detail::ticks_ceil(static_cast<std::uint64_t>(d.count()), P::num, P::den, hz);
  }
}

/**
 * @brief The time @p ticks counter ticks at @p hz last: @p ticks / @p hz
 *        seconds in @p Duration's units, rounded down, exact (no
 *        intermediate in nanoseconds).
 * @return the duration, rounded down (a measured time is never reported
 *         longer than it was); Duration::max() when it does not fit in
 *         @p Duration or @p hz is 0 (saturated, never negative). A
 *         floating-point @p Duration is computed in long double.
 */
template <class Duration = clock::duration>
Duration from_ticks(std::uint64_t ticks, std::uint64_t hz) {
  using Rep = typename Duration::rep;
  using P = detail::period_u64<typename Duration::period>;
  if (hz == 0u) {
    return Duration::max();
  }
  if constexpr (std::is_floating_point_v<Rep>) {
    return Duration(
        static_cast<Rep>(static_cast<long double>(ticks) * static_cast<long double>(P::den) /
                         (static_cast<long double>(hz) * static_cast<long double>(P::num))));
  } else {
    static_assert(std::is_integral_v<Rep> && std::numeric_limits<Rep>::digits <= 64,
                  "an integer count of at most 64 bits");
    const std::uint64_t n = detail::count_floor(ticks, P::num, P::den, hz);
    return n > static_cast<std::uint64_t>(std::numeric_limits<Rep>::max())
               ? Duration::max()
               : Duration(static_cast<Rep>(n));
  }
}

/**
 * @brief A claimed timer instance (utim_claim() / utim_release()): while it
 *        lives no other owner can claim the instance. Neither copied nor
 *        moved (its address is the claim's owner). Its
 *        operations are the uAPI's, with chrono durations where a time is
 *        meant and ticks where a counter value is. Each returns what its C
 *        function returns; without the claim (!ok()) each returns error()
 *        instead (-EBUSY: another owner has the instance; -EINVAL: no
 *        instance) and leaves the instance alone.
 */
class instance {
public:
  /** @brief Claim @p p; ok() says whether it worked, error() why not. */
  explicit instance(const utim_periph_t *p) noexcept
      : p_(p), err_(p != nullptr ? utim_claim(p, this) : -EINVAL) {}
  /** @brief Claim the instance named @p name (utim_by_name()). */
  explicit instance(const char *name) noexcept : instance(utim_by_name(name)) {}
  /* The claim's owner is this object's address: neither copied nor moved. */
  instance(const instance &) = delete;
  instance &operator=(const instance &) = delete;
  /**
   * @brief Stop the counter, disarm its channels and drop the compare
   *        callback (on_compare()), then release the claim: no callback set
   *        through this owner runs afterwards, also on a counter that cannot
   *        be stopped (no UTIM_CAP_STOP), and a next owner's start() does not
   *        resume this one's channels.
   */
  ~instance() {
    if (err_ == 0) {
      (void)utim_stop(p_);
      if (utim_freq(p_) != 0u) { /* armed only once initialised */
        for (unsigned ch = 0; ch < utim_channels(p_); ch++) {
          (void)utim_clear(p_, ch);
        }
      }
      (void)utim_set_compare_cb(p_, nullptr, nullptr);
      (void)utim_release(p_, this);
    }
  }

  /** @brief Whether the claim succeeded. */
  bool ok() const noexcept { return err_ == 0; }
  /** @brief 0, or the negative errno of the claim (-EBUSY: another owner has it). */
  int error() const noexcept { return err_; }
  /** @brief The instance. */
  const utim_periph_t *get() const noexcept { return p_; }

  /** @brief utim_init() at @p hz from the default clock. */
  int init(std::uint32_t hz) noexcept {
    return ok() ? utim_init(p_, hz, UTIM_CLOCK_DEFAULT) : err_;
  }
  /** @brief utim_start(). */
  int start() noexcept { return ok() ? utim_start(p_) : err_; }
  /** @brief utim_stop(). */
  int stop() noexcept { return ok() ? utim_stop(p_) : err_; }
  /** @brief The counter (utim_read()), in ticks; 0 without the claim (!ok()). */
  std::uint64_t read() const noexcept { return ok() ? utim_read(p_) : 0u; }
  /** @brief The frequency it counts at (utim_freq()), Hz; 0 without the claim (!ok()). */
  std::uint32_t hz() const noexcept { return ok() ? utim_freq(p_) : 0u; }
  /** @brief Arm channel @p ch for @p d from now (utim_set_rel(), rounded up to ticks). */
  template <class Rep, class Period>
  int set_in(unsigned ch, const std::chrono::duration<Rep, Period> &d) noexcept {
    return ok() ? utim_set_rel(p_, ch, to_ticks(d, hz())) : err_;
  }
  /** @brief Arm channel @p ch every @p period (utim_set_periodic(), rounded up to ticks). */
  template <class Rep, class Period>
  int set_every(unsigned ch, const std::chrono::duration<Rep, Period> &period) noexcept {
    return ok() ? utim_set_periodic(p_, ch, to_ticks(period, hz())) : err_;
  }
  /** @brief utim_clear() of channel @p ch. */
  int clear(unsigned ch) noexcept { return ok() ? utim_clear(p_, ch) : err_; }
  /** @brief utim_set_compare_cb(). */
  int on_compare(utim_cmp_cb_t cb, void *arg) noexcept {
    return ok() ? utim_set_compare_cb(p_, cb, arg) : err_;
  }

private:
  const utim_periph_t *p_;
  int err_;
};

/**
 * @brief A time-manager timer that calls @p F (a callable taking no
 *        argument, stored in the object: no heap) on each expiry, and stops
 *        when it goes out of scope, so the callback never runs on a dead
 *        object. Not copyable or movable: the manager holds its address.
 *        The manager's frequency (the instance's) converts the durations.
 *        The type is deduced: `utim::tm_timer t(tm, [&] { ... });`.
 *        The callable must not throw: an exception leaving it calls
 *        std::terminate(), since it cannot pass the manager's C frames
 *        (they hold the port lock and the manager's interrupt state).
 */
template <class F> class tm_timer {
public:
  /** @brief A stopped timer on manager @p tm calling @p f. */
  tm_timer(utim_tm_t &tm, F f) : tm_(tm), f_(std::move(f)) {
    utim_tm_timer_init(&t_, &tm_timer::trampoline, this);
  }
  tm_timer(const tm_timer &) = delete;
  tm_timer &operator=(const tm_timer &) = delete;
  /** @brief Stop it (utim_tm_stop()). */
  ~tm_timer() { (void)utim_tm_stop(&tm_, &t_); }

  /**
   * @brief Start (or restart) it to expire @p d from now, then every
   *        @p period (0: once); both rounded up to the manager's ticks
   *        (to_ticks(): exact for any duration, never wrapped).
   * @return 0, or the negative errno of utim_tm_start(): -EINVAL (nothing
   *         changed) for @p d or @p period beyond the manager's 2^62 ticks,
   *         or a negative (or NaN) @p period
   */
  template <class Rep, class Period, class Rep2 = Rep, class Period2 = Period>
  int start(const std::chrono::duration<Rep, Period> &d,
            const std::chrono::duration<Rep2, Period2> &period =
                std::chrono::duration<Rep2, Period2>::zero()) {
    /* Not running (never initialised, refused, or deinitialised): tm_.p may
     * be NULL; utim_tm_start() then refuses with -EINVAL. */
    if (!(period >= period.zero())) {
      return -EINVAL; /* to_ticks() makes it 0: once, not a period */
    }
    const std::uint64_t hz = tm_.running ? utim_freq(tm_.p) : 0u;
    return utim_tm_start(&tm_, &t_, to_ticks(d, hz), to_ticks(period, hz));
  }
  /** @brief Stop it: its callback does not run for this setting afterwards.
   *  @return 1 when it was pending, 0 when not, -EINVAL when the manager
   *          is not running (utim_tm_stop()) */
  int stop() { return utim_tm_stop(&tm_, &t_); }
  /** @brief Whether it is pending. */
  bool pending() const {
    std::uint64_t at = 0;
    return utim_tm_expiry(&tm_, &t_, &at) == 0;
  }
  /** @brief Expiries coalesced into the running callback (utim_tm_overrun()). */
  std::uint32_t overrun() const { return utim_tm_overrun(&tm_); }

private:
  /* noexcept: an exception unwound through tm.c's frames left the port
   * lock held and the manager mid-interrupt (every other thread then hung). */
  // NOLINTNEXTLINE(bugprone-exception-escape): std::terminate() here is the intent
  static void trampoline(utim_tm_t *m, utim_tm_timer_t *t, void *arg) noexcept {
    (void)m;
    (void)t;
    static_cast<tm_timer *>(arg)->f_();
  }
  utim_tm_t &tm_;
  F f_;
  utim_tm_timer_t t_{};
};

} // namespace utim

#endif /* UTIM_UTIM_HPP */
