/*
 * test_time_native: the Linux clock source and sleep of the native board
 * (boards/native/clocksource*.c, sleep_native.c): the choice is a candidate
 * that exists as an instance and agrees with the board's CPU counter probe,
 * the override works (UTIM_CLOCKSOURCE, honoured or warned about as
 * UTIM_TEST_CS_EXPECT says), utim_now() is monotonic across CPUs and
 * re-fits, the sleep never returns early. Behaviour only: no speed or
 * accuracy figure is asserted beyond a 1 % sanity bound on the calibrated
 * rate. The portable parts of time.h are tested by test_time.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "board_native.h"
#include "clocksource.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/time.h"
#include "utim/utim.h"

static bool expect_env_warning(void);

static int64_t raw_ns(void) {
  return utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
}

static int cs_index(const char *name) {
  static const char *const names[UTIM_CS_COUNT] = {
      "NATIVE_TSC", "NATIVE_CNTVCT", "NATIVE_MONOTONIC", "NATIVE_MONOTONIC_RAW", "NATIVE_BOOTTIME"};
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (strcmp(name, names[i]) == 0) {
      return i;
    }
  }
  return -1;
}

static void t_native_choice(void *arg) {
  (void)arg;
  TH_EQ(utim_clocksource_init(), 0);
  utim_cs_report_t rep;
  TH_EQ(utim_clocksource_report(NULL), -EINVAL);
  TH_EQ(utim_clocksource_report(&rep), 0);
  th_note("%s", rep.reason);
  const char *name = utim_clocksource_name();
  int id = cs_index(name);
  TH_CHECKF(id >= 0, "chosen source %s is not a candidate", name);
  TH_EQ(rep.chosen, id);
  if (id < 0) {
    return;
  }
  TH_CHECK(rep.cand[id].rating > 0);
  TH_CHECK(strstr(rep.reason, name) != NULL);
  /* Every present candidate is an instance of the board; absent ones are not. */
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    bool present = (rep.cand[i].flags & UTIM_CS_F_PRESENT) != 0u;
    TH_CHECK(present == (rep.cand[i].rating > 0));
    TH_CHECKF(present == (utim_by_name(rep.cand[i].name) != NULL), "%s present %d instance %p",
              rep.cand[i].name, (int)present, (const void *)utim_by_name(rep.cand[i].name));
  }
  const char *env = getenv("UTIM_CLOCKSOURCE");
  if (env == NULL || expect_env_warning()) {
    /* Unset, or a value that names no usable source: the automatic choice. */
    TH_EQ(rep.how, UTIM_CS_AUTO);
    for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
      TH_CHECKF(rep.cand[i].rating <= rep.cand[id].rating, "%s rated above the choice",
                rep.cand[i].name);
    }
  } else {
    /* The ctest run with UTIM_CLOCKSOURCE=native_monotonic_raw (any case, as users type it). */
    TH_EQ(rep.how, UTIM_CS_ENV);
    TH_CHECKF(strcasecmp(env, name) == 0, "UTIM_CLOCKSOURCE=%s but %s chosen", env, name);
  }
  if (id == UTIM_CS_TSC || id == UTIM_CS_CNTVCT) {
    TH_CHECK(rep.hz > 0u && rep.ms.mult > 0u && rep.ms.shift < 64u);
    /* One probe serves the board's instance and utim_now(): the same rate, and
     * the same stated frequency where there is one. */
    const native_tsc_info_t *ti = native_tsc_info();
    TH_EQU(rep.hz, ti->measured_hz);
    if (ti->source != NATIVE_TSC_MEASURED) {
      TH_EQU(rep.cand[id].hz, ti->hz);
    } else {
      TH_EQU(rep.cand[id].hz, 0u);
    }
    TH_CHECK((rep.cand[id].flags & UTIM_CS_F_SYNC_FAIL) == 0u || rep.how != UTIM_CS_AUTO);
  }
}

/* ---- UTIM_CLOCKSOURCE that names no usable source -------------------------------- */

/* What the first utim_clocksource_init() wrote to stderr (capture_init()). */
static char init_stderr[2048];

/* The ctest runs with a bad value set UTIM_TEST_CS_EXPECT=warn. */
static bool expect_env_warning(void) {
  const char *e = getenv("UTIM_TEST_CS_EXPECT");
  return e != NULL && strcmp(e, "warn") == 0;
}

/* Initialise the clock source with stderr going to a file, twice, and keep
 * what was written; it is shown again on stderr for the log. */
static void capture_init(void) {
  FILE *tmp = tmpfile();
  int saved = dup(2);
  if (tmp == NULL || saved < 0) {
    (void)utim_clocksource_init();
    snprintf(init_stderr, sizeof init_stderr, "(stderr not captured)");
    return;
  }
  fflush(stderr);
  (void)dup2(fileno(tmp), 2);
  (void)utim_clocksource_init();
  (void)utim_clocksource_init();
  (void)utim_clocksource_name();
  (void)dup2(saved, 2);
  (void)close(saved);
  rewind(tmp);
  size_t n = fread(init_stderr, 1, sizeof init_stderr - 1u, tmp);
  init_stderr[n] = '\0';
  fclose(tmp);
  fputs(init_stderr, stderr);
}

static unsigned count_of(const char *hay, const char *needle) {
  unsigned n = 0;
  for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle)) {
    n++;
  }
  return n;
}

static void t_native_env_warning(void *arg) {
  (void)arg;
  const char *env = getenv("UTIM_CLOCKSOURCE");
  if (!expect_env_warning()) {
    /* Unset or honoured: nothing to say. */
    TH_CHECKF(init_stderr[0] == '\0', "unexpected output: %s", init_stderr);
    return;
  }
  TH_CHECK(env != NULL);
  if (env == NULL) {
    return;
  }
  /* Once, with the value quoted as given (a trailing space stays visible). */
  char quoted[256];
  snprintf(quoted, sizeof quoted, "utim: UTIM_CLOCKSOURCE=\"%s\"", env);
  TH_CHECKF(strstr(init_stderr, quoted) != NULL, "no %s in: %s", quoted, init_stderr);
  TH_EQU(count_of(init_stderr, "utim: UTIM_CLOCKSOURCE="), 1u);
  TH_EQU(count_of(init_stderr, "\n"), 1u);
  /* It names the source used instead, and every valid name. */
  utim_cs_report_t rep;
  TH_EQ(utim_clocksource_report(&rep), 0);
  TH_EQ(rep.how, UTIM_CS_AUTO);
  char used[96];
  snprintf(used, sizeof used, "using the automatic choice, %s.", utim_clocksource_name());
  TH_CHECKF(strstr(init_stderr, used) != NULL, "no '%s' in: %s", used, init_stderr);
  const char *list = strstr(init_stderr, "Valid names");
  TH_CHECK(list != NULL);
  for (int i = 0; list != NULL && i < (int)UTIM_CS_COUNT; i++) {
    bool listed = strstr(list, rep.cand[i].name) != NULL;
    TH_CHECKF(listed == (rep.cand[i].rating > 0), "%s listed %d, present %d", rep.cand[i].name,
              (int)listed, (int)(rep.cand[i].rating > 0));
  }
  TH_CHECK(list != NULL && strstr(list, "auto") != NULL);
  /* The report's reason quotes it too. */
  TH_CHECKF(strstr(rep.reason, quoted + strlen("utim: ")) != NULL, "reason: %s", rep.reason);
}

/* Threads on every CPU read utim_now() while the conversion is re-fitted under them. */
typedef struct mono_ctx {
  int64_t last;       /* latest time any thread saw */
  unsigned stop;      /* set when the re-fits are done */
  unsigned back_self; /* a thread's own reading went back */
  unsigned back_seen; /* a reading was below one another thread had published */
} mono_ctx_t;

static void *mono_thread(void *arg) {
  mono_ctx_t *c = arg;
  int64_t prev = utim_now();
  while (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE) == 0u) {
    for (int i = 0; i < 1000; i++) {
      int64_t seen = __atomic_load_n(&c->last, __ATOMIC_ACQUIRE);
#if defined(__x86_64__)
      /* utim_now() does not order its counter read; the check needs it after the load. */
      __asm__ volatile("lfence" ::: "memory");
#elif defined(__aarch64__)
      __asm__ volatile("isb" ::: "memory");
#endif
      int64_t t = utim_now();
      if (t < prev) {
        __atomic_fetch_add(&c->back_self, 1u, __ATOMIC_RELAXED);
      }
      if (t < seen) {
        __atomic_fetch_add(&c->back_seen, 1u, __ATOMIC_RELAXED);
      }
      prev = t;
      int64_t cur = seen;
      while (t > cur && !__atomic_compare_exchange_n(&c->last, &cur, t, true, __ATOMIC_RELEASE,
                                                     __ATOMIC_RELAXED)) {
      }
    }
  }
  return NULL;
}

static void t_native_monotonic(void *arg) {
  (void)arg;
  mono_ctx_t ctx = {0};
  cpu_set_t set;
  pthread_t th[16];
  int n = 0;
  TH_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  for (int cpu = 0; cpu < CPU_SETSIZE && n < 16; cpu++) {
    if (!CPU_ISSET(cpu, &set)) {
      continue;
    }
    pthread_attr_t attr;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)pthread_attr_init(&attr);
    (void)pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    if (pthread_create(&th[n], &attr, mono_thread, &ctx) == 0) {
      n++;
    }
    (void)pthread_attr_destroy(&attr);
  }
  TH_CHECK(n >= 1);
  unsigned busy = 0u;
  for (int i = 0; i < 300; i++) {
    int rc = utim_clocksource_refit();
    TH_CHECK(rc == 0 || rc == -EBUSY);
    busy += rc == -EBUSY ? 1u : 0u;
    struct timespec ts = {0, 200000};
    (void)nanosleep(&ts, NULL);
  }
  __atomic_store_n(&ctx.stop, 1u, __ATOMIC_RELEASE);
  for (int i = 0; i < n; i++) {
    (void)pthread_join(th[i], NULL);
  }
  th_note("%d threads, %u re-fits refused as busy", n, busy);
  TH_EQU(ctx.back_self, 0u);
  TH_EQU(ctx.back_seen, 0u);
}

/* Best-of-8 bracket of utim_now() around CLOCK_MONOTONIC_RAW: offset of the two. */
static int64_t offset_now(void) {
  int64_t best = INT64_MAX;
  int64_t off = 0;
  for (int i = 0; i < 8; i++) {
    int64_t a = utim_now();
    int64_t r = raw_ns();
    int64_t b = utim_now();
    if (b - a < best) {
      best = b - a;
      off = a + (b - a) / 2 - r;
    }
  }
  return off;
}

static void t_native_rate(void *arg) {
  (void)arg;
  /* A sanity bound on the calibration (1 % over 50 ms), not an accuracy figure. */
  int64_t o0 = offset_now();
  int64_t r0 = raw_ns();
  struct timespec ts = {0, 50000000};
  (void)nanosleep(&ts, NULL);
  int64_t o1 = offset_now();
  int64_t r1 = raw_ns();
  int64_t drift = o1 - o0;
  th_note("%s: %lld ns offset change against CLOCK_MONOTONIC_RAW over %lld ns",
          utim_clocksource_name(), (long long)drift, (long long)(r1 - r0));
  TH_CHECKF(drift < (r1 - r0) / 100 && drift > -(r1 - r0) / 100, "drift %lld ns", (long long)drift);
}

static void t_native_override(void *arg) {
  (void)arg;
  utim_cs_report_t rep;
  TH_EQ(utim_clocksource_report(&rep), 0);
  int64_t prev = utim_now();
  const char *const names[] = {"NATIVE_MONOTONIC", "native_monotonic_raw", "BOOTTIME",
                               "NATIVE_TSC",       "NATIVE_CNTVCT",        "NATIVE_MONOTONIC"};
  for (size_t i = 0u; i < sizeof names / sizeof names[0]; i++) {
    int id = -1;
    for (int k = 0; k < (int)UTIM_CS_COUNT; k++) {
      if (strcasecmp(names[i], rep.cand[k].name) == 0 ||
          strcasecmp(names[i], rep.cand[k].name + 7) == 0) {
        id = k;
      }
    }
    TH_CHECK(id >= 0);
    if (id < 0) {
      continue;
    }
    th_context("select %s", names[i]);
    int rc = utim_clocksource_select(names[i]);
    if (rep.cand[id].rating <= 0) {
      TH_EQ(rc, -ENOTSUP);
      continue;
    }
    TH_EQ(rc, 0);
    TH_CHECK(strcmp(utim_clocksource_name(), rep.cand[id].name) == 0);
    utim_cs_report_t now_rep;
    TH_EQ(utim_clocksource_report(&now_rep), 0);
    TH_EQ(now_rep.how, UTIM_CS_API);
    TH_EQ(now_rep.chosen, id);
    /* The time line continues across the switch. */
    int64_t t = utim_now();
    TH_CHECKF(t >= prev, "went back by %lld ns", (long long)(prev - t));
    for (int k = 0; k < 1000; k++) {
      int64_t u = utim_now();
      TH_CHECK(u >= t);
      t = u;
    }
    prev = t;
  }
  th_context("errors");
  TH_EQ(utim_clocksource_select("NO_SUCH_CLOCK"), -ENOENT);
  TH_EQ(utim_clocksource_select(NULL), 0);
  TH_EQ(utim_clocksource_report(&rep), 0);
  TH_EQ(rep.how, UTIM_CS_AUTO);
  int best = 0;
  for (int k = 0; k < (int)UTIM_CS_COUNT; k++) {
    best = rep.cand[k].rating > rep.cand[best].rating ? k : best;
  }
  TH_EQ(rep.chosen, best);
  TH_CHECK(utim_now() >= prev);
}

/*
 * A switch keeps utim_now() continuous: it may not step forward either.
 * A step forward ends a precise sleep that is under way early (by
 * CLOCK_MONOTONIC): switching to the counter used to put its line ahead by
 * the time from the switch's sample to its read of the old line (about
 * 1 us, the whole preemption when the switching thread was preempted in
 * between). The gains of the switches add up; the offset to
 * CLOCK_MONOTONIC_RAW, which neither line drifts from, shows their sum.
 */
static void t_native_switch_no_step(void *arg) {
  (void)arg;
  utim_cs_report_t rep;
  TH_EQ(utim_clocksource_report(&rep), 0);
  int counter = rep.cand[UTIM_CS_TSC].rating > 0      ? UTIM_CS_TSC
                : rep.cand[UTIM_CS_CNTVCT].rating > 0 ? UTIM_CS_CNTVCT
                                                      : -1;
  if (counter < 0) {
    th_note("no CPU counter here: nothing to switch to");
    return;
  }
  enum { SWITCHES = 200 };
  int64_t o0 = offset_now();
  for (int i = 0; i < SWITCHES; i++) {
    TH_EQ(utim_clocksource_select(rep.cand[counter].name), 0);
    TH_EQ(utim_clocksource_select("NATIVE_MONOTONIC_RAW"), 0);
  }
  int64_t gain = offset_now() - o0;
  TH_EQ(utim_clocksource_select(NULL), 0);
  th_note("%d switches to %s and back: utim_now() gained %lld ns on CLOCK_MONOTONIC_RAW", SWITCHES,
          rep.cand[counter].name, (long long)gain);
  /* 100 ns a switch covers the bracket noise; the step was several times that. */
  TH_CHECKF(gain < (int64_t)SWITCHES * 100, "stepped forward by %lld ns", (long long)gain);
}

static void t_native_sleep(void *arg) {
  (void)arg;
  utim_sleeper_t *s = utim_port_sleeper();
  TH_CHECK(s != NULL);
  if (s == NULL) {
    return;
  }
  utim_sleep_stats_t st0;
  TH_EQ(utim_sleeper_stats(s, &st0), 0);
  for (int i = 0; i < 20; i++) {
    utim_ns_t d = utim_now() + 100 * UTIM_NS_PER_US;
    TH_EQ(utim_sleep_until(d), 0);
    utim_ns_t after = utim_now();
    TH_CHECKF(after >= d && s->last.wake >= d, "returned %lld ns early", (long long)(d - after));
    TH_CHECK(s->last.cpu >= 0);
  }
  TH_EQ(utim_sleep_for(50 * UTIM_NS_PER_US), 0);
  TH_CHECK(s->last.wake >= s->last.deadline);
  TH_EQ(utim_sleep_for(-1), -EINVAL);
  TH_EQ(utim_sleep_until(utim_now() - 1000), 0);
  TH_EQ(s->last.blocks, 0);
  TH_CHECK(s->last.miss >= 1000);
  utim_sleep_stats_t st;
  TH_EQ(utim_sleeper_stats(s, &st), 0);
  TH_EQU(st.calls - st0.calls, 22u);
  TH_EQU(st.cpu_calls - st0.cpu_calls, 22u);
  th_note("margin %lld ns, mean miss %lld ns, CPU %lld of %lld ns", (long long)st.margin,
          (long long)(st.miss_sum / (int64_t)st.calls), (long long)st.cpu_sum,
          (long long)st.cpu_elapsed);
  /* Sleepers are per thread. */
  TH_CHECK(utim_port_sleeper() == s);
}

static void t_native_drift(void *arg) {
  (void)arg;
  utim_cs_drift_t d;
  TH_EQ(utim_clocksource_drift(1, 1, NULL), -EINVAL);
  TH_EQ(utim_clocksource_drift(-1, 1, &d), -EINVAL);
  TH_EQ(utim_clocksource_drift(1, 0, &d), -EINVAL);
  TH_EQ(utim_clocksource_drift(30 * UTIM_NS_PER_MS, 10 * UTIM_NS_PER_MS, &d), 0);
  TH_CHECK(d.elapsed >= 30 * UTIM_NS_PER_MS);
  TH_CHECK(d.samples >= 3u);
  TH_EQ(d.drift, d.offset_end - d.offset_start);
  TH_CHECK(d.max_dev >= utim_ns_abs(d.drift));
  th_note("drift %lld ns over %lld ns (%lld ppb), max deviation %lld ns, %u re-fits",
          (long long)d.drift, (long long)d.elapsed, (long long)d.drift_ppb, (long long)d.max_dev,
          d.refits);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  /* First thing, so the warning about UTIM_CLOCKSOURCE (if any) is caught. */
  capture_init();
  /* As a program using the board does; it also starts the board's interrupt thread. */
  native_board_init();
  th_run("native: UTIM_CLOCKSOURCE warned about once when it names no usable source",
         t_native_env_warning, NULL);
  th_run("native: chosen source is a rated candidate and an instance", t_native_choice, NULL);
  th_run("native: utim_now monotonic across CPUs and re-fits", t_native_monotonic, NULL);
  th_run("native: calibrated rate within 1 % of CLOCK_MONOTONIC_RAW", t_native_rate, NULL);
  th_run("native: override by name, continuity, back to auto", t_native_override, NULL);
  th_run("native: precise sleep never early, statistics", t_native_sleep, NULL);
  /* Real time: a stall between the two reads of the offset moves it. */
  th_set_attempts(3);
  th_run("native: switching the source adds no step to utim_now", t_native_switch_no_step, NULL);
  th_set_attempts(1);
  /* Real time: a stall of the process past the first 10 ms period leaves the
   * 30 ms measurement fewer samples than the check's 3 (one per period that
   * passed, and the last). A stall fails one attempt, a defect every one. */
  th_set_attempts(3);
  th_run("native: drift measurement", t_native_drift, NULL);
  th_set_attempts(1);
  return th_finish();
}
