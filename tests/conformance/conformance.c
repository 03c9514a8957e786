/**
 * @file conformance.c
 * @brief The utim conformance suite (see conformance.h): the runner, which
 *        runs the instance look-up once and then every case of the registry
 *        (ct_cases.h) on every instance of the board, in that order.
 */
#include "conformance.h"

#include "ct.h"

typedef void (*ct_fn_t)(const utim_periph_t *p);

typedef struct ct_test {
  const char *name;
  ct_fn_t fn;
} ct_test_t;

#define CT_CASE_ENTRY(fn, name) {name, fn},
static const ct_test_t ct_tests[] = {CT_CASES(CT_CASE_ENTRY)};
#undef CT_CASE_ENTRY

typedef struct ct_job {
  ct_fn_t fn;
  const utim_periph_t *p;
} ct_job_t;

static void ct_trampoline(void *arg) {
  const ct_job_t *job = arg;
  job->fn(job->p);
  TH_CHECKF(ct_lost_count() == 0u, "%u callbacks not recorded (recorder full)", ct_lost_count());
}

static void ct_setup(void) {
  tb_setup();
  ct_ev_reset();
  for (unsigned i = 0; i < utim_count() && i < CT_MAX_INST; i++) {
    const utim_periph_t *p = utim_by_index(i);
    (void)utim_set_compare_cb(p, ct_cmp_cb, &ct_cookie[i]);
    if (ct_has(p, UTIM_CAP_OVERFLOW)) {
      (void)utim_set_overflow_cb(p, NULL, NULL);
    }
  }
}

int utim_conformance_run(void) {
  th_set_setup(ct_setup);
  th_printf("TAP version 13\n");
  th_note("utim conformance suite, board %s, %u instances", tb_board_name(), utim_count());
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    if (p != NULL) {
      th_note("Timer %u: %s, %u bits, %u channels, caps 0x%lx, min distance %u", i, utim_name(p),
              utim_width(p), utim_channels(p), (unsigned long)utim_caps(p), utim_min_distance(p));
    }
  }
  th_run("instance look-up", ct_case_lookup, NULL);
  for (unsigned t = 0; t < sizeof ct_tests / sizeof ct_tests[0]; t++) {
    for (unsigned i = 0; i < utim_count() && i < CT_MAX_INST; i++) {
      char name[96];
      ct_job_t job = {ct_tests[t].fn, utim_by_index(i)};
      (void)th_snprintf(name, sizeof name, "%s: %s", ct_tests[t].name, utim_name(job.p));
      th_run(name, ct_trampoline, &job);
    }
  }
  return th_finish();
}
