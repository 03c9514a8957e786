/**
 * @file main.c
 * @brief `utim-bench ops` as firmware of a bare-metal board (Cortex-M, RISC-V) run under QEMU:
 *        instructions per read, write, set and clear through the uAPI
 *        (compile-time and run-time instance) and the hAPI, for the NOP
 *        driver and for one real driver of the board.
 *
 * @par How instructions are counted
 * QEMU runs the firmware with `-icount shift=N,align=off,sleep=off`
 * (tools/qemu-run.sh; N is UTIM_QEMU_ICOUNT_SHIFT, 0 by default): virtual
 * time then advances by exactly 2^N ns per guest instruction, and it
 * advances by nothing else. The timers of both boards count that virtual
 * clock (QEMU 7.2: hw/timer/cmsdk-apb-dualtimer.c runs a ptimer, and
 * hw/timer/nrf51_timer.c reads qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL); both
 * on QEMU_CLOCK_VIRTUAL, which follows the instruction counter under
 * -icount). Reading such a timer (the "stopwatch", through its hAPI read)
 * before and after N calls of an operation therefore gives the number of
 * guest instructions those calls executed, to one stopwatch tick, from the
 * instructions QEMU actually executed, branches and library helpers
 * included. As on the host, the same measurement of the empty loop
 * (bench_loop_baseline(), the loops' own structure without the call) is
 * subtracted, which also removes the stopwatch reads themselves.
 *
 * ns and cycle figures are left out: QEMU executes every instruction in the
 * same virtual time, so they would only restate the instruction count, not
 * the chip's timing (wait states, pipeline, bus).
 *
 * @par Resolution
 * Each measurement is quantised to the stopwatch's tick, on both ends, so a
 * per-call figure is within 2 ticks / (runs x calls) of the exact count
 * (printed as "resolution"). A calibration loop of known length (two
 * instructions an iteration) checks the whole chain before anything is
 * reported, and the test script cross-checks rows against a count of the
 * instructions in the generated code (arm-none-eabi-objdump).
 *
 * @par No interrupts inside a timed loop
 * The NOP driver raises none; the real drivers get no callback, and the set
 * loops arm a quarter of the counter's range ahead, which each run checks
 * the counter has not reached. A stopwatch that takes interrupts of its own
 * (a software-carried chain: bench_mcu_board_t::stopwatch_irq_every) has a
 * run that may contain one measured again; each board's period is far
 * longer than its longest run, so the second run is clean.
 */
#include <stdbool.h>
#include <stdint.h>

#include "bench_mcu.h"
#include "board.h"
#include "harness.h"
#include "mcu.h"

#ifndef UTIM_QEMU_ICOUNT_SHIFT
#error "UTIM_QEMU_ICOUNT_SHIFT must be the -icount shift QEMU runs with"
#endif
#ifndef UTIM_BENCH_BUILD_TYPE
#define UTIM_BENCH_BUILD_TYPE "unknown"
#endif

#define MCU_ITERS       16000u /* calls per timed run */
#define MCU_RUNS        2u     /* timed runs per case, summed */
#define MCU_CHECK_ITERS 16u    /* calls of the untimed behaviour check */
#define MCU_NOP_HZ      64000000u
#define MCU_NCASES      ((unsigned)BENCH_OP_COUNT * (unsigned)BENCH_PATH_COUNT)
#define MCU_NTARGETS    2u
#define MCU_PS_PER_S    1000000000000ull
#define MCU_SW_TRIES    3u /* runs of one measurement while the stopwatch's interrupt hits it */
#define MCU_SW_GUARD    2u /* ticks after a stopwatch interrupt's count in which it may still run */

/* Width of a printed column; th_printf() pads numbers only. */
#define COL_OP       7u
#define COL_DRIVER   8u
#define COL_API      6u
#define COL_INSTANCE 14u
#define COL_INSTR    11u
#define COL_EXTRA    13u

typedef struct mcu_target {
  const bench_ops_set_t *set;
  uint32_t hz;
  const char *what;
  const char *no_channel_note; /* set and clear rows are n/a when the instance has 0 channels */
} mcu_target_t;

typedef struct mcu_result {
  bool valid;    /* measured; false for n/a and failed cases */
  int64_t milli; /* instructions per call x 1000 */
} mcu_result_t;

static mcu_target_t targets[MCU_NTARGETS];
static mcu_result_t results[MCU_NTARGETS][MCU_NCASES];
/* The RIOT periph_timer rows, on the board's real driver (target 1). */
#define MCU_RIOT_TARGET 1u
static mcu_result_t riot_results[BENCH_RIOT_NCASES];
static mcu_result_t port_pair;
static mcu_result_t baseline;
static mcu_result_t calib;

static const utim_periph_t *sw; /* the stopwatch */
static uint64_t sw_mask;
static uint64_t sw_ps_per_tick;
static uint64_t base_ticks; /* the empty loop, summed over MCU_RUNS runs */
static unsigned sw_hit;     /* measurements a stopwatch interrupt may have entered */

/* Whether the stopwatch's own interrupt may have run between reads @p a and
 * @p b: its count crossed a multiple of the period, or had just crossed one
 * when @p a was read (the interrupt then runs right after that read). */
static bool sw_irq_inside(uint64_t a, uint64_t b) {
  const uint64_t every = bench_mcu_board.stopwatch_irq_every;
  return every != 0u && (a / every != b / every || a % every < MCU_SW_GUARD);
}

/* Stopwatch ticks around one call of loop(n). noinline and one code path
 * for every loop, so the instructions around the call are the same for the
 * baseline and for every case, and cancel out. */
__attribute__((noinline)) static uint64_t sw_time(bench_loop_fn loop, uint32_t n) {
  uint64_t a;
  uint64_t b;
  unsigned tries = 0u;
  do {
    a = sw->drv->read(sw);
    loop(n);
    b = sw->drv->read(sw);
  } while (sw_irq_inside(a, b) && ++tries < MCU_SW_TRIES);
  if (tries == MCU_SW_TRIES) {
    sw_hit++;
  }
  return (b - a) & sw_mask;
}

/* Every measurement so far ran clear of the stopwatch's own interrupts. */
static bool sw_clean(void) {
  return TH_CHECKF(sw_hit == 0u,
                   "%u measurements took a stopwatch interrupt in every try (a run longer than "
                   "its interrupt period?)",
                   sw_hit);
}

/* What differs between the architectures: the port's lock, and the
 * calibration loop's two instructions. */
#if defined(__riscv)
#define MCU_PORT      "riscv"
#define MCU_PORT_LOCK "mstatus.MIE clear/restore"
#define MCU_SPIN2     "addi, bnez"
#else
#define MCU_PORT      "cortexm"
#define MCU_PORT_LOCK "PRIMASK save/restore"
#define MCU_SPIN2     "subs, bne"
#endif

/* Exactly 2 * n instructions for n >= 1 (MCU_SPIN2): the calibration. */
__attribute__((noinline)) static void spin2_loop(uint32_t n) {
#if defined(__riscv)
  __asm__ volatile("1: addi %0, %0, -1\n\t"
                   "bnez %0, 1b"
                   : "+r"(n));
#else
  __asm__ volatile(".syntax unified\n"
                   "1: subs %0, %0, #1\n\t"
                   "bne 1b"
                   : "+l"(n)
                   :
                   : "cc");
#endif
}

/* Rounded to the nearest integer, halves away from zero. */
static int64_t div_round(int64_t num, int64_t den) {
  return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

/* Instructions x 1000 per call from a tick difference over @p calls calls. */
static int64_t ticks_to_milli(int64_t ticks, uint64_t calls) {
  int64_t ps = ticks * (int64_t)sw_ps_per_tick;
  return div_round(ps, (int64_t)(calls << UTIM_QEMU_ICOUNT_SHIFT));
}

static uint64_t runs_calls(void) {
  return (uint64_t)MCU_RUNS * MCU_ITERS;
}

/* bench_ops_prepare() without the channel: it clears channel 0, which a
 * 0-channel instance rejects. */
static int prepare_no_channel(const utim_periph_t *p, uint32_t hz) {
  int rc = utim_init(p, hz, UTIM_CLOCK_DEFAULT);
  if (rc == 0) {
    rc = utim_start(p);
  }
  if (rc == 0 && (utim_caps(p) & UTIM_CAP_WRITE) != 0u) {
    rc = utim_write(p, 0u);
  }
  return rc;
}

static int mcu_prepare(const mcu_target_t *t) {
  const bench_ops_set_t *s = t->set;
  if (utim_channels(s->ct) == 0u) {
    const utim_periph_t *rt = *s->rt;
    int rc = prepare_no_channel(s->ct, t->hz);
    if (rc == 0 && rt != s->ct) {
      rc = prepare_no_channel(rt, t->hz);
    }
    bench_ops_params.value_mask = utim_max(s->ct);
    return rc;
  }
  int rc = bench_ops_prepare(s, t->hz);
  if (rc == 0) {
    /* bench_ops_prepare() arms 16 ticks past the minimum distance, enough
     * on the host's frozen sim clock. Here the counter runs during the
     * loops: a quarter of the range ahead (set_abs accepts up to half, and
     * the loops add at most 0xff) keeps every armed value in the future and
     * every compare unmatched for the whole run. At most a quarter of 2^32
     * on wider counters (the 64-bit mtime): the RIOT rows' timer_set_absolute()
     * takes the target's low 32 bits, and 2^62 ahead would be their now. */
    const uint64_t m = utim_max(s->ct);
    const uint64_t quarter = (m >> 2) < (UINT32_MAX >> 2) ? (m >> 2) : (UINT32_MAX >> 2);
    bench_ops_params.target = (utim_read(s->ct) + quarter) & m;
  }
  return rc;
}

#define MCU_NO_WRITE_NOTE "the counter cannot be written (no UTIM_CAP_WRITE)"

/* write on an instance whose counter cannot be written: n/a, not measured. */
static bool write_na(const mcu_target_t *t, const bench_case_t *k) {
  return k->op == BENCH_OP_WRITE && (utim_caps(t->set->ct) & UTIM_CAP_WRITE) == 0u;
}

static bool case_na(const mcu_target_t *t, const bench_case_t *k) {
  return ((k->op == BENCH_OP_SET || k->op == BENCH_OP_CLEAR) && utim_channels(t->set->ct) == 0u) ||
         write_na(t, k);
}

static bool same_clock(const utim_clock_desc_t *a, const utim_clock_desc_t *b) {
  return a->hz == b->hz && a->cls == b->cls && a->div_kind == b->div_kind &&
         a->div_lo == b->div_lo && a->div_hi == b->div_hi;
}

int bench_mcu_same_instance(const utim_periph_t *ct, const utim_periph_t *rt, char *err,
                            unsigned cap) {
  const char *what = NULL;
  if (ct->drv != rt->drv) {
    what = "driver";
  } else if (ct->props != rt->props) {
    what = "packed properties";
  } else if (ct->dev->min_distance != rt->dev->min_distance) {
    what = "min_distance";
  } else if (ct->dev->nclocks != rt->dev->nclocks) {
    what = "clock count";
  } else {
    for (unsigned i = 0; i < ct->dev->nclocks && what == NULL; i++) {
      if (!same_clock(&ct->dev->clocks[i], &rt->dev->clocks[i])) {
        what = "clock inputs";
      }
    }
  }
  if (what != NULL) {
    (void)th_snprintf(err, cap, "%s: %s differ from the bench's compile-time copy", utim_name(rt),
                      what);
    return -1;
  }
  return 0;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_board_setup(void *arg) {
  (void)arg;
  char err[96] = "";
  int rc = bench_mcu_board_setup(err, sizeof err);
  TH_CHECKF(rc == 0, "%s", err);
}

static void test_stopwatch(void *arg) {
  (void)arg;
  sw = utim_by_name(bench_mcu_board.stopwatch);
  if (!TH_CHECKF(sw != NULL, "no instance %s", bench_mcu_board.stopwatch)) {
    return;
  }
  th_context("%s", bench_mcu_board.stopwatch);
  const uint32_t hz = bench_mcu_board.stopwatch_hz;
  if (!TH_CHECKF(hz != 0u && MCU_PS_PER_S % hz == 0u, "%lu Hz is not a whole number of ps",
                 (unsigned long)hz)) {
    return;
  }
  sw_ps_per_tick = MCU_PS_PER_S / hz;
  sw_mask = utim_max(sw);
  if (!TH_EQ(utim_init(sw, hz, UTIM_CLOCK_DEFAULT), 0) || !TH_EQ(utim_start(sw), 0)) {
    return;
  }
  base_ticks = 0u;
  for (unsigned r = 0; r < MCU_RUNS; r++) {
    base_ticks += sw_time(bench_loop_baseline, MCU_ITERS);
  }
  TH_CHECKF(base_ticks > 0u, "the stopwatch did not advance over %u empty iterations",
            MCU_RUNS * MCU_ITERS);
  (void)sw_clean();
  baseline.milli = ticks_to_milli((int64_t)base_ticks, runs_calls());
  baseline.valid = true;
}

/* The chain (icount, the timer's clock, the stopwatch read, the arithmetic)
 * against a loop of known length: N more iterations are exactly 2N more
 * instructions, whatever surrounds them. */
static void test_calibration(void *arg) {
  (void)arg;
  if (sw == NULL || sw_ps_per_tick == 0u) {
    TH_SKIP("no stopwatch");
  }
  uint64_t one = 0u;
  uint64_t two = 0u;
  for (unsigned r = 0; r < MCU_RUNS; r++) {
    one += sw_time(spin2_loop, MCU_ITERS);
    two += sw_time(spin2_loop, 2u * MCU_ITERS);
  }
  calib.milli = ticks_to_milli((int64_t)(two - one), runs_calls());
  calib.valid = sw_clean();
  /* Two ticks of quantisation per measurement, in instructions per iteration x 1000. */
  const int64_t tol = ticks_to_milli(4, runs_calls());
  const int64_t err = calib.milli - 2000;
  TH_CHECKF(err <= tol && err >= -tol,
            "2-instruction loop measured %lld/1000 instructions an iteration (tolerance %lld): "
            "is QEMU running with -icount shift=%d?",
            (long long)calib.milli, (long long)tol, UTIM_QEMU_ICOUNT_SHIFT);
}

static void test_port_lock(void *arg) {
  (void)arg;
  if (!baseline.valid) {
    TH_SKIP("no stopwatch");
  }
  uint64_t t = 0u;
  for (unsigned r = 0; r < MCU_RUNS; r++) {
    t += sw_time(bench_loop_port_lock, MCU_ITERS);
  }
  port_pair.milli = ticks_to_milli((int64_t)t - (int64_t)base_ticks, runs_calls());
  port_pair.valid = TH_CHECK(t > base_ticks) && sw_clean();
}

typedef struct case_ref {
  unsigned t;
  unsigned c;
} case_ref_t;

/* Target @p t prepared for case @p k: its instances, and for a RIOT row the
 * shim's timer_init() of the board's instance too. */
static int prepare_for(const mcu_target_t *t, const bench_case_t *k) {
  int rc = mcu_prepare(t);
  if (rc == 0 && k->path == BENCH_PATH_RIOT) {
    rc = bench_mcu_board.riot_prepare(t->hz);
  }
  return rc;
}

/* One case: every call returns 0 (untimed short run, then every timed
 * run), no compare matches inside a timed run, and the measurement. */
static void measure_case(const mcu_target_t *t, const bench_case_t *k, mcu_result_t *res) {
  th_context("%s %s %s", t->set->driver, bench_op_name(k->op), bench_path_name(k->path));
  if (case_na(t, k)) {
    TH_SKIP("n/a: %s", write_na(t, k) ? MCU_NO_WRITE_NOTE : t->no_channel_note);
  }
  if (!baseline.valid) {
    TH_SKIP("no stopwatch");
  }
  if (!TH_EQ(prepare_for(t, k), 0)) {
    return;
  }
  bench_sink = 0u;
  k->loop(MCU_CHECK_ITERS);
  /* The write, set and clear loops OR their return codes into the sink. */
  if (k->op != BENCH_OP_READ && !TH_EQU(bench_sink, 0u)) {
    return;
  }
  uint64_t ticks = 0u;
  for (unsigned r = 0; r < MCU_RUNS; r++) {
    if (!TH_EQ(prepare_for(t, k), 0)) {
      return;
    }
    bench_sink = 0u;
    ticks += sw_time(k->loop, MCU_ITERS);
    if (k->op != BENCH_OP_READ && !TH_EQU(bench_sink, 0u)) {
      return;
    }
    if (k->op == BENCH_OP_SET) {
      const uint64_t m = utim_max(t->set->ct);
      const uint64_t ahead = (bench_ops_params.target - utim_read(t->set->ct)) & m;
      if (!TH_CHECKF(ahead != 0u && ahead <= (m >> 1),
                     "the counter reached an armed compare during the timed run")) {
        return;
      }
    }
  }
  res->milli = ticks_to_milli((int64_t)ticks - (int64_t)base_ticks, runs_calls());
  res->valid = sw_clean();
}

static void test_case(void *arg) {
  const case_ref_t *ref = arg;
  measure_case(&targets[ref->t], &targets[ref->t].set->cases[ref->c], &results[ref->t][ref->c]);
}

static void test_riot_case(void *arg) {
  const unsigned c = *(const unsigned *)arg;
  measure_case(&targets[MCU_RIOT_TARGET], &bench_mcu_board.riot[c], &riot_results[c]);
}

/* ---- output ----------------------------------------------------------------- */

static void put_col(const char *s, unsigned width, bool right) {
  unsigned n = 0u;
  while (s[n] != '\0') {
    n++;
  }
  for (unsigned i = n; right && i < width; i++) {
    th_printf(" ");
  }
  th_printf("%s", s);
  for (unsigned i = n; !right && i < width; i++) {
    th_printf(" ");
  }
}

/* @p milli / 1000 with @p decimals (1 or 3) decimals, a '+' on request. */
static void fmt_milli(char *buf, unsigned cap, int64_t milli, unsigned decimals, bool plus) {
  const int64_t scale = decimals == 1u ? 100 : 1;
  const uint64_t unit = decimals == 1u ? 10u : 1000u;
  int64_t q = div_round(milli, scale);
  const char *sign = q < 0 ? "-" : (plus ? "+" : "");
  uint64_t a = (uint64_t)(q < 0 ? -q : q);
  if (decimals == 1u) {
    (void)th_snprintf(buf, cap, "%s%llu.%01llu", sign, (unsigned long long)(a / unit),
                      (unsigned long long)(a % unit));
  } else {
    (void)th_snprintf(buf, cap, "%s%llu.%03llu", sign, (unsigned long long)(a / unit),
                      (unsigned long long)(a % unit));
  }
}

static const char *instance_name(unsigned path) {
  return path == BENCH_PATH_UAPI_RT || path == BENCH_PATH_RIOT ? "run-time" : "compile-time";
}

static const char *api_name(unsigned path) {
  return path == BENCH_PATH_HAPI ? "hapi" : path == BENCH_PATH_RIOT ? "riot" : "uapi";
}

/* The hAPI result of operation @p op on target @p t: the reference of extra instructions. */
static const mcu_result_t *hapi_of(unsigned t, unsigned op) {
  for (unsigned j = 0; j < MCU_NCASES; j++) {
    const bench_case_t *h = &targets[t].set->cases[j];
    if (h->op == op && h->path == BENCH_PATH_HAPI) {
      return &results[t][j];
    }
  }
  return NULL;
}

static bool extra_of(unsigned t, const bench_case_t *k, const mcu_result_t *x, int64_t *out) {
  const mcu_result_t *h = hapi_of(t, k->op);
  if (!x->valid || h == NULL || !h->valid || k->path == BENCH_PATH_HAPI) {
    return false;
  }
  *out = x->milli - h->milli;
  return true;
}

/* The rows of target @p t: its cases, and the RIOT rows on the board's driver. */
static unsigned nrows_of(unsigned t) {
  return MCU_NCASES +
         (t == MCU_RIOT_TARGET && bench_mcu_board.riot != NULL ? BENCH_RIOT_NCASES : 0u);
}

static const bench_case_t *case_of(unsigned t, unsigned i) {
  return i < MCU_NCASES ? &targets[t].set->cases[i] : &bench_mcu_board.riot[i - MCU_NCASES];
}

static const mcu_result_t *result_of(unsigned t, unsigned i) {
  return i < MCU_NCASES ? &results[t][i] : &riot_results[i - MCU_NCASES];
}

static void print_table(void) {
  char a[24];
  char b[24];
  const int64_t resolution = ticks_to_milli(2, runs_calls());
  th_printf("utim-bench ops: cost per call of read / write / set / clear\n");
  th_printf("  board:     %s under QEMU (-icount shift=%d,align=off,sleep=off)\n", utim_board.name,
            UTIM_QEMU_ICOUNT_SHIFT);
  th_printf("  cpu:       %s\n", bench_mcu_board.cpu);
  th_printf("  compiler:  gcc %s, build %s (-Os)\n", __VERSION__, UTIM_BENCH_BUILD_TYPE);
  th_printf("  method:    instructions, not time: under -icount every guest instruction "
            "advances QEMU's virtual clock by %u ns and the board's timers count that clock, "
            "so a timer read through the hAPI before and after the calls counts the "
            "instructions they executed\n",
            1u << UTIM_QEMU_ICOUNT_SHIFT);
  fmt_milli(a, sizeof a, baseline.milli, 3u, false);
  fmt_milli(b, sizeof b, resolution, 3u, false);
  th_printf("  stopwatch: %s at %lu Hz, hAPI read; %u runs x %u calls per case; empty loop "
            "subtracted (%s instructions per iteration); resolution %s instructions per call\n",
            bench_mcu_board.stopwatch, (unsigned long)bench_mcu_board.stopwatch_hz, MCU_RUNS,
            MCU_ITERS, a, b);
  if (calib.valid) {
    fmt_milli(a, sizeof a, calib.milli, 3u, false);
    th_printf("  calibration: a 2-instruction loop (" MCU_SPIN2 ") measures %s instructions per "
              "iteration\n",
              a);
  }
  th_printf("  ns, ticks: left out (QEMU gives every instruction the same time; no chip "
            "timing)\n");
  for (unsigned t = 0; t < MCU_NTARGETS; t++) {
    th_printf("  ");
    put_col(targets[t].set->driver, 10u, false);
    th_printf(" %s\n", targets[t].what);
  }
  if (port_pair.valid) {
    fmt_milli(a, sizeof a, port_pair.milli, 1u, false);
    th_printf("  port:      " MCU_PORT " (" MCU_PORT_LOCK "); a utim_port_lock/unlock pair (inside "
              "every set and clear) costs %s instructions\n",
              a);
  }
  th_printf("\n");
  put_col("op", COL_OP, false);
  put_col("driver", COL_DRIVER, false);
  put_col("api", COL_API, false);
  put_col("instance", COL_INSTANCE, false);
  put_col("instr/call", COL_INSTR, true);
  put_col("extra instr", COL_EXTRA, true);
  th_printf("\n");
  for (unsigned t = 0; t < MCU_NTARGETS; t++) {
    for (unsigned c = 0; c < nrows_of(t); c++) {
      const bench_case_t *k = case_of(t, c);
      const mcu_result_t *x = result_of(t, c);
      int64_t extra = 0;
      if (case_na(&targets[t], k)) {
        (void)th_snprintf(a, sizeof a, "n/a");
        (void)th_snprintf(b, sizeof b, "n/a");
      } else if (!x->valid) {
        (void)th_snprintf(a, sizeof a, "failed");
        b[0] = '\0';
      } else {
        fmt_milli(a, sizeof a, x->milli, 1u, false);
        if (k->path == BENCH_PATH_HAPI) {
          (void)th_snprintf(b, sizeof b, "(ref)");
        } else if (extra_of(t, k, x, &extra)) {
          fmt_milli(b, sizeof b, extra, 1u, true);
        } else {
          b[0] = '\0';
        }
      }
      put_col(bench_op_name(k->op), COL_OP, false);
      put_col(targets[t].set->driver, COL_DRIVER, false);
      put_col(api_name(k->path), COL_API, false);
      put_col(instance_name(k->path), COL_INSTANCE, false);
      put_col(a, COL_INSTR, true);
      put_col(b, COL_EXTRA, true);
      th_printf("\n");
    }
    if (t + 1u < MCU_NTARGETS) {
      th_printf("\n");
    }
  }
  if (bench_mcu_board.riot != NULL) {
    th_printf("  riot: RIOT's periph_timer API (utim/riot_timer.h) on the board's %s instance, "
              "by device number: timer_read, timer_set_absolute, timer_clear\n",
              targets[MCU_RIOT_TARGET].set->driver);
  }
  for (unsigned t = 0; t < MCU_NTARGETS; t++) {
    if (utim_channels(targets[t].set->ct) == 0u) {
      th_printf("  n/a: %s set and clear: %s\n", targets[t].set->driver,
                targets[t].no_channel_note);
    }
    if ((utim_caps(targets[t].set->ct) & UTIM_CAP_WRITE) == 0u) {
      th_printf("  n/a: %s write: " MCU_NO_WRITE_NOTE "\n", targets[t].set->driver);
    }
  }
}

static void json_string(const char *s) {
  th_printf("\"");
  for (; *s != '\0'; s++) {
    if (*s == '"' || *s == '\\') {
      th_printf("\\%c", *s);
    } else if ((unsigned char)*s >= 0x20u) {
      th_printf("%c", *s);
    }
  }
  th_printf("\"");
}

static void json_num(bool valid, int64_t milli) {
  char buf[24];
  if (valid) {
    fmt_milli(buf, sizeof buf, milli, 3u, false);
    th_printf("%s", buf);
  } else {
    th_printf("null");
  }
}

/* One line, so that a log scraper takes it whole; fields as the host's. */
static void print_json(void) {
  th_printf("{\"benchmark\":\"ops\",\"machine\":{\"board\":");
  json_string(utim_board.name);
  th_printf(",\"cpu\":");
  json_string(bench_mcu_board.cpu);
  th_printf(",\"compiler\":");
  json_string("gcc " __VERSION__);
  th_printf(",\"build\":");
  json_string(UTIM_BENCH_BUILD_TYPE);
  th_printf(",\"qemu\":true,\"icount_shift\":%d,\"counting\":\"icount\",\"stopwatch\":",
            UTIM_QEMU_ICOUNT_SHIFT);
  json_string(bench_mcu_board.stopwatch);
  th_printf(",\"stopwatch_hz\":%lu,\"runs\":%u,\"iterations\":%u,\"resolution_instructions\":",
            (unsigned long)bench_mcu_board.stopwatch_hz, MCU_RUNS, MCU_ITERS);
  json_num(true, ticks_to_milli(2, runs_calls()));
  th_printf(",\"baseline_instructions\":");
  json_num(baseline.valid, baseline.milli);
  th_printf(",\"calibration_instructions\":");
  json_num(calib.valid, calib.milli);
  th_printf(",\"port\":\"" MCU_PORT "\",\"port_lock_unlock\":{\"ns\":null,\"tsc_ticks\":null,"
            "\"instructions\":");
  json_num(port_pair.valid, port_pair.milli);
  th_printf("},\"drivers\":{");
  for (unsigned t = 0; t < MCU_NTARGETS; t++) {
    th_printf("%s\"%s\":", t != 0u ? "," : "", targets[t].set->driver);
    json_string(targets[t].what);
  }
  th_printf("}},\"rows\":[");
  for (unsigned t = 0; t < MCU_NTARGETS; t++) {
    for (unsigned c = 0; c < nrows_of(t); c++) {
      const bench_case_t *k = case_of(t, c);
      const mcu_result_t *x = result_of(t, c);
      int64_t extra = 0;
      bool has_extra = extra_of(t, k, x, &extra);
      th_printf("%s{\"name\":\"%s\",\"api\":\"%s\",\"instance\":\"%s\",\"driver\":\"%s\","
                "\"ns\":null,\"tsc_ticks\":null,\"instructions\":",
                (t + c) != 0u ? "," : "", bench_op_name(k->op), api_name(k->path),
                instance_name(k->path), targets[t].set->driver);
      json_num(x->valid, x->milli);
      th_printf(",\"extra_instructions\":");
      json_num(has_extra, extra);
      th_printf("}");
    }
  }
  th_printf("]}\n");
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);

  targets[0] = (mcu_target_t){&bench_ops_nop, MCU_NOP_HZ,
                              "NOP64 (64-bit, no hardware work) at 64 MHz", NULL};
  targets[1] = (mcu_target_t){bench_mcu_board.set, bench_mcu_board.hz, bench_mcu_board.what,
                              bench_mcu_board.no_channel_note};

  th_run("bench instance copy matches the board's", test_board_setup, NULL);
  th_run("stopwatch runs", test_stopwatch, NULL);
  th_run("calibration: 2-instruction loop", test_calibration, NULL);
  th_run("port lock/unlock pair", test_port_lock, NULL);
  static case_ref_t refs[MCU_NTARGETS][MCU_NCASES];
  char name[64];
  for (unsigned t = 0; t < MCU_NTARGETS; t++) {
    for (unsigned c = 0; c < MCU_NCASES; c++) {
      const bench_case_t *k = &targets[t].set->cases[c];
      refs[t][c] = (case_ref_t){t, c};
      (void)th_snprintf(name, sizeof name, "%s %s %s: every call returns 0", targets[t].set->driver,
                        bench_op_name(k->op), bench_path_name(k->path));
      th_run(name, test_case, &refs[t][c]);
    }
  }
  static unsigned riot_refs[BENCH_RIOT_NCASES];
  for (unsigned c = 0; bench_mcu_board.riot != NULL && c < BENCH_RIOT_NCASES; c++) {
    riot_refs[c] = c;
    (void)th_snprintf(name, sizeof name, "%s %s riot: every call returns 0",
                      targets[MCU_RIOT_TARGET].set->driver,
                      bench_op_name(bench_mcu_board.riot[c].op));
    th_run(name, test_riot_case, &riot_refs[c]);
  }
  th_printf("\n");
  print_table();
  th_printf("\n");
  print_json();
  return th_finish();
}
