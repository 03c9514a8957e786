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
 * Usage: differential_sim [--seed N] [--ops N] [--verbose]; the environment
 * variable UTIM_SEED sets the seed when --seed is not given.
 */
/* alarm(): the hang detector (host only); _XOPEN_SOURCE comes from CMake */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "board_sim.h"
#include "diff.h"

static uint64_t parse_u64(const char *s) {
  return strtoull(s, NULL, 0);
}

static op_t seq_ops[MAX_SEQ];

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint64_t seed = DEFAULT_SEED;
  uint64_t total_ops = DEFAULT_OPS;
  const char *env = getenv("UTIM_SEED");
  if (env != NULL && *env != '\0') {
    seed = parse_u64(env);
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = parse_u64(argv[++i]);
    } else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
      total_ops = parse_u64(argv[++i]);
    } else if (strcmp(argv[i], "--replay-hang") == 0 && i + 2 < argc) {
      sim_board_init();
      return replay_hang(argv[i + 1], argv[i + 2]);
    } else {
      fprintf(stderr, "usage: %s [--seed N] [--ops N]  (env UTIM_SEED)\n", argv[0]);
      return 2;
    }
  }
  hang_self = argv[0];
  hang_ops = seq_ops;
  hang_seed = seed;
  hang_install();
  sim_board_init();
  printf("TAP version 13\n1..%u\n", (unsigned)(2 * NSHAPES));
  printf("# seed %" PRIu64 ", %" PRIu64 " operations\n", seed, total_ops);
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
  printf("%u passed, %u failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
