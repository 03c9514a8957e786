/**
 * @file bench_host.h
 * @brief Internal interfaces of the utim-bench host CLI.
 */
#ifndef UTIM_BENCH_HOST_H
#define UTIM_BENCH_HOST_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "utim_native_hw.h" /* utim_native_clock_ns(): one clock_gettime-to-ns */

#include "bench_opts.h"
#include "bench_output.h"
#include "bench_riot.h"
#include "utim_bench.h"

/** @brief A subcommand: `utim-bench <name> ...`. */
typedef struct bench_cmd {
  const char *name;                  /**< command word */
  const char *summary;               /**< one line for `utim-bench --help` */
  int (*run)(int argc, char **argv); /**< argv[0] is the command word */
} bench_cmd_t;

/** @brief `utim-bench ops` (in the sim-board helper program, see bench/CMakeLists.txt). */
int bench_cmd_ops(int argc, char **argv);

/** @brief `utim-bench tm`: the time manager (in the sim-board helper program). */
int bench_cmd_tm(int argc, char **argv);

/** @brief `utim-bench timeout --board sim`: the timeout matrix in virtual time (timeout_sim.c). */
int bench_cmd_timeout_sim(int argc, char **argv);

/** @brief `utim-bench stress`: the randomized timer stress benchmark (cmd_stress.c). */
int bench_cmd_stress(int argc, char **argv);

/**
 * @brief `utim-bench ops` and `utim-bench tm` in the native program: runs
 *        the helper program BENCH_OPS_HELPER (next to this executable) with
 *        the same arguments.
 * @return only when the helper cannot be started: 1, with a message
 */
int bench_cmd_helper_exec(int argc, char **argv);

/** @brief `utim-bench clock`: cost of reading time, time source, drift. */
int bench_cmd_clock(int argc, char **argv);

/** @brief `utim-bench sleep`: sleep accuracy against CPU cost. */
int bench_cmd_sleep(int argc, char **argv);

/** @brief `utim-bench timeout`: callback latency of the native alarm, and cyclictest. */
int bench_cmd_timeout(int argc, char **argv);

/** @brief File name of the program that holds `ops`, `tm` and the sim board. */
#define BENCH_OPS_HELPER "utim-bench-ops"

/** @brief Turn progress messages on when stderr is a terminal (call once per command). */
void bench_progress_init(void);

/** @brief Replace the progress line on stderr (only when bench_progress_init() found a terminal).
 */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** @brief Clear the progress line. */
void bench_progress_done(void);

/**
 * @brief Find an executable @p name in PATH.
 * @param[out] path its full path
 * @return true when found
 */
bool bench_find_program(const char *name, char *path, size_t cap);

/** @brief Machine description printed with every result. */
struct bench_machine {
  char cpu[128];      /**< CPU model name */
  char arch[32];      /**< machine architecture (uname) */
  char compiler[64];  /**< compiler that built utim-bench */
  char build[32];     /**< CMake build type */
  bool tsc;           /**< a time stamp counter is read (x86-64 rdtsc) */
  bool tsc_invariant; /**< /proc/cpuinfo lists constant_tsc and nonstop_tsc */
  double tsc_hz;      /**< calibrated TSC frequency, 0 without a TSC */
};
/** @brief Machine description printed with every result. */
typedef struct bench_machine bench_machine_t;

/** @brief Fill @p m; calibrates the TSC against CLOCK_MONOTONIC (about 50 ms). */
void bench_machine_probe(bench_machine_t *m);

/** @brief Time stamp: t[0] CLOCK_MONOTONIC ns, t[1] TSC ticks (0 without a TSC). */
void bench_host_stamp(bench_stamp_t *out);

/**
 * @brief Write the members of the "machine" object of @p m (cpu, arch,
 *        compiler, build, tsc, tsc_invariant, tsc_hz).
 * @param w the JSON writer, inside the "machine" object
 * @param m the machine
 */
void bench_jw_machine(bench_jw_t *w, const bench_machine_t *m);

/**
 * @brief Print the machine lines of a table header (cpu, tsc, compiler).
 * @param f where to print
 * @param m the machine
 */
void bench_print_machine(FILE *f, const bench_machine_t *m);

/** @brief Summary statistics of a sample. */
typedef struct bench_stats {
  size_t n;      /**< samples */
  double min;    /**< smallest */
  double max;    /**< largest */
  double mean;   /**< arithmetic mean */
  double median; /**< middle value (mean of the two middle ones for even n) */
  double p99;    /**< 99th percentile (nearest rank) */
  double stddev; /**< standard deviation (population, divides by n) */
} bench_stats_t;

/**
 * @brief Statistics of @p v[0..n); sorts @p v in place. All fields are 0
 *        when @p n is 0.
 */
void bench_stats(double *v, size_t n, bench_stats_t *out);

/**
 * @brief A zeroed buffer for the largest of @p n per-row sample counts,
 *        reused row after row; free() it. NULL when out of memory.
 */
double *bench_sample_buffer(const unsigned long *samples, unsigned n);

/**
 * @brief Write the common row members "median", "mean", "p99", "max",
 *        "min", "stddev" (null when @p s is empty) and "n" of @p s.
 * @param w the JSON writer, inside a row object
 * @param s the statistics
 */
void bench_jw_stats(bench_jw_t *w, const bench_stats_t *s);

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
 * @param toggle   callgrind --toggle-collect pattern; up to 4, comma-separated
 *                 (a second one matching functions called from the first's
 *                 toggles collection off for them: a hardware model's code)
 * @param names    function names to report
 * @param n        number of names
 * @param[out] incl inclusive Ir of each name (sum over clones "name.*")
 * @param err      message buffer on failure
 * @return 0 on success, -1 with @p err filled
 */
int bench_callgrind(const char *valgrind, char *const *args, const char *toggle,
                    const char *const *names, size_t n, uint64_t *incl, char *err, size_t errcap);

/**
 * @brief As bench_callgrind(), running the program @p exe (NULL: this
 *        program) under callgrind with @p args.
 */
int bench_callgrind_exe(const char *valgrind, const char *exe, char *const *args,
                        const char *toggle, const char *const *names, size_t n, uint64_t *incl,
                        char *err, size_t errcap);

/** @brief Signal dispositions replaced while a child program runs (bench_child_guard()). */
typedef struct bench_child_guard {
  struct sigaction old[3]; /**< SIGINT, SIGTERM, SIGHUP as they were */
  bool set[3];             /**< replaced (a signal ignored before stays ignored) */
} bench_child_guard_t;

/**
 * @brief Call before fork()ing a child program (valgrind, cyclictest): a
 *        SIGINT, SIGTERM or SIGHUP that arrives until bench_child_unguard()
 *        is passed on to the child (a `kill` of this program alone would
 *        leave it running) and acted on once the child has been reaped.
 * @param[out] g the dispositions to put back
 */
void bench_child_guard(bench_child_guard_t *g);

/**
 * @brief Wait for child @p pid, through interruptions.
 * @param pid        the child
 * @param[out] status its wait status
 * @return 0, or the signal that arrived since bench_child_guard(): the
 *         caller removes its temporary files, then calls bench_child_unguard()
 */
int bench_child_wait(pid_t pid, int *status);

/**
 * @brief Put back the dispositions bench_child_guard() replaced; a signal that
 *        arrived meanwhile is delivered now (by default it ends the program,
 *        with the status it would have had).
 * @param g what bench_child_guard() saved
 */
void bench_child_unguard(bench_child_guard_t *g);

/**
 * @brief The path of the helper program BENCH_OPS_HELPER, next to this
 *        executable, into @p buf.
 * @return 0, or -1 with @p err filled
 */
int bench_helper_path(char *buf, size_t cap, char *err, size_t errcap);

/**
 * @brief The `ops` rows of RIOT's periph_timer shim (utim/riot_timer.h) on
 *        the sim board's SIM_TIMER16 (the board's instance, by device
 *        number): timer_read(), timer_set_absolute(), timer_clear(), the
 *        uTimer paper's periph_timer against the uAPI on the same timer.
 */
extern const bench_case_t bench_riot_sim_cases[BENCH_RIOT_NCASES];

/**
 * @brief Initialise SIM_TIMER16 through the shim (timer_init()) at @p hz,
 *        after bench_ops_prepare(&bench_ops_sim, hz).
 * @return 0, or -1 (no such device, or timer_init() refused)
 */
int bench_riot_sim_prepare(uint32_t hz);

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
