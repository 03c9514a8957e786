/**
 * @file cmd_clock.c
 * @brief `utim-bench clock`: cost of one time read, side by side in one run
 *        (CPU counter instructions, clock_gettime clocks, utim_read on every
 *        native instance, utim_now()), the time source utim chose and why,
 *        and the drift of utim_now() against CLOCK_MONOTONIC_RAW.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_host.h"
#include "board_native.h"
#include "clocksource.h"
#include "utim/utim.h"

#define CLK_DEFAULT_RUNS    21
#define CLK_LONG_RUNS       101
#define CLK_DEFAULT_DRIFT_S 10
#define CLK_LONG_DRIFT_S    60
#define CLK_DRIFT_PERIOD_NS (250 * UTIM_NS_PER_MS)
#define CLK_RUN_TARGET_NS   2000000u /* one timed run lasts about this long */
#define CLK_MAX_ROWS        24u
#define CLK_FIGURE_VS_RDTSC 1.3
#define CLK_FIGURE_VS_MONO  0.6

typedef struct clk_opts {
  unsigned long runs;    /* 0 until given */
  unsigned long drift_s; /* 0 until given */
  bool lng;
} clk_opts_t;

typedef struct clk_row {
  char name[48];
  const char *kind; /* "cpu", "clock_gettime", "utim_read", "utim_now" */
  bench_loop_fn loop;
  const utim_periph_t *inst; /* utim_read rows */
  uint32_t hz;               /* utim_read rows: the frequency the instance counts at */
  uint32_t iters;
  double *per_run; /* ns per read of each run */
  bench_stats_t st;
} clk_row_t;

typedef struct clk_report {
  const clk_opts_t *o;
  bench_machine_t m;
  utim_cs_report_t cs;
  utim_cs_drift_t drift;
  int drift_rc;
  clk_row_t rows[CLK_MAX_ROWS];
  size_t nrows;
  double base_ns; /* empty loop, per iteration (median) */
  char notes[4][200];
  size_t nnotes;
} clk_report_t;

static void clk_describe(FILE *f) {
  fputs("Cost of one time read, all rows measured side by side in one run (runs\n"
        "interleaved row by row, so a frequency change hits every row alike):\n"
        "  rdtsc, rdtscp, lfence;rdtsc   the CPU counter instructions (x86-64)\n"
        "  clock_gettime(CLOCK_...)      MONOTONIC, MONOTONIC_RAW, REALTIME, MONOTONIC_COARSE\n"
        "  utim_read(NAME)               utim_read() on every native instance, each\n"
        "                                initialised at its highest frequency\n"
        "  utim_now()                    utim's time in ns (boards/native/clocksource.h)\n"
        "Per row: ns per read (median of the runs, empty-loop cost subtracted) and\n"
        "its ratio to clock_gettime(CLOCK_MONOTONIC). Then the time source utim chose\n"
        "and why, and the drift of utim_now() against CLOCK_MONOTONIC_RAW, measured\n"
        "by a background thread (sampling every 250 ms) while the reads are timed.\n",
        f);
}

static const bench_opt_t clk_opts[] = {
    BENCH_UINT("--runs", clk_opts_t, runs, 3u, 10000u,
               "timed runs per row (default " BENCH_STR(CLK_DEFAULT_RUNS) ", " BENCH_STR(
                   CLK_LONG_RUNS) " with --long)"),
    BENCH_UINT("--drift-seconds", clk_opts_t, drift_s, 1u, 86400u,
               "length of the drift measurement in s (default " BENCH_STR(
                   CLK_DEFAULT_DRIFT_S) ", " BENCH_STR(CLK_LONG_DRIFT_S) " with --long)"),
    BENCH_FLAG("--long", clk_opts_t, lng, "the longer settings above"),
};

static const bench_cli_t clk_cli = {
    .cmd = "clock",
    .opts = clk_opts,
    .nopts = sizeof clk_opts / sizeof clk_opts[0],
    .json_help = "print one JSON document: {\"benchmark\":\"clock\",\n"
                 "\"machine\":{...},\"source\":{...},\"drift\":{...},\"rows\":[{\"name\",\n"
                 "\"kind\",\"unit\":\"ns\",\"median\",\"mean\",\"p99\",\"max\",\"min\",\n"
                 "\"stddev\",\"n\",\"iterations\",\"ratio_monotonic\"}]}; statistics are\n"
                 "over the runs (n = runs) of ns per read",
    .describe = clk_describe,
};

/* ---- the measured loops: one read per iteration, results summed so no read is dead */

static const utim_periph_t *volatile clk_inst;

BENCH_NOINLINE static void loop_empty(uint32_t n) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc += i;
  }
  bench_sink = acc;
}

#if defined(__x86_64__)
BENCH_NOINLINE static void loop_rdtsc(uint32_t n) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    uint32_t lo;
    uint32_t hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    acc += ((uint64_t)hi << 32) | lo;
  }
  bench_sink = acc;
}

BENCH_NOINLINE static void loop_rdtscp(uint32_t n) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    uint32_t lo;
    uint32_t hi;
    uint32_t aux;
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    acc += (((uint64_t)hi << 32) | lo) + aux;
  }
  bench_sink = acc;
}

BENCH_NOINLINE static void loop_lfence_rdtsc(uint32_t n) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    uint32_t lo;
    uint32_t hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    acc += ((uint64_t)hi << 32) | lo;
  }
  bench_sink = acc;
}
#endif

#define CLK_GETTIME_LOOP(tag, id)                                                                  \
  BENCH_NOINLINE static void loop_cg_##tag(uint32_t n) {                                           \
    uint64_t acc = 0;                                                                              \
    for (uint32_t i = 0; i < n; i++) {                                                             \
      BENCH_BARRIER();                                                                             \
      struct timespec ts;                                                                          \
      (void)clock_gettime((id), &ts);                                                              \
      acc += (uint64_t)ts.tv_nsec;                                                                 \
    }                                                                                              \
    bench_sink = acc;                                                                              \
  }
CLK_GETTIME_LOOP(mono, CLOCK_MONOTONIC)
CLK_GETTIME_LOOP(raw, CLOCK_MONOTONIC_RAW)
CLK_GETTIME_LOOP(real, CLOCK_REALTIME)
CLK_GETTIME_LOOP(coarse, CLOCK_MONOTONIC_COARSE)

BENCH_NOINLINE static void loop_utim_read(uint32_t n) {
  const utim_periph_t *p = clk_inst;
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc += utim_read(p);
  }
  bench_sink = acc;
}

BENCH_NOINLINE static void loop_utim_now(uint32_t n) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc += (uint64_t)utim_now();
  }
  bench_sink = acc;
}

static double time_run(const clk_row_t *r) {
  clk_inst = r->inst;
  uint64_t t0 = (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC);
  r->loop(r->iters);
  uint64_t t1 = (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC);
  return (double)(t1 - t0) / (double)r->iters;
}

/* Iterations so that one run lasts about CLK_RUN_TARGET_NS whatever a read costs. */
static uint32_t pick_iters(clk_row_t *r) {
  r->iters = 1000u;
  (void)time_run(r); /* page faults and cold caches belong to no run */
  double ns = time_run(r);
  double it = ns > 0.0 ? (double)CLK_RUN_TARGET_NS / ns : 1e7;
  if (it < 1000.0) {
    it = 1000.0;
  }
  if (it > 1e7) {
    it = 1e7;
  }
  return (uint32_t)it;
}

static clk_row_t *add_row(clk_report_t *r, const char *name, const char *kind, bench_loop_fn loop) {
  if (r->nrows >= CLK_MAX_ROWS) {
    return NULL;
  }
  clk_row_t *row = &r->rows[r->nrows++];
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", name);
  row->kind = kind;
  row->loop = loop;
  return row;
}

static void add_note(clk_report_t *r, const char *msg) {
  if (r->nnotes < sizeof r->notes / sizeof r->notes[0]) {
    snprintf(r->notes[r->nnotes++], sizeof r->notes[0], "%s", msg);
  }
}

/* Every native instance counting at its highest frequency, so utim_read() does real work. */
static void add_instance_rows(clk_report_t *r) {
  for (unsigned i = 0; i < utim_board.count; i++) {
    const utim_periph_t *p = utim_board.instances[i];
    uint32_t hz = 0;
    char name[48];
    snprintf(name, sizeof name, "utim_read(%s)", p->dev->name);
    if (utim_freqs(p, 0u, &hz, 1u) < 1 || utim_init(p, hz, UTIM_CLOCK_PLATFORM(0)) != 0 ||
        utim_start(p) != 0) {
      char msg[200];
      snprintf(msg, sizeof msg, "%s could not be initialised (no usable clock input): no row",
               p->dev->name);
      add_note(r, msg);
      continue;
    }
    clk_row_t *row = add_row(r, name, "utim_read", loop_utim_read);
    if (row != NULL) {
      row->inst = p;
      row->hz = hz;
    }
  }
}

typedef struct drift_job {
  utim_ns_t duration;
  utim_cs_drift_t d;
  int rc;
} drift_job_t;

static void *drift_thread(void *arg) {
  drift_job_t *j = arg;
  j->rc = utim_clocksource_drift(j->duration, CLK_DRIFT_PERIOD_NS, &j->d);
  return NULL;
}

static const clk_row_t *find_row(const clk_report_t *r, const char *name) {
  for (size_t i = 0; i < r->nrows; i++) {
    if (strcmp(r->rows[i].name, name) == 0) {
      return &r->rows[i];
    }
  }
  return NULL;
}

static double ratio_mono(const clk_report_t *r, const clk_row_t *row) {
  const clk_row_t *mono = find_row(r, "clock_gettime(CLOCK_MONOTONIC)");
  if (mono == NULL || mono->st.median <= 0.0) {
    return -1.0;
  }
  return row->st.median / mono->st.median;
}

static void json_machine(bench_jw_t *w, const void *rp) {
  const clk_report_t *r = rp;
  bench_jw_uint(w, "runs", r->o->runs);
  bench_jw_num(w, "baseline_ns", true, r->base_ns);
}

static void print_json(bench_jw_t *w, const void *rp) {
  const clk_report_t *r = rp;
  bench_jw_object(w, "source");
  const bool have_cs = r->cs.chosen >= 0 && r->cs.chosen < UTIM_CS_COUNT;
  bench_jw_str(w, "chosen", have_cs ? r->cs.cand[r->cs.chosen].name : "unknown");
  bench_jw_str(w, "how",
               r->cs.how == UTIM_CS_ENV   ? "env"
               : r->cs.how == UTIM_CS_API ? "api"
                                          : "auto");
  bench_jw_uint(w, "hz", r->cs.hz);
  bench_jw_uint(w, "mult", r->cs.ms.mult);
  bench_jw_uint(w, "shift", r->cs.ms.shift);
  bench_jw_str(w, "kernel_clocksource", r->cs.kernel_cs);
  bench_jw_str(w, "reason", r->cs.reason);
  bench_jw_array(w, "candidates");
  for (int i = 0; i < UTIM_CS_COUNT; i++) {
    const utim_cs_candidate_t *c = &r->cs.cand[i];
    bench_jw_object(w, NULL);
    bench_jw_str(w, "name", c->name);
    bench_jw_int(w, "rating", (int)c->rating);
    bench_jw_str(w, "why", c->why);
    bench_jw_end(w);
  }
  bench_jw_end(w);
  bench_jw_end(w);
  if (r->drift_rc != 0) {
    bench_jw_null(w, "drift");
  } else {
    const utim_cs_drift_t *d = &r->drift;
    bench_jw_object(w, "drift");
    bench_jw_str(w, "against", "CLOCK_MONOTONIC_RAW");
    bench_jw_int(w, "elapsed_ns", (long long)d->elapsed);
    bench_jw_int(w, "drift_ns", (long long)d->drift);
    bench_jw_int(w, "drift_ppb", (long long)d->drift_ppb);
    bench_jw_int(w, "max_dev_ns", (long long)d->max_dev);
    bench_jw_int(w, "bracket_ns", (long long)d->bracket);
    bench_jw_uint(w, "samples", d->samples);
    bench_jw_uint(w, "refits", d->refits);
    bench_jw_end(w);
  }
  bench_jw_array(w, "notes");
  for (size_t i = 0; i < r->nnotes; i++) {
    bench_jw_str(w, NULL, r->notes[i]);
  }
  bench_jw_end(w);
  bench_jw_array(w, "rows");
  for (size_t i = 0; i < r->nrows; i++) {
    const clk_row_t *row = &r->rows[i];
    bench_jw_object(w, NULL);
    bench_jw_str(w, "name", row->name);
    bench_jw_str(w, "kind", row->kind);
    bench_jw_str(w, "unit", "ns");
    bench_jw_stats(w, &row->st);
    bench_jw_uint(w, "iterations", row->iters);
    double q = ratio_mono(r, row);
    bench_jw_num(w, "ratio_monotonic", q >= 0.0, q);
    if (row->inst != NULL) {
      bench_jw_uint(w, "hz", row->hz);
    }
    bench_jw_end(w);
  }
  bench_jw_end(w);
}

static const bench_col_t clk_cols[] = {
    {"read", -44, 0}, {"ns/read", 9, 2}, {"mean", 9, 2},
    {"p99", 9, 2},    {"max", 9, 2},     {"x MONO", 8, 2},
};
#define CLK_NCOLS (sizeof clk_cols / sizeof clk_cols[0])

static void print_table(FILE *f, const void *rp) {
  const clk_report_t *r = rp;
  fprintf(f,
          "  timing:    median of %lu runs of about %u ms each, rows interleaved; empty loop "
          "subtracted (%.3f ns per iteration)\n\n",
          r->o->runs, CLK_RUN_TARGET_NS / 1000000u, r->base_ns);
  bench_table_head(f, clk_cols, CLK_NCOLS);
  for (size_t i = 0; i < r->nrows; i++) {
    const clk_row_t *row = &r->rows[i];
    char name[sizeof row->name + 32];
    if (row->inst != NULL) {
      snprintf(name, sizeof name, "%s @%g MHz", row->name, row->hz / 1e6);
    } else {
      snprintf(name, sizeof name, "%s", row->name);
    }
    double q = ratio_mono(r, row);
    const bench_cell_t cells[CLK_NCOLS] = {
        BENCH_TEXT(name),       BENCH_NUM(row->st.median), BENCH_NUM(row->st.mean),
        BENCH_NUM(row->st.p99), BENCH_NUM(row->st.max),    BENCH_NUM_IF(q >= 0.0, q),
    };
    bench_table_row(f, clk_cols, CLK_NCOLS, cells, CLK_NCOLS, NULL);
  }
  fprintf(f, "\ntime source: %s\n", r->cs.reason);
  if (r->drift_rc != 0) {
    fprintf(f, "drift: not measured (error %d)\n", r->drift_rc);
  } else {
    const utim_cs_drift_t *d = &r->drift;
    fprintf(f,
            "drift of utim_now() against CLOCK_MONOTONIC_RAW over %.1f s: %+lld ns (%+lld ppb), "
            "largest deviation %lld ns, %u samples (read bracket <= %lld ns), %u re-fits\n",
            (double)d->elapsed / 1e9, (long long)d->drift, (long long)d->drift_ppb,
            (long long)d->max_dev, d->samples, (long long)d->bracket, d->refits);
  }
  for (size_t i = 0; i < r->nnotes; i++) {
    fprintf(f, "note: %s\n", r->notes[i]);
  }
  const clk_row_t *now = find_row(r, "utim_now()");
  const clk_row_t *tsc = find_row(r, "rdtsc");
  const clk_row_t *mono = find_row(r, "clock_gettime(CLOCK_MONOTONIC)");
  fprintf(f, "\ntargets (reported, not asserted):\n");
  if (now != NULL && tsc != NULL && tsc->st.median > 0.0) {
    double q = now->st.median / tsc->st.median;
    fprintf(f, "  utim_now() <= %.1f x rdtsc:                  %.2f x  %s\n", CLK_FIGURE_VS_RDTSC,
            q, q <= CLK_FIGURE_VS_RDTSC ? "met" : "NOT met");
  } else {
    fprintf(f, "  utim_now() <= %.1f x rdtsc:                  no rdtsc on this architecture\n",
            CLK_FIGURE_VS_RDTSC);
  }
  if (now != NULL && mono != NULL && mono->st.median > 0.0) {
    double q = now->st.median / mono->st.median;
    fprintf(f, "  utim_now() <= %.1f x clock_gettime(MONOTONIC): %.2f x  %s\n", CLK_FIGURE_VS_MONO,
            q, q <= CLK_FIGURE_VS_MONO ? "met" : "NOT met");
  }
}

static const bench_writer_t clk_writer = {
    .name = "clock",
    .title = "cost of one time read",
    .table = print_table,
    .json_machine = json_machine,
    .json = print_json,
};

int bench_cmd_clock(int argc, char **argv) {
  clk_opts_t o = {0};
  bench_output_t out;
  int rc = bench_cli_parse(&clk_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  if (o.runs == 0u) {
    o.runs = o.lng ? CLK_LONG_RUNS : CLK_DEFAULT_RUNS;
  }
  if (o.drift_s == 0u) {
    o.drift_s = o.lng ? CLK_LONG_DRIFT_S : CLK_DEFAULT_DRIFT_S;
  }
  bench_progress_init();
  clk_report_t *r = calloc(1, sizeof *r);
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

#if defined(__x86_64__)
  add_row(r, "rdtsc", "cpu", loop_rdtsc);
  add_row(r, "rdtscp", "cpu", loop_rdtscp);
  add_row(r, "lfence;rdtsc", "cpu", loop_lfence_rdtsc);
#endif
  add_row(r, "clock_gettime(CLOCK_MONOTONIC)", "clock_gettime", loop_cg_mono);
  add_row(r, "clock_gettime(CLOCK_MONOTONIC_RAW)", "clock_gettime", loop_cg_raw);
  add_row(r, "clock_gettime(CLOCK_REALTIME)", "clock_gettime", loop_cg_real);
  add_row(r, "clock_gettime(CLOCK_MONOTONIC_COARSE)", "clock_gettime", loop_cg_coarse);
  add_instance_rows(r);
  add_row(r, "utim_now()", "utim_now", loop_utim_now);

  clk_row_t base = {.loop = loop_empty};
  base.iters = pick_iters(&base);
  double *base_runs = calloc(o.runs, sizeof *base_runs);
  bool ok = base_runs != NULL;
  for (size_t i = 0; i < r->nrows && ok; i++) {
    r->rows[i].iters = pick_iters(&r->rows[i]);
    r->rows[i].per_run = calloc(o.runs, sizeof(double));
    ok = r->rows[i].per_run != NULL;
  }
  if (!ok) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    for (size_t i = 0; i < r->nrows; i++) {
      free(r->rows[i].per_run);
    }
    free(base_runs);
    free(r);
    bench_output_discard(&out);
    return 1;
  }

  /* The drift thread sleeps between samples, so it costs the timed reads
   * next to nothing; the measurement covers whatever the reads do to the
   * re-fits, as in a real program. */
  drift_job_t job = {.duration = utim_s((int64_t)o.drift_s), .rc = -1};
  pthread_t th;
  bool drift_started = pthread_create(&th, NULL, drift_thread, &job) == 0;
  for (unsigned long k = 0; k < o.runs; k++) {
    bench_progress("timing reads: run %lu of %lu", k + 1u, o.runs);
    base_runs[k] = time_run(&base);
    for (size_t i = 0; i < r->nrows; i++) {
      r->rows[i].per_run[k] = time_run(&r->rows[i]);
    }
  }
  bench_stats_t bs;
  bench_stats(base_runs, o.runs, &bs);
  r->base_ns = bs.median;
  for (size_t i = 0; i < r->nrows; i++) {
    for (unsigned long k = 0; k < o.runs; k++) {
      double v = r->rows[i].per_run[k] - r->base_ns;
      r->rows[i].per_run[k] = v < 0.0 ? 0.0 : v;
    }
    bench_stats(r->rows[i].per_run, o.runs, &r->rows[i].st);
  }
  if (drift_started) {
    bench_progress("measuring the drift against CLOCK_MONOTONIC_RAW (%lu s in all)", o.drift_s);
    (void)pthread_join(th, NULL);
    r->drift = job.d;
    r->drift_rc = job.rc;
  } else {
    r->drift_rc = -EAGAIN;
  }
  (void)utim_clocksource_report(&r->cs);
  bench_progress_done();

  rc = bench_output_write(&out, &clk_writer, &r->m, r);
  for (size_t i = 0; i < r->nrows; i++) {
    free(r->rows[i].per_run);
  }
  free(base_runs);
  free(r);
  return rc;
}
