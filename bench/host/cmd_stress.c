/**
 * @file cmd_stress.c
 * @brief `utim-bench stress`: the randomized timer stress benchmark (the
 *        method of RIOT's tests/bench_timers; bench/stress.h) on the sim
 *        board (virtual time, in the helper program) or the native board
 *        (real time): the command line, the runs, the table and the JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host.h"
#include "stress_host.h"
#include "utim/port.h"

#define ST_MAX_TARGETS   16u
#define ST_OVERHEAD_N    1000u
#define ST_CHUNK         8u /* operations between looks at the clock */
#define ST_DEFAULT_SEED  1u
#define ST_DEFAULT_DUR_S 10u
#define ST_DEFAULT_RE_S  30u     /* --report-every on real time, s */
#define ST_DEFAULT_RE_OP 100000u /* --report-every on virtual time, operations */

static const char *const board_words[] = {"sim", "native", NULL};
static const char *const api_words[] = {"uapi", "tm", "both", NULL};

/** Options of `utim-bench stress`. */
typedef struct st_opts {
  const char *board;
  const char *api;
  const char *timer;
  unsigned long seed;
  unsigned long duration;
  unsigned long report_every;
  unsigned long limit;
} st_opts_t;

/* One run: a timer, an API. */
typedef struct st_run {
  bench_stress_target_t t;
  bench_stress_api_t api;
  bench_stress_t s;
  double elapsed_s;
  int error; /* set-up failed: negative errno */
} st_run_t;

/* The time manager of a tm run, with one task id. */
typedef struct st_tm {
  utim_tm_t tm;
  utim_tm_tasks_t tasks;
  utim_tm_timer_t task_timer;
  uint32_t wake[UTIM_TM_TASK_WORDS(1u)];
} st_tm_t;

typedef struct st_report {
  const st_opts_t *o;
  bench_machine_t m;
  st_run_t *runs;
  unsigned nruns;
} st_report_t;

static void st_describe(FILE *f) {
  fprintf(f, "The randomized timer stress benchmark of RIOT's tests/bench_timers, on utim: one\n"
             "thread arms a channel of the timer under test with random timeouts, through\n"
             "utim_set_rel() and utim_set_abs() (--api uapi) or the time manager's\n"
             "utim_tm_start(), utim_tm_start_at() and utim_tm_task_delay() (--api tm), mixed\n"
             "in random order; a reference timer at another frequency measures when each\n"
             "callback runs. Operations are also rescheduled (re-armed while armed) and\n"
             "stopped (armed on a stopped counter, started after a random delay); random CPU\n"
             "delays after the stop, before the arming and before the start avoid phase lock.\n"
             "The benchmark's own overhead is estimated first and subtracted. Per category\n"
             "and per log2 interval: count, mean, variance, min, max of (measured - expected)\n"
             "in reference ticks (positive: late); SIC! marks a |mean| over two ticks of the\n"
             "timer under test or a variance beyond its tick's quantisation. Early callbacks\n"
             "(the timer's own count had not reached the armed value), lost ones (none\n"
             "within the bound) and unexpected ones are counted apart. Exit status 1 when\n"
             "any run saw an early, lost or unexpected callback.\n"
             "Boards: sim (every simulated timer with a channel at 1 MHz against a 16 MHz\n"
             "reference, in virtual time: deterministic for a seed) and native (NATIVE_ALARM\n"
             "against the calibrated TSC, in real time).\n");
}

static const bench_opt_t st_opt_table[] = {
    BENCH_WORD("--board", "BOARD", st_opts_t, board, board_words, "sim or native (default native)"),
    BENCH_WORD("--api", "API", st_opts_t, api, api_words,
               "uapi, tm or both (default both: a run of each per timer)"),
    BENCH_WORD("--timer", "NAME", st_opts_t, timer, NULL,
               "only this timer (a platform name; default: every timer\n"
               "of the board with a compare channel)"),
    BENCH_UINT("--seed", st_opts_t, seed, 0u, 4294967295u, "random sequence (default 1)"),
    BENCH_UINT("--duration", st_opts_t, duration, 1u, 86400u,
               "seconds per run, of virtual time on sim (default 10)"),
    BENCH_UINT("--report-every", st_opts_t, report_every, 0u, 100000000u,
               "print the tables every N seconds on real time (default 30),\n"
               "every N operations on virtual time (default 100000); 0: only\n"
               "at the end"),
    BENCH_UINT("--limit", st_opts_t, limit, 4u, 1000000000u,
               "longest interval in ticks of the timer under test (default:\n"
               "4096 on sim, 1024 on native; at least 4 on sim, 8 on native;\n"
               "at most half the counter's range)"),
};

static const bench_cli_t st_cli = {
    .cmd = "stress",
    .opts = st_opt_table,
    .nopts = sizeof st_opt_table / sizeof st_opt_table[0],
    .json_help = "print one JSON document: {\"benchmark\":\"stress\",\"machine\":{...},\n"
                 "\"runs\":[{\"board\",\"timer\",\"channel\",\"timer_hz\",\"reference\",\n"
                 "\"ref_hz\",\"api\",\"seed\",\"ops\",\"elapsed_s\",\"overhead\":{\"mean\",\n"
                 "\"variance\",\"warning\"},\"early\",\"lost\",\"unexpected\",\"refused\",\n"
                 "\"first_fired\",\n"
                 "\"limits\":{\"mean\",\"variance\"},\"rows\":[{\"function\",\"rescheduled\",\n"
                 "\"stopped\",\"count\",\"mean\",\"variance\",\"min\",\"max\",\"sic\"}],\n"
                 "\"by_interval\":[{\"lo\",\"hi\",...the same statistics}]}]}; differences\n"
                 "in reference ticks",
    .describe = st_describe,
};

/* ---- output ---------------------------------------------------------------------- */

static const char *api_name(bench_stress_api_t a) {
  return a == BENCH_STRESS_UAPI ? "uapi" : "tm";
}

static const bench_col_t stat_cols[] = {
    {"function", -12, 0}, {"resched", -8, 0},  {"stopped", -8, 0}, {"count", 9, 0},
    {"mean", 10, 2},      {"variance", 12, 2}, {"min", 9, 0},      {"max", 9, 0},
};
#define NSTAT_COLS (sizeof stat_cols / sizeof stat_cols[0])

/* The largest interval of log2 bucket @p b that a run draws: the bucket's
 * top, or the run's limit (--limit) in the bucket that holds it. */
static uint64_t bucket_hi(const bench_stress_t *s, unsigned b) {
  const uint64_t top = b < 63u ? (2ull << b) - 1u : ~0ull;
  return top < s->limit ? top : s->limit;
}

static void stat_cells(const bench_stress_stat_t *st, bench_cell_t *c) {
  c[0] = BENCH_NUM((double)st->n);
  c[1] = BENCH_NUM(st->mean);
  c[2] = BENCH_NUM(bench_stress_var(st));
  c[3] = BENCH_NUM((double)st->min);
  c[4] = BENCH_NUM((double)st->max);
}

static void print_run(FILE *f, const st_run_t *r, unsigned idx) {
  const bench_stress_t *s = &r->s;
  fprintf(f, "\nrun %u: %s %s channel %u at %lu Hz, reference %s at %lu Hz, api %s\n", idx + 1u,
          bench_stress_board.name, utim_name(r->t.tut), r->t.ch, (unsigned long)r->t.tut_hz,
          utim_name(r->t.ref), (unsigned long)r->t.ref_hz, api_name(r->api));
  if (r->error != 0) {
    fprintf(f, "  not run: %s\n", strerror(-r->error));
    return;
  }
  fprintf(f,
          "  %llu operations in %.2f s; early %llu, lost %llu, unexpected %llu, refused %llu%s\n",
          (unsigned long long)s->ops, r->elapsed_s, (unsigned long long)s->early,
          (unsigned long long)s->lost, (unsigned long long)s->unexpected,
          (unsigned long long)s->refused,
          s->early + s->lost + s->unexpected != 0u ? "  <=== FAILED" : "");
  if (s->first_fired != 0u) {
    fprintf(f,
            "  rescheduled: %llu first armings fired before the re-arming (the thread was held "
            "off past their lead; not a timer fault)\n",
            (unsigned long long)s->first_fired);
  }
  if (s->refused != 0u) {
    fprintf(f, "  refused: the arming call returned %d (%s)\n", s->last_error,
            strerror(-s->last_error));
  }
  fprintf(f,
          "  overhead %.2f reference ticks (variance %.2f)%s; SIC! limits: |mean| > %.2f, "
          "variance > %.2f; intervals 1..%llu ticks\n",
          s->overhead_mean, s->overhead_var,
          s->overhead_warning ? " WARNING: high variance, the machine is busy" : "", s->limit_mean,
          s->limit_var, (unsigned long long)s->limit);
  fprintf(f,
          "  difference (callback - expected), reference ticks (one is %.4g ns, a tick of the "
          "timer under test %.4g); positive: late\n  ",
          1e9 / r->t.ref_hz, (double)r->t.ref_hz / r->t.tut_hz);
  bench_table_head(f, stat_cols, NSTAT_COLS);
  for (unsigned fn = 0; fn < BENCH_STRESS_NFN; fn++) {
    for (unsigned v = 0; v < 4u; v++) {
      const bool resched = (v & 2u) != 0u;
      const bool stopped = (v & 1u) != 0u;
      const bench_stress_stat_t *st = &s->cat[BENCH_STRESS_CAT(fn, resched, stopped)];
      if (!bench_stress_has_fn(s, (bench_stress_fn_t)fn) || (stopped && !s->can_stop)) {
        continue;
      }
      bench_cell_t c[NSTAT_COLS];
      c[0] = BENCH_TEXT(bench_stress_fn_name((bench_stress_fn_t)fn));
      c[1] = BENCH_TEXT(resched ? "yes" : "no");
      c[2] = BENCH_TEXT(stopped ? "yes" : "no");
      stat_cells(st, c + 3);
      fputs("  ", f);
      bench_table_row(f, stat_cols, NSTAT_COLS, c, st->n != 0u ? NSTAT_COLS : 4u,
                      bench_stress_sic(s, st) ? "  <=== SIC!" : NULL);
    }
  }
  static const bench_col_t icol[] = {
      {"interval", -29, 0}, {"count", 9, 0}, {"mean", 10, 2},
      {"variance", 12, 2},  {"min", 9, 0},   {"max", 9, 0},
  };
  fputs("  by interval (ticks of the timer under test):\n  ", f);
  bench_table_head(f, icol, 6u);
  for (unsigned b = 0; b < BENCH_STRESS_NBUCKETS; b++) {
    const bench_stress_stat_t *st = &s->bucket[b];
    if (st->n == 0u) {
      continue;
    }
    char range[48];
    snprintf(range, sizeof range, "%llu - %llu", 1ull << b, (unsigned long long)bucket_hi(s, b));
    bench_cell_t c[6];
    c[0] = BENCH_TEXT(range);
    stat_cells(st, c + 1);
    fputs("  ", f);
    bench_table_row(f, icol, 6u, c, 6u, bench_stress_sic(s, st) ? "  <=== SIC!" : NULL);
  }
}

static void st_table(FILE *f, const void *p) {
  const st_report_t *r = p;
  fprintf(f, "  board:     %s; %s\n", bench_stress_board.name, bench_stress_board.time_note);
  fprintf(f, "  seed:      %lu; %lu s per run%s\n", r->o->seed, r->o->duration,
          bench_stress_board.virtual_time ? " of virtual time" : "");
  for (unsigned i = 0; i < r->nruns; i++) {
    print_run(f, &r->runs[i], i);
  }
}

static void jw_stat(bench_jw_t *w, const bench_stress_t *s, const bench_stress_stat_t *st) {
  bench_jw_uint(w, "count", st->n);
  bench_jw_num(w, "mean", st->n != 0u, st->mean);
  bench_jw_num(w, "variance", st->n != 0u, bench_stress_var(st));
  if (st->n != 0u) {
    bench_jw_int(w, "min", st->min);
    bench_jw_int(w, "max", st->max);
  } else {
    bench_jw_null(w, "min");
    bench_jw_null(w, "max");
  }
  bench_jw_bool(w, "sic", bench_stress_sic(s, st));
}

static void jw_run(bench_jw_t *w, const st_run_t *r, unsigned long seed) {
  const bench_stress_t *s = &r->s;
  bench_jw_object(w, NULL);
  bench_jw_str(w, "board", bench_stress_board.name);
  bench_jw_str(w, "timer", utim_name(r->t.tut));
  bench_jw_uint(w, "channel", r->t.ch);
  bench_jw_uint(w, "timer_hz", r->t.tut_hz);
  bench_jw_str(w, "reference", utim_name(r->t.ref));
  bench_jw_uint(w, "ref_hz", r->t.ref_hz);
  bench_jw_str(w, "api", api_name(r->api));
  bench_jw_uint(w, "seed", seed);
  bench_jw_int(w, "error", r->error);
  bench_jw_uint(w, "ops", s->ops);
  bench_jw_num(w, "elapsed_s", true, r->elapsed_s);
  bench_jw_uint(w, "limit", s->limit);
  bench_jw_object(w, "overhead");
  bench_jw_num(w, "mean", true, s->overhead_mean);
  bench_jw_num(w, "variance", true, s->overhead_var);
  bench_jw_bool(w, "warning", s->overhead_warning);
  bench_jw_end(w);
  bench_jw_uint(w, "early", s->early);
  bench_jw_uint(w, "lost", s->lost);
  bench_jw_uint(w, "unexpected", s->unexpected);
  bench_jw_uint(w, "refused", s->refused);
  bench_jw_uint(w, "first_fired", s->first_fired);
  bench_jw_object(w, "limits");
  bench_jw_num(w, "mean", true, s->limit_mean);
  bench_jw_num(w, "variance", true, s->limit_var);
  bench_jw_end(w);
  bench_jw_array(w, "rows");
  for (unsigned fn = 0; fn < BENCH_STRESS_NFN; fn++) {
    for (unsigned v = 0; v < 4u; v++) {
      const bool resched = (v & 2u) != 0u;
      const bool stopped = (v & 1u) != 0u;
      if (!bench_stress_has_fn(s, (bench_stress_fn_t)fn) || (stopped && !s->can_stop)) {
        continue;
      }
      bench_jw_object(w, NULL);
      bench_jw_str(w, "function", bench_stress_fn_name((bench_stress_fn_t)fn));
      bench_jw_bool(w, "rescheduled", resched);
      bench_jw_bool(w, "stopped", stopped);
      jw_stat(w, s, &s->cat[BENCH_STRESS_CAT(fn, resched, stopped)]);
      bench_jw_end(w);
    }
  }
  bench_jw_end(w);
  bench_jw_array(w, "by_interval");
  for (unsigned b = 0; b < BENCH_STRESS_NBUCKETS; b++) {
    if (s->bucket[b].n == 0u) {
      continue;
    }
    bench_jw_object(w, NULL);
    bench_jw_uint(w, "lo", 1ull << b);
    bench_jw_uint(w, "hi", bucket_hi(s, b));
    jw_stat(w, s, &s->bucket[b]);
    bench_jw_end(w);
  }
  bench_jw_end(w);
  bench_jw_end(w);
}

static void st_json_machine(bench_jw_t *w, const void *p) {
  (void)p;
  bench_jw_str(w, "board", bench_stress_board.name);
  bench_jw_bool(w, "virtual_time", bench_stress_board.virtual_time);
}

static void st_json(bench_jw_t *w, const void *p) {
  const st_report_t *r = p;
  bench_jw_array(w, "runs");
  for (unsigned i = 0; i < r->nruns; i++) {
    jw_run(w, &r->runs[i], r->o->seed);
  }
  bench_jw_end(w);
}

static const bench_writer_t st_writer = {
    .name = "stress",
    .title = "randomized timer stress (RIOT bench_timers method)",
    .table = st_table,
    .json_machine = st_json_machine,
    .json = st_json,
};

/* ---- the runs ---------------------------------------------------------------------- */

/* Operations or seconds since the last report, by the board's kind of time. */
static bool report_due(const st_opts_t *o, const bench_stress_t *s, double t, uint64_t *ops_at,
                       double *t_at) {
  if (o->report_every == 0u) {
    return false;
  }
  if (bench_stress_board.virtual_time) {
    if (s->ops - *ops_at >= o->report_every) {
      *ops_at = s->ops;
      return true;
    }
    return false;
  }
  if (t - *t_at >= (double)o->report_every) {
    *t_at = t;
    return true;
  }
  return false;
}

/* Initialise and start a run's two timers at their frequencies. */
static int start_timers(const bench_stress_target_t *t) {
  if (bench_stress_board.prepare != NULL) {
    bench_stress_board.prepare(t);
  }
  int rc = utim_init(t->ref, t->ref_hz, UTIM_CLOCK_DEFAULT);
  rc = rc != 0 ? rc : utim_init(t->tut, t->tut_hz, UTIM_CLOCK_DEFAULT);
  rc = rc != 0 ? rc : utim_start(t->ref);
  return rc != 0 ? rc : utim_start(t->tut);
}

static int run_one(st_run_t *r, const st_opts_t *o, bench_output_t *out, unsigned idx,
                   unsigned nruns) {
  const bench_stress_target_t *t = &r->t;
  int rc = start_timers(t);
  if (rc != 0) {
    return rc;
  }
  st_tm_t *tm = NULL;
  if (r->api == BENCH_STRESS_TM) {
    tm = calloc(1, sizeof *tm);
    rc = tm == NULL ? -ENOMEM : utim_tm_init(&tm->tm, t->tut, t->ch, UTIM_TM_TICKLESS, 0u);
    if (rc == 0) {
      rc = utim_tm_tasks_init(&tm->tasks, &tm->tm, &tm->task_timer, tm->wake, 1u, NULL, NULL);
    }
  }
  const bench_stress_cfg_t cfg = {
      .tut = t->tut,
      .ch = t->ch,
      .ref = t->ref,
      .api = r->api,
      .tm = tm != NULL ? &tm->tm : NULL,
      .tasks = tm != NULL ? &tm->tasks : NULL,
      .seed = o->seed,
      .limit = o->limit != 0u ? o->limit : bench_stress_board.default_limit,
      .min_abs = bench_stress_board.min_abs,
      .lost_ref = (uint64_t)((double)bench_stress_board.lost_ns * 1e-9 * t->ref_hz),
      .wait = bench_stress_board.wait,
  };
  if (rc == 0) {
    rc = bench_stress_init(&r->s, &cfg);
  }
  if (rc == 0) {
    bench_progress("run %u/%u: %s %s: estimating the overhead", idx + 1u, nruns, utim_name(t->tut),
                   api_name(r->api));
    bench_stress_overhead(&r->s, ST_OVERHEAD_N);
    const double t0 = bench_stress_board.now_s();
    double t_at = t0;
    uint64_t ops_at = 0;
    for (;;) {
      bench_stress_run(&r->s, ST_CHUNK);
      const double now = bench_stress_board.now_s();
      r->elapsed_s = now - t0;
      if (r->elapsed_s >= (double)o->duration) {
        break;
      }
      bench_progress("run %u/%u: %s %s: %llu operations, %.0f of %lu s", idx + 1u, nruns,
                     utim_name(t->tut), api_name(r->api), (unsigned long long)r->s.ops,
                     r->elapsed_s, o->duration);
      /* Live reports go where the table goes (none with --json: its document is the result). */
      FILE *live = NULL;
      if (!out->json && report_due(o, &r->s, now, &ops_at, &t_at) &&
          (live = bench_output_live(out)) != NULL) {
        fprintf(live, "\n---- after %.1f s:", r->elapsed_s);
        print_run(live, r, idx);
        fflush(live);
      }
    }
    bench_stress_finish(&r->s);
  }
  if (tm != NULL) {
    (void)utim_tm_deinit(&tm->tm);
    free(tm);
  }
  (void)utim_stop(t->tut);
  (void)utim_stop(t->ref);
  return rc;
}

int bench_cmd_stress(int argc, char **argv) {
  st_opts_t o = {.board = NULL,
                 .api = "both",
                 .seed = ST_DEFAULT_SEED,
                 .duration = ST_DEFAULT_DUR_S,
                 .report_every = ~0ul};
  bench_output_t out;
  int rc = bench_cli_parse(&st_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  const char *board = o.board != NULL ? o.board : bench_stress_board.name;
  if (strcmp(board, bench_stress_board.name) != 0) {
#ifdef BENCH_OPS_ONLY
    bench_output_discard(&out);
    return bench_usage_error(BENCH_PROG " stress",
                             "board '%s' is run by " BENCH_PROG ", this program has the sim board",
                             board);
#else
    /* The sim board lives in the helper program: hand over, arguments as given. */
    bench_output_discard(&out);
    return bench_cmd_helper_exec(argc, argv);
#endif
  }
  if (o.limit != 0u && o.limit < bench_stress_board.min_abs) {
    bench_output_discard(&out);
    return bench_usage_error(BENCH_PROG " stress",
                             "option '--limit' needs at least %llu on board %s (its shortest "
                             "interval), got '%lu'",
                             (unsigned long long)bench_stress_board.min_abs, board, o.limit);
  }
  if (o.report_every == ~0ul) {
    o.report_every = bench_stress_board.virtual_time ? ST_DEFAULT_RE_OP : ST_DEFAULT_RE_S;
  }
  bench_progress_init();
  st_report_t r = {.o = &o};
  bench_machine_probe(&r.m);
  bench_stress_board.init();
  bench_stress_target_t targets[ST_MAX_TARGETS];
  const int nt = bench_stress_board.targets(o.timer, targets, ST_MAX_TARGETS);
  if (nt < 0) {
    char names[256] = "";
    const int na = bench_stress_board.targets(NULL, targets, ST_MAX_TARGETS);
    for (int i = 0; i < na; i++) {
      const size_t len = strlen(names);
      snprintf(names + len, sizeof names - len, "%s%s", i != 0 ? ", " : "",
               utim_name(targets[i].tut));
    }
    bench_output_discard(&out);
    return bench_usage_error(BENCH_PROG " stress", "no timer named '%s' on board %s (it has: %s)",
                             o.timer, board, names);
  }
  if (nt == 0) {
    fprintf(stderr, BENCH_PROG ": stress: board %s offers no timer to stress\n", board);
    bench_output_discard(&out);
    return 1;
  }
  const bool both = strcmp(o.api, "both") == 0;
  const unsigned per = both ? 2u : 1u;
  r.nruns = (unsigned)nt * per;
  r.runs = calloc(r.nruns, sizeof *r.runs);
  if (r.runs == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    bench_output_discard(&out);
    return 1;
  }
  bool bad = false;
  for (unsigned i = 0; i < r.nruns; i++) {
    st_run_t *run = &r.runs[i];
    run->t = targets[i / per];
    run->api = both ? (i % 2u == 0u ? BENCH_STRESS_UAPI : BENCH_STRESS_TM)
                    : (strcmp(o.api, "tm") == 0 ? BENCH_STRESS_TM : BENCH_STRESS_UAPI);
    run->error = run_one(run, &o, &out, i, r.nruns);
    const bench_stress_t *s = &run->s;
    bad = bad || run->error != 0 || s->early != 0u || s->lost != 0u || s->unexpected != 0u;
  }
  bench_progress_done();
  rc = bench_output_write(&out, &st_writer, &r.m, &r);
  free(r.runs);
  return rc != 0 ? rc : bad ? 1 : 0;
}
