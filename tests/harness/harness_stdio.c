/**
 * @file harness_stdio.c
 * @brief Host parts of the harness: the stdout hook and the seed/ops options
 *        of the randomized tests. Not part of MCU builds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

void th_stdio_putc(char c) {
  (void)putchar(c);
  /* Flush per line so TAP output survives a crash in the next test. */
  if (c == '\n') {
    (void)fflush(stdout);
  }
}

int th_seed_ops_args(int argc, char **argv, const char *prog, unsigned long long *seed,
                     unsigned long long *ops) {
  for (int i = 1; i < argc; i++) {
    unsigned long long *dst = NULL;
    if (strcmp(argv[i], "--seed") == 0) {
      dst = seed;
    } else if (strcmp(argv[i], "--ops") == 0) {
      dst = ops;
    }
    if (dst == NULL || i + 1 >= argc) {
      fprintf(stderr, "usage: %s [--seed N] [--ops N]\n", prog);
      return 2;
    }
    char *end = NULL;
    *dst = strtoull(argv[++i], &end, 0);
    if (end == argv[i] || *end != '\0') {
      fprintf(stderr, "%s: %s needs a number, got '%s'\n", prog, argv[i - 1], argv[i]);
      return 2;
    }
  }
  return 0;
}
