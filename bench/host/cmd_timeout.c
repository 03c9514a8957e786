/**
 * @file cmd_timeout.c
 * @brief `utim-bench timeout`: callback latency of the native alarm driver
 *        (NATIVE_ALARM) for timeouts from 10 us to 1 s, beside cyclictest
 *        run with the same interval, priority and count. The command line
 *        and the order of the parts; the alarm measurement is in
 *        timeout_alarm.c, cyclictest in timeout_cyclictest.c, the output in
 *        timeout_output.c.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "timeout.h"

const int64_t bench_to_sizes_us[BENCH_TO_NSIZES] = {10, 100, 1000, 10000, 100000, 1000000};
/* About 8 s of alarm and 8 s of cyclictest by default; 1 s timeouts stay few. */
#define TO_DEFAULT_SAMPLES 2000, 2000, 1000, 200, 20, 3
#define TO_LONG_SAMPLES    20000, 10000, 5000, 1000, 100, 20
static const unsigned long default_samples[BENCH_TO_NSIZES] = {TO_DEFAULT_SAMPLES};
static const unsigned long long_samples[BENCH_TO_NSIZES] = {TO_LONG_SAMPLES};

static void to_describe(FILE *f) {
  fprintf(f,
          "Callback latency of the native alarm (NATIVE_ALARM at 1 MHz, or its fastest\n"
          "frequency where the machine offers less) for timeouts of 10 us, 100 us, 1 ms,\n"
          "10 ms, 100 ms and 1 s: each sample arms channel 0 with utim_set_abs(counter +\n"
          "timeout), waits on a semaphore the callback posts, and records the callback's\n"
          "first CLOCK_MONOTONIC read minus the time the counter reached the armed value.\n"
          "The callback runs in the board's interrupt thread (SCHED_FIFO priority %d and\n"
          "mlockall where permitted: native_irq_info()). Per row: mean (L_tout),\n"
          "standard deviation (J_tout), median, p99, max.\n"
          "When cyclictest (rt-tests) is in PATH, it runs with the same interval, count,\n"
          "priority and memory locking (cyclictest -t1 -i<us> -l<n> -p<prio> -m -v -N),\n"
          "and its per-wake-up latencies get the same statistics, in the same table.\n"
          "Both run with /dev/cpu_dma_latency held at 0, as cyclictest does by default.\n"
          "The alarm rows without spin window also split each latency at the end of the\n"
          "interrupt thread's sleep (native_irq_deadline_wake_ns()): the kernel's wake-up\n"
          "(expiry to the end of the sleep) and utim's path after it (port lock, handler,\n"
          "dispatch, to the callback's start).\n",
          NATIVE_IRQ_PRIORITY);
}

static const char *const board_words[] = {"native", "sim", NULL};

/* The sim board (the helper program) has its own --samples: its help says which. */
// clang-format off
#define TO_SAMPLES_HELP                                                       \
  "timeouts per row, every size (default " BENCH_STR(TO_DEFAULT_SAMPLES) "\n" \
  "from 10 us to 1 s; " BENCH_STR(TO_LONG_SAMPLES) " with --long); with\n"    \
  "--board sim, see '" BENCH_PROG " timeout --board sim --help'"
// clang-format on

static const bench_opt_t to_opts[] = {
    BENCH_WORD("--board", "BOARD", bench_to_opts_t, board, board_words,
               "native (default: the alarm and cyclictest) or sim (the\n"
               "frequency x timeout matrix in virtual time, uAPI and hAPI)"),
    BENCH_UINT("--samples", bench_to_opts_t, fixed, 1u, 1000000u, TO_SAMPLES_HELP),
    BENCH_FLAG("--long", bench_to_opts_t, lng, "the longer sample counts above"),
    BENCH_FLAG("--no-cyclictest", bench_to_opts_t, no_cyclictest, "do not run cyclictest"),
    BENCH_UINT("--histogram", bench_to_opts_t, histogram, 1u, 100000u,
               "also print a histogram of N 1-us buckets per row, in the\n"
               "layout of cyclictest -h N (JSON: \"histogram\")"),
};

static const bench_cli_t to_cli = {
    .cmd = "timeout",
    .opts = to_opts,
    .nopts = sizeof to_opts / sizeof to_opts[0],
    .json_help =
        "print one JSON document: {\"benchmark\":\"timeout\",\n"
        "\"machine\":{...},\"alarm\":{...},\"rows\":[{\"name\":\"native_alarm\"|\n"
        "\"native_alarm_nospin\"|\"cyclictest\",\"timeout_us\",\"unit\":\"ns\",\"median\",\n"
        "\"mean\",\"p99\",\"max\",\"min\",\"stddev\",\"n\",\"measured\",\"error\" (errno),\n"
        "\"policy\",\"priority\"; cyclictest rows also \"exit_status\"; alarm rows also\n"
        "\"early\",\"irq_cpu_percent\",\"deadline_wakes\",\"kernel_wake_mean_ns\",\n"
        "\"utim_path_mean_ns\"}],\"matrix\":[{\"board\",\"path\",\"hz\",\n"
        "\"timeout_us\",\"unit\",the statistics,\"early\"}],\"histogram\":{\"bucket_us\",\n"
        "\"buckets\",\"rows\":[{\"name\",\"timeout_us\",\"counts\",\"overflows\",\"n\",\n"
        "\"min_us\",\"avg_us\",\"max_us\"}]} with --histogram}",
    .describe = to_describe,
};

void bench_to_note(bench_to_report_t *r, const char *fmt, ...) {
  if (r->nnotes < sizeof r->notes / sizeof r->notes[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->nnotes++], sizeof r->notes[0], fmt, ap);
    va_end(ap);
  }
}

/* Whether the command line asks for the sim board ("--board sim" or "--board=sim"). */
static bool wants_sim(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--board=sim") == 0 ||
        (strcmp(argv[i], "--board") == 0 && i + 1 < argc && strcmp(argv[i + 1], "sim") == 0)) {
      return true;
    }
  }
  return false;
}

int bench_cmd_timeout(int argc, char **argv) {
  if (wants_sim(argc, argv)) {
    /* The sim board lives in the helper program, whose command has its own
     * limits, defaults and --help: hand over before parsing, so that they
     * are the ones that apply (arguments as given). */
    return bench_cmd_helper_exec(argc, argv);
  }
  bench_to_opts_t o = {0};
  bench_output_t out;
  int rc = bench_cli_parse(&to_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    o.samples[s] = o.fixed != 0u ? o.fixed : o.lng ? long_samples[s] : default_samples[s];
  }
  bench_progress_init();
  bench_to_report_t *r = calloc(1, sizeof *r);
  if (r == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    bench_output_discard(&out);
    return 1;
  }
  r->o = &o;
  bench_progress("probing the machine, starting the interrupt thread");
  bench_machine_probe(&r->m);
  native_board_init();
  r->irq = native_irq_info();
  if (r->irq.policy != SCHED_FIFO) {
    bench_to_note(r,
                  "SCHED_FIFO was refused (%s): the interrupt thread runs SCHED_OTHER, and "
                  "cyclictest runs without -p to match",
                  strerror(r->irq.fifo_error));
  }
  if (!r->irq.mlocked) {
    bench_to_note(r, "mlockall was refused (%s): cyclictest runs without -m to match",
                  strerror(r->irq.mlock_error));
  }
  if (bench_to_alarm(r) != 0) {
    bench_progress_done();
    bench_output_discard(&out);
    free(r);
    return 1;
  }
  if (!o.no_cyclictest && bench_find_program("cyclictest", r->cyclictest, sizeof r->cyclictest)) {
    r->have_ct = true;
    bench_to_cyclictest(r);
  }
  bench_progress_done();
  rc = bench_output_write(&out, &bench_to_writer, &r->m, r);
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    if (!r->alarm[0][s].measured || !r->alarm[1][s].measured) {
      rc = rc != 0 ? rc : 1;
    }
    bench_hist_free(&r->alarm[0][s].hist);
    bench_hist_free(&r->alarm[1][s].hist);
    bench_hist_free(&r->ct[s].hist);
  }
  free(r);
  return rc;
}
