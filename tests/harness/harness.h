/**
 * @file harness.h
 * @brief Tiny test harness for utim test suites, on the host and on targets.
 *
 * Freestanding: no heap, no libc output. Every character goes through one
 * output hook (th_set_putc()), so an MCU port routes it to a UART and the host
 * to stdio (th_stdio_putc()). Output is TAP:
 *
 *     ok 1 - name
 *     not ok 2 - name # file.c:42: detail
 *     ok 3 - name # SKIP reason
 *     1..3
 *     1 passed, 1 failed, 1 skipped
 *
 * Failed checks are also printed as TAP diagnostics ("# ...") with their
 * file:line, the expression, the values involved and the current context
 * (th_context()), e.g. the instance name and channel. The closing line is
 * exactly "N passed, N failed", followed by ", N skipped" when tests were
 * skipped. th_finish() returns non-zero when any test failed.
 */
#ifndef UTIM_TEST_HARNESS_H
#define UTIM_TEST_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
/** @brief printf-style format checking where the compiler supports it. */
#define TH_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
/** @brief printf-style format checking where the compiler supports it. */
#define TH_PRINTF(fmt_index, first_arg)
#endif

/** @brief Output hook: emit one character. */
typedef void (*th_putc_t)(char c);

/** @brief A test body; @p arg is the value given to th_run(). */
typedef void (*th_test_t)(void *arg);

/** @brief Route all harness output through @p fn (NULL discards output). */
void th_set_putc(th_putc_t fn);

/** @brief Output hook writing to stdout (host builds only; see harness_stdio.c). */
void th_stdio_putc(char c);

/**
 * @brief Parse the options of a seeded randomized test, `--seed N` and
 *        `--ops N` (decimal or 0x hex), into @p seed and @p ops, which keep
 *        their defaults when not given (host builds only).
 * @param argc  main()'s argc
 * @param argv  main()'s argv
 * @param prog  the program's name for messages
 * @param seed  the seed
 * @param ops   the number of operations
 * @return 0, or 2 (the exit status for bad usage) after a message on stderr
 */
int th_seed_ops_args(int argc, char **argv, const char *prog, unsigned long long *seed,
                     unsigned long long *ops);

/**
 * @brief Function run before every test (e.g. a board reset). NULL for none.
 */
void th_set_setup(void (*fn)(void));

/**
 * @brief Formatted output through the hook. Supports %d %i %u %x %X %c %s %p %%
 *        with the length modifiers hh h l ll z j t, the flags '0' and '-'
 *        and a field width.
 */
void th_printf(const char *fmt, ...) TH_PRINTF(1, 2);

/** @brief th_printf() with a va_list. */
void th_vprintf(const char *fmt, va_list ap);

/**
 * @brief Format into @p buf (always NUL-terminated when @p cap > 0).
 * @return the length the full output would have
 */
unsigned th_snprintf(char *buf, unsigned cap, const char *fmt, ...) TH_PRINTF(3, 4);

/**
 * @brief A fixed-point value into @p buf: @p v / 10^@p decimals with
 *        @p decimals digits after the point ("-12.345" for v = -12345, 3),
 *        for firmware that prints fractions without floating point.
 * @param decimals 0 to 9
 * @return @p buf
 */
const char *th_fixed(char *buf, unsigned cap, int64_t v, unsigned decimals);

/** @brief Print a TAP diagnostic line "# ..." (a newline is added). */
void th_note(const char *fmt, ...) TH_PRINTF(1, 2);

/**
 * @brief Run one test: the setup function, then @p fn(@p arg), then print its
 *        TAP line. @p name is copied, so a temporary buffer is fine. With
 *        th_set_attempts(n), a failed test is set up and run again, up to n
 *        times in all; it passes if an attempt passes.
 */
void th_run(const char *name, th_test_t fn, void *arg);

/**
 * @brief Attempts per test (default 1, 0 means 1). For suites that run in real
 *        time on a shared host (the native board): a stall of the machine
 *        (another process, the hypervisor) fails a latency bound once, a
 *        defect fails every attempt. Each failed attempt is printed as a TAP
 *        diagnostic with its first failure, a pass on a later attempt is
 *        announced, and th_finish() counts those passes.
 */
void th_set_attempts(unsigned n);

/**
 * @brief Set the context prefixed to failure messages of the running test
 *        (e.g. "SIM_TIMER16 ch 2"); cleared when a test starts.
 */
void th_context(const char *fmt, ...) TH_PRINTF(1, 2);

/**
 * @brief Mark the running test as skipped with a reason. The test body should
 *        return right after (see TH_SKIP()). A test with failed checks stays failed.
 */
void th_skip(const char *fmt, ...) TH_PRINTF(1, 2);

/**
 * @brief Record the outcome of one check. Use the TH_* macros instead.
 * @param ok   the outcome
 * @param file source file of the check
 * @param line source line of the check
 * @param expr the checked expression as text
 * @param fmt  optional printf-style detail (NULL for none)
 * @return @p ok
 */
bool th_check(bool ok, const char *file, int line, const char *expr, const char *fmt, ...)
    TH_PRINTF(5, 6);

/** @brief Check two signed integers for equality; prints both on failure. */
bool th_check_eq_i(int64_t a, int64_t b, const char *file, int line, const char *ea,
                   const char *eb);

/** @brief Check two unsigned integers for equality; prints both (decimal and hex) on failure. */
bool th_check_eq_u(uint64_t a, uint64_t b, const char *file, int line, const char *ea,
                   const char *eb);

/** @brief Whether the running test has failed a check so far. */
bool th_test_failed(void);

/**
 * @brief Print the plan and the closing "N passed, N failed[, N skipped]" line.
 * @return 0 when no test failed, 1 otherwise (use as exit status)
 */
int th_finish(void);

/** @brief Number of tests that failed so far. */
unsigned th_failed(void);

/**
 * @brief The next number of a seeded test's random sequence (splitmix64):
 *        advances @p state, the seed at first.
 */
static inline uint64_t th_rand64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/** @brief Check a condition; evaluates to its truth value. */
#define TH_CHECK(cond) th_check(!!(cond), __FILE__, __LINE__, #cond, NULL)

/** @brief Check a condition with a printf-style detail: TH_CHECKF(c, "x=%d", x). */
#define TH_CHECKF(cond, ...) th_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

/** @brief Check signed equality (e.g. a return code against -EINVAL). */
#define TH_EQ(a, b) th_check_eq_i((int64_t)(a), (int64_t)(b), __FILE__, __LINE__, #a, #b)

/** @brief Check unsigned equality (counter values, frequencies). */
#define TH_EQU(a, b) th_check_eq_u((uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__, #a, #b)

/** @brief Skip the running test with a reason and return from the test body. */
#define TH_SKIP(...)                                                                               \
  do {                                                                                             \
    th_skip(__VA_ARGS__);                                                                          \
    return;                                                                                        \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TEST_HARNESS_H */
