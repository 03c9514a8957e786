/**
 * @file test_harness.c
 * @brief The test harness's retry of failed tests (th_set_attempts()), checked
 *        on its TAP output: a test that fails once and then passes, one that
 *        fails every attempt, one that skips, and the default of one attempt.
 *
 * The harness's own counters are what is under test, so this program checks
 * with plain comparisons and its exit status rather than through th_run().
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static char out[8192];
static size_t out_len;

static void capture(char c) {
  if (out_len + 1u < sizeof out) {
    out[out_len++] = c;
    out[out_len] = '\0';
  }
}

static int failures;

static void expect(int ok, const char *what) {
  if (!ok) {
    failures++;
    fprintf(stderr, "test_harness: FAIL: %s\n", what);
  }
}

static unsigned runs;

/* Fails its first `*(unsigned *)arg` runs, passes afterwards. */
static void flaky(void *arg) {
  runs++;
  TH_CHECKF(runs > *(const unsigned *)arg, "run %u", runs);
}

static void skipping(void *arg) {
  (void)arg;
  runs++;
  th_skip("nothing to do");
}

static unsigned setups;

static void count_setup(void) {
  setups++;
}

int main(void) {
  th_set_putc(capture);
  th_set_setup(count_setup);

  /* Default: one attempt, a failure stands. */
  unsigned fail_once = 1u;
  runs = 0;
  th_run("default", flaky, &fail_once);
  expect(runs == 1u && th_failed() == 1u, "one attempt by default, its failure counted");

  /* Three attempts: fails once, passes on the second, set up before each. */
  th_set_attempts(3u);
  runs = 0;
  setups = 0;
  th_run("fails once", flaky, &fail_once);
  expect(runs == 2u && setups == 2u, "run and set up again after a failed attempt, then stop");
  expect(th_failed() == 1u, "a pass on a later attempt is a pass");
  expect(strstr(out, "# attempt 1 of 3 of \"fails once\" failed (test_harness.c:") != NULL,
         "the failed attempt is announced with its first failure");
  expect(strstr(out, "# \"fails once\" passed on attempt 2 of 3\n") != NULL,
         "the later pass is announced");
  expect(strstr(out, "ok 2 - fails once\n") != NULL, "TAP line ok");

  /* Fails every attempt: exactly three runs, one failed test. */
  unsigned fail_always = 100u;
  runs = 0;
  th_run("always", flaky, &fail_always);
  expect(runs == 3u && th_failed() == 2u, "a test failing every attempt runs 3 times, fails once");
  expect(strstr(out, "not ok 3 - always # test_harness.c:") != NULL, "TAP line not ok");

  /* A skip is not a failure: run once. */
  runs = 0;
  th_run("skips", skipping, NULL);
  expect(runs == 1u, "a skipped test is not run again");

  /* 0 means 1. */
  th_set_attempts(0u);
  runs = 0;
  th_run("zero", flaky, &fail_once);
  expect(runs == 1u && th_failed() == 3u, "th_set_attempts(0) is one attempt");

  expect(th_finish() == 1, "th_finish() reports the failures");
  expect(strstr(out, "# 1 of them passed only on a later attempt (see above)\n") != NULL,
         "th_finish() counts the passes on a later attempt");
  expect(strstr(out, "1 passed, 3 failed, 1 skipped\n") != NULL, "closing counts");

  if (failures != 0) {
    fprintf(stderr, "test_harness: output was:\n%s", out);
    return 1;
  }
  printf("test_harness: every check passed\n");
  return 0;
}
