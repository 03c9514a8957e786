/**
 * @file main.c
 * @brief utim-bench: benchmark programs of utim, one subcommand each.
 */
#include <stdio.h>
#include <string.h>

#include "bench_host.h"
#include "cmsis_bench.h"

/*
 * The same main() builds both programs (bench/CMakeLists.txt): utim-bench,
 * on the native board, and its helper utim-bench-ops, on the sim board, to
 * which `utim-bench ops` hands over. A new benchmark adds a line here.
 */
#define OPS_SUMMARY "cost of read, write, set and clear: uAPI vs hAPI, NOP and sim drivers"
#define TM_SUMMARY  "time manager vs libuv and a delta list; the paper's Fig. 3 and Fig. 4"
#define TIMEOUT_SUMMARY                                                                            \
  "callback latency: native alarm beside cyclictest; --board sim: the frequency x timeout matrix"
#define STRESS_SUMMARY "random timeouts against a reference timer (RIOT bench_timers method)"
#define CMSIS_SUMMARY  "CMSIS-RTOS2 time services: adaptation overhead, Rhealstone-style rows"
static const bench_cmd_t commands[] = {
#ifdef BENCH_OPS_ONLY
    {"ops", OPS_SUMMARY, bench_cmd_ops},
    {"tm", TM_SUMMARY, bench_cmd_tm},
    {"stress", STRESS_SUMMARY, bench_cmd_stress},
    {"timeout", TIMEOUT_SUMMARY, bench_cmd_timeout_sim},
    {"cmsis", "(the callgrind child of utim-bench cmsis)", bench_cmd_cmsis_child},
#else
    {"ops", OPS_SUMMARY, bench_cmd_helper_exec},
    {"tm", TM_SUMMARY, bench_cmd_helper_exec},
    {"stress", STRESS_SUMMARY, bench_cmd_stress},
    {"clock", "cost of reading time (TSC, clock_gettime, utim), time source, drift",
     bench_cmd_clock},
    {"sleep", "sleep miss and CPU: nanosleep, clock_nanosleep, busy-wait, utim sleep",
     bench_cmd_sleep},
    {"timeout", TIMEOUT_SUMMARY, bench_cmd_timeout},
    {"cmsis", CMSIS_SUMMARY, bench_cmd_cmsis},
#endif
};

static void usage(FILE *f) {
  fprintf(f, "usage: " BENCH_PROG " <command> [options]\n"
             "       " BENCH_PROG " <command> --help\n"
             "\n"
             "Benchmarks of the utim timer stack. Results go to stdout (a table, or\n"
             "JSON with --json); progress goes to stderr when it is a terminal.\n"
             "\n"
             "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  }
  fprintf(f, "\n"
             "options:\n"
             "  -h, --help  show this help\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return BENCH_EXIT_USAGE;
  }
  const char *word = argv[1];
  if (strcmp(word, "-h") == 0 || strcmp(word, "--help") == 0 || strcmp(word, "help") == 0) {
    if (argc > 2 && strcmp(word, "help") == 0) {
      for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[2], commands[i].name) == 0) {
          char *sub[] = {argv[2], "--help", NULL};
          return commands[i].run(2, sub);
        }
      }
      return bench_usage_error(BENCH_PROG, "unknown command '%s'", argv[2]);
    }
    usage(stdout);
    return bench_help_written();
  }
  if (word[0] == '-') {
    return bench_usage_error(BENCH_PROG, "unknown option '%s'", word);
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(word, commands[i].name) == 0) {
      return commands[i].run(argc - 1, argv + 1);
    }
  }
  return bench_usage_error(BENCH_PROG, "unknown command '%s'", word);
}
