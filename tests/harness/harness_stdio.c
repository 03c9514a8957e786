/**
 * @file harness_stdio.c
 * @brief Host output hook of the harness: stdout. Not part of MCU builds.
 */
#include <stdio.h>

#include "harness.h"

void th_stdio_putc(char c) {
  (void)putchar(c);
  /* Flush per line so TAP output survives a crash in the next test. */
  if (c == '\n') {
    (void)fflush(stdout);
  }
}
