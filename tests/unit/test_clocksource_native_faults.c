/*
 * test_clocksource_native_faults: the Linux clock source of the native board
 * (boards/native/clocksource*.c) under injected faults. clock_gettime() and
 * nanosleep() are wrapped at link time (-Wl,--wrap, see CMakeLists.txt), so
 * a case can delay the selecting thread inside a switch, make CLOCK_BOOTTIME
 * run slow, make CLOCK_MONOTONIC_RAW go back while the CPU counter is
 * calibrated, or stop utim_clocksource_drift() at its first sleep. Each case
 * fails without the fix it guards. Behaviour only: monotonicity, what the report and stderr
 * say, and offsets bounded by the re-fit's own limits; no speed is asserted.
 *
 * Without an argument: the switch, re-fit and drift cases. With "calfail"
 * (its own process: the counter's probe runs once per process):
 * UTIM_CLOCKSOURCE names the CPU counter and its calibration is made to fail.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clocksource.h"
#include "harness.h"
#include "utim/time.h"

/* ---- the wrapped calls ------------------------------------------------------- */

// NOLINTBEGIN(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): --wrap's names
int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
int __real_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);
// NOLINTEND(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)

/* The faults, per thread: only the thread that arms one is affected. */
enum { DELAY_NONE, DELAY_BEFORE, DELAY_AFTER };
static _Thread_local int delay_when; /* around the next read of delay_clock */
static _Thread_local clockid_t delay_clock;
static _Thread_local int64_t delay_seen; /* utim_now() read during the delay */
static _Thread_local bool slow_on;       /* slow_clock runs at half speed */
static _Thread_local clockid_t slow_clock;
static _Thread_local int64_t slow_base; /* from this value of it on */
static _Thread_local bool calfail;      /* make the CPU counter's calibration fail */
/* The first read of the probe's first sample; until it is known, the read before. */
static _Thread_local int64_t calfail_first;
static _Thread_local int64_t calfail_prev;
static _Thread_local bool calfail_late; /* a read past the measurement window was seen */
static _Thread_local int calfail_back;  /* reads sent back */
static _Thread_local bool sleep_trap;   /* the next nanosleep() jumps to sleep_jb */
static _Thread_local jmp_buf sleep_jb;
static _Thread_local struct timespec sleep_req;

static int64_t real_ns(clockid_t id) {
  struct timespec ts;
  if (__real_clock_gettime(id, &ts) != 0) {
    return 0;
  }
  return (int64_t)ts.tv_sec * UTIM_NS_PER_S + ts.tv_nsec;
}

/* Sleep @p ns of CLOCK_MONOTONIC, whatever signals do. */
static void real_sleep(int64_t ns) {
  int64_t end = real_ns(CLOCK_MONOTONIC) + ns;
  for (int64_t now = real_ns(CLOCK_MONOTONIC); now < end; now = real_ns(CLOCK_MONOTONIC)) {
    struct timespec ts = {(time_t)((end - now) / UTIM_NS_PER_S),
                          (long)((end - now) % UTIM_NS_PER_S)};
    (void)__real_nanosleep(&ts, NULL);
  }
}

/* As a preemption of the selecting thread: the old time line goes on
 * (2 ms) and another thread reads it meanwhile. */
static void preempted(void) {
  delay_when = DELAY_NONE;
  real_sleep(2 * UTIM_NS_PER_MS);
  delay_seen = utim_now();
}

// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): --wrap's name
int __wrap_clock_gettime(clockid_t id, struct timespec *ts) {
  if (delay_when == DELAY_BEFORE && id == delay_clock) {
    preempted();
  }
  int rc = __real_clock_gettime(id, ts);
  if (slow_on && rc == 0 && id == slow_clock) {
    int64_t v = (int64_t)ts->tv_sec * UTIM_NS_PER_S + ts->tv_nsec;
    v = slow_base + (v - slow_base) / 2;
    ts->tv_sec = (time_t)(v / UTIM_NS_PER_S);
    ts->tv_nsec = (long)(v % UTIM_NS_PER_S);
  }
  if (delay_when == DELAY_AFTER && id == delay_clock) {
    preempted();
  }
  if (calfail && rc == 0 && id == CLOCK_MONOTONIC_RAW) {
    /*
     * The board's probe of the counter: a sample (16 reads), a wait until
     * 20 ms past it (reads followed by nanosleep()), a second sample. A
     * read 20 ms past the first sample not followed by a sleep ended the
     * wait: the reads after it (the second sample) go back 1 s, so the
     * measured rate is not positive and calibrating the counter fails.
     * The first sample starts at the first of two reads less than 1 ms
     * apart: the clock source's presence check reads the clock once before
     * it, and a thread held off 20 ms after that read (a loaded machine)
     * had the fault fire inside the first sample, so both samples went
     * back and the calibration succeeded.
     */
    int64_t v = (int64_t)ts->tv_sec * UTIM_NS_PER_S + ts->tv_nsec;
    if (calfail_first == 0) {
      if (calfail_prev != 0 && v - calfail_prev < UTIM_NS_PER_MS) {
        calfail_first = calfail_prev;
      }
      calfail_prev = v;
    } else if (v - calfail_first >= 20 * UTIM_NS_PER_MS) {
      if (calfail_late) {
        ts->tv_sec -= 1;
        calfail_back++;
      }
      calfail_late = true;
    }
  }
  return rc;
}

// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): --wrap's name
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem) {
  if (sleep_trap) {
    sleep_trap = false;
    sleep_req = *req;
    longjmp(sleep_jb, 1);
  }
  calfail_late = false; /* the probe's wait goes on */
  return __real_nanosleep(req, rem);
}

/* ---- helpers ----------------------------------------------------------------- */

/* The CPU counter's name on this architecture (undefined when there is none). */
#if defined(__x86_64__)
#define COUNTER_NAME "NATIVE_TSC"
#elif defined(__aarch64__)
#define COUNTER_NAME "NATIVE_CNTVCT"
#endif

/* Best-of-8 bracket of utim_now() around CLOCK_MONOTONIC_RAW: their offset. */
static int64_t offset_now(void) {
  int64_t best = INT64_MAX;
  int64_t off = 0;
  for (int i = 0; i < 8; i++) {
    int64_t a = utim_now();
    int64_t r = real_ns(CLOCK_MONOTONIC_RAW);
    int64_t b = utim_now();
    if (b - a < best) {
      best = b - a;
      off = a + (b - a) / 2 - r;
    }
  }
  return off;
}

/* ---- switch: the selecting thread delayed between its reads ------------------- */

/*
 * Switch from @p from to BOOTTIME with the selecting thread preempted
 * inside the switch: before its read of the new clock (@p when
 * DELAY_BEFORE), or after its read of the old one (DELAY_AFTER, from a
 * clock) with the new clock running at half speed meanwhile (as a slower
 * clock would, exaggerated). No reading after the switch is below one taken
 * during it.
 */
static void switch_delayed(const char *from, int when) {
  th_context("from %s, delay %s", from, when == DELAY_BEFORE ? "before" : "after");
  int rc = utim_clocksource_select(from);
  if (rc == -ENOTSUP) {
    th_note("%s not present here", from);
    return;
  }
  TH_EQ(rc, 0);
  int64_t before = utim_now();
  delay_seen = INT64_MIN;
  if (when == DELAY_BEFORE) {
    delay_clock = CLOCK_BOOTTIME;
  } else {
    delay_clock = CLOCK_MONOTONIC;
    slow_clock = CLOCK_BOOTTIME;
    slow_base = real_ns(CLOCK_BOOTTIME);
    slow_on = true;
  }
  delay_when = when;
  TH_EQ(utim_clocksource_select("NATIVE_BOOTTIME"), 0);
  int64_t after = utim_now();
  TH_CHECKF(delay_when == DELAY_NONE, "the switch did not read the clock");
  delay_when = DELAY_NONE;
  TH_CHECK(strcmp(utim_clocksource_name(), "NATIVE_BOOTTIME") == 0);
  TH_CHECK(delay_seen >= before);
  /* What a reader saw while the switch was under way is not in the future. */
  TH_CHECKF(after >= delay_seen, "went back by %lld ns across the switch",
            (long long)(delay_seen - after));
  for (int i = 0; i < 1000; i++) {
    int64_t t = utim_now();
    TH_CHECK(t >= after);
    after = t;
  }
  /* Leave BOOTTIME before it runs at full speed again (a step forward). */
  TH_EQ(utim_clocksource_select("NATIVE_MONOTONIC"), 0);
  slow_on = false;
  TH_CHECK(utim_now() >= after);
}

static void t_switch_delayed(void *arg) {
  (void)arg;
  switch_delayed("NATIVE_MONOTONIC", DELAY_BEFORE);
#ifdef COUNTER_NAME
  switch_delayed(COUNTER_NAME, DELAY_BEFORE);
#endif
  switch_delayed("NATIVE_MONOTONIC", DELAY_AFTER);
  th_context("back to auto");
  TH_EQ(utim_clocksource_select(NULL), 0);
}

/* ---- re-fit: forced re-fits in a loop pile up no offset ---------------------- */

static void t_refit_loop(void *arg) {
  const char *counter = arg;
  if (utim_clocksource_select(counter) != 0) {
    TH_SKIP("%s not usable here", counter);
  }
  utim_cs_report_t rep;
  TH_EQ(utim_clocksource_report(&rep), 0);
  uint64_t refits0 = rep.refits;
  int64_t off0 = offset_now();
  int64_t r0 = real_ns(CLOCK_MONOTONIC_RAW);
  int64_t prev = utim_now();
  unsigned calls = 0u;
  unsigned backs = 0u;
  int64_t r1 = r0;
  while (r1 - r0 < 100 * UTIM_NS_PER_MS) {
    int rc = utim_clocksource_refit();
    TH_CHECK(rc == 0 || rc == -EBUSY);
    calls++;
    int64_t t = utim_now();
    backs += t < prev ? 1u : 0u;
    prev = t;
    r1 = real_ns(CLOCK_MONOTONIC_RAW);
  }
  int64_t off1 = offset_now();
  TH_EQ(utim_clocksource_report(&rep), 0);
  uint64_t refits = rep.refits - refits0;
  int64_t elapsed = r1 - r0;
  th_note("%u calls, %llu re-fits over %lld ns, offset %lld -> %lld ns, last %lld ns", calls,
          (unsigned long long)refits, (long long)elapsed, (long long)off0, (long long)off1,
          (long long)rep.last_offset);
  TH_EQU(backs, 0u);
  /* At most one forced re-fit per ms of the counter (1 % for its rate error). */
  TH_CHECKF(refits <= (uint64_t)(elapsed / (UTIM_NS_PER_MS - UTIM_NS_PER_MS / 100)) + 2u,
            "%llu re-fits in %lld ns", (unsigned long long)refits, (long long)elapsed);
  /* Each re-fit's slope differs from the measured rate by at most the 100 ppm
   * slew; rounding adds a ns or so per re-fit. 500 ppm + 20 us is far above
   * both, far below what a fixed step per re-fit adds. */
  int64_t moved = utim_ns_abs(off1 - off0);
  TH_CHECKF(moved <= 20 * UTIM_NS_PER_US + elapsed / 2000, "offset moved %lld ns in %lld ns",
            (long long)moved, (long long)elapsed);
  TH_EQ(utim_clocksource_select(NULL), 0);
}

/* ---- drift: a duration past the end of the time line ------------------------- */

static void t_drift_huge(void *arg) {
  (void)arg;
  utim_cs_drift_t d;
  volatile bool slept = false;
  volatile int rc = 1;
  (void)utim_now(); /* initialised: the probe's sleeps are not trapped */
  sleep_trap = true;
  if (setjmp(sleep_jb) == 0) { // NOLINT(cert-err52-cpp): the drift loop is left at its first sleep
    rc = utim_clocksource_drift(UTIM_NS_MAX, UTIM_NS_PER_MS, &d);
  } else {
    slept = true;
  }
  sleep_trap = false;
  /* The end saturates: the measurement goes on (it sleeps one period),
   * not returns at once as if the end had passed. */
  TH_CHECKF(slept, "utim_clocksource_drift(UTIM_NS_MAX) returned %d without sleeping", rc);
  if (slept) {
    TH_EQ(sleep_req.tv_sec, 0);
    TH_EQ(sleep_req.tv_nsec, UTIM_NS_PER_MS);
  }
}

/* ---- UTIM_CLOCKSOURCE naming a counter that fails to calibrate -------------- */

static char init_stderr[2048];

static unsigned count_of(const char *hay, const char *needle) {
  unsigned n = 0;
  for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle)) {
    n++;
  }
  return n;
}

/* The first initialisation, with the fault armed and stderr kept. */
static void init_calfail(void) {
  FILE *tmp = tmpfile();
  int saved = dup(2);
  calfail = true;
  if (tmp == NULL || saved < 0) {
    (void)utim_clocksource_init();
    snprintf(init_stderr, sizeof init_stderr, "(stderr not captured)");
  } else {
    fflush(stderr);
    (void)dup2(fileno(tmp), 2);
    (void)utim_clocksource_init();
    (void)utim_clocksource_init();
    (void)utim_clocksource_name();
    (void)dup2(saved, 2);
    rewind(tmp);
    size_t n = fread(init_stderr, 1, sizeof init_stderr - 1u, tmp);
    init_stderr[n] = '\0';
  }
  calfail = false;
  if (saved >= 0) {
    (void)close(saved);
  }
  if (tmp != NULL) {
    fclose(tmp);
  }
  fputs(init_stderr, stderr);
}

static void t_env_calfail(void *arg) {
  const char *counter = arg;
  utim_cs_report_t rep;
  TH_EQ(utim_clocksource_report(&rep), 0);
  th_note("%s", rep.reason);
  int id = -1;
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    id = strcmp(rep.cand[i].name, counter) == 0 ? i : id;
  }
  TH_CHECK(id >= 0);
  if (id < 0 || rep.cand[id].rating <= 0) {
    TH_SKIP("%s not present here", counter);
  }
  /* The fault took: the counter could not be calibrated. */
  TH_CHECKF(calfail_back > 0, "no CLOCK_MONOTONIC_RAW read was sent back");
  TH_CHECKF(strcmp(rep.cand[id].why, "calibration against CLOCK_MONOTONIC_RAW failed") == 0,
            "%s: %s", counter, rep.cand[id].why);
  TH_CHECK(rep.chosen != id);
  /* Not honoured: the automatic choice, said in the report and once on stderr. */
  TH_EQ(rep.how, UTIM_CS_AUTO);
  char note[160];
  snprintf(note, sizeof note,
           "UTIM_CLOCKSOURCE=\"%s\" ignored: calibrating that time source failed", counter);
  TH_CHECKF(strstr(rep.reason, note) != NULL, "no '%s' in: %s", note, rep.reason);
  TH_CHECK(strstr(rep.reason, "honoured") == NULL);
  char warn[256];
  snprintf(warn, sizeof warn,
           "utim: UTIM_CLOCKSOURCE=\"%s\": calibrating that time source against "
           "CLOCK_MONOTONIC_RAW failed; using the automatic choice, %s.",
           counter, utim_clocksource_name());
  TH_CHECKF(strstr(init_stderr, warn) != NULL, "no '%s' in: '%s'", warn, init_stderr);
  TH_EQU(count_of(init_stderr, "utim: UTIM_CLOCKSOURCE="), 1u);
  TH_EQU(count_of(init_stderr, "\n"), 1u);
  /* Selecting it by hand fails the same way and changes nothing. */
  const char *name = utim_clocksource_name();
  int64_t t = utim_now();
  TH_EQ(utim_clocksource_select(counter), -EIO);
  TH_CHECK(strcmp(utim_clocksource_name(), name) == 0);
  TH_CHECK(utim_now() >= t);
}

int main(int argc, char **argv) {
  th_set_putc(th_stdio_putc);
  if (argc > 1 && strcmp(argv[1], "calfail") == 0) {
#ifdef COUNTER_NAME
    (void)setenv("UTIM_CLOCKSOURCE", COUNTER_NAME, 1);
    init_calfail();
    th_run("faults: UTIM_CLOCKSOURCE naming a counter that fails to calibrate is ignored, warned",
           t_env_calfail, (void *)COUNTER_NAME);
#else
    th_note("no CPU counter on this architecture");
#endif
    return th_finish();
  }
  th_run("faults: switch delayed between its reads, no reading goes back", t_switch_delayed, NULL);
#ifdef COUNTER_NAME
  th_run("faults: forced re-fits in a loop pile up no offset", t_refit_loop, (void *)COUNTER_NAME);
#endif
  th_run("faults: drift over UTIM_NS_MAX sleeps, the end saturates", t_drift_huge, NULL);
  return th_finish();
}
