/**
 * @file progress.c
 * @brief Progress messages of utim-bench: one line on stderr, rewritten in
 *        place, and only when stderr is a terminal (never in a pipe or log).
 */
#include <stdarg.h>
#include <unistd.h>

#include "bench_host.h"

static bool progress_on;

void bench_progress_init(void) {
  progress_on = isatty(2) != 0;
}

void bench_progress(const char *fmt, ...) {
  if (progress_on) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    /* va_start is right above: clang-tidy 14's analyzer misreads it here. */
    vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    fflush(stderr);
  }
}

void bench_progress_done(void) {
  if (progress_on) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
  }
}
