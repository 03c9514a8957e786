/**
 * @file cmd_ops.c
 * @brief `utim-bench ops`: cost per call of read, write, set and clear
 *        through the uAPI (compile-time and run-time instance) and the hAPI.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host.h"

#define OPS_HELP          BENCH_PROG " ops"
#define OPS_DEFAULT_RUNS  15u
#define OPS_DEFAULT_ITERS 100000u
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

typedef struct ops_opts {
  bool json;
  bool callgrind;
  bool child;
  unsigned long runs;
  unsigned long iters;
  const char *out;
  const char *json_out;
} ops_opts_t;

typedef struct ops_result {
  double ns;
  double ticks;
  double instr; /* valid when have_instr */
} ops_result_t;

static void ops_usage(FILE *f) {
  fprintf(
      f,
      "usage: " BENCH_PROG " ops [--json] [--json-out FILE] [--runs N] [--iterations N]\n"
      "                       [--no-callgrind] [-o FILE]\n"
      "\n"
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
      "instructions over the hapi row of the same driver and operation.\n"
      "\n"
      "options:\n"
      "  --json           print one JSON document:\n"
      "                   {\"benchmark\":\"ops\",\"machine\":{...},\"rows\":[{\"name\",\"api\",\n"
      "                   \"instance\",\"driver\",\"ns\",\"tsc_ticks\",\"instructions\",\n"
      "                   \"extra_instructions\"}]}; name is read|write|set|clear, api is\n"
      "                   uapi|hapi (the NOP driver's rows have driver \"nop\"), instance is\n"
      "                   compile-time|run-time; values that were not measured are null\n"
      "                   (instructions without valgrind, tsc_ticks without a TSC,\n"
      "                   extra_instructions on hapi rows, which are the reference)\n"
      "  --runs N         timed runs per case, median reported (default %u)\n"
      "  --iterations N   calls per run (default %u)\n"
      "  --no-callgrind   do not count instructions under valgrind --tool=callgrind\n"
      "  -o, --output FILE  write the result to FILE instead of stdout\n"
      "  --json-out FILE  also write the JSON document to FILE (one measurement,\n"
      "                   both outputs)\n"
      "  -h, --help       show this help\n",
      BENCH_SIM_ACCESS_COST_NS, OPS_DEFAULT_RUNS, OPS_DEFAULT_ITERS);
}

/* Returns -1 to continue, else the exit status. */
static int parse(int argc, char **argv, ops_opts_t *o) {
  *o = (ops_opts_t){.json = false,
                    .callgrind = true,
                    .child = false,
                    .runs = OPS_DEFAULT_RUNS,
                    .iters = OPS_DEFAULT_ITERS,
                    .out = NULL,
                    .json_out = NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool m = false;
    const char *v;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      ops_usage(stdout);
      return 0;
    }
    if (strcmp(a, "--json") == 0) {
      o->json = true;
    } else if (strcmp(a, "--no-callgrind") == 0) {
      o->callgrind = false;
    } else if (strcmp(a, "--callgrind-child") == 0) {
      o->child = true; /* internal: the run under callgrind */
    } else if ((v = bench_opt_value(argc, argv, &i, "--runs", &m)) != NULL || m) {
      if (v == NULL) {
        return bench_usage_error(OPS_HELP, "option '--runs' needs a value");
      }
      if (!bench_parse_uint(v, 1, 1000, &o->runs)) {
        return bench_usage_error(OPS_HELP, "--runs needs a number from 1 to 1000, got '%s'", v);
      }
    } else if ((v = bench_opt_value(argc, argv, &i, "--iterations", &m)) != NULL || m) {
      if (v == NULL) {
        return bench_usage_error(OPS_HELP, "option '--iterations' needs a value");
      }
      if (!bench_parse_uint(v, 1, 1000000000ul, &o->iters)) {
        return bench_usage_error(OPS_HELP,
                                 "--iterations needs a number from 1 to 1000000000, got '%s'", v);
      }
    } else if ((v = bench_opt_value(argc, argv, &i, "--json-out", &m)) != NULL || m) {
      if (v == NULL || *v == '\0') {
        return bench_usage_error(OPS_HELP, "option '--json-out' needs a file name");
      }
      o->json_out = v;
    } else if ((v = bench_opt_value(argc, argv, &i, "--output", &m)) != NULL || m ||
               (v = bench_opt_value(argc, argv, &i, "-o", &m)) != NULL || m) {
      if (v == NULL || *v == '\0') {
        return bench_usage_error(OPS_HELP, "option '-o/--output' needs a file name");
      }
      o->out = v;
    } else if (strncmp(a, "-o", 2) == 0 && a[2] != '\0') {
      o->out = a + 2;
    } else if (a[0] == '-') {
      return bench_usage_error(OPS_HELP, "unknown option '%s'", a);
    } else {
      return bench_usage_error(OPS_HELP, "unexpected argument '%s'", a);
    }
  }
  return -1;
}

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
  return 0;
}

static double per_call(uint64_t total, uint64_t base, uint64_t iters) {
  double v = ((double)total - (double)base) / (double)iters;
  return v < 0.0 ? 0.0 : v;
}

static const char *instance_name(unsigned path) {
  return path == BENCH_PATH_UAPI_RT ? "run-time" : "compile-time";
}

static const char *api_name(unsigned path) {
  return path == BENCH_PATH_HAPI ? "hapi" : "uapi";
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
} ops_report_t;

/* The hapi case of the same operation, the reference for extra instructions. */
static const ops_result_t *hapi_of(const ops_report_t *r, size_t t, unsigned c) {
  const bench_case_t *k = &targets[t].set->cases[c];
  for (unsigned j = 0; j < OPS_NCASES; j++) {
    const bench_case_t *h = &targets[t].set->cases[j];
    if (h->op == k->op && h->path == BENCH_PATH_HAPI) {
      return &r->res[t][j];
    }
  }
  return NULL;
}

static void print_json(FILE *f, const ops_report_t *r) {
  const bench_machine_t *m = r->m;
  fputs("{\"benchmark\":\"ops\",\"machine\":{", f);
  bench_json_machine_fields(f, m);
  fprintf(f, ",\"callgrind\":%s,\"callgrind_note\":", r->have_instr ? "true" : "false");
  bench_json_string(f, r->cg_note);
  if (r->have_instr) {
    fprintf(f, ",\"callgrind_iterations\":%lu", r->cg_iters);
  } else {
    fputs(",\"callgrind_iterations\":null", f);
  }
  fprintf(f, ",\"runs\":%lu,\"iterations\":%lu,\"baseline_ns\":", r->o->runs, r->o->iters);
  bench_json_num(f, true, r->base_ns);
  fputs(",\"baseline_tsc_ticks\":", f);
  bench_json_num(f, m->tsc, r->base_ticks);
  fputs(",\"port\":\"sim\",\"port_lock_unlock\":{\"ns\":", f);
  bench_json_num(f, true, r->port.ns);
  fputs(",\"tsc_ticks\":", f);
  bench_json_num(f, m->tsc, r->port.ticks);
  fputs(",\"instructions\":", f);
  bench_json_num(f, r->have_instr, r->port.instr);
  fprintf(f, "},\"sim_access_cost_ns\":%u,\"drivers\":{", BENCH_SIM_ACCESS_COST_NS);
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    fprintf(f, "%s\"%s\":", t ? "," : "", targets[t].set->driver);
    bench_json_string(f, targets[t].what);
  }
  fputs("}},\n\"rows\":[", f);
  bool first = true;
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    for (unsigned c = 0; c < OPS_NCASES; c++) {
      const bench_case_t *k = &targets[t].set->cases[c];
      const ops_result_t *x = &r->res[t][c];
      const ops_result_t *h = hapi_of(r, t, c);
      fprintf(f,
              "%s\n{\"name\":\"%s\",\"api\":\"%s\",\"instance\":\"%s\",\"driver\":\"%s\",\"ns\":",
              first ? "" : ",", bench_op_name(k->op), api_name(k->path), instance_name(k->path),
              targets[t].set->driver);
      first = false;
      bench_json_num(f, true, x->ns);
      fputs(",\"tsc_ticks\":", f);
      bench_json_num(f, m->tsc, x->ticks);
      fputs(",\"instructions\":", f);
      bench_json_num(f, r->have_instr, x->instr);
      fputs(",\"extra_instructions\":", f);
      bench_json_num(f, r->have_instr && k->path != BENCH_PATH_HAPI, x->instr - h->instr);
      fputs("}", f);
    }
  }
  fputs("\n]}\n", f);
}

static void print_table(FILE *f, const ops_report_t *r) {
  const bench_machine_t *m = r->m;
  fprintf(f, "utim-bench ops: cost per call of read / write / set / clear\n");
  fprintf(f, "  cpu:       %s (%s)\n", m->cpu, m->arch);
  if (m->tsc) {
    fprintf(f, "  tsc:       %.4f GHz (calibrated against CLOCK_MONOTONIC)%s\n", m->tsc_hz / 1e9,
            m->tsc_invariant ? ", invariant" : ", not flagged invariant");
  } else {
    fprintf(f, "  tsc:       not available on this architecture (ticks column empty)\n");
  }
  fprintf(f, "  compiler:  %s, build %s\n", m->compiler, m->build);
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
  fprintf(f, "\n");
  fprintf(f, "\n%-6s %-7s %-5s %-13s %9s %11s %11s %12s\n", "op", "driver", "api", "instance",
          "ns/call", "ticks/call", "instr/call", "extra instr");
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    for (unsigned c = 0; c < OPS_NCASES; c++) {
      const bench_case_t *k = &targets[t].set->cases[c];
      const ops_result_t *x = &r->res[t][c];
      const ops_result_t *h = hapi_of(r, t, c);
      char ticks[32] = "";
      char instr[32] = "";
      char extra[32] = "";
      if (m->tsc) {
        snprintf(ticks, sizeof ticks, "%.2f", x->ticks);
      }
      if (r->have_instr) {
        snprintf(instr, sizeof instr, "%.1f", x->instr);
        if (k->path == BENCH_PATH_HAPI) {
          snprintf(extra, sizeof extra, "(ref)");
        } else {
          snprintf(extra, sizeof extra, "%+.1f", x->instr - h->instr);
        }
      }
      fprintf(f, "%-6s %-7s %-5s %-13s %9.2f %11s %11s %12s\n", bench_op_name(k->op),
              targets[t].set->driver, api_name(k->path), instance_name(k->path), x->ns, ticks,
              instr, extra);
    }
    if (t + 1u < OPS_NTARGETS) {
      fputc('\n', f);
    }
  }
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

int bench_cmd_ops(int argc, char **argv) {
  ops_opts_t o;
  int rc = parse(argc, argv, &o);
  if (rc >= 0) {
    return rc;
  }
  if (o.child) {
    return run_child((uint32_t)o.iters);
  }
  FILE *out = stdout;
  if (o.out != NULL && strcmp(o.out, "-") != 0) {
    out = fopen(o.out, "w");
    if (out == NULL) {
      fprintf(stderr, BENCH_PROG ": cannot open '%s' for writing: %s\n", o.out, strerror(errno));
      return 1;
    }
  }
  bench_progress_init();

  ops_report_t r;
  bench_machine_t m;
  memset(&r, 0, sizeof r);
  r.o = &o;
  r.m = &m;
  bench_progress("calibrating the TSC");
  bench_machine_probe(&m);

  char err[512];
  if (bench_sim_setup(err, sizeof err) != 0) {
    bench_progress_done();
    fprintf(stderr, BENCH_PROG ": %s\n", err);
    return 1;
  }
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    unsigned bad = 0;
    int e = bench_ops_check(targets[t].set, targets[t].hz, 16u, &bad);
    if (e != 0) {
      bench_progress_done();
      fprintf(stderr, BENCH_PROG ": ops: %s %s %s failed with %d before measuring\n",
              targets[t].set->driver, bench_op_name(targets[t].set->cases[bad].op),
              bench_path_name(targets[t].set->cases[bad].path), e);
      return 1;
    }
  }

  uint64_t *d0 = calloc(o.runs, sizeof *d0);
  uint64_t *d1 = calloc(o.runs, sizeof *d1);
  if (d0 == NULL || d1 == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    free(d0);
    free(d1);
    return 1;
  }
  const uint32_t iters = (uint32_t)o.iters;
  /* One untimed run first: page faults and cold caches belong to no case. */
  bench_progress("timing the empty loop");
  bench_loop_baseline(iters);
  bench_time_runs(bench_loop_baseline, iters, (unsigned)o.runs, bench_host_stamp, d0, d1);
  uint64_t base0 = bench_median_u64(d0, (unsigned)o.runs);
  uint64_t base1 = bench_median_u64(d1, (unsigned)o.runs);
  r.base_ns = (double)base0 / (double)iters;
  r.base_ticks = (double)base1 / (double)iters;
  bench_progress("timing the port lock");
  bench_loop_port_lock(iters);
  bench_time_runs(bench_loop_port_lock, iters, (unsigned)o.runs, bench_host_stamp, d0, d1);
  r.port.ns = per_call(bench_median_u64(d0, (unsigned)o.runs), base0, iters);
  r.port.ticks = per_call(bench_median_u64(d1, (unsigned)o.runs), base1, iters);
  for (size_t t = 0; t < OPS_NTARGETS; t++) {
    const bench_ops_set_t *s = targets[t].set;
    for (unsigned c = 0; c < OPS_NCASES; c++) {
      const bench_case_t *k = &s->cases[c];
      bench_progress("timing %s %s %s", s->driver, bench_op_name(k->op), bench_path_name(k->path));
      if (bench_ops_prepare(s, targets[t].hz) != 0) {
        bench_progress_done();
        fprintf(stderr, BENCH_PROG ": ops: cannot prepare the %s instance\n", s->driver);
        free(d0);
        free(d1);
        return 1;
      }
      k->loop(iters);
      bench_time_runs(k->loop, iters, (unsigned)o.runs, bench_host_stamp, d0, d1);
      r.res[t][c].ns = per_call(bench_median_u64(d0, (unsigned)o.runs), base0, iters);
      r.res[t][c].ticks = per_call(bench_median_u64(d1, (unsigned)o.runs), base1, iters);
    }
  }
  free(d0);
  free(d1);

  char valgrind[4096];
  if (!o.callgrind) {
    snprintf(r.cg_note, sizeof r.cg_note, "disabled (--no-callgrind): instruction columns empty");
  } else if (!bench_find_valgrind(valgrind, sizeof valgrind)) {
    snprintf(r.cg_note, sizeof r.cg_note,
             "not available (valgrind not found in PATH): instruction columns empty");
  } else {
    bench_progress("counting instructions under callgrind");
    r.cg_iters = o.iters < OPS_CALLGRIND_ITERS ? o.iters : OPS_CALLGRIND_ITERS;
    char iters_arg[32];
    snprintf(iters_arg, sizeof iters_arg, "%lu", r.cg_iters);
    char *args[] = {"ops", "--callgrind-child", "--iterations", iters_arg, NULL};
    const char *names[2u + (OPS_NTARGETS * (size_t)OPS_NCASES)];
    uint64_t incl[2u + (OPS_NTARGETS * (size_t)OPS_NCASES)];
    size_t n = 0;
    names[n++] = "bench_loop_baseline";
    names[n++] = "bench_loop_port_lock";
    for (size_t t = 0; t < OPS_NTARGETS; t++) {
      for (unsigned c = 0; c < OPS_NCASES; c++) {
        names[n++] = targets[t].set->cases[c].loop_name;
      }
    }
    if (bench_callgrind(valgrind, args, "bench_loop_*", names, n, incl, err, sizeof err) != 0) {
      snprintf(r.cg_note, sizeof r.cg_note, "failed (%.250s): instruction columns empty", err);
    } else {
      bool all = incl[0] > 0u;
      for (size_t i = 1; i < n; i++) {
        all = all && incl[i] > 0u;
      }
      if (!all) {
        snprintf(r.cg_note, sizeof r.cg_note,
                 "failed (a loop function is missing from its output): instruction columns empty");
      } else {
        r.have_instr = true;
        snprintf(r.cg_note, sizeof r.cg_note,
                 "%.200s --tool=callgrind, %lu calls per loop, inclusive Ir minus the empty loop",
                 valgrind, r.cg_iters);
        r.port.instr = ((double)incl[1] - (double)incl[0]) / (double)r.cg_iters;
        size_t i = 2;
        for (size_t t = 0; t < OPS_NTARGETS; t++) {
          for (unsigned c = 0; c < OPS_NCASES; c++, i++) {
            r.res[t][c].instr = ((double)incl[i] - (double)incl[0]) / (double)r.cg_iters;
          }
        }
      }
    }
  }
  bench_progress_done();
  if (o.json) {
    print_json(out, &r);
  } else {
    print_table(out, &r);
  }
  if (o.json_out != NULL) {
    FILE *jf = fopen(o.json_out, "w");
    if (jf == NULL) {
      fprintf(stderr, BENCH_PROG ": cannot open '%s': %s\n", o.json_out, strerror(errno));
      return 1;
    }
    print_json(jf, &r);
    if (fclose(jf) != 0) {
      fprintf(stderr, BENCH_PROG ": cannot write '%s': %s\n", o.json_out, strerror(errno));
      return 1;
    }
  }
  if (out != stdout) {
    if (fclose(out) != 0) {
      fprintf(stderr, BENCH_PROG ": cannot write '%s': %s\n", o.out, strerror(errno));
      return 1;
    }
  } else if (fflush(stdout) != 0) {
    return 1;
  }
  return 0;
}
