/**
 * @file timeout_output.c
 * @brief `utim-bench timeout`: its table and JSON document.
 */
#include <sched.h>
#include <string.h>

#include "timeout.h"

static const char *policy_name(int policy) {
  return policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER";
}

static void json_row(bench_jw_t *w, const bench_to_report_t *r, const char *name, unsigned s,
                     const bench_to_row_t *row, bool alarm) {
  bench_jw_object(w, NULL);
  bench_jw_str(w, "name", name);
  bench_jw_int(w, "timeout_us", (long long)bench_to_sizes_us[s]);
  bench_jw_str(w, "unit", "ns");
  bench_jw_stats(w, &row->st);
  bench_jw_bool(w, "measured", row->measured);
  bench_jw_int(w, "error", row->error);
  if (!alarm) {
    bench_jw_int(w, "exit_status", row->exit_status);
  }
  bench_jw_str(w, "policy", policy_name(r->irq.policy));
  bench_jw_int(w, "priority", r->irq.priority);
  if (alarm) {
    bench_jw_uint(w, "early", row->early);
    bench_jw_num(w, "irq_cpu_percent", row->irq_cpu >= 0.0, row->irq_cpu);
    bench_jw_uint(w, "deadline_wakes", row->n_split);
    bench_jw_num(w, "kernel_wake_mean_ns", row->n_split != 0u, row->wake_mean);
    bench_jw_num(w, "utim_path_mean_ns", row->n_split != 0u, row->path_mean);
  }
  bench_jw_end(w);
}

static void print_json(bench_jw_t *w, const void *rp) {
  const bench_to_report_t *r = rp;
  bench_jw_object(w, "alarm");
  bench_jw_str(w, "instance", "NATIVE_ALARM");
  bench_jw_uint(w, "hz", r->hz);
  bench_jw_str(w, "policy", policy_name(r->irq.policy));
  bench_jw_int(w, "priority", r->irq.priority);
  bench_jw_int(w, "fifo_error", r->irq.fifo_error);
  bench_jw_bool(w, "mlocked", r->irq.mlocked);
  bench_jw_int(w, "mlock_error", r->irq.mlock_error);
  bench_jw_uint(w, "compare_write_ns", r->irq.compare_write_ns);
  bench_jw_uint(w, "max_hz", r->irq.alarm_max_hz);
  bench_jw_int(w, "phase_uncertainty_ns", (long long)r->phase_unc);
  bench_jw_bool(w, "pm_qos_zero", r->pm_qos);
  bench_jw_uint(w, "spin_ns", r->spin_ns);
  bench_jw_end(w);
  if (r->have_ct) {
    bench_jw_object(w, "cyclictest");
    bench_jw_str(w, "path", r->cyclictest);
    bench_jw_str(w, "args", r->ct_args);
    bench_jw_end(w);
  } else {
    bench_jw_null(w, "cyclictest");
  }
  bench_jw_array(w, "notes");
  for (size_t i = 0; i < r->nnotes; i++) {
    bench_jw_str(w, NULL, r->notes[i]);
  }
  bench_jw_end(w);
  bench_jw_array(w, "rows");
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    json_row(w, r, bench_to_alarm_name[0], s, &r->alarm[0][s], true);
    json_row(w, r, bench_to_alarm_name[1], s, &r->alarm[1][s], true);
    if (r->have_ct) {
      json_row(w, r, "cyclictest", s, &r->ct[s], false);
    }
  }
  bench_jw_end(w);
  /* The matrix on native: the alarm's one frequency (the uAPI callback path,
   * the board's default spin window); no hAPI row, see the table's note. */
  bench_jw_array(w, "matrix");
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    const bench_to_row_t *row = &r->alarm[0][s];
    if (!row->measured) {
      continue;
    }
    bench_jw_object(w, NULL);
    bench_jw_str(w, "board", "native");
    bench_jw_str(w, "path", "uapi");
    bench_jw_uint(w, "hz", r->hz);
    bench_jw_int(w, "timeout_us", (long long)bench_to_sizes_us[s]);
    bench_jw_str(w, "unit", "ns");
    bench_jw_stats(w, &row->st);
    bench_jw_uint(w, "early", row->early);
    bench_jw_end(w);
  }
  bench_jw_end(w);
  if (r->o->histogram != 0u) {
    bench_hist_json_open(w, (unsigned)r->o->histogram);
    for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
      for (unsigned mode = 0; mode < 3u; mode++) {
        const bench_to_row_t *row = mode < 2u ? &r->alarm[mode][s] : &r->ct[s];
        if (row->measured) {
          bench_hist_json(w, &row->hist, mode < 2u ? bench_to_alarm_name[mode] : "cyclictest",
                          "timeout_us", (long long)bench_to_sizes_us[s]);
        }
      }
    }
    bench_hist_json_close(w);
  }
}

static const bench_col_t to_cols[] = {
    {"timeout", -9, 0},   {"source", -14, 0},   {"n", 7, 0},       {"mean us", 10, 2},
    {"stddev us", 10, 2}, {"median us", 10, 2}, {"p99 us", 10, 2}, {"max us", 10, 2},
    {"min us", 10, 2},    {"irq CPU%", 8, 2},
};
#define TO_NCOLS (sizeof to_cols / sizeof to_cols[0])

static void table_row(FILE *f, const char *tmo, const char *name, const bench_to_row_t *row) {
  char tail[64] = "";
  if (!row->measured) {
    if (row->exit_status > 128) {
      snprintf(tail, sizeof tail, " not measured (killed by signal %d)", row->exit_status - 128);
    } else if (row->exit_status != 0) {
      snprintf(tail, sizeof tail, " not measured (exited with status %d)", row->exit_status);
    } else {
      snprintf(tail, sizeof tail, " not measured (%s)", strerror(row->error));
    }
    const bench_cell_t cells[] = {BENCH_TEXT(tmo), BENCH_TEXT(name)};
    bench_table_row(f, to_cols, TO_NCOLS, cells, sizeof cells / sizeof cells[0], tail);
    return;
  }
  if (row->early != 0u) {
    snprintf(tail, sizeof tail, "  (%lu EARLY)", row->early);
  }
  const bench_cell_t cells[TO_NCOLS] = {
      BENCH_TEXT(tmo),
      BENCH_TEXT(name),
      BENCH_NUM((double)row->st.n),
      BENCH_NUM(row->st.mean / 1e3),
      BENCH_NUM(row->st.stddev / 1e3),
      BENCH_NUM(row->st.median / 1e3),
      BENCH_NUM(row->st.p99 / 1e3),
      BENCH_NUM(row->st.max / 1e3),
      BENCH_NUM(row->st.min / 1e3),
      BENCH_NUM(row->irq_cpu),
  };
  /* The interrupt thread's CPU is known for the alarm rows only. */
  bench_table_row(f, to_cols, TO_NCOLS, cells, row->irq_cpu >= 0.0 ? TO_NCOLS : TO_NCOLS - 1u,
                  tail);
}

static void print_verdict(FILE *f, unsigned s, const bench_to_row_t *a, const bench_to_row_t *c) {
  if (!a->measured || !c->measured) {
    return;
  }
  fprintf(f, "  %7lld us: mean %8.2f vs %8.2f us %-8s max %9.2f vs %9.2f us %s\n",
          (long long)bench_to_sizes_us[s], a->st.mean / 1e3, c->st.mean / 1e3,
          a->st.mean <= c->st.mean ? "met," : "NOT met,", a->st.max / 1e3, c->st.max / 1e3,
          a->st.max <= c->st.max ? "met" : "NOT met");
}

/* The no-spin alarm's mean latency split at the end of the interrupt
 * thread's sleep: the kernel's wake-up and utim's own path after it. */
static void print_split(FILE *f, const bench_to_report_t *r) {
  fprintf(f,
          "\nwhere the %s latency goes (mean us over the samples whose callback followed a "
          "sleep that ended at its deadline):\n"
          "  timeout    samples   kernel: expiry -> end of sleep   utim: end of sleep -> "
          "callback (lock, handler, dispatch)%s\n",
          bench_to_alarm_label[1], r->have_ct ? "   cyclictest mean" : "");
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    const bench_to_row_t *a = &r->alarm[1][s];
    if (!a->measured || a->n_split == 0u) {
      continue;
    }
    fprintf(f, "  %7lld us %8lu   %30.2f   %30.2f", (long long)bench_to_sizes_us[s], a->n_split,
            a->wake_mean / 1e3, a->path_mean / 1e3);
    if (r->have_ct && r->ct[s].measured) {
      fprintf(f, "   %34.2f", r->ct[s].st.mean / 1e3);
    }
    fputc('\n', f);
  }
}

static void print_table(FILE *f, const void *rp) {
  const bench_to_report_t *r = rp;
  fprintf(f, "  alarm:     NATIVE_ALARM at %g MHz; interrupt thread %s priority %d, memory %s\n",
          r->hz / 1e6, policy_name(r->irq.policy), r->irq.priority,
          r->irq.mlocked ? "locked" : "not locked");
  fprintf(f,
          "  rows:      alarm: the interrupt thread sleeps on the kernel timer until %.0f us "
          "before the event, then spins (board default);\n"
          "             alarm no spin: spin window 0, a pure kernel-timer wake-up like "
          "cyclictest's\n"
          "             irq CPU%%: CPU time of the interrupt thread over the row's wall time "
          "(/proc schedstat)\n",
          (double)r->spin_ns / 1e3);
  fprintf(f,
          "  clock:     latency on CLOCK_MONOTONIC; tick grid phase found within +/- %lld ns; "
          "/dev/cpu_dma_latency %s\n",
          (long long)r->phase_unc, r->pm_qos ? "held at 0 (both)" : "not available (both untuned)");
  if (r->have_ct) {
    fprintf(f, "  cyclictest: %s %s\n", r->cyclictest, r->ct_args);
  } else {
    fprintf(f, "  cyclictest: not run (%s)\n",
            r->o->no_cyclictest ? "--no-cyclictest" : "not found in PATH; Debian package rt-tests");
  }
  fputc('\n', f);
  bench_table_head(f, to_cols, TO_NCOLS);
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    char tmo[24];
    if (bench_to_sizes_us[s] >= 1000000) {
      snprintf(tmo, sizeof tmo, "%lld s", (long long)(bench_to_sizes_us[s] / 1000000));
    } else if (bench_to_sizes_us[s] >= 1000) {
      snprintf(tmo, sizeof tmo, "%lld ms", (long long)(bench_to_sizes_us[s] / 1000));
    } else {
      snprintf(tmo, sizeof tmo, "%lld us", (long long)bench_to_sizes_us[s]);
    }
    table_row(f, tmo, bench_to_alarm_label[0], &r->alarm[0][s]);
    table_row(f, "", bench_to_alarm_label[1], &r->alarm[1][s]);
    if (r->have_ct) {
      table_row(f, "", "cyclictest", &r->ct[s]);
    }
  }
  for (size_t i = 0; i < r->nnotes; i++) {
    fprintf(f, "note: %s\n", r->notes[i]);
  }
  fprintf(f,
          "matrix:    native offers %u Hz here (the rows above; JSON \"matrix\"); "
          "the hAPI/ISR row is n/a on native: the interrupt thread always delivers through "
          "the core's dispatch (utim-bench timeout --board sim has both paths)\n",
          r->hz);
  print_split(f, r);
  if (r->o->histogram != 0u) {
    for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
      for (unsigned mode = 0; mode < 3u; mode++) {
        const bench_to_row_t *row = mode < 2u ? &r->alarm[mode][s] : &r->ct[s];
        if (row->measured) {
          char title[96];
          snprintf(title, sizeof title, "%s, timeout %lld us",
                   mode < 2u ? bench_to_alarm_label[mode] : "cyclictest",
                   (long long)bench_to_sizes_us[s]);
          fputc('\n', f);
          bench_hist_print(f, &row->hist, title);
        }
      }
    }
  }
  if (!r->have_ct) {
    return;
  }
  for (unsigned mode = 0; mode < 2u; mode++) {
    fprintf(f,
            "\ntarget: %s mean and max <= cyclictest's at equal priority "
            "(reported, not asserted):\n",
            bench_to_alarm_label[mode]);
    for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
      print_verdict(f, s, &r->alarm[mode][s], &r->ct[s]);
    }
  }
}

const bench_writer_t bench_to_writer = {
    .name = "timeout",
    .title = "callback latency of the native alarm (L_tout = mean, J_tout = stddev)",
    .table = print_table,
    .json_machine = NULL,
    .json = print_json,
};
