/**
 * @file tm_paper.c
 * @brief `utim-bench tm`, parts 2 and 3 (see tm_bench.h): the paper's Fig. 3
 *        (instructions from the wake-up interrupt to the wake hook against
 *        the number of delayed tasks) and Fig. 4 (delay management per
 *        simulated second, ticked at 10 ms vs tickless, and the hardware time
 *        manager co-simulated as the third mode), on the sim board.
 */
#include <stdio.h>
#include <time.h>

#include "sim.h"
#include "tm_bench.h"
#include "utim/port.h"
#ifdef UTIM_BENCH_HAVE_HTM
#include "sim_htm.h"
#include "utim/tm_htm.h"
#include "utim_htm.h"
#endif

/* ---- Fig. 3: the wake-up interrupt against the number of delayed tasks ------------- */

#define F3_MAX 4096u
static const utim_periph_t *inst; /* the manager's instance (tm_paper_use()) */
static utim_tm_t mgr;
static utim_tm_tasks_t tasks;
static utim_tm_timer_t task_t[F3_MAX];
static uint32_t task_wake[UTIM_TM_TASK_WORDS(F3_MAX)];
static volatile unsigned woken;

static void wake_hook(utim_tm_t *m, unsigned id, void *arg) {
  (void)m;
  (void)id;
  (void)arg;
  woken++;
}

static const unsigned f3_tasks_full[] = {1u, 4u, 16u, 64u, 256u, 1024u, 4096u};
static const unsigned f3_tasks_quick[] = {1u, 64u};

/* One delivery per (mode, size), each its own function for callgrind. */
static uint32_t f3_key;
#define F3_FN(m, i)                                                                                \
  __attribute__((noinline)) static void tmb_f3_##m##_##i(void) {                                   \
    utim_port_unlock(f3_key);                                                                      \
  }
F3_FN(0, 0)
F3_FN(0, 1)
F3_FN(0, 2)
F3_FN(0, 3)
F3_FN(0, 4)
F3_FN(0, 5)
F3_FN(0, 6)
F3_FN(1, 0)
F3_FN(1, 1)
F3_FN(1, 2)
F3_FN(1, 3)
F3_FN(1, 4)
F3_FN(1, 5)
F3_FN(1, 6)
F3_FN(2, 0)
F3_FN(2, 1)
F3_FN(2, 2)
F3_FN(2, 3)
F3_FN(2, 4)
F3_FN(2, 5)
F3_FN(2, 6)
static void (*const f3_fn[3][7])(void) = {
    {tmb_f3_0_0, tmb_f3_0_1, tmb_f3_0_2, tmb_f3_0_3, tmb_f3_0_4, tmb_f3_0_5, tmb_f3_0_6},
    {tmb_f3_1_0, tmb_f3_1_1, tmb_f3_1_2, tmb_f3_1_3, tmb_f3_1_4, tmb_f3_1_5, tmb_f3_1_6},
    {tmb_f3_2_0, tmb_f3_2_1, tmb_f3_2_2, tmb_f3_2_3, tmb_f3_2_4, tmb_f3_2_5, tmb_f3_2_6}};
static const char *const f3_names[3][7] = {{"tmb_f3_0_0", "tmb_f3_0_1", "tmb_f3_0_2", "tmb_f3_0_3",
                                            "tmb_f3_0_4", "tmb_f3_0_5", "tmb_f3_0_6"},
                                           {"tmb_f3_1_0", "tmb_f3_1_1", "tmb_f3_1_2", "tmb_f3_1_3",
                                            "tmb_f3_1_4", "tmb_f3_1_5", "tmb_f3_1_6"},
                                           {"tmb_f3_2_0", "tmb_f3_2_1", "tmb_f3_2_2", "tmb_f3_2_3",
                                            "tmb_f3_2_4", "tmb_f3_2_5", "tmb_f3_2_6"}};

/* The hardware mode: the HTM's RTL co-simulated on the sim machine. */
#define HTM_LINE 63u
#ifdef UTIM_BENCH_HAVE_HTM
static utim_htm_t htm;

static void htm_isr(const void *arg) {
  (void)arg;
  utim_tm_tasks_htm_isr(&tasks);
}

/* The block on the machine, its time base at @p tick_hz, 20 cycles a tick. */
static int htm_begin(uint32_t tick_hz, unsigned n, utim_tm_wake_fn hook) {
  sim_htm_detach_all();
  sim_reset();
  sim_set_access_cost(BENCH_SIM_ACCESS_COST_NS);
  const int dev = sim_htm_attach(1u, tick_hz, 20u, HTM_LINE);
  if (dev < 0) {
    return -1;
  }
  htm = (utim_htm_t){&utim_htm_sim_ops, (uintptr_t)dev};
  sim_irq_attach(HTM_LINE, htm_isr, NULL);
  return utim_tm_tasks_init_htm(&tasks, &htm, task_wake, n, hook, NULL);
}

static void htm_end(void) {
  sim_htm_detach_all();
  sim_irq_attach(HTM_LINE, NULL, NULL);
}
#endif

/* Whether the hardware mode can take @p n tasks (the block's slots). */
static bool htm_fits(unsigned n) {
#ifdef UTIM_BENCH_HAVE_HTM
  return n <= SIM_HTM_TASKS;
#else
  (void)n;
  return false;
#endif
}

#define F3_TICK 1000u /* ticked: 1 ms at 1 MHz */

/* The end of a Fig. 3 or Fig. 4 run in mode @p mode (2: the hardware). */
static void run_end(unsigned mode) {
  if (mode == 2u) {
#ifdef UTIM_BENCH_HAVE_HTM
    htm_end();
#endif
  } else {
    (void)utim_tm_deinit(&mgr);
  }
}

/* N tasks delayed 1, 2, ... ms (plus a few us) ahead; the first one's
 * expiry passes with interrupts held off, and the delivery is the figure. */
static int f3_one(unsigned mode, unsigned idx, unsigned n) {
  if (mode == 2u) {
#ifdef UTIM_BENCH_HAVE_HTM
    /* The block at 1 MHz: the same delays in the same ticks. */
    if (htm_begin(1000000u, n, wake_hook) != 0) {
      return -1;
    }
#else
    return -1;
#endif
  } else if (tm_bench_begin(&mgr, inst, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, F3_TICK) !=
                 0 ||
             utim_tm_tasks_init(&tasks, &mgr, task_t, task_wake, n, wake_hook, NULL) != 0) {
    return -1;
  }
  for (unsigned i = 0; i < n; i++) {
    (void)utim_tm_task_delay(&tasks, i, 10000u + 1000u * (uint64_t)i + 7u);
  }
  /* Up to just before the first expiry (and its tick), then past it with
   * interrupts held off: tickless, to 10.5 ms (task 0 at 10.007 ms is due,
   * task 1 at 11.007 ms is not); ticked, just past the tick at 11 ms,
   * which serves what is due by then: task 0 alone. */
  sim_advance((uint64_t)10000u * 1000u);
  woken = 0;
  f3_key = utim_port_lock();
  sim_advance((uint64_t)(mode == 1u ? 1005u : 500u) * 1000u);
  f3_fn[mode][idx]();
  const int rc = woken == 1u ? 0 : -1;
  run_end(mode);
  return rc;
}

static int child_fig3(bool quick) {
  const unsigned *list = quick ? f3_tasks_quick : f3_tasks_full;
  const size_t nl = quick ? 2u : 7u;
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (unsigned i = 0; i < nl; i++) {
      if (mode == 2u && !htm_fits(list[i])) {
        continue;
      }
      if (f3_one(mode, i, list[i]) != 0) {
        fprintf(stderr, BENCH_PROG ": tm: Fig. 3 run (mode %u, %u tasks) woke %u tasks\n", mode,
                list[i], woken);
        return 1;
      }
    }
  }
  return 0;
}

/* ---- Fig. 4: delay management per second ------------------------------------------- */

static uint64_t f4_period; /* in the running mode's ticks: us, or the block's ms */

/* A task's wake in every mode: delayed again by its period. */
static void f4_hook(utim_tm_t *m, unsigned id, void *arg) {
  (void)m;
  (void)arg;
  woken++;
  (void)utim_tm_task_delay(&tasks, id, f4_period);
}

/* Fig. 4 in instructions, all three modes: one simulated second per
 * (mode, tasks, period), each its own function for callgrind. The hardware
 * mode's block ticks at 1 kHz (the periods are whole ms), the delays in its
 * ticks. */
static const unsigned f4_tasks_list[] = {1u, 10u, 100u, 1000u};
static const unsigned f4_periods[] = {10u, 100u, 1000u};

static int f4_begin(unsigned mode, unsigned n, uint64_t p_us) {
  if (mode == 2u) {
#ifdef UTIM_BENCH_HAVE_HTM
    f4_period = p_us / 1000u;
    if (htm_begin(1000u, n, f4_hook) != 0) {
      return -1;
    }
    for (unsigned i = 0; i < n; i++) {
      (void)utim_tm_task_delay(&tasks, i, f4_period * (i + 1u) / n + 1u);
    }
    return 0;
#else
    return -1;
#endif
  }
  if (tm_bench_begin(&mgr, inst, mode == 0u ? UTIM_TM_TICKLESS : UTIM_TM_TICKED, 10000u) != 0 ||
      utim_tm_tasks_init(&tasks, &mgr, task_t, task_wake, n, f4_hook, NULL) != 0) {
    return -1;
  }
  f4_period = p_us;
  for (unsigned i = 0; i < n; i++) {
    (void)utim_tm_task_delay(&tasks, i, p_us * (i + 1u) / n);
  }
  return 0;
}

/* Host ns for one second of virtual time with @p n tasks of period @p p_us. */
static double f4_run(unsigned mode, unsigned n, uint64_t p_us, uint64_t *wakes) {
  if (f4_begin(mode, n, p_us) != 0) {
    return -1.0;
  }
  woken = 0;
  const double t0 = (double)utim_native_clock_ns(CLOCK_MONOTONIC);
  sim_advance(1000000000u);
  const double t1 = (double)utim_native_clock_ns(CLOCK_MONOTONIC);
  *wakes = woken;
  run_end(mode);
  return t1 - t0;
}

#define F4_FN(m, t, p)                                                                             \
  __attribute__((noinline)) static void tmb_f4_##m##_##t##_##p(void) {                             \
    sim_advance(1000000000u);                                                                      \
  }
#define F4_FN_P(m, t) F4_FN(m, t, 0) F4_FN(m, t, 1) F4_FN(m, t, 2)
#define F4_FN_T(m)    F4_FN_P(m, 0) F4_FN_P(m, 1) F4_FN_P(m, 2) F4_FN_P(m, 3)
F4_FN_T(0)
F4_FN_T(1)
F4_FN_T(2)
#define F4_REF_P(m, t)                                                                             \
  { tmb_f4_##m##_##t##_0, tmb_f4_##m##_##t##_1, tmb_f4_##m##_##t##_2 }
#define F4_REF_T(m)                                                                                \
  { F4_REF_P(m, 0), F4_REF_P(m, 1), F4_REF_P(m, 2), F4_REF_P(m, 3) }
static void (*const f4_fn[3][4][3])(void) = {F4_REF_T(0), F4_REF_T(1), F4_REF_T(2)};

static void f4_name(unsigned m, size_t t, size_t p, char *buf, size_t cap) {
  snprintf(buf, cap, "tmb_f4_%u_%u_%u", m % 10u, (unsigned)(t % 10u), (unsigned)(p % 10u));
}

/* The callgrind child's Fig. 4: every (mode, tasks, period) once. */
static int child_fig4(bool quick) {
  const size_t nt = quick ? 2u : 4u;
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (size_t ti = 0; ti < nt; ti++) {
      for (size_t pi = 0; pi < 3u; pi++) {
        if ((mode == 2u && !htm_fits(f4_tasks_list[ti])) ||
            f4_begin(mode, f4_tasks_list[ti], (uint64_t)f4_periods[pi] * 1000u) != 0) {
          continue;
        }
        woken = 0;
        f4_fn[mode][ti][pi]();
        run_end(mode);
      }
    }
  }
  return 0;
}

/* ---- the interface ------------------------------------------------------------------- */

void tm_paper_use(const utim_periph_t *p) {
  inst = p;
}

int tm_paper_child(bool quick) {
  return child_fig3(quick) != 0 ? 1 : child_fig4(quick);
}

void tm_paper_plan(tm_paper_t *f, bool quick) {
  f->f3_n = quick ? 2u : 7u;
  for (size_t i = 0; i < f->f3_n; i++) {
    f->f3_tasks[i] = quick ? f3_tasks_quick[i] : f3_tasks_full[i];
  }
  f->f4_nt = quick ? 2u : 4u;
  f->f4_np = 3u;
  for (size_t ti = 0; ti < f->f4_nt; ti++) {
    f->f4_tasks[ti] = f4_tasks_list[ti];
  }
  for (size_t pi = 0; pi < f->f4_np; pi++) {
    f->f4_period_ms[pi] = f4_periods[pi];
  }
}

void tm_paper_measure(tm_paper_t *f, unsigned long rounds) {
  const unsigned nr = rounds < 32u ? (unsigned)rounds : 32u;
  for (size_t ti = 0; ti < f->f4_nt; ti++) {
    for (size_t pi = 0; pi < f->f4_np; pi++) {
      for (unsigned mode = 0; mode < 2u; mode++) {
        bench_progress("Fig. 4: %u tasks, period %u ms, %s", f->f4_tasks[ti], f->f4_period_ms[pi],
                       mode == 0u ? "tickless" : "ticked");
        double v[32] = {0};
        for (unsigned rd = 0; rd < nr; rd++) {
          v[rd] = f4_run(mode, f->f4_tasks[ti], (uint64_t)f->f4_period_ms[pi] * 1000u,
                         &f->f4_wakes[mode][ti][pi]);
        }
        bench_stats_t st;
        bench_stats(v, nr, &st);
        f->f4_ns[mode][ti][pi] = st.median;
      }
    }
  }
}

int tm_paper_count(tm_paper_t *f, const char *valgrind, bool quick, char *err, size_t cap) {
  char *args[] = {"tm", "--callgrind-child", "--child-n", "0", quick ? "--quick" : NULL, NULL};
  enum { F3N = 3 * 7, F4N = 3 * 4 * 3 };
  const char *names[F3N + F4N];
  static char f4names[F4N][48];
  uint64_t incl[F3N + F4N];
  size_t k = 0;
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (size_t i = 0; i < f->f3_n; i++) {
      names[k++] = f3_names[mode][i];
    }
  }
  const size_t k3 = k;
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (size_t ti = 0; ti < f->f4_nt; ti++) {
      for (size_t pi = 0; pi < f->f4_np; pi++) {
        char *nm = f4names[k - k3];
        f4_name(mode, ti, pi, nm, sizeof f4names[0]);
        names[k++] = nm;
      }
    }
  }
  /* The hardware model's own instructions (sim_htm_model_*) are not collected. */
  if (bench_callgrind(valgrind, args, "tmb_f*,sim_htm_model_*", names, k, incl, err, cap) != 0) {
    return -1;
  }
  f->f3_have = true;
  f->f4_have = true;
  k = 0;
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (size_t i = 0; i < f->f3_n; i++, k++) {
      f->f3_instr[mode][i] = (double)incl[k];
      f->f3_valid[mode][i] = mode < 2u || htm_fits(f->f3_tasks[i]);
    }
  }
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (size_t ti = 0; ti < f->f4_nt; ti++) {
      for (size_t pi = 0; pi < f->f4_np; pi++, k++) {
        f->f4_instr[mode][ti][pi] = (double)incl[k];
        f->f4_valid[mode][ti][pi] = mode < 2u || htm_fits(f->f4_tasks[ti]);
      }
    }
  }
  return 0;
}

void tm_paper_table(FILE *f, const tm_paper_t *r) {
  fprintf(f, "\n  Fig. 3: instructions of the interrupt that wakes one task (delivery to "
             "return, wake hook included), callgrind\n");
  fprintf(f, "    %-8s %12s %12s %12s\n", "tasks", "tickless", "ticked 1ms", "hardware");
  for (size_t i = 0; i < r->f3_n; i++) {
    char c[3][24];
    for (unsigned mode = 0; mode < 3u; mode++) {
      if (r->f3_have && r->f3_valid[mode][i]) {
        snprintf(c[mode], sizeof c[mode], "%llu", (unsigned long long)r->f3_instr[mode][i]);
      } else {
        snprintf(c[mode], sizeof c[mode], "-");
      }
    }
    fprintf(f, "    %-8u %12s %12s %12s\n", r->f3_tasks[i], c[0], c[1], c[2]);
  }
  fprintf(f, "    (hardware: the HTM's RTL co-simulated on sim, up to its 16 task slots; the "
             "model's own instructions not counted)\n");
  fprintf(f, "\n  Fig. 4: host ns of delay management per simulated second (sim interrupt "
             "delivery included), ticked at 10 ms vs tickless\n");
  fprintf(f, "    %-6s %-10s %12s %12s %8s %10s %10s\n", "tasks", "period ms", "ticked ns",
          "tickless ns", "factor", "wakes tk", "wakes tl");
  for (size_t ti = 0; ti < r->f4_nt; ti++) {
    for (size_t pi = 0; pi < r->f4_np; pi++) {
      const double tk = r->f4_ns[1][ti][pi];
      const double tl = r->f4_ns[0][ti][pi];
      fprintf(f, "    %-6u %-10u %12.0f %12.0f %8.2f %10llu %10llu\n", r->f4_tasks[ti],
              r->f4_period_ms[pi], tk, tl, tl > 0.0 ? tk / tl : 0.0,
              (unsigned long long)r->f4_wakes[1][ti][pi],
              (unsigned long long)r->f4_wakes[0][ti][pi]);
    }
  }
  if (!r->f4_have) {
    return;
  }
  fprintf(f, "\n  Fig. 4 in instructions per simulated second (callgrind), three modes; "
             "factor = ticked / the mode\n");
  fprintf(f, "    %-6s %-10s %14s %14s %14s %9s %9s\n", "tasks", "period ms", "ticked", "tickless",
          "hardware", "f tickl.", "f hardw.");
  for (size_t ti = 0; ti < r->f4_nt; ti++) {
    for (size_t pi = 0; pi < r->f4_np; pi++) {
      const double tk = r->f4_instr[1][ti][pi];
      const double tl = r->f4_instr[0][ti][pi];
      const double hw = r->f4_instr[2][ti][pi];
      if (r->f4_valid[2][ti][pi] && hw > 0.0) {
        fprintf(f, "    %-6u %-10u %14.0f %14.0f %14.0f %9.2f %9.2f\n", r->f4_tasks[ti],
                r->f4_period_ms[pi], tk, tl, hw, tl > 0.0 ? tk / tl : 0.0, tk / hw);
      } else {
        fprintf(f, "    %-6u %-10u %14.0f %14.0f %14s %9.2f %9s\n", r->f4_tasks[ti],
                r->f4_period_ms[pi], tk, tl, "-", tl > 0.0 ? tk / tl : 0.0, "-");
      }
    }
  }
}

void tm_paper_json(bench_jw_t *w, const tm_paper_t *r) {
  bench_jw_array(w, "fig3");
  static const char *const f3_mode[3] = {"tickless", "ticked", "hardware"};
  for (unsigned mode = 0; mode < 3u; mode++) {
    for (size_t i = 0; i < r->f3_n; i++) {
      if (mode == 2u && !(r->f3_have && r->f3_valid[2][i])) {
        continue;
      }
      bench_jw_object(w, NULL);
      bench_jw_str(w, "mode", f3_mode[mode]);
      bench_jw_uint(w, "tasks", r->f3_tasks[i]);
      bench_jw_num(w, "instructions", r->f3_have, r->f3_instr[mode][i]);
      bench_jw_end(w);
    }
  }
  bench_jw_end(w);
  bench_jw_array(w, "fig4");
  for (size_t ti = 0; ti < r->f4_nt; ti++) {
    for (size_t pi = 0; pi < r->f4_np; pi++) {
      const double tk = r->f4_ns[1][ti][pi];
      const double tl = r->f4_ns[0][ti][pi];
      bench_jw_object(w, NULL);
      bench_jw_uint(w, "tasks", r->f4_tasks[ti]);
      bench_jw_uint(w, "period_ms", r->f4_period_ms[pi]);
      bench_jw_uint(w, "tick_ms", 10u);
      bench_jw_num(w, "ticked_ns", true, tk);
      bench_jw_num(w, "tickless_ns", true, tl);
      bench_jw_num(w, "factor", tl > 0.0, tl > 0.0 ? tk / tl : 0.0);
      bench_jw_uint(w, "ticked_wakes", r->f4_wakes[1][ti][pi]);
      bench_jw_uint(w, "tickless_wakes", r->f4_wakes[0][ti][pi]);
      const double itk = r->f4_instr[1][ti][pi];
      const double itl = r->f4_instr[0][ti][pi];
      const double ihw = r->f4_instr[2][ti][pi];
      const bool hw_ok = r->f4_have && r->f4_valid[2][ti][pi] && ihw > 0.0;
      bench_jw_num(w, "ticked_instr", r->f4_have, itk);
      bench_jw_num(w, "tickless_instr", r->f4_have, itl);
      bench_jw_num(w, "hardware_instr", hw_ok, ihw);
      bench_jw_num(w, "factor_tickless_instr", r->f4_have && itl > 0.0,
                   itl > 0.0 ? itk / itl : 0.0);
      bench_jw_num(w, "factor_hardware_instr", hw_ok, hw_ok ? itk / ihw : 0.0);
      bench_jw_end(w);
    }
  }
  bench_jw_end(w);
}
