/**
 * @file ops_exec.c
 * @brief `utim-bench ops` and `utim-bench tm` in the native program: hand
 *        over to the helper program that links the sim board (see
 *        bench/CMakeLists.txt for why there are two programs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_host.h"

int bench_helper_path(char *buf, size_t cap, char *err, size_t errcap) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1u);
  if (len <= 0) {
    snprintf(err, errcap, "cannot find this program's path: %s", strerror(errno));
    return -1;
  }
  self[len] = '\0';
  char *slash = strrchr(self, '/');
  size_t dir = slash != NULL ? (size_t)(slash - self) + 1u : 0u;
  snprintf(buf, cap, "%.*s%s", (int)dir, self, BENCH_OPS_HELPER);
  return 0;
}

int bench_cmd_helper_exec(int argc, char **argv) {
  char helper[4096 + sizeof BENCH_OPS_HELPER];
  char err[256];
  if (bench_helper_path(helper, sizeof helper, err, sizeof err) != 0) {
    fprintf(stderr, BENCH_PROG ": %s: %s\n", argv[0], err);
    return 1;
  }

  /* The helper's own main() dispatches argv[1], as this program's does. */
  char **args = calloc((size_t)argc + 2u, sizeof *args);
  if (args == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    return 1;
  }
  args[0] = helper;
  for (int i = 0; i < argc; i++) {
    args[i + 1] = argv[i];
  }
  args[argc + 1] = NULL;
  fflush(NULL);
  execv(helper, args);
  fprintf(stderr, BENCH_PROG ": %s: cannot run '%s' (built with utim-bench): %s\n", argv[0], helper,
          strerror(errno));
  free((void *)args);
  return 1;
}
