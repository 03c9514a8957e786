/**
 * @file timeout_sim.c
 * @brief `utim-bench timeout --board sim` (in the helper program): the
 *        uTimer paper's timeout matrix in virtual time, timer frequencies
 *        10 kHz to 10 MHz x timeouts 10 us to 1 s, on SIM_MTIME64 (its 10 MHz
 *        input with dividers 1..1000 offers all four), through the uAPI
 *        callback path and through a direct hAPI/ISR path.
 *
 * Latency = the virtual time at the first instruction of the callback (the
 * uAPI path: utim_set_abs() and the compare callback, through the driver's
 * interrupt handler and the core's dispatch) or of a handler attached
 * straight to the channel's interrupt line (the hAPI path: the driver's
 * set_channel() to arm, sim_irq_attach() for the handler, which disarms the
 * channel through the hAPI), minus the virtual time the counter reached
 * the armed value. That moment is exact: the counter's tick edges are found
 * once per frequency (with register accesses made free for it), and each
 * sample is armed a random fraction of a tick after an edge. Register
 * accesses cost 10 ns of virtual time each (the sim board's default); the
 * simulated CPU takes an interrupt at once, so the hAPI path's latency is
 * the cost of nothing but the handler being called, and the difference of
 * the rows is the abstraction's cost in register accesses. Deterministic:
 * the same run gives the same numbers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_host.h"
#include "board_sim.h"
#include "histogram.h"
#include "sim.h"
#include "utim/driver.h"
#include "utim/utim.h"

#define TS_NFREQ  4u
#define TS_NSIZE  6u
#define TS_NPATH  2u
#define TS_SEED   1u
#define TS_DEF_N  20
#define TS_LONG_N 100

static const uint32_t ts_hz[TS_NFREQ] = {10000u, 100000u, 1000000u, 10000000u};
static const uint64_t ts_us[TS_NSIZE] = {10u, 100u, 1000u, 10000u, 100000u, 1000000u};
static const char *const ts_path[TS_NPATH] = {"uapi", "hapi"};
static const char *const board_words[] = {"sim", "native", NULL};

typedef struct ts_opts {
  const char *board;
  unsigned long fixed;
  bool lng;
  // cppcheck-suppress unusedStructMember ; accepted as the native command takes it, no effect here
  bool no_cyclictest;
  unsigned long histogram;
} ts_opts_t;

typedef struct ts_cell {
  bench_stats_t st;
  unsigned long early;
  uint64_t ticks; /* the timeout in ticks; 0: below one tick, not measured */
  bench_hist_t hist;
} ts_cell_t;

typedef struct ts_report {
  const ts_opts_t *o;
  bench_machine_t m;
  unsigned long samples;
  ts_cell_t cell[TS_NPATH][TS_NFREQ][TS_NSIZE];
} ts_report_t;

/* The sample in flight. */
static const utim_periph_t *g_p;
static volatile uint64_t g_fired_at;
static volatile bool g_fired;

static void ts_describe(FILE *f) {
  fprintf(f, "On the sim board (--board sim): the uTimer paper's timeout matrix in virtual time,\n"
             "timer frequencies 10 kHz, 100 kHz, 1 MHz and 10 MHz x timeouts 10 us to 1 s on\n"
             "SIM_MTIME64, through the uAPI (utim_set_abs() and the compare callback) and\n"
             "through the hAPI (the driver's set_channel() and a handler attached straight\n"
             "to the interrupt line). Latency L_tout (mean) and jitter J_tout (standard\n"
             "deviation) in ns of virtual time from the counter reaching the armed value to\n"
             "the first instruction of the callback or handler; register accesses cost 10 ns.\n"
             "Deterministic. A timeout below one tick of a frequency is not measured.\n"
             "(--no-cyclictest is accepted and has no effect: cyclictest runs on native only.)\n");
}

static const bench_opt_t ts_opt_table[] = {
    BENCH_WORD("--board", "BOARD", ts_opts_t, board, board_words, "sim (this program's board)"),
    BENCH_UINT("--samples", ts_opts_t, fixed, 1u, 100000u,
               "timeouts per cell (default " BENCH_STR(TS_DEF_N) ", " BENCH_STR(
                   TS_LONG_N) " with --long)"),
    BENCH_FLAG("--long", ts_opts_t, lng, "the longer sample count"),
    BENCH_FLAG("--no-cyclictest", ts_opts_t, no_cyclictest, "no effect on sim"),
    BENCH_UINT("--histogram", ts_opts_t, histogram, 1u, 100000u,
               "also print a histogram of N 1-us buckets per row, in the\n"
               "layout of cyclictest -h N (JSON: \"histogram\")"),
};

static const bench_cli_t ts_cli = {
    .cmd = "timeout --board sim",
    .opts = ts_opt_table,
    .nopts = sizeof ts_opt_table / sizeof ts_opt_table[0],
    .json_help = "print one JSON document: {\"benchmark\":\"timeout\",\"machine\":{...,\n"
                 "\"board\":\"sim\"},\"instance\",\"matrix\":[{\"board\",\"path\":\"uapi\"|\n"
                 "\"hapi\",\"hz\",\"timeout_us\",\"ticks\",\"unit\":\"ns\",\"mean\",\"stddev\",\n"
                 "\"median\",\"min\",\"max\",\"p99\",\"n\",\"early\"}],\"histogram\":{...} with\n"
                 "--histogram}",
    .describe = ts_describe,
};

static uint64_t ts_rng = TS_SEED;
static uint64_t ts_rnd(void) {
  uint64_t z = (ts_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_fired_at = sim_now(); /* the first instruction */
  g_fired = true;
}

static void raw_isr(const void *arg) {
  (void)arg;
  g_fired_at = sim_now(); /* the first instruction */
  g_fired = true;
  g_p->drv->set_channel(g_p, 0u, UTIM_CH_OFF, 0u); /* disarm: clears the event and its line */
}

/* Virtual time of a tick edge of the running counter, and the count it starts.
 * Found with free register accesses: advance 1 ns at a time until the count moves. */
static void find_edge(const utim_periph_t *p, uint64_t *t_edge, uint64_t *c_edge) {
  const uint32_t cost = sim_access_cost();
  sim_set_access_cost(0u);
  const uint64_t c0 = utim_read(p);
  uint64_t c = c0;
  while (c == c0) {
    sim_advance(1u);
    c = utim_read(p);
  }
  *t_edge = sim_now();
  *c_edge = c;
  sim_set_access_cost(cost);
}

/* One frequency, one path: every timeout's samples. */
static int run_freq(ts_report_t *r, unsigned path, unsigned fi, double *v) {
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  const uint32_t hz = ts_hz[fi];
  const uint64_t period = 1000000000ull / hz; /* ns; exact for these frequencies */
  sim_board_init();
  g_p = p;
  int rc = utim_init(p, hz, UTIM_CLOCK_DEFAULT);
  rc = rc != 0 ? rc : utim_start(p);
  if (rc != 0) {
    return rc;
  }
  if (path == 0u) {
    rc = utim_set_compare_cb(p, on_compare, NULL);
  } else {
    const int line = sim_board_irq_line(p, 0u);
    if (line < 0) {
      return line;
    }
    sim_irq_attach((unsigned)line, raw_isr, NULL);
  }
  uint64_t t_edge = 0;
  uint64_t c_edge = 0;
  find_edge(p, &t_edge, &c_edge);
  for (unsigned si = 0; si < TS_NSIZE && rc == 0; si++) {
    ts_cell_t *cell = &r->cell[path][fi][si];
    cell->ticks = ts_us[si] * hz / 1000000u;
    if (cell->ticks == 0u) {
      continue;
    }
    for (unsigned long k = 0; k < r->samples; k++) {
      /* A random moment within a tick, a few ticks on. */
      sim_advance(period * (1u + ts_rnd() % 3u) + ts_rnd() % period);
      const uint64_t c = utim_read(p);
      const uint64_t target = c + cell->ticks;
      const uint64_t t_match = t_edge + (target - c_edge) * period;
      g_fired = false;
      if (path == 0u) {
        rc = utim_set_abs(p, 0u, target);
      } else {
        p->drv->set_channel(p, 0u, UTIM_CH_ONESHOT, target);
      }
      if (rc != 0) {
        break;
      }
      /* To the match and 1 ms on: the interrupt comes at its exact time within. */
      sim_advance(t_match - sim_now() + 1000000u);
      if (!g_fired) {
        rc = -ETIME;
        break;
      }
      v[k] = (double)((int64_t)(g_fired_at - t_match));
      cell->early += g_fired_at < t_match ? 1u : 0u;
    }
    if (rc == 0 && r->o->histogram != 0u &&
        bench_hist_fill(&cell->hist, v, r->samples, (unsigned)r->o->histogram) != 0) {
      rc = -ENOMEM;
    }
    if (rc == 0) {
      bench_stats(v, r->samples, &cell->st);
    }
  }
  (void)utim_set_compare_cb(p, NULL, NULL);
  sim_board_init(); /* the board's handler back on the line */
  return rc;
}

static void ts_table(FILE *f, const void *rp) {
  const ts_report_t *r = rp;
  fprintf(f, "  board:     sim, SIM_MTIME64 (64-bit compare-only timer), virtual time, 10 ns per "
             "register access\n");
  fprintf(f, "  samples:   %lu per cell, random phase within the tick\n\n", r->samples);
  static const bench_col_t cols[] = {
      {"path", -5, 0},      {"hz", 9, 0},  {"timeout", 9, 0}, {"ticks", 9, 0}, {"L_tout ns", 10, 1},
      {"J_tout ns", 10, 1}, {"min", 8, 0}, {"max", 8, 0},     {"early", 6, 0},
  };
  const size_t nc = sizeof cols / sizeof cols[0];
  bench_table_head(f, cols, nc);
  char to[16];
  for (unsigned path = 0; path < TS_NPATH; path++) {
    for (unsigned fi = 0; fi < TS_NFREQ; fi++) {
      for (unsigned si = 0; si < TS_NSIZE; si++) {
        const ts_cell_t *c = &r->cell[path][fi][si];
        const uint64_t us = ts_us[si];
        snprintf(to, sizeof to,
                 us >= 1000000u ? "%llu s"
                 : us >= 1000u  ? "%llu ms"
                                : "%llu us",
                 (unsigned long long)(us >= 1000000u ? us / 1000000u
                                      : us >= 1000u  ? us / 1000u
                                                     : us));
        const bool ok = c->ticks != 0u && c->st.n != 0u;
        bench_cell_t cells[] = {
            BENCH_TEXT(ts_path[path]),
            BENCH_NUM(ts_hz[fi]),
            BENCH_TEXT(to),
            BENCH_NUM((double)c->ticks),
            BENCH_NUM_IF(ok, c->st.mean),
            BENCH_NUM_IF(ok, c->st.stddev),
            BENCH_NUM_IF(ok, c->st.min),
            BENCH_NUM_IF(ok, c->st.max),
            BENCH_NUM_IF(ok, (double)c->early),
        };
        bench_table_row(f, cols, nc, cells, nc, c->ticks == 0u ? "  (below one tick)" : NULL);
      }
    }
  }
  /* Table 1 of the paper: 1 ms at 1 MHz, the two paths side by side. */
  const ts_cell_t *u = &r->cell[0][2][2];
  const ts_cell_t *h = &r->cell[1][2][2];
  fprintf(f,
          "\n  Table 1 (1 ms at 1 MHz): uAPI L_tout %.1f ns, J_tout %.1f ns; hAPI L_tout %.1f ns, "
          "J_tout %.1f ns; the uAPI's cost on latency %.1f ns (%.0f register accesses)\n",
          u->st.mean, u->st.stddev, h->st.mean, h->st.stddev, u->st.mean - h->st.mean,
          (u->st.mean - h->st.mean) / 10.0);
  if (r->o->histogram != 0u) {
    for (unsigned path = 0; path < TS_NPATH; path++) {
      for (unsigned fi = 0; fi < TS_NFREQ; fi++) {
        for (unsigned si = 0; si < TS_NSIZE; si++) {
          const ts_cell_t *c = &r->cell[path][fi][si];
          if (c->ticks != 0u) {
            char title[96];
            snprintf(title, sizeof title, "sim %s %lu Hz, timeout %llu us", ts_path[path],
                     (unsigned long)ts_hz[fi], (unsigned long long)ts_us[si]);
            fputc('\n', f);
            bench_hist_print(f, &c->hist, title);
          }
        }
      }
    }
  }
}

static void ts_json_machine(bench_jw_t *w, const void *rp) {
  (void)rp;
  bench_jw_str(w, "board", "sim");
  bench_jw_bool(w, "virtual_time", true);
  bench_jw_uint(w, "access_cost_ns", 10u);
}

static void ts_json(bench_jw_t *w, const void *rp) {
  const ts_report_t *r = rp;
  bench_jw_str(w, "instance", "SIM_MTIME64");
  bench_jw_array(w, "matrix");
  for (unsigned path = 0; path < TS_NPATH; path++) {
    for (unsigned fi = 0; fi < TS_NFREQ; fi++) {
      for (unsigned si = 0; si < TS_NSIZE; si++) {
        const ts_cell_t *c = &r->cell[path][fi][si];
        bench_jw_object(w, NULL);
        bench_jw_str(w, "board", "sim");
        bench_jw_str(w, "path", ts_path[path]);
        bench_jw_uint(w, "hz", ts_hz[fi]);
        bench_jw_uint(w, "timeout_us", ts_us[si]);
        bench_jw_uint(w, "ticks", c->ticks);
        bench_jw_str(w, "unit", "ns");
        bench_jw_stats(w, &c->st);
        bench_jw_uint(w, "early", c->early);
        bench_jw_end(w);
      }
    }
  }
  bench_jw_end(w);
  if (r->o->histogram != 0u) {
    bench_hist_json_open(w, (unsigned)r->o->histogram);
    for (unsigned path = 0; path < TS_NPATH; path++) {
      for (unsigned fi = 0; fi < TS_NFREQ; fi++) {
        for (unsigned si = 0; si < TS_NSIZE; si++) {
          const ts_cell_t *c = &r->cell[path][fi][si];
          if (c->ticks != 0u) {
            char name[48];
            snprintf(name, sizeof name, "sim_%s_%luhz", ts_path[path], (unsigned long)ts_hz[fi]);
            bench_hist_json(w, &c->hist, name, "timeout_us", (long long)ts_us[si]);
          }
        }
      }
    }
    bench_hist_json_close(w);
  }
}

static const bench_writer_t ts_writer = {
    .name = "timeout",
    .title = "timeout latency matrix on the sim board (uTimer Fig. 7 and Table 1)",
    .table = ts_table,
    .json_machine = ts_json_machine,
    .json = ts_json,
};

int bench_cmd_timeout_sim(int argc, char **argv) {
  ts_opts_t o = {0};
  bench_output_t out;
  int rc = bench_cli_parse(&ts_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  if (o.board != NULL && strcmp(o.board, "sim") != 0) {
    bench_output_discard(&out);
    return bench_usage_error(BENCH_PROG " timeout",
                             "board '%s' is run by " BENCH_PROG ", this program has the sim board",
                             o.board);
  }
  ts_report_t *r = calloc(1, sizeof *r);
  const unsigned long samples = o.fixed != 0u ? o.fixed : o.lng ? TS_LONG_N : TS_DEF_N;
  double *v = calloc(samples, sizeof *v);
  if (r == NULL || v == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    free(r);
    free(v);
    bench_output_discard(&out);
    return 1;
  }
  r->o = &o;
  r->samples = samples;
  bench_progress_init();
  bench_machine_probe(&r->m);
  for (unsigned path = 0; path < TS_NPATH && rc == BENCH_CLI_RUN; path++) {
    for (unsigned fi = 0; fi < TS_NFREQ; fi++) {
      bench_progress("%s path at %lu Hz", ts_path[path], (unsigned long)ts_hz[fi]);
      const int e = run_freq(r, path, fi, v);
      if (e != 0) {
        fprintf(stderr, BENCH_PROG ": timeout: sim %s path at %lu Hz failed: %s\n", ts_path[path],
                (unsigned long)ts_hz[fi], strerror(-e));
        rc = 1;
        break;
      }
    }
  }
  bench_progress_done();
  if (rc == 1) {
    bench_output_discard(&out);
  } else {
    rc = bench_output_write(&out, &ts_writer, &r->m, r);
  }
  for (unsigned path = 0; path < TS_NPATH; path++) {
    for (unsigned fi = 0; fi < TS_NFREQ; fi++) {
      for (unsigned si = 0; si < TS_NSIZE; si++) {
        bench_hist_free(&r->cell[path][fi][si].hist);
      }
    }
  }
  free(v);
  free(r);
  return rc;
}
