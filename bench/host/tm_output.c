/**
 * @file tm_output.c
 * @brief `utim-bench tm`'s report: the table and the JSON document of a
 *        tm_report_t (part 1's costs, its floors, the targets, and
 *        the paper figures through tm_paper.c).
 */
#include "tm_bench.h"

#ifdef UTIM_BENCH_HAVE_LIBUV
#include <uv.h>
#endif

const char *const tm_w_name[W_COUNT] = {"uniform", "network", "periodic"};
const char *const tm_s_name[S_COUNT] = {"utim tm", "libuv", "delta list"};
const size_t tm_n_list[TM_NS_COUNT] = {10u, 1000u, 10000u, 100000u, 1000000u};

static const cost_t *cost_at(const tm_report_t *r, unsigned w, unsigned s, size_t n) {
  for (size_t i = 0; i < r->nn; i++) {
    if (tm_n_list[i] == n) {
      return &r->cost[w][s][i];
    }
  }
  return NULL;
}

/* Ratio a / b when both were measured. */
static bool ratio(double a, double b, double *out) {
  if (b <= 0.0) {
    return false;
  }
  *out = a / b;
  return true;
}

/* An issue target, and the floor of this run under it where one applies:
 * what the figure cannot go below on this machine, whatever the structure
 * (a target below it is out of reach here, not a defect of the code). */
typedef struct target_row {
  const char *what;
  double value;
  double limit;
  bool measured;
  bool upper; /* value must be <= limit (else >=) */
  double floor;
  const char *floor_what; /* NULL: no floor applies (or not measured) */
} target_row_t;

/* The floors at @p n pending, or NULL when not measured. */
static const tm_floors_t *floors_at(const tm_report_t *r, size_t n) {
  for (size_t i = 0; i < r->nn; i++) {
    if (tm_n_list[i] == n && r->floor[i].read_ns > 0.0) {
      return &r->floor[i];
    }
  }
  return NULL;
}

/*
 * The floors: a start writes its timer, so it costs at least one read of it
 * (the independent-read floor); a stop at least unlinks it from its list (the
 * bare-unlink floor); so start+stop at 10^6 costs at least the sum of the
 * two, and its ratio to the cost at 10^3 is at least that sum over it.
 */
static size_t targets(const tm_report_t *r, target_row_t *t) {
  const cost_t *big = cost_at(r, W_UNIFORM, S_TM, 1000000u);
  const cost_t *small = cost_at(r, W_UNIFORM, S_TM, 1000u);
  const cost_t *uvbig = cost_at(r, W_UNIFORM, S_UV, 1000000u);
  const tm_floors_t *fl = floors_at(r, 1000000u);
  size_t n = 0;
  const bool have_big = big != NULL && big->measured;
  t[n++] = (target_row_t){
      "start at 10^6 pending, ns",    have_big ? big->start_ns : 0.0,        40.0, have_big, true,
      fl != NULL ? fl->read_ns : 0.0, fl != NULL ? "independent read" : NULL};
  t[n++] = (target_row_t){
      "stop at 10^6 pending, ns",       have_big ? big->stop_ns : 0.0,    25.0, have_big, true,
      fl != NULL ? fl->unlink_ns : 0.0, fl != NULL ? "bare unlink" : NULL};
  double v = 0.0;
  bool ok = big != NULL && uvbig != NULL && big->measured && uvbig->measured &&
            ratio(uvbig->start_ns + uvbig->stop_ns, big->start_ns + big->stop_ns, &v);
  t[n++] = (target_row_t){"libuv / tm, start+stop at 10^6", v, 3.0, ok, false, 0.0, NULL};
  const bool have_small = small != NULL && small->measured;
  ok = have_big && have_small &&
       ratio(big->start_ns + big->stop_ns, small->start_ns + small->stop_ns, &v);
  double fv = 0.0;
  const bool have_fv = fl != NULL && have_small &&
                       ratio(fl->read_ns + fl->unlink_ns, small->start_ns + small->stop_ns, &fv);
  t[n++] = (target_row_t){"tm start+stop, 10^6 / 10^3",
                          v,
                          1.5,
                          ok,
                          true,
                          fv,
                          have_fv ? "read + unlink at 10^6 / start+stop at 10^3" : NULL};
  return n;
}

/* Whether row @p t meets its target. */
static bool met(const target_row_t *t) {
  return t->upper ? t->value <= t->limit : t->value >= t->limit;
}

static void print_table(FILE *f, const void *rp) {
  const tm_report_t *r = rp;
  fprintf(f,
          "  instance:  tickless at 1 MHz; start and stop on %s (NOP driver: register accesses "
          "cost nothing), expiries on %s (sim board: one interrupt serves a batch); port: sim\n",
          r->inst_ops, r->inst);
  fprintf(f,
          "  timing:    median over %lu rounds of a batch of operations on distinct random "
          "pending timers (ops column)\n",
          r->rounds);
#ifdef UTIM_BENCH_HAVE_LIBUV
  fprintf(f,
          "  libuv:     %s; its expiry figure has an empty uv_run(UV_RUN_NOWAIT) (%.0f ns) "
          "subtracted\n",
          uv_version_string(), r->uv_idle_ns);
#else
  fprintf(f, "  libuv:     not built in (libuv1-dev missing at configure time)\n");
#endif
  fprintf(f, "  delta list: a baseline in the bench (sorted, deltas to the predecessor)\n");
  tm_floors_table(f, tm_n_list, r->floor, r->nn);
  fprintf(f, "  callgrind: %s\n\n", r->cg_note);
  static const bench_col_t cols[] = {
      {"workload", -9, 0}, {"structure", -11, 0}, {"pending", 8, 0},    {"ops", 5, 0},
      {"start ns", 9, 1},  {"stop ns", 8, 1},     {"expiry ns", 10, 1}, {"start Ir", 9, 0},
      {"stop Ir", 8, 0},   {"expiry Ir", 10, 0},
  };
  const size_t nc = sizeof cols / sizeof cols[0];
  bench_table_head(f, cols, nc);
  for (unsigned w = 0; w < W_COUNT; w++) {
    for (size_t ni = 0; ni < r->nn; ni++) {
      for (unsigned s = 0; s < S_COUNT; s++) {
        const cost_t *c = &r->cost[w][s][ni];
        if (!c->measured) {
          continue;
        }
        const bench_cell_t cells[] = {
            BENCH_TEXT(tm_w_name[w]),
            BENCH_TEXT(tm_s_name[s]),
            BENCH_NUM((double)tm_n_list[ni]),
            BENCH_NUM((double)c->ops),
            BENCH_NUM(c->start_ns),
            BENCH_NUM(c->stop_ns),
            BENCH_NUM(c->expiry_ns),
            BENCH_NUM_IF(c->have_instr, c->start_instr),
            BENCH_NUM_IF(c->have_instr, c->stop_instr),
            BENCH_NUM_IF(c->have_instr, c->expiry_instr),
        };
        bench_table_row(f, cols, nc, cells, nc, NULL);
      }
    }
  }
  fprintf(f, "  (network: start is a restart of a pending timer)\n\n");
  target_row_t t[4];
  const size_t nt = targets(r, t);
  fprintf(f, "  issue targets (reported, never asserted):\n");
  for (size_t i = 0; i < nt; i++) {
    if (t[i].measured) {
      fprintf(f, "    %-34s %8.2f  (target %s %.1f: %s", t[i].what, t[i].value,
              t[i].upper ? "<=" : ">=", t[i].limit, met(&t[i]) ? "met" : "not met");
      if (t[i].floor_what != NULL) {
        fprintf(f, "; this run's floor %.2f, %s%s", t[i].floor, t[i].floor_what,
                t[i].limit < t[i].floor ? ": the target is below it" : "");
      }
      fprintf(f, ")\n");
    } else {
      fprintf(f, "    %-34s not measured (needs N = 10^6 and libuv)\n", t[i].what);
    }
  }
  tm_paper_table(f, &r->paper);
}

static void print_json(bench_jw_t *w, const void *rp) {
  const tm_report_t *r = rp;
  bench_jw_str(w, "instance", r->inst);
  bench_jw_str(w, "instance_start_stop", r->inst_ops);
  bench_jw_uint(w, "rounds", r->rounds);
  bench_jw_uint(w, "seed", r->seed);
  bench_jw_str(w, "callgrind", r->cg_note);
#ifdef UTIM_BENCH_HAVE_LIBUV
  bench_jw_str(w, "libuv", uv_version_string());
#else
  bench_jw_null(w, "libuv");
#endif
  tm_floors_json(w, tm_n_list, r->floor, r->nn);
  bench_jw_array(w, "cost");
  for (unsigned wl = 0; wl < W_COUNT; wl++) {
    for (size_t ni = 0; ni < r->nn; ni++) {
      for (unsigned s = 0; s < S_COUNT; s++) {
        const cost_t *c = &r->cost[wl][s][ni];
        if (!c->measured) {
          continue;
        }
        bench_jw_object(w, NULL);
        bench_jw_str(w, "workload", tm_w_name[wl]);
        bench_jw_str(w, "structure", tm_s_name[s]);
        bench_jw_uint(w, "n", tm_n_list[ni]);
        bench_jw_uint(w, "ops", c->ops);
        bench_jw_num(w, "start_ns", true, c->start_ns);
        bench_jw_num(w, "stop_ns", true, c->stop_ns);
        bench_jw_num(w, "expiry_ns", true, c->expiry_ns);
        bench_jw_num(w, "start_instr", c->have_instr, c->start_instr);
        bench_jw_num(w, "stop_instr", c->have_instr, c->stop_instr);
        bench_jw_num(w, "expiry_instr", c->have_instr, c->expiry_instr);
        bench_jw_end(w);
      }
    }
  }
  bench_jw_end(w);
  target_row_t t[4];
  const size_t nt = targets(r, t);
  bench_jw_array(w, "targets");
  for (size_t i = 0; i < nt; i++) {
    bench_jw_object(w, NULL);
    bench_jw_str(w, "what", t[i].what);
    bench_jw_num(w, "value", t[i].measured, t[i].value);
    bench_jw_num(w, "limit", true, t[i].limit);
    bench_jw_str(w, "bound", t[i].upper ? "max" : "min");
    if (t[i].measured) {
      bench_jw_bool(w, "met", met(&t[i]));
    } else {
      bench_jw_null(w, "met");
    }
    bench_jw_num(w, "floor", t[i].floor_what != NULL, t[i].floor);
    if (t[i].floor_what != NULL) {
      bench_jw_str(w, "floor_what", t[i].floor_what);
    } else {
      bench_jw_null(w, "floor_what");
    }
    bench_jw_end(w);
  }
  bench_jw_end(w);
  tm_paper_json(w, &r->paper);
}

const bench_writer_t tm_report_writer = {
    .name = "tm",
    .title = "time manager: cost per start / stop / expiry, Fig. 3 and Fig. 4",
    .table = print_table,
    .json_machine = NULL,
    .json = print_json,
};
