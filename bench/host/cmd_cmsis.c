/**
 * @file cmd_cmsis.c
 * @brief `utim-bench cmsis`: what the CMSIS-RTOS2 layer costs over the time
 *        manager, after the CMSIS-RTOS evaluation paper (adaptation
 *        overhead; Rhealstone-style rows, Tables II and III).
 *
 * Part 1, instructions (callgrind, the sim board, deterministic): the
 * helper program's `cmsis --callgrind-child` (cmsis_sim.c) runs each
 * operation through the layer and the manager directly; inclusive Ir per
 * call minus an empty call. Dispatch: the layer's own functions on an
 * expiry's path (on_expiry(), the defer, utim_os2_run_deferred()) minus the
 * user's callback; the direct path has none.
 *
 * Part 2, real time (this program, the native board, the POSIX binding):
 * the manager tickless on NATIVE_ALARM (1 MHz, or what the machine offers),
 * the kernel tick 1 kHz. Times on CLOCK_MONOTONIC; an expiry's clock time
 * from the counter's phase (bench_to_find_phase()). Rows, each N samples at
 * random 1-3 ms intervals:
 * - interrupt latency: expiry -> the interrupt thread's sleep ended
 *   (native_irq_deadline_wake_ns(); spin window off for this row, so that
 *   the thread sleeps to every deadline: the kernel's wake-up);
 * - timer-callback latency: expiry -> first instruction of the callback,
 *   native (a manager timer, in the interrupt thread) vs CMSIS (an
 *   osTimer, in the binding's timer thread);
 * - task activation from a timer: the callback posts a semaphore -> the
 *   waiting thread runs, native vs CMSIS callback;
 * - delay accuracy: return - deadline of a delay of 1 or 2 ticks, native
 *   (utim_sleep_until()) vs CMSIS (osDelay(), whose binding sleeps with it
 *   and then waits for the timer thread).
 * Combined figure, as the paper computes its overhead: sum of the CMSIS
 * rows' means / sum of the native rows' means - 1, over these rows only.
 */
#include <errno.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_host.h"
#include "board_native.h"
#include "cmsis_bench.h"
#include "timeout.h"
#include "utim/cmsis_os2_posix.h"
#include "utim/port.h"
#include "utim/utim.h"

#define CM_DEFAULT_SAMPLES 200
#define CM_TICK_HZ         1000u
#define CM_ASK_HZ          1000000u
#define CM_LOST_NS         (5 * 1000000000LL)
/* Margin before the manager's next count within which a call may read it
 * (at most half a count). */
#define CM_STRADDLE_NS 5000

typedef struct cm_opts {
  unsigned long samples;
  unsigned long seed;
  bool no_callgrind;
} cm_opts_t;

/* Real-time rows. */
enum {
  R_IRQ,
  R_CB_NATIVE,
  R_CB_CMSIS,
  R_ACT_NATIVE,
  R_ACT_CMSIS,
  R_DELAY_NATIVE,
  R_DELAY_CMSIS,
  R_N
};

static const char *const row_name[R_N] = {
    "interrupt_latency", "callback_latency", "callback_latency", "task_activation",
    "task_activation",   "delay_lateness",   "delay_lateness",
};
static const char *const row_path[R_N] = {"kernel", "native", "cmsis", "native",
                                          "cmsis",  "native", "cmsis"};
static const char *const row_label[R_N] = {
    "interrupt latency: expiry -> interrupt thread woken (kernel)",
    "timer-callback latency: manager callback (interrupt thread)",
    "timer-callback latency: osTimer callback (timer thread)",
    "task activation: manager callback -> woken thread",
    "task activation: osTimer callback -> woken thread",
    "delay lateness: utim_sleep_until()",
    "delay lateness: osDelay()",
};

/* Instruction rows: CMSIS call vs direct call. */
enum { I_START, I_STOP, I_DELAY, I_DISPATCH, I_N };
static const char *const instr_name[I_N] = {"timer_start", "timer_stop", "delay_setup",
                                            "callback_dispatch"};
static const char *const instr_label[I_N][2] = {
    {"osTimerStart(id, 100)", "utim_tm_start(tm, t, 100 ticks, 0)"},
    {"osTimerStop(id)", "utim_tm_stop(tm, t)"},
    {"osDelay(100), set-up", "utim_tm_start_at(tm, t, now + 100 ticks, 0)"},
    {"expiry -> callback, per expiry", "expiry -> callback, per expiry"},
};

typedef struct cm_report {
  const cm_opts_t *o;
  const bench_machine_t *m;
  uint32_t hz;
  int64_t phase_unc;
  bool fifo;
  int fifo_error;
  bench_stats_t rows[R_N];
  unsigned long lost[R_N];
  bool have_instr;
  char cg_note[320];
  double instr[I_N][2]; /* [0] CMSIS, [1] direct */
  double combined;      /* %, over the rows measured both ways */
  bool combined_ok;     /* every row of the combined figure has samples */
} cm_report_t;

static void cm_describe(FILE *f) {
  fprintf(f, "What the CMSIS-RTOS2 time services (utim/cmsis_os2.h) cost over the time\n"
             "manager they map onto, as the CMSIS-RTOS evaluation paper measures an\n"
             "adaptation layer:\n"
             "  instructions (callgrind, sim board): osTimerStart, osTimerStop, osDelay's\n"
             "    set-up and a timer callback's dispatch through the layer vs the manager\n"
             "    called directly; 'extra' is what the layer adds per call\n"
             "  real time (native board, POSIX binding, kernel tick 1 kHz): interrupt\n"
             "    latency, timer-callback latency, task activation from a timer, delay\n"
             "    lateness; native vs CMSIS path, ns on CLOCK_MONOTONIC; the combined\n"
             "    figure is sum(CMSIS means) / sum(native means) - 1 over these rows only\n");
}

static const bench_opt_t cm_opts[] = {
    BENCH_UINT("--samples", cm_opts_t, samples, 10u, 100000u,
               "samples per real-time row (default " BENCH_STR(CM_DEFAULT_SAMPLES) ")"),
    BENCH_UINT("--seed", cm_opts_t, seed, 1u, 0xFFFFFFFFu, /* 0: xorshift's fixed point */
               "seed of the random intervals (default 1)"),
    BENCH_FLAG("--no-callgrind", cm_opts_t, no_callgrind,
               "do not count instructions under valgrind --tool=callgrind"),
};

static const bench_cli_t cm_cli = {
    .cmd = "cmsis",
    .opts = cm_opts,
    .nopts = sizeof cm_opts / sizeof cm_opts[0],
    .json_help = "print one JSON document:\n"
                 "{\"benchmark\":\"cmsis\",\"machine\":{...},\"instructions\":[{\"name\",\n"
                 "\"cmsis\",\"direct\",\"extra\",\"extra_percent\"}],\"rows\":[{\"name\",\n"
                 "\"path\",\"median\",\"mean\",\"p99\",\"max\",\"min\",\"stddev\",\"n\",\n"
                 "\"lost\"}],\"combined_overhead_percent\"}; times in ns; instruction\n"
                 "values null without valgrind",
    .describe = cm_describe,
};

/* ---- part 1: instructions -------------------------------------------------------- */

static void count_instructions(const cm_opts_t *o, cm_report_t *r) {
  char valgrind[4096];
  char helper[4096 + 32];
  char err[512];
  if (o->no_callgrind) {
    snprintf(r->cg_note, sizeof r->cg_note, "disabled (--no-callgrind)");
    return;
  }
  if (!bench_find_valgrind(valgrind, sizeof valgrind)) {
    snprintf(r->cg_note, sizeof r->cg_note, "not available (valgrind not found in PATH)");
    return;
  }
  if (bench_helper_path(helper, sizeof helper, err, sizeof err) != 0) {
    snprintf(r->cg_note, sizeof r->cg_note, "failed (%.250s)", err);
    return;
  }
  bench_progress("cmsis: counting instructions under callgrind");
  static const char *const names[CMB_NNAMES] = {BENCH_CMSIS_CG_NAMES};
  uint64_t incl[CMB_NNAMES];
  char *args[] = {"cmsis", "--callgrind-child", NULL};
  if (bench_callgrind_exe(valgrind, helper, args, "cmb_cg_*", names, CMB_NNAMES, incl, err,
                          sizeof err) != 0) {
    snprintf(r->cg_note, sizeof r->cg_note, "failed (%.250s)", err);
    return;
  }
  for (unsigned i = 0; i < CMB_NNAMES; i++) {
    if (incl[i] == 0u) {
      snprintf(r->cg_note, sizeof r->cg_note, "failed (%s missing from the output)", names[i]);
      return;
    }
  }
  const double n = BENCH_CMSIS_CG_CALLS;
  const double e = (double)incl[CMB_EMPTY];
  for (unsigned i = 0; i < 3u; i++) {
    r->instr[i][0] = ((double)incl[CMB_OS2_START + 2u * i] - e) / n;
    r->instr[i][1] = ((double)incl[CMB_TM_START + 2u * i] - e) / n;
  }
  /* Dispatch: the layer's functions on the path, less the user's callback
   * they end in, against the direct path's 0; both totals for reference. */
  const double layer =
      ((double)incl[CMB_ON_EXPIRY] + (double)incl[CMB_RUN_DEFERRED] - (double)incl[CMB_OS2_CB]) / n;
  const double direct = ((double)incl[CMB_TM_DISPATCH] - e) / n;
  r->instr[I_DISPATCH][1] = direct;
  r->instr[I_DISPATCH][0] = direct + layer;
  r->have_instr = true;
  snprintf(r->cg_note, sizeof r->cg_note,
           "%.200s --tool=callgrind on the sim board, %u calls each, inclusive Ir per call minus "
           "an empty call",
           valgrind, BENCH_CMSIS_CG_CALLS);
}

/* ---- part 2: real time ----------------------------------------------------------- */

static struct {
  const utim_periph_t *p;
  utim_tm_t tm;
  int64_t phase;
  int64_t tick_ns;
  uint64_t delta; /* manager time - counter */
  sem_t done;
  volatile int64_t t_cb;
  volatile int64_t wake;
} g;

static int64_t clock_ns(void) {
  return utim_native_clock_ns(CLOCK_MONOTONIC);
}

static int64_t expiry_ns(uint64_t mtime) {
  return g.phase + (int64_t)(mtime - g.delta) * g.tick_ns;
}

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
static void tm_cb(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  (void)arg;
  g.t_cb = clock_ns();
  g.wake = native_irq_deadline_wake_ns();
  (void)sem_post(&g.done);
}

static void os2_cb(void *arg) {
  (void)arg;
  g.t_cb = clock_ns();
  (void)sem_post(&g.done);
}

static int wait_done(void) {
  return bench_sem_wait_ns(&g.done, CM_LOST_NS);
}

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A random wait of 1 to 3 kernel ticks, in manager ticks. */
static uint64_t interval(uint64_t *s, uint64_t ratio) {
  return ratio + rnd(s) % (2u * ratio);
}

typedef struct samples {
  double *v[R_N];
  size_t n[R_N];
} samples_t;

static void put(samples_t *s, unsigned row, double v) {
  s->v[row][s->n[row]++] = v;
}

/* Manager timers: callback latency, activation, and (spin off) the kernel's wake. */
static void run_native(const cm_opts_t *o, cm_report_t *r, samples_t *s, uint64_t *seed,
                       bool irq_row) {
  const uint64_t ratio = r->hz / CM_TICK_HZ;
  utim_tm_timer_t t;
  utim_tm_timer_init(&t, tm_cb, NULL);
  for (unsigned long i = 0; i < o->samples; i++) {
    const uint64_t at = utim_tm_now(&g.tm) + interval(seed, ratio);
    g.wake = -1;
    if (utim_tm_start_at(&g.tm, &t, at, 0u) != 0 || wait_done() != 0) {
      r->lost[irq_row ? R_IRQ : R_CB_NATIVE]++;
      continue;
    }
    const int64_t run = clock_ns();
    const int64_t exp = expiry_ns(at);
    if (irq_row) {
      if (g.wake >= 0) {
        put(s, R_IRQ, (double)(g.wake - exp));
      }
    } else {
      put(s, R_CB_NATIVE, (double)(g.t_cb - exp));
      put(s, R_ACT_NATIVE, (double)(run - g.t_cb));
    }
  }
}

/* osTimers: callback latency and activation through the CMSIS layer; the
 * expiry as the manager has it (utim_os2_timer_expiry()). */
static void run_cmsis_timer(const cm_opts_t *o, cm_report_t *r, samples_t *s, uint64_t *seed) {
  osTimerId_t id = osTimerNew(os2_cb, osTimerOnce, NULL, NULL);
  if (id == NULL) {
    r->lost[R_CB_CMSIS] = o->samples;
    return;
  }
  for (unsigned long i = 0; i < o->samples; i++) {
    const uint32_t n = 1u + (uint32_t)(rnd(seed) % 2u);
    uint64_t at = 0;
    const osStatus_t st = osTimerStart(id, n);
    /* -ENOENT when this thread was held off past the expiry: the callback
     * still comes, the sample is only not timed. */
    const int known = utim_os2_timer_expiry(id, &at);
    if (st != osOK || wait_done() != 0) {
      r->lost[R_CB_CMSIS]++;
      continue;
    }
    const int64_t run = clock_ns();
    if (known == 0) {
      put(s, R_CB_CMSIS, (double)(g.t_cb - expiry_ns(at)));
      put(s, R_ACT_CMSIS, (double)(run - g.t_cb));
    }
  }
  (void)osTimerDelete(id);
}

/* Delays of 1 or 2 ticks from a random moment: osDelay(n) (deadline: the
 * manager's time at the call + n ticks) and utim_sleep_until() to a
 * deadline as far ahead. */
/* Whether the manager's time @p m read at clock time @p t stays m for
 * another CM_STRADDLE_NS: a call made now reads the same time. */
static bool settled(uint64_t m, int64_t t) {
  const int64_t margin = g.tick_ns / 2 < CM_STRADDLE_NS ? g.tick_ns / 2 : CM_STRADDLE_NS;
  return expiry_ns(m + 1u) - t > margin;
}

static void run_delays(const cm_opts_t *o, cm_report_t *r, samples_t *s, uint64_t *seed) {
  const uint64_t ratio = r->hz / CM_TICK_HZ;
  /* At most this many tries: an unsettled moment is drawn again. */
  unsigned long tries = 20u * o->samples;
  for (unsigned long i = 0; i < o->samples && tries > 0u; tries--) {
    const uint32_t n = 1u + (uint32_t)(rnd(seed) % 2u);
    (void)utim_sleep_for((utim_ns_t)(rnd(seed) % 1000000u));
    const uint64_t m0 = utim_tm_now(&g.tm);
    const int64_t t0 = clock_ns();
    if (!settled(m0, t0)) {
      continue; /* the call could read the next count */
    }
    const osStatus_t st = osDelay(n);
    const int64_t ret = clock_ns();
    if (st != osOK) {
      r->lost[R_DELAY_CMSIS]++;
      i++;
      continue;
    }
    const int64_t dl = expiry_ns(m0 + n * ratio);
    if (ret < dl) {
      r->lost[R_DELAY_CMSIS]++; /* returned early: never expected */
    } else {
      put(s, R_DELAY_CMSIS, (double)(ret - dl));
    }
    /* The same through the precise sleep directly, on the port's time line
     * (utim_now()), the clock deadline mapped onto it through a pair of reads,
     * the clock's first: a stall between the two then makes the offset larger
     * (the sleep ends later), never smaller (it made the sleep end before the
     * clock deadline, and a correct sleep was counted early). */
    const int64_t target = clock_ns() + (int64_t)n * (int64_t)ratio * g.tick_ns;
    const int64_t clock_then = clock_ns();
    const utim_ns_t off = utim_port_now_ns() - clock_then;
    (void)utim_sleep_until(target + off);
    const int64_t ret2 = clock_ns();
    if (ret2 < target) {
      r->lost[R_DELAY_NATIVE]++;
    } else {
      put(s, R_DELAY_NATIVE, (double)(ret2 - target));
    }
    i++;
  }
}

static int measure_rt(const cm_opts_t *o, cm_report_t *r) {
  g.p = utim_by_name("NATIVE_ALARM");
  uint32_t hz = 0;
  if (g.p == NULL || utim_closest_freq(g.p, CM_ASK_HZ, UTIM_CLOCK_DEFAULT, &hz) != 0 ||
      hz % CM_TICK_HZ != 0u || utim_init(g.p, hz, UTIM_CLOCK_DEFAULT) != 0 ||
      utim_start(g.p) != 0) {
    fprintf(stderr, BENCH_PROG ": cmsis: cannot start NATIVE_ALARM near 1 MHz\n");
    return 1;
  }
  r->hz = hz;
  g.tick_ns = 1000000000 / (int64_t)hz;
  if (bench_to_find_phase(g.p, g.tick_ns, &g.phase, &r->phase_unc) != 0) {
    fprintf(stderr, BENCH_PROG ": cmsis: NATIVE_ALARM's counter does not follow "
                               "CLOCK_MONOTONIC, so expiries cannot be timed\n");
    return 1;
  }
  if (sem_init(&g.done, 0, 0) != 0 || utim_tm_init(&g.tm, g.p, 0u, UTIM_TM_TICKLESS, 0u) != 0) {
    fprintf(stderr, BENCH_PROG ": cmsis: cannot start the time manager on NATIVE_ALARM\n");
    return 1;
  }
  /* Manager time - counter: read between two equal counter reads. */
  for (;;) {
    const uint32_t key = utim_port_lock();
    const uint64_t c0 = utim_read(g.p);
    const uint64_t m = utim_tm_now(&g.tm);
    const uint64_t c1 = utim_read(g.p);
    utim_port_unlock(key);
    if (c0 == c1) {
      g.delta = m - c0;
      break;
    }
  }
  const int e = utim_os2_posix_start(&g.tm, hz, CM_TICK_HZ);
  if (e != 0) {
    fprintf(stderr, BENCH_PROG ": cmsis: the POSIX binding did not start: %s\n", strerror(-e));
    return 1;
  }
  samples_t s;
  memset(&s, 0, sizeof s);
  int rc = 0;
  for (unsigned i = 0; i < R_N; i++) {
    s.v[i] = calloc(o->samples, sizeof(double));
    rc = s.v[i] == NULL ? 1 : rc;
  }
  if (rc == 0) {
    uint64_t seed = o->seed;
    const native_irq_info_t irq = native_irq_info();
    bench_progress("cmsis: interrupt latency (spin window off)");
    native_irq_set_spin(0u);
    run_native(o, r, &s, &seed, true);
    native_irq_set_spin(irq.spin_ns);
    bench_progress("cmsis: timer callbacks, native");
    run_native(o, r, &s, &seed, false);
    bench_progress("cmsis: timer callbacks, CMSIS");
    run_cmsis_timer(o, r, &s, &seed);
    bench_progress("cmsis: delays");
    run_delays(o, r, &s, &seed);
    for (unsigned i = 0; i < R_N; i++) {
      bench_stats(s.v[i], s.n[i], &r->rows[i]);
    }
    const utim_os2_posix_info_t pi = utim_os2_posix_info();
    r->fifo = pi.fifo != 0;
    r->fifo_error = pi.fifo_error;
  } else {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
  }
  for (unsigned i = 0; i < R_N; i++) {
    free(s.v[i]);
  }
  (void)utim_os2_posix_stop();
  (void)utim_tm_deinit(&g.tm);
  (void)utim_stop(g.p);
  /* Combined, over the rows measured both ways. */
  double sc = 0.0;
  double sn = 0.0;
  r->combined_ok = true;
  for (unsigned i = R_CB_NATIVE; i + 1u < R_N; i += 2u) {
    sn += r->rows[i].mean;
    sc += r->rows[i + 1u].mean;
  }
  /* A row without a sample has a mean of 0: the sum would leave it out on
   * one side only. Such a row is a failed measurement. */
  for (unsigned i = 0; i < R_N; i++) {
    if (r->rows[i].n == 0u) {
      fprintf(stderr, BENCH_PROG " cmsis: row '%s' (%s) measured no sample\n", row_label[i],
              row_path[i]);
      if (i >= R_CB_NATIVE) {
        r->combined_ok = false;
      }
      rc = 1;
    }
  }
  r->combined_ok = r->combined_ok && sn > 0.0;
  r->combined = r->combined_ok ? (sc / sn - 1.0) * 100.0 : 0.0;
  return rc;
}

/* ---- output ---------------------------------------------------------------------- */

static void json_machine(bench_jw_t *w, const void *rp) {
  const cm_report_t *r = rp;
  bench_jw_bool(w, "callgrind", r->have_instr);
  bench_jw_str(w, "callgrind_note", r->cg_note);
  bench_jw_uint(w, "alarm_hz", r->hz);
  bench_jw_uint(w, "kernel_tick_hz", CM_TICK_HZ);
  bench_jw_int(w, "phase_uncertainty_ns", (long long)r->phase_unc);
  bench_jw_bool(w, "timer_thread_fifo", r->fifo);
  bench_jw_uint(w, "samples", r->o->samples);
}

static void print_json(bench_jw_t *w, const void *rp) {
  const cm_report_t *r = rp;
  bench_jw_array(w, "instructions");
  for (unsigned i = 0; i < I_N; i++) {
    const double x = r->instr[i][0] - r->instr[i][1];
    bench_jw_object(w, NULL);
    bench_jw_str(w, "name", instr_name[i]);
    bench_jw_num(w, "cmsis", r->have_instr, r->instr[i][0]);
    bench_jw_num(w, "direct", r->have_instr, r->instr[i][1]);
    bench_jw_num(w, "extra", r->have_instr, x);
    bench_jw_num(w, "extra_percent", r->have_instr && r->instr[i][1] > 0.0,
                 r->instr[i][1] > 0.0 ? x / r->instr[i][1] * 100.0 : 0.0);
    bench_jw_end(w);
  }
  bench_jw_end(w);
  bench_jw_array(w, "rows");
  for (unsigned i = 0; i < R_N; i++) {
    bench_jw_object(w, NULL);
    bench_jw_str(w, "name", row_name[i]);
    bench_jw_str(w, "path", row_path[i]);
    bench_jw_stats(w, &r->rows[i]);
    bench_jw_uint(w, "lost", r->lost[i]);
    bench_jw_end(w);
  }
  bench_jw_end(w);
  bench_jw_num(w, "combined_overhead_percent", r->combined_ok, r->combined);
}

static const bench_col_t instr_cols[] = {
    {"operation", -36, 0}, {"CMSIS instr", 12, 1}, {"direct instr", 13, 1},
    {"extra", 8, 1},       {"extra %", 8, 1},
};
#define NICOLS (sizeof instr_cols / sizeof instr_cols[0])

static const bench_col_t rt_cols[] = {
    {"row", -62, 0},   {"n", 5, 0},       {"median ns", 10, 0},  {"mean ns", 10, 0},
    {"p99 ns", 10, 0}, {"max ns", 10, 0}, {"lost/early", 11, 0},
};
#define NRCOLS (sizeof rt_cols / sizeof rt_cols[0])

static void print_table(FILE *f, const void *rp) {
  const cm_report_t *r = rp;
  fprintf(f, "  callgrind: %s\n", r->cg_note);
  fprintf(f,
          "  real time: NATIVE_ALARM at %u Hz (phase known to %lld ns), manager tickless, kernel "
          "tick %u Hz, POSIX binding's timer thread %s\n\n",
          r->hz, (long long)r->phase_unc, CM_TICK_HZ,
          r->fifo ? "SCHED_FIFO" : "SCHED_OTHER (SCHED_FIFO refused)");
  fprintf(f, "adaptation overhead, instructions per call (CMSIS layer vs the manager directly)\n");
  bench_table_head(f, instr_cols, NICOLS);
  for (unsigned i = 0; i < I_N; i++) {
    const double x = r->instr[i][0] - r->instr[i][1];
    char op[64];
    snprintf(op, sizeof op, "%s", instr_label[i][0]);
    const bench_cell_t cells[NICOLS] = {
        BENCH_TEXT(op),
        BENCH_NUM_IF(r->have_instr, r->instr[i][0]),
        BENCH_NUM_IF(r->have_instr, r->instr[i][1]),
        BENCH_NUM_IF(r->have_instr, x),
        BENCH_NUM_IF(r->have_instr && r->instr[i][1] > 0.0,
                     r->instr[i][1] > 0.0 ? x / r->instr[i][1] * 100.0 : 0.0),
    };
    bench_table_row(f, instr_cols, NICOLS, cells, NICOLS, NULL);
  }
  fprintf(f, "  direct: ");
  for (unsigned i = 0; i < I_N; i++) {
    fprintf(f, "%s%s", i != 0u ? "; " : "", instr_label[i][1]);
  }
  fprintf(f, "\n  dispatch: the layer's on_expiry(), defer and utim_os2_run_deferred() per "
             "expiry, added to the manager's own delivery\n\n");
  fprintf(f, "Rhealstone-style rows (ns on CLOCK_MONOTONIC)\n");
  bench_table_head(f, rt_cols, NRCOLS);
  for (unsigned i = 0; i < R_N; i++) {
    const bench_stats_t *st = &r->rows[i];
    const bool ok = st->n > 0u;
    const bench_cell_t cells[NRCOLS] = {
        BENCH_TEXT(row_label[i]),      BENCH_NUM((double)st->n),  BENCH_NUM_IF(ok, st->median),
        BENCH_NUM_IF(ok, st->mean),    BENCH_NUM_IF(ok, st->p99), BENCH_NUM_IF(ok, st->max),
        BENCH_NUM((double)r->lost[i]),
    };
    bench_table_row(f, rt_cols, NRCOLS, cells, NRCOLS, NULL);
  }
  if (r->combined_ok) {
    fprintf(f,
            "\ncombined (callback latency, task activation, delay lateness only): sum of CMSIS "
            "means / sum of native means - 1 = %+.2f %%\n",
            r->combined);
  } else {
    fprintf(f, "\ncombined (callback latency, task activation, delay lateness only): not "
               "measured (a row has no sample)\n");
  }
}

static const bench_writer_t cm_writer = {
    .name = "cmsis",
    .title = "CMSIS-RTOS2 time services: adaptation overhead and Rhealstone-style rows",
    .table = print_table,
    .json_machine = json_machine,
    .json = print_json,
};

int bench_cmd_cmsis(int argc, char **argv) {
  cm_opts_t o = {.samples = CM_DEFAULT_SAMPLES, .seed = 1u};
  bench_output_t out;
  int rc = bench_cli_parse(&cm_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  bench_progress_init();
  static cm_report_t r;
  bench_machine_t m;
  memset(&r, 0, sizeof r);
  r.o = &o;
  r.m = &m;
  bench_progress("calibrating the TSC");
  bench_machine_probe(&m);
  native_board_init();
  count_instructions(&o, &r);
  rc = measure_rt(&o, &r);
  bench_progress_done();
  if (rc != 0) {
    bench_output_discard(&out);
    return rc;
  }
  return bench_output_write(&out, &cm_writer, &m, &r);
}
