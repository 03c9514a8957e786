/*
 * A main() for the fuzz target without libFuzzer: runs every input file
 * named on the command line (or every file of a directory) once. Used where
 * the compiler has no libFuzzer (gcc): the corpus in the repository replays
 * as a regression test. Host only.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
    return 1;
  }
  static uint8_t buf[1u << 16];
  size_t n = fread(buf, 1u, sizeof buf, f);
  (void)fclose(f);
  (void)LLVMFuzzerTestOneInput(buf, n);
  return 0;
}

int main(int argc, char **argv) {
  unsigned files = 0;
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    DIR *d = opendir(argv[i]);
    if (d == NULL) {
      bad |= run_file(argv[i]);
      files++;
      continue;
    }
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
      if (e->d_name[0] == '.') {
        continue;
      }
      char path[4096];
      (void)snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      bad |= run_file(path);
      files++;
    }
    (void)closedir(d);
  }
  printf("fuzz_replay: %u inputs replayed, every invariant held\n", files);
  return bad != 0 || files == 0 ? 1 : 0;
}
