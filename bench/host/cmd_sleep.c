/**
 * @file cmd_sleep.c
 * @brief `utim-bench sleep`: how late each way of sleeping wakes up, and
 *        what CPU it burns, for 10 us, 100 us, 1 ms and 10 ms, all measured
 *        on the same machine in the same run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "bench_host.h"
#include "board_native.h"
#include "clocksource.h"
#include "histogram.h"
#include "utim/port.h"
#include "utim/time.h"

#define SLP_NSIZES 4u
#define SLP_WARMUP 5u
/* The targets of utim's sleep, reported beside the measurement. */
#define SLP_FIG_1MS_MEDIAN_NS 250.0
#define SLP_FIG_1MS_MEAN_NS   1000.0
#define SLP_FIG_1MS_CPU       3.0
#define SLP_FIG_10MS_CPU      1.0

typedef enum slp_method {
  SLP_NANOSLEEP = 0,
  SLP_ABS = 1,
  SLP_ABS_SLACK1 = 2,
  SLP_BUSY = 3,
  SLP_UTIM = 4,
  SLP_NMETHODS = 5,
} slp_method_t;

static const char *const method_name[SLP_NMETHODS] = {"nanosleep", "clock_nanosleep_abs",
                                                      "clock_nanosleep_abs_slack1ns", "busy_wait",
                                                      "utim_sleep_until"};
static const char *const method_what[SLP_NMETHODS] = {
    "nanosleep(d), relative, default timer slack",
    "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), default timer slack",
    "the same with the thread's timer slack at 1 ns (PR_SET_TIMERSLACK)",
    "spin on clock_gettime(CLOCK_MONOTONIC) until the deadline",
    "utim_sleep_until(utim_now() + d): kernel sleep to a margin, then spin on utim_now()"};

static const int64_t sizes_ns[SLP_NSIZES] = {10000, 100000, 1000000, 10000000};
/* About 3.5 s per method in all: the whole default run of the four
 * benchmarks has to stay under 3 minutes. */
#define SLP_DEFAULT_SAMPLES 2000, 1000, 1000, 200
#define SLP_LONG_SAMPLES    20000, 10000, 5000, 1000
static const unsigned long default_samples[SLP_NSIZES] = {SLP_DEFAULT_SAMPLES};
static const unsigned long long_samples[SLP_NSIZES] = {SLP_LONG_SAMPLES};

typedef struct slp_opts {
  unsigned long fixed;     /* --samples, 0 until given */
  unsigned long histogram; /* --histogram US: buckets, 0 for none */
  bool lng;
  unsigned long samples[SLP_NSIZES];
} slp_opts_t;

typedef struct slp_row {
  bench_stats_t miss;    /* ns */
  double cpu_percent;    /* thread CPU time over wall time of the whole row */
  double sleeper_cpu;    /* utim rows: the sleeper's own cpu_sum / cpu_elapsed, else < 0 */
  int64_t margin_ns;     /* utim rows: margin at the end */
  uint64_t late_calls;   /* utim rows: coarse sleeps that overshot the deadline */
  unsigned long earlies; /* wake-ups before the deadline (must stay 0) */
  int error;             /* 0, or the errno of a failing call */
  bench_hist_t hist;     /* with --histogram: the misses in 1-us buckets */
} slp_row_t;

typedef struct slp_report {
  const slp_opts_t *o;
  bench_machine_t m;
  slp_row_t rows[SLP_NMETHODS][SLP_NSIZES];
  unsigned long default_slack_ns;
  char source[64];
} slp_report_t;

static void slp_describe(FILE *f) {
  fputs("For 10 us, 100 us, 1 ms and 10 ms, the miss (wake-up time - deadline: mean,\n"
        "median, p99, max) and the CPU % of the sleeping thread (its\n"
        "CLOCK_THREAD_CPUTIME_ID time over the wall time of the row) of:\n",
        f);
  for (unsigned i = 0; i < SLP_NMETHODS; i++) {
    fprintf(f, "  %-29s %s\n", method_name[i], method_what[i]);
  }
  fprintf(f,
          "Each method runs in a thread of its own (normal scheduling), so timer slack and\n"
          "utim's adaptive margin start fresh; %u untimed sleeps open each row.\n",
          SLP_WARMUP);
}

static const bench_opt_t slp_opts[] = {
    BENCH_UINT(
        "--samples", slp_opts_t, fixed, 1u, 1000000u,
        "sleeps per row, every size (default " BENCH_STR(
            SLP_DEFAULT_SAMPLES) " for\n10 us, 100 us, 1 ms, 10 ms; " BENCH_STR(SLP_LONG_SAMPLES) " with --long)"),
    BENCH_FLAG("--long", slp_opts_t, lng, "the longer sample counts above"),
    BENCH_UINT("--histogram", slp_opts_t, histogram, 1u, 100000u,
               "also print a histogram of the misses in N 1-us buckets per\n"
               "row, in the layout of cyclictest -h N (JSON: \"histogram\")"),
};

static const bench_cli_t slp_cli = {
    .cmd = "sleep",
    .opts = slp_opts,
    .nopts = sizeof slp_opts / sizeof slp_opts[0],
    .json_help = "print one JSON document: {\"benchmark\":\"sleep\",\"machine\":{...},\n"
                 "\"rows\":[{\"name\",\"duration_ns\",\"unit\":\"ns\",\"median\",\"mean\",\n"
                 "\"p99\",\"max\",\"min\",\"stddev\",\"n\",\"cpu_percent\",...}]}; the\n"
                 "statistics are of the miss in ns",
    .describe = slp_describe,
};

static struct timespec to_ts(int64_t ns) {
  return (struct timespec){(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
}

/* One sleep of @p d by @p method; returns its miss in ns, or sets *err. */
static int64_t sleep_once(slp_method_t method, int64_t d, int *err) {
  int64_t deadline;
  int64_t wake;
  int rc = 0;
  switch (method) {
  case SLP_NANOSLEEP: {
    struct timespec rel = to_ts(d);
    deadline = utim_native_clock_ns(CLOCK_MONOTONIC) + d;
    rc = nanosleep(&rel, NULL) == 0 ? 0 : errno;
    wake = utim_native_clock_ns(CLOCK_MONOTONIC);
    break;
  }
  case SLP_ABS:
  case SLP_ABS_SLACK1: {
    deadline = utim_native_clock_ns(CLOCK_MONOTONIC) + d;
    struct timespec abs = to_ts(deadline);
    rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
    wake = utim_native_clock_ns(CLOCK_MONOTONIC);
    break;
  }
  case SLP_BUSY:
    deadline = utim_native_clock_ns(CLOCK_MONOTONIC) + d;
    do {
      wake = utim_native_clock_ns(CLOCK_MONOTONIC);
    } while (wake < deadline);
    break;
  case SLP_UTIM:
  default:
    rc = -utim_sleep_until(utim_now() + d);
    /* The sleeper's own record: its wake time is its first read at or
     * after the deadline, the same definition as the rows above. */
    deadline = utim_port_sleeper()->last.deadline;
    wake = utim_port_sleeper()->last.wake;
    break;
  }
  if (rc != 0 && *err == 0) {
    *err = rc;
  }
  return wake - deadline;
}

typedef struct slp_job {
  slp_report_t *r;
  slp_method_t method;
} slp_job_t;

static void *method_thread(void *arg) {
  slp_job_t *j = arg;
  slp_report_t *r = j->r;
  const slp_method_t method = j->method;
  if (method == SLP_ABS_SLACK1) {
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  }
  if (method == SLP_UTIM) {
    (void)utim_port_sleeper(); /* learns this thread's wake-up latency (untimed) */
  }
  double *miss = bench_sample_buffer(r->o->samples, SLP_NSIZES);
  for (unsigned s = 0; s < SLP_NSIZES; s++) {
    slp_row_t *row = &r->rows[method][s];
    row->sleeper_cpu = -1.0;
    if (miss == NULL) {
      row->error = ENOMEM;
      continue;
    }
    const int64_t d = sizes_ns[s];
    bench_progress("sleep: %s, %lld us, %lu sleeps", method_name[method], (long long)(d / 1000),
                   r->o->samples[s]);
    for (unsigned k = 0; k < SLP_WARMUP; k++) {
      (void)sleep_once(method, d, &row->error);
    }
    if (method == SLP_UTIM) {
      utim_sleeper_reset_stats(utim_port_sleeper());
    }
    const int64_t cpu0 = utim_native_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    const int64_t w0 = utim_native_clock_ns(CLOCK_MONOTONIC);
    for (unsigned long k = 0; k < r->o->samples[s]; k++) {
      int64_t m = sleep_once(method, d, &row->error);
      if (m < 0) {
        row->earlies++;
      }
      miss[k] = (double)m;
    }
    const int64_t w1 = utim_native_clock_ns(CLOCK_MONOTONIC);
    const int64_t cpu1 = utim_native_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    row->cpu_percent = w1 > w0 ? 100.0 * (double)(cpu1 - cpu0) / (double)(w1 - w0) : 0.0;
    if (r->o->histogram != 0u &&
        bench_hist_fill(&row->hist, miss, r->o->samples[s], (unsigned)r->o->histogram) != 0) {
      row->error = row->error != 0 ? row->error : ENOMEM;
    }
    bench_stats(miss, r->o->samples[s], &row->miss); /* sorts: the histogram first */
    if (method == SLP_UTIM) {
      utim_sleep_stats_t st;
      if (utim_sleeper_stats(utim_port_sleeper(), &st) == 0 && st.cpu_elapsed > 0) {
        row->sleeper_cpu = 100.0 * (double)st.cpu_sum / (double)st.cpu_elapsed;
        row->margin_ns = st.margin;
        row->late_calls = st.late_calls;
      }
    }
  }
  if (method == SLP_NANOSLEEP) {
    int slack = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    r->default_slack_ns = slack > 0 ? (unsigned long)slack : 0u;
  }
  free(miss);
  return NULL;
}

static void json_machine(bench_jw_t *w, const void *rp) {
  const slp_report_t *r = rp;
  bench_jw_uint(w, "default_timer_slack_ns", r->default_slack_ns);
  bench_jw_str(w, "time_source", r->source);
  bench_jw_str(w, "policy", "SCHED_OTHER");
}

static void print_json(bench_jw_t *w, const void *rp) {
  const slp_report_t *r = rp;
  bench_jw_array(w, "rows");
  for (unsigned s = 0; s < SLP_NSIZES; s++) {
    for (unsigned mth = 0; mth < SLP_NMETHODS; mth++) {
      const slp_row_t *row = &r->rows[mth][s];
      bench_jw_object(w, NULL);
      bench_jw_str(w, "name", method_name[mth]);
      bench_jw_int(w, "duration_ns", (long long)sizes_ns[s]);
      bench_jw_str(w, "unit", "ns");
      bench_jw_stats(w, &row->miss);
      bench_jw_num(w, "cpu_percent", true, row->cpu_percent);
      bench_jw_uint(w, "early", row->earlies);
      bench_jw_int(w, "error", row->error);
      if (mth == SLP_UTIM) {
        bench_jw_num(w, "sleeper_cpu_percent", row->sleeper_cpu >= 0.0, row->sleeper_cpu);
        bench_jw_int(w, "margin_ns", (long long)row->margin_ns);
        bench_jw_uint(w, "late_calls", row->late_calls);
      }
      bench_jw_end(w);
    }
  }
  bench_jw_end(w);
  if (r->o->histogram != 0u) {
    bench_hist_json_open(w, (unsigned)r->o->histogram);
    for (unsigned s = 0; s < SLP_NSIZES; s++) {
      for (unsigned mth = 0; mth < SLP_NMETHODS; mth++) {
        bench_hist_json(w, &r->rows[mth][s].hist, method_name[mth], "duration_ns",
                        (long long)sizes_ns[s]);
      }
    }
    bench_hist_json_close(w);
  }
}

static const char *verdict(bool ok) {
  return ok ? "met" : "NOT met";
}

static void print_table(FILE *f, const void *rp) {
  const slp_report_t *r = rp;
  fprintf(f,
          "  threads:   one per method, SCHED_OTHER; default timer slack %lu ns; utim time "
          "source %s\n",
          r->default_slack_ns, r->source);
  for (unsigned i = 0; i < SLP_NMETHODS; i++) {
    fprintf(f, "  %-29s %s\n", method_name[i], method_what[i]);
  }
  for (unsigned s = 0; s < SLP_NSIZES; s++) {
    char head[64];
    if (sizes_ns[s] >= 1000000) {
      snprintf(head, sizeof head, "sleep %lld ms (%lu sleeps)", (long long)(sizes_ns[s] / 1000000),
               r->o->samples[s]);
    } else {
      snprintf(head, sizeof head, "sleep %lld us (%lu sleeps)", (long long)(sizes_ns[s] / 1000),
               r->o->samples[s]);
    }
    const bench_col_t cols[] = {{head, -42, 0},    {"mean us", 10, 3}, {"median us", 10, 3},
                                {"p99 us", 10, 3}, {"max us", 10, 3},  {"CPU %", 7, 2}};
    const size_t ncols = sizeof cols / sizeof cols[0];
    fputc('\n', f);
    bench_table_head(f, cols, ncols);
    for (unsigned mth = 0; mth < SLP_NMETHODS; mth++) {
      const slp_row_t *row = &r->rows[mth][s];
      char name[48];
      char tail[128] = "";
      snprintf(name, sizeof name, "  %s", method_name[mth]);
      if (row->error != 0) {
        snprintf(tail, sizeof tail, "  (error: %s)", strerror(row->error));
      }
      if (row->earlies != 0u) {
        size_t n = strlen(tail);
        snprintf(tail + n, sizeof tail - n, "  (%lu woke EARLY)", row->earlies);
      }
      const bench_cell_t cells[] = {
          BENCH_TEXT(name),
          BENCH_NUM(row->miss.mean / 1e3),
          BENCH_NUM(row->miss.median / 1e3),
          BENCH_NUM(row->miss.p99 / 1e3),
          BENCH_NUM(row->miss.max / 1e3),
          BENCH_NUM(row->cpu_percent),
      };
      bench_table_row(f, cols, ncols, cells, sizeof cells / sizeof cells[0], tail);
    }
  }
  const slp_row_t *u1 = &r->rows[SLP_UTIM][2];
  const slp_row_t *u10 = &r->rows[SLP_UTIM][3];
  fprintf(f, "\nutim sleeper's own accounting (cpu_sum / cpu_elapsed): ");
  for (unsigned s = 0; s < SLP_NSIZES; s++) {
    fprintf(f, "%s%lld us %.2f %%", s ? ", " : "", (long long)(sizes_ns[s] / 1000),
            r->rows[SLP_UTIM][s].sleeper_cpu);
  }
  fprintf(f, "; margin at the end %.3f us\n", (double)u10->margin_ns / 1e3);
  fprintf(f, "\ntargets of utim_sleep_until (reported, not asserted):\n");
  fprintf(f, "  1 ms: median miss <= 0.25 us: %.3f us  %s\n", u1->miss.median / 1e3,
          verdict(u1->miss.median <= SLP_FIG_1MS_MEDIAN_NS));
  fprintf(f, "  1 ms: mean miss <= 1 us:      %.3f us  %s\n", u1->miss.mean / 1e3,
          verdict(u1->miss.mean <= SLP_FIG_1MS_MEAN_NS));
  fprintf(f, "  1 ms: CPU <= 3 %%:             %.2f %%  %s\n", u1->cpu_percent,
          verdict(u1->cpu_percent <= SLP_FIG_1MS_CPU));
  fprintf(f, "  10 ms: CPU <= 1 %%:            %.2f %%  %s\n", u10->cpu_percent,
          verdict(u10->cpu_percent <= SLP_FIG_10MS_CPU));
  if (r->o->histogram != 0u) {
    for (unsigned s = 0; s < SLP_NSIZES; s++) {
      for (unsigned mth = 0; mth < SLP_NMETHODS; mth++) {
        char title[96];
        snprintf(title, sizeof title, "%s, sleep %lld us: miss", method_name[mth],
                 (long long)(sizes_ns[s] / 1000));
        fputc('\n', f);
        bench_hist_print(f, &r->rows[mth][s].hist, title);
      }
    }
  }
}

static const bench_writer_t slp_writer = {
    .name = "sleep",
    .title = "miss (wake-up - deadline) and CPU of the sleeping thread",
    .table = print_table,
    .json_machine = json_machine,
    .json = print_json,
};

int bench_cmd_sleep(int argc, char **argv) {
  slp_opts_t o = {0};
  bench_output_t out;
  int rc = bench_cli_parse(&slp_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  for (unsigned s = 0; s < SLP_NSIZES; s++) {
    o.samples[s] = o.fixed != 0u ? o.fixed : o.lng ? long_samples[s] : default_samples[s];
  }
  bench_progress_init();
  slp_report_t *r = calloc(1, sizeof *r);
  if (r == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    bench_output_discard(&out);
    return 1;
  }
  r->o = &o;
  bench_progress("calibrating the TSC, choosing the time source");
  bench_machine_probe(&r->m);
  native_board_init();
  (void)utim_clocksource_init();
  snprintf(r->source, sizeof r->source, "%s", utim_clocksource_name());

  for (unsigned mth = 0; mth < SLP_NMETHODS; mth++) {
    slp_job_t job = {r, (slp_method_t)mth};
    pthread_t th;
    pthread_attr_t attr;
    (void)pthread_attr_init(&attr);
    /* Normal scheduling on purpose: what an ordinary program gets. The
     * kernel ignores timer slack for real-time threads. */
    (void)pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    (void)pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    int e = pthread_create(&th, &attr, method_thread, &job);
    (void)pthread_attr_destroy(&attr);
    if (e != 0) {
      bench_progress_done();
      fprintf(stderr, BENCH_PROG ": sleep: cannot start a thread: %s\n", strerror(e));
      free(r);
      bench_output_discard(&out);
      return 1;
    }
    (void)pthread_join(th, NULL);
  }
  bench_progress_done();
  rc = bench_output_write(&out, &slp_writer, &r->m, r);
  for (unsigned mth = 0; mth < SLP_NMETHODS; mth++) {
    for (unsigned s = 0; s < SLP_NSIZES; s++) {
      bench_hist_free(&r->rows[mth][s].hist);
    }
  }
  free(r);
  return rc;
}
