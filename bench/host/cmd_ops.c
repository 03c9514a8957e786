/**
 * @file cmd_ops.c
 * @brief `utim-bench ops`: cost per call of read, write, set and clear
 *        through the uAPI (compile-time and run-time instance) and the hAPI.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_host.h"

#define OPS_DEFAULT_RUNS  15
#define OPS_DEFAULT_ITERS 100000
/* Instruction counts are exact, so callgrind needs far fewer calls than timing. */
#define OPS_CALLGRIND_ITERS 10000u
#define OPS_NCASES          ((unsigned)BENCH_OP_COUNT * (unsigned)BENCH_PATH_COUNT)

typedef struct ops_target {
  const bench_ops_set_t *set;
  uint32_t hz;
  const char *what; /* for the header */
} ops_target_t;

static const ops_target_t targets[] = {
    {&bench_ops_nop, 64000000u, "NOP64 (64-bit, no hardware work) at 64 MHz"},
    {&bench_ops_sim, 16000000u, "SIM_TIMER16 (16-bit, simulated registers) at 16 MHz"},
};
#define OPS_NTARGETS (sizeof targets / sizeof targets[0])
/* The sim target, whose instance the RIOT rows drive. */
#define OPS_SIM_TARGET 1u

/* Prepare the sim target and the RIOT shim on it (0, or -1). */
static int riot_prepare(void) {
  const ops_target_t *t = &targets[OPS_SIM_TARGET];
  return bench_ops_prepare(t->set, t->hz) == 0 && bench_riot_sim_prepare(t->hz) == 0 ? 0 : -1;
}

typedef struct ops_opts {
  bool no_callgrind;
  bool child;
  unsigned long runs;
  unsigned long iters;
} ops_opts_t;

typedef struct ops_result {
  double ns;
  double ticks;
  double instr; /* valid when have_instr */
} ops_result_t;

static void ops_describe(FILE *f) {
  fprintf(f,
          "Cost of one read, write, set (arm one-shot) and clear, through:\n"
          "  uapi, instance compile-time  the uAPI on a static const instance the compiler sees\n"
          "  uapi, instance run-time      the uAPI on an instance pointer read from a volatile\n"
          "  hapi                         the driver operation called directly (given the\n"
          "                               compile-time instance)\n"
          "set is utim_set_abs() vs set_channel(ONESHOT); clear is utim_clear() vs\n"
          "set_channel(OFF). Each path is measured on two drivers (field 'driver'):\n"
          "  nop  the NOP driver: state in RAM, no hardware work; isolates the uAPI's cost\n"
          "  sim  the sim board's SIM_TIMER16 through the simulated register bus, register\n"
          "       access cost %u ns (virtual time frozen, so no interrupt fires)\n"
          "\n"
          "Per row: ns and TSC ticks per call (median of runs, empty-loop cost subtracted,\n"
          "never below 0), instructions per call (callgrind: the call, its arguments and\n"
          "everything it runs; empty loop subtracted), and for uapi rows the extra\n"
          "instructions over the hapi row of the same driver and operation.\n",
          BENCH_SIM_ACCESS_COST_NS);
}

static const bench_opt_t ops_opts[] = {
    BENCH_UINT("--runs", ops_opts_t, runs, 1u, 1000u,
               "timed runs per case, median reported (default " BENCH_STR(OPS_DEFAULT_RUNS) ")"),
    BENCH_UINT("--iterations", ops_opts_t, iters, 1u, 1000000000u,
               "calls per run (default " BENCH_STR(OPS_DEFAULT_ITERS) ")"),
    BENCH_FLAG("--no-callgrind", ops_opts_t, no_callgrind,
               "do not count instructions under valgrind --tool=callgrind"),
    /* internal: the run under callgrind */
    BENCH_FLAG("--callgrind-child", ops_opts_t, child, NULL),
};

static const bench_cli_t ops_cli = {
    .cmd = "ops",
    .opts = ops_opts,
    .nopts = sizeof ops_opts / sizeof ops_opts[0],
    .json_help = "print one JSON document:\n"
                 "{\"benchmark\":\"ops\",\"machine\":{...},\"rows\":[{\"name\",\"api\",\n"
                 "\"instance\",\"driver\",\"ns\",\"tsc_ticks\",\"instructions\",\n"
                 "\"extra_instructions\"}]}; name is read|write|set|clear, api is\n"
                 "uapi|hapi|riot (the NOP driver's rows have driver \"nop\"; riot:\n"
                 "RIOT's periph_timer on the sim driver, read|set|clear), instance is\n"
                 "compile-time|run-time; values that were not measured are null\n"
                 "(instructions without valgrind, tsc_ticks without a TSC,\n"
                 "extra_instructions on hapi rows, which are the reference)",
    .describe = ops_describe,
};

/* The callgrind child: the same preparation and loops, once each, nothing printed. */
static int run_child(uint32_t iters) {
  char err[256];
  if (bench_sim_setup(err, sizeof err) != 0) {
    fprintf(stderr, BENCH_PROG ": %s\n", err);
    return 1;
  }
  bench_loop_baseline(iters);
  bench_loop_port_lock(iters);
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    for (unsigned c = 0; c < OPS_NCASES; c++) {
      if (bench_ops_prepare(targets[t].set, targets[t].hz) != 0) {
        return 1;
      }
      targets[t].set->cases[c].loop(iters);
    }
  }
  for (unsigned c = 0; c < BENCH_RIOT_NCASES; c++) {
    if (riot_prepare() != 0) {
      return 1;
    }
    bench_riot_sim_cases[c].loop(iters);
  }
  return 0;
}

static double per_call(uint64_t total, uint64_t base, uint64_t iters) {
  double v = ((double)total - (double)base) / (double)iters;
  return v < 0.0 ? 0.0 : v;
}

static const char *instance_name(unsigned path) {
  return path == BENCH_PATH_UAPI_RT || path == BENCH_PATH_RIOT ? "run-time" : "compile-time";
}

static const char *api_name(unsigned path) {
  return path == BENCH_PATH_HAPI ? "hapi" : path == BENCH_PATH_RIOT ? "riot" : "uapi";
}

typedef struct ops_report {
  const ops_opts_t *o;
  const bench_machine_t *m;
  ops_result_t res[OPS_NTARGETS][OPS_NCASES];
  bool have_instr;
  char cg_note[320]; /* why there are no instruction counts, or the callgrind setting */
  double base_ns;
  double base_ticks;
  ops_result_t port; /* utim_port_lock + utim_port_unlock pair */
  unsigned long cg_iters;
  ops_result_t riot[BENCH_RIOT_NCASES]; /* the RIOT shim on the sim target */
} ops_report_t;

/* The hapi case of operation @p op on target @p t, the reference for extra instructions. */
static const ops_result_t *hapi_op(const ops_report_t *r, size_t t, unsigned op) {
  for (unsigned j = 0; j < OPS_NCASES; j++) {
    const bench_case_t *h = &targets[t].set->cases[j];
    if (h->op == op && h->path == BENCH_PATH_HAPI) {
      return &r->res[t][j];
    }
  }
  return NULL;
}

static const ops_result_t *hapi_of(const ops_report_t *r, size_t t, unsigned c) {
  return hapi_op(r, t, targets[t].set->cases[c].op);
}

/* The rows of target @p t: its cases, then (sim) the RIOT shim's. */
static unsigned nrows_of(size_t t) {
  return OPS_NCASES + (t == OPS_SIM_TARGET ? BENCH_RIOT_NCASES : 0u);
}

static const bench_case_t *case_at(size_t t, unsigned i) {
  return i < OPS_NCASES ? &targets[t].set->cases[i] : &bench_riot_sim_cases[i - OPS_NCASES];
}

static const ops_result_t *result_at(const ops_report_t *r, size_t t, unsigned i) {
  return i < OPS_NCASES ? &r->res[t][i] : &r->riot[i - OPS_NCASES];
}

static void json_machine(bench_jw_t *w, const void *rp) {
  const ops_report_t *r = rp;
  const bench_machine_t *m = r->m;
  bench_jw_bool(w, "callgrind", r->have_instr);
  bench_jw_str(w, "callgrind_note", r->cg_note);
  if (r->have_instr) {
    bench_jw_uint(w, "callgrind_iterations", r->cg_iters);
  } else {
    bench_jw_null(w, "callgrind_iterations");
  }
  bench_jw_uint(w, "runs", r->o->runs);
  bench_jw_uint(w, "iterations", r->o->iters);
  bench_jw_num(w, "baseline_ns", true, r->base_ns);
  bench_jw_num(w, "baseline_tsc_ticks", m->tsc, r->base_ticks);
  bench_jw_str(w, "port", "sim");
  bench_jw_object(w, "port_lock_unlock");
  bench_jw_num(w, "ns", true, r->port.ns);
  bench_jw_num(w, "tsc_ticks", m->tsc, r->port.ticks);
  bench_jw_num(w, "instructions", r->have_instr, r->port.instr);
  bench_jw_end(w);
  bench_jw_uint(w, "sim_access_cost_ns", BENCH_SIM_ACCESS_COST_NS);
  bench_jw_object(w, "drivers");
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    bench_jw_str(w, targets[t].set->driver, targets[t].what);
  }
  bench_jw_end(w);
}

static void print_json(bench_jw_t *w, const void *rp) {
  const ops_report_t *r = rp;
  const bench_machine_t *m = r->m;
  bench_jw_array(w, "rows");
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    for (unsigned c = 0; c < nrows_of(t); c++) {
      const bench_case_t *k = case_at(t, c);
      const ops_result_t *x = result_at(r, t, c);
      const ops_result_t *h = hapi_op(r, t, k->op);
      bench_jw_object(w, NULL);
      bench_jw_str(w, "name", bench_op_name(k->op));
      bench_jw_str(w, "api", api_name(k->path));
      bench_jw_str(w, "instance", instance_name(k->path));
      bench_jw_str(w, "driver", targets[t].set->driver);
      bench_jw_num(w, "ns", true, x->ns);
      bench_jw_num(w, "tsc_ticks", m->tsc, x->ticks);
      bench_jw_num(w, "instructions", r->have_instr, x->instr);
      bench_jw_num(w, "extra_instructions", r->have_instr && k->path != BENCH_PATH_HAPI,
                   x->instr - h->instr);
      bench_jw_end(w);
    }
  }
  bench_jw_end(w);
}

static const bench_col_t ops_cols[] = {
    {"op", -6, 0},     {"driver", -7, 0},     {"api", -5, 0},        {"instance", -13, 0},
    {"ns/call", 9, 2}, {"ticks/call", 11, 2}, {"instr/call", 11, 1}, {"extra instr", 12, 0},
};
#define OPS_NCOLS (sizeof ops_cols / sizeof ops_cols[0])

static void print_table(FILE *f, const void *rp) {
  const ops_report_t *r = rp;
  const bench_machine_t *m = r->m;
  fprintf(f, "  timing:    median of %lu runs x %lu calls; empty loop subtracted (%.3f ns",
          r->o->runs, r->o->iters, r->base_ns);
  if (m->tsc) {
    fprintf(f, ", %.2f ticks", r->base_ticks);
  }
  fprintf(f, " per iteration)\n");
  fprintf(f, "  callgrind: %s\n", r->cg_note);
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    fprintf(f, "  %-10s %s\n", targets[t].set->driver, targets[t].what);
  }
  fprintf(f, "  sim bus:   register access cost %u ns (virtual time frozen during the runs)\n",
          BENCH_SIM_ACCESS_COST_NS);
  fprintf(
      f,
      "  port:      sim; a utim_port_lock/unlock pair (inside every set and clear) costs %.2f ns",
      r->port.ns);
  if (r->have_instr) {
    fprintf(f, ", %.1f instructions", r->port.instr);
  }
  fprintf(f, "\n\n");
  bench_table_head(f, ops_cols, OPS_NCOLS);
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    for (unsigned c = 0; c < nrows_of(t); c++) {
      const bench_case_t *k = case_at(t, c);
      const ops_result_t *x = result_at(r, t, c);
      const ops_result_t *h = hapi_op(r, t, k->op);
      char extra[32] = "";
      if (r->have_instr) {
        if (k->path == BENCH_PATH_HAPI) {
          snprintf(extra, sizeof extra, "(ref)");
        } else {
          snprintf(extra, sizeof extra, "%+.1f", x->instr - h->instr);
        }
      }
      const bench_cell_t cells[OPS_NCOLS] = {
          BENCH_TEXT(bench_op_name(k->op)),
          BENCH_TEXT(targets[t].set->driver),
          BENCH_TEXT(api_name(k->path)),
          BENCH_TEXT(instance_name(k->path)),
          BENCH_NUM(x->ns),
          BENCH_NUM_IF(m->tsc, x->ticks),
          BENCH_NUM_IF(r->have_instr, x->instr),
          BENCH_TEXT(extra),
      };
      bench_table_row(f, ops_cols, OPS_NCOLS, cells, OPS_NCOLS, NULL);
    }
    if (t + 1u < OPS_NTARGETS) {
      fputc('\n', f);
    }
  }
  fprintf(f, "\n  riot: RIOT's periph_timer API (utim/riot_timer.h) on the same SIM_TIMER16, by "
             "device number: timer_read, timer_set_absolute, timer_clear\n");
  if (!r->have_instr) {
    return;
  }
  /* The design's expectation, checked against the counts and reported, not asserted. */
  fprintf(f, "\nexpectation (reported, not asserted):\n");
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    for (unsigned c = 0; c < OPS_NCASES; c++) {
      const bench_case_t *k = &targets[t].set->cases[c];
      if (k->path == BENCH_PATH_HAPI) {
        continue;
      }
      double extra = r->res[t][c].instr - hapi_of(r, t, c)->instr;
      const bool ct = k->path == BENCH_PATH_UAPI_CT;
      const char *expect;
      const char *verdict;
      if (k->op == BENCH_OP_READ) {
        expect = ct ? "none" : "the pointer loads only";
        verdict = (ct ? extra < 0.5 : extra < 2.5) ? "as expected" : "differs";
      } else if (k->op == BENCH_OP_WRITE) {
        expect = ct ? "none" : "the pointer loads only";
        verdict = (ct ? extra < 0.5 : extra < 2.5) ? "as expected"
                  : ct ? "differs: the range check (width < 64) stays where the value is not "
                         "known at compile time"
                       : "differs: the range check and the UTIM_CAP_WRITE test on p->props "
                         "cannot fold at run time";
      } else {
        expect = "the core's work";
        verdict = strcmp(targets[t].set->driver, "sim") == 0
                      ? "lock pair; set also reads the counter twice (now, late check), each a "
                        "simulated bus access; writes under the lock skip the model's interrupt "
                        "scan that direct calls pay"
                      : "lock pair (see the port line), checks, state, late-check read";
      }
      fprintf(f, "  %-5s %-6s %-12s %+7.1f  expected %s; %s\n", targets[t].set->driver,
              bench_op_name(k->op), instance_name(k->path), extra, expect, verdict);
    }
  }
}

/* Instruction counts of every loop, from one run of this program under callgrind. */
static void count_instructions(const ops_opts_t *o, ops_report_t *r) {
  char err[512];
  char valgrind[4096];
  if (o->no_callgrind) {
    snprintf(r->cg_note, sizeof r->cg_note, "disabled (--no-callgrind): instruction columns empty");
  } else if (!bench_find_valgrind(valgrind, sizeof valgrind)) {
    snprintf(r->cg_note, sizeof r->cg_note,
             "not available (valgrind not found in PATH): instruction columns empty");
  } else {
    bench_progress("counting instructions under callgrind");
    r->cg_iters = o->iters < OPS_CALLGRIND_ITERS ? o->iters : OPS_CALLGRIND_ITERS;
    char iters_arg[32];
    snprintf(iters_arg, sizeof iters_arg, "%lu", r->cg_iters);
    char *args[] = {"ops", "--callgrind-child", "--iterations", iters_arg, NULL};
    const char *names[2u + (OPS_NTARGETS * (size_t)OPS_NCASES) + BENCH_RIOT_NCASES];
    uint64_t incl[2u + (OPS_NTARGETS * (size_t)OPS_NCASES) + BENCH_RIOT_NCASES];
    size_t n = 0;
    names[n++] = "bench_loop_baseline";
    names[n++] = "bench_loop_port_lock";
    for (size_t t = 0; t < OPS_NTARGETS; t++) {
      for (unsigned c = 0; c < OPS_NCASES; c++) {
        names[n++] = targets[t].set->cases[c].loop_name;
      }
    }
    for (unsigned c = 0; c < BENCH_RIOT_NCASES; c++) {
      names[n++] = bench_riot_sim_cases[c].loop_name;
    }
    if (bench_callgrind(valgrind, args, "bench_loop_*", names, n, incl, err, sizeof err) != 0) {
      snprintf(r->cg_note, sizeof r->cg_note, "failed (%.250s): instruction columns empty", err);
    } else {
      bool all = incl[0] > 0u;
      for (size_t i = 1; i < n; i++) {
        all = all && incl[i] > 0u;
      }
      if (!all) {
        snprintf(r->cg_note, sizeof r->cg_note,
                 "failed (a loop function is missing from its output): instruction columns empty");
      } else {
        r->have_instr = true;
        snprintf(r->cg_note, sizeof r->cg_note,
                 "%.200s --tool=callgrind, %lu calls per loop, inclusive Ir minus the empty loop",
                 valgrind, r->cg_iters);
        r->port.instr = ((double)incl[1] - (double)incl[0]) / (double)r->cg_iters;
        size_t i = 2;
        for (size_t t = 0; t < OPS_NTARGETS; t++) {
          for (unsigned c = 0; c < OPS_NCASES; c++, i++) {
            r->res[t][c].instr = ((double)incl[i] - (double)incl[0]) / (double)r->cg_iters;
          }
        }
        for (unsigned c = 0; c < BENCH_RIOT_NCASES; c++, i++) {
          r->riot[c].instr = ((double)incl[i] - (double)incl[0]) / (double)r->cg_iters;
        }
      }
    }
  }
}

/* Runs the measurement into @p r; returns 0, or 1 after a message. */
static int measure(const ops_opts_t *o, ops_report_t *r) {
  char err[512];
  if (bench_sim_setup(err, sizeof err) != 0) {
    fprintf(stderr, BENCH_PROG ": %s\n", err);
    return 1;
  }
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    unsigned bad = 0;
    int e = bench_ops_check(targets[t].set, targets[t].hz, 16u, &bad);
    if (e != 0) {
      fprintf(stderr, BENCH_PROG ": ops: %s %s %s failed with %d before measuring\n",
              targets[t].set->driver, bench_op_name(targets[t].set->cases[bad].op),
              bench_path_name(targets[t].set->cases[bad].path), e);
      return 1;
    }
  }

  uint64_t *d0 = calloc(o->runs, sizeof *d0);
  uint64_t *d1 = calloc(o->runs, sizeof *d1);
  if (d0 == NULL || d1 == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    free(d0);
    free(d1);
    return 1;
  }
  const uint32_t iters = (uint32_t)o->iters;
  /* One untimed run first: page faults and cold caches belong to no case. */
  bench_progress("timing the empty loop");
  bench_loop_baseline(iters);
  bench_time_runs(bench_loop_baseline, iters, (unsigned)o->runs, bench_host_stamp, d0, d1);
  uint64_t base0 = bench_median_u64(d0, (unsigned)o->runs);
  uint64_t base1 = bench_median_u64(d1, (unsigned)o->runs);
  r->base_ns = (double)base0 / (double)iters;
  r->base_ticks = (double)base1 / (double)iters;
  bench_progress("timing the port lock");
  bench_loop_port_lock(iters);
  bench_time_runs(bench_loop_port_lock, iters, (unsigned)o->runs, bench_host_stamp, d0, d1);
  r->port.ns = per_call(bench_median_u64(d0, (unsigned)o->runs), base0, iters);
  r->port.ticks = per_call(bench_median_u64(d1, (unsigned)o->runs), base1, iters);
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    const bench_ops_set_t *s = targets[t].set;
    for (unsigned c = 0; c < OPS_NCASES; c++) {
      const bench_case_t *k = &s->cases[c];
      bench_progress("timing %s %s %s", s->driver, bench_op_name(k->op), bench_path_name(k->path));
      if (bench_ops_prepare(s, targets[t].hz) != 0) {
        fprintf(stderr, BENCH_PROG ": ops: cannot prepare the %s instance\n", s->driver);
        free(d0);
        free(d1);
        return 1;
      }
      k->loop(iters);
      bench_time_runs(k->loop, iters, (unsigned)o->runs, bench_host_stamp, d0, d1);
      r->res[t][c].ns = per_call(bench_median_u64(d0, (unsigned)o->runs), base0, iters);
      r->res[t][c].ticks = per_call(bench_median_u64(d1, (unsigned)o->runs), base1, iters);
    }
  }
  for (unsigned c = 0; c < BENCH_RIOT_NCASES; c++) {
    const bench_case_t *k = &bench_riot_sim_cases[c];
    bench_progress("timing sim %s riot", bench_op_name(k->op));
    if (riot_prepare() != 0) {
      fprintf(stderr, BENCH_PROG ": ops: the RIOT shim cannot initialise SIM_TIMER16\n");
      free(d0);
      free(d1);
      return 1;
    }
    k->loop(iters);
    bench_time_runs(k->loop, iters, (unsigned)o->runs, bench_host_stamp, d0, d1);
    r->riot[c].ns = per_call(bench_median_u64(d0, (unsigned)o->runs), base0, iters);
    r->riot[c].ticks = per_call(bench_median_u64(d1, (unsigned)o->runs), base1, iters);
  }
  free(d0);
  free(d1);
  count_instructions(o, r);
  return 0;
}

static const bench_writer_t ops_writer = {
    .name = "ops",
    .title = "cost per call of read / write / set / clear",
    .table = print_table,
    .json_machine = json_machine,
    .json = print_json,
};

int bench_cmd_ops(int argc, char **argv) {
  ops_opts_t o = {.runs = OPS_DEFAULT_RUNS, .iters = OPS_DEFAULT_ITERS};
  bench_output_t out;
  int rc = bench_cli_parse(&ops_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  if (o.child) {
    bench_output_discard(&out);
    return run_child((uint32_t)o.iters);
  }
  bench_progress_init();
  ops_report_t r;
  bench_machine_t m;
  memset(&r, 0, sizeof r);
  r.o = &o;
  r.m = &m;
  bench_progress("calibrating the TSC");
  bench_machine_probe(&m);
  rc = measure(&o, &r);
  bench_progress_done();
  if (rc != 0) {
    bench_output_discard(&out);
    return rc;
  }
  return bench_output_write(&out, &ops_writer, &m, &r);
}
