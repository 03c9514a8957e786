/**
 * @file bench_host.h
 * @brief Internal interfaces of the utim-bench host CLI.
 */
#ifndef UTIM_BENCH_HOST_H
#define UTIM_BENCH_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "utim_bench.h"

/** @brief Program name used in messages. */
#define BENCH_PROG "utim-bench"

/** @brief Exit status of a usage error (bad command line). */
#define BENCH_EXIT_USAGE 2

/** @brief A subcommand: `utim-bench <name> ...`. */
typedef struct bench_cmd {
  const char *name;                  /**< command word */
  const char *summary;               /**< one line for `utim-bench --help` */
  int (*run)(int argc, char **argv); /**< argv[0] is the command word */
} bench_cmd_t;

/** @brief `utim-bench ops`. */
int bench_cmd_ops(int argc, char **argv);

/** @brief Print "utim-bench: <msg>; see '<help>'" to stderr and return BENCH_EXIT_USAGE. */
int bench_usage_error(const char *help_cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * @brief Parse a positive decimal integer option value.
 * @return true when @p s is a decimal number in [@p lo, @p hi]
 */
bool bench_parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out);

/** @brief Machine description printed with every result. */
typedef struct bench_machine {
  char cpu[128];      /**< CPU model name */
  char arch[32];      /**< machine architecture (uname) */
  char compiler[64];  /**< compiler that built utim-bench */
  char build[32];     /**< CMake build type */
  bool tsc;           /**< a time stamp counter is read (x86-64 rdtsc) */
  bool tsc_invariant; /**< /proc/cpuinfo lists constant_tsc and nonstop_tsc */
  double tsc_hz;      /**< calibrated TSC frequency, 0 without a TSC */
} bench_machine_t;

/** @brief Fill @p m; calibrates the TSC against CLOCK_MONOTONIC (about 50 ms). */
void bench_machine_probe(bench_machine_t *m);

/** @brief Time stamp: t[0] CLOCK_MONOTONIC ns, t[1] TSC ticks (0 without a TSC). */
void bench_host_stamp(bench_stamp_t *out);

/** @brief Write @p s as a JSON string literal (with quotes). */
void bench_json_string(FILE *f, const char *s);

/**
 * @brief Find valgrind in PATH.
 * @param[out] path full path to the valgrind executable
 * @return true when found and executable
 */
bool bench_find_valgrind(char *path, size_t cap);

/**
 * @brief Run this program under callgrind with @p args (NULL-terminated,
 *        arguments after the program path), collecting only functions that
 *        match @p toggle, and read back the inclusive instruction counts.
 * @param valgrind path of valgrind
 * @param args     arguments given to this program in the child
 * @param toggle   callgrind --toggle-collect pattern
 * @param names    function names to report
 * @param n        number of names
 * @param[out] incl inclusive Ir of each name (sum over clones "name.*")
 * @param err      message buffer on failure
 * @return 0 on success, -1 with @p err filled
 */
int bench_callgrind(const char *valgrind, char *const *args, const char *toggle,
                    const char *const *names, size_t n, uint64_t *incl, char *err, size_t errcap);

/** @brief The `ops` cases of the sim board's SIM_TIMER16 instance. */
extern const bench_ops_set_t bench_ops_sim;

/**
 * @brief Initialise the simulated machine for the sim cases: sim_board_init(),
 *        access cost 0, find SIM_TIMER16 and check the compile-time mirror
 *        against it.
 * @return 0, or -1 with @p err filled
 */
int bench_sim_setup(char *err, size_t errcap);

/** @brief Virtual time each simulated register access costs during the runs, ns. */
#define BENCH_SIM_ACCESS_COST_NS 0u

#endif /* UTIM_BENCH_HOST_H */
