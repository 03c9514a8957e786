/**
 * @file differential_sim.c
 * @brief Seeded randomized differential test of the uAPI on the sim board.
 *
 * Random sequences of uAPI operations run on every instance of the sim board
 * and, step by step, on a small reference model written from the semantics
 * documented in include/utim/utim.h. The simulated machine runs with zero
 * register access cost, so virtual time moves only by explicit advances (and
 * by the core's busy-waits); the model predicts every return value, every
 * callback (source, argument, counter read inside it, virtual time), the
 * counter and the pending events. On a mismatch the failing sequence is
 * shrunk by delta debugging and printed as readable operations.
 *
 * Usage: differential_sim [--seed N | --random-seed] [--ops N] (see --help).
 * Without either seed option the seed is UTIM_SEED from the environment, or
 * a fixed default, so that a CI run is reproducible; --random-seed picks a
 * new one each run and prints the command that repeats it.
 * tools/differential.sh runs many seeds in parallel.
 */
/* alarm(): the hang detector (host only); _XOPEN_SOURCE comes from CMake */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unistd.h>

#include "board_sim.h"
#include "diff.h"

static void usage(FILE *f, const char *self) {
  fprintf(f,
          "usage: %s [--seed N | --random-seed] [--ops N]\n"
          "  --seed N       seed of the random operations (decimal or 0x hex); default: the\n"
          "                 environment variable UTIM_SEED, else %llu\n"
          "  --random-seed  a seed chosen at run time, printed with the command that repeats it\n"
          "  --ops N        operations in all, spread over the instances (default %llu)\n"
          "  --help         this text\n"
          "Exit status: 0 all passed, 1 a difference or a hang was found, 2 bad usage.\n",
          self, (unsigned long long)DEFAULT_SEED, (unsigned long long)DEFAULT_OPS);
}

/* A whole decimal or 0x-hex number, or false (strtoull alone takes "", "-1", "12abc"). */
static bool parse_u64(const char *s, uint64_t *out) {
  if (s == NULL || *s < '0' || *s > '9') {
    return false;
  }
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno != 0 || end == s || *end != '\0') {
    return false;
  }
  *out = v;
  return true;
}

/* A seed nobody chose: the kernel's random bytes, else the clock and the pid. */
static uint64_t random_seed(void) {
  uint32_t v = 0;
  FILE *f = fopen("/dev/urandom", "rb");
  bool ok = f != NULL && fread(&v, sizeof v, 1, f) == 1;
  if (f != NULL) {
    fclose(f);
  }
  if (!ok) {
    struct timespec ts;
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    v = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^ (uint32_t)getpid() << 16;
  }
  /* 32 bits: plenty of sequences to tell runs apart, and a short command line. */
  return v;
}

static op_t seq_ops[MAX_SEQ];

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *self = argv[0];
  uint64_t seed = DEFAULT_SEED;
  uint64_t total_ops = DEFAULT_OPS;
  bool seed_given = false;
  bool random_run = false;
  const char *env = getenv("UTIM_SEED");
  if (env != NULL && *env != '\0' && !parse_u64(env, &seed)) {
    fprintf(stderr, "%s: UTIM_SEED='%s' is not a number; give a decimal or 0x hex seed\n", self,
            env);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    const char *opt = argv[i];
    if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
      usage(stdout, self);
      return 0;
    }
    if (strcmp(opt, "--random-seed") == 0) {
      random_run = true;
    } else if (strcmp(opt, "--seed") == 0 || strcmp(opt, "--ops") == 0) {
      bool is_seed = strcmp(opt, "--seed") == 0;
      if (i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value (a decimal or 0x hex number)\n", self, opt);
        return 2;
      }
      if (!parse_u64(argv[i + 1], is_seed ? &seed : &total_ops)) {
        fprintf(stderr, "%s: %s needs a decimal or 0x hex number, got '%s'\n", self, opt,
                argv[i + 1]);
        return 2;
      }
      seed_given = seed_given || is_seed;
      i++;
    } else if (strcmp(opt, "--replay-hang") == 0 && i + 2 < argc) {
      /* internal: the hang detector executes this program again with it */
      sim_board_init();
      return replay_hang(argv[i + 1], argv[i + 2]);
    } else {
      fprintf(stderr, "%s: unknown option '%s'\n", self, opt);
      usage(stderr, self);
      return 2;
    }
  }
  if (random_run && seed_given) {
    fprintf(stderr, "%s: --seed and --random-seed exclude each other; give one of them\n", self);
    return 2;
  }
  if (random_run) {
    seed = random_seed();
  }
  hang_self = self;
  hang_ops = seq_ops;
  hang_seed = seed;
  hang_install();
  sim_board_init();
  printf("TAP version 13\n1..%u\n", (unsigned)(2 * NSHAPES));
  printf("# seed %" PRIu64 ", %" PRIu64 " operations\n", seed, total_ops);
  if (random_run) {
    printf("# the seed was chosen at random for this run; repeat it with: %s --seed %" PRIu64
           " --ops %" PRIu64 "\n",
           self, seed, total_ops);
  }
  unsigned passed = 0;
  unsigned failed = 0;
  unsigned tap = 0;
  for (unsigned shape = 0; shape < NSHAPES; shape++) {
    char why[256];
    bool st = check_static(shape, why, sizeof(why));
    printf("%s %u - %s static properties and frequencies%s%s\n", st ? "ok" : "not ok", ++tap,
           doc_shapes[shape].name, st ? "" : ": ", why);
    st ? passed++ : failed++;
    if (!st) {
      printf("not ok %u - %s differential # skipped: no frequencies\n", ++tap,
             doc_shapes[shape].name);
      failed++;
      continue;
    }
    rng_seed(seed ^ (0x1000193ull * (shape + 1u)));
    uint64_t budget = total_ops / NSHAPES + (shape < total_ops % NSHAPES);
    uint64_t done = 0;
    uint64_t seqno = 0;
    bool ok = true;
    g_ctx.callbacks = 0;
    while (done < budget && ok) {
      seq_hdr_t h = {shape, freqs[shape].hz[rnd_below(freqs[shape].n)], UTIM_CLOCK_DEFAULT,
                     (uintptr_t)(0x100000u + seqno)};
      size_t len = 1u + (size_t)rnd_below(MAX_SEQ);
      if (len > budget - done) {
        len = (size_t)(budget - done);
      }
      hang_hdr = h;
      hang_tap = tap;
      hang_passed = passed;
      hang_failed = failed;
      hang_seqno = seqno;
      alarm(HANG_S);
      if (!seq_begin(&g_ctx, &h)) {
        printf("# FAIL on %s: seed %" PRIu64 ", sequence %" PRIu64 "\n# %s", doc_shapes[shape].name,
               seed, seqno, g_ctx.msg);
        ok = false;
        break;
      }
      for (size_t i = 0; i < len; i++) {
        seq_ops[i] = gen_op(&g_ctx, shape);
        hang_n = i + 1u;
        if (!exec_op(&g_ctx, &seq_ops[i])) {
          report_failure(&g_ctx, &h, seq_ops, i, seed, seqno);
          ok = false;
          break;
        }
      }
      done += len;
      seqno++;
    }
    alarm(0);
    printf("%s %u - %s differential: %" PRIu64 " operations in %" PRIu64 " sequences, %" PRIu64
           " callbacks\n",
           ok ? "ok" : "not ok", ++tap, doc_shapes[shape].name, done, seqno, g_ctx.callbacks);
    ok ? passed++ : failed++;
  }
  if (failed != 0) {
    printf("# reproduce with: %s --seed %" PRIu64 " --ops %" PRIu64 "\n", self, seed, total_ops);
  }
  printf("%u passed, %u failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
