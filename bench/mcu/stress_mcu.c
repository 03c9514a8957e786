/**
 * @file stress_mcu.c
 * @brief `utim-bench stress` as firmware of a bare-metal board under QEMU: the
 *        randomized timer stress benchmark (bench/stress.h, the method of
 *        RIOT's tests/bench_timers) on the board's own timers.
 *
 * @par Runs
 * Every instance with a compare channel that counts at 1 MHz (where none
 * does, at its frequency closest to 1 MHz: riscv-virt's 10 MHz machine
 * timer) is a timer under test, twice: through the uAPI (utim_set_rel(), utim_set_abs(), on
 * channel 0) and through the time manager, tickless on that channel (timer
 * start, start_at and a task delay). A board without any compare channel
 * (mps2-an385) runs the time manager ticked on the first instance's
 * overflow instead (a 0.1 ms tick, the counter's top set to it), its only
 * way to time anything. The reference is another instance, at its fastest
 * frequency other than the tested one.
 *
 * @par Time
 * QEMU runs with `-icount shift=N,align=off,sleep=off`: virtual time is the
 * instruction count and the timers count it (see main.c), so a run is
 * deterministic and a second one must print the same bytes; differences are
 * in reference ticks of virtual time. The benchmark's thread polls for each
 * callback (no sleep, nothing else runs).
 *
 * @par Checks
 * Each run is a test: it arms something every operation and sees no early,
 * lost or unexpected callback. Speed is printed, never asserted.
 *
 * @par Memory
 * The nRF51 has 16 KiB of RAM: one run's state at a time (about 4 KiB) and
 * the manager with a small wheel (UTIM_TM_WHEEL_BITS / _LEVELS set by the
 * build); results are printed when each run ends.
 */
#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "mcu.h"
#include "stress.h"
#include "utim/tm.h"
#include "utim/utim.h"

#ifndef UTIM_QEMU_ICOUNT_SHIFT
#error "UTIM_QEMU_ICOUNT_SHIFT must be the -icount shift QEMU runs with"
#endif

#define TUT_HZ       1000000u
#define OPS_PER_RUN  1000u
#define LIMIT_TICKS  1024u  /* longest interval on a channel, TUT ticks */
#define TICKED_LIMIT 4096u  /* ticked on the overflow: TUT ticks */
#define TICKED_PER_S 10000u /* ticks per second of the ticked manager */
#define MIN_ABS      4u
#define LOST_NS      10000000u
#define OVERHEAD_N   200u
#define SEED         1u
#define MAX_FREQS    64u
#define MAX_RUNS     8u

typedef struct plan {
  const utim_periph_t *tut;
  const utim_periph_t *ref;
  uint32_t tut_hz;
  uint32_t ref_hz;
  bench_stress_api_t api;
  utim_tm_mode_t mode;
  unsigned ch;
  uint64_t tick;
} plan_t;

static plan_t plans[MAX_RUNS];
static unsigned nplans;
static bench_stress_t st;
static utim_tm_t tm;
static utim_tm_tasks_t tasks;
static utim_tm_timer_t task_timer;
static uint32_t wake[UTIM_TM_TASK_WORDS(1u)];

static void no_wait(void *ctx) {
  (void)ctx;
}

/* The fastest frequency of @p p, over all its clock inputs, other than @p not_hz (0: none). */
static uint32_t fastest_other(const utim_periph_t *p, uint32_t not_hz) {
  static uint32_t f[MAX_FREQS];
  uint32_t best = 0;
  for (unsigned clk = 0; utim_clock(p, clk) != NULL; clk++) {
    const int n = utim_freqs(p, clk, f, MAX_FREQS);
    for (int i = 0; i < n && i < (int)MAX_FREQS; i++) {
      best = f[i] != not_hz && f[i] > best ? f[i] : best;
    }
  }
  return best;
}

/* The reference for @p tut: the other instance with the fastest frequency. */
static void pick_ref(plan_t *pl) {
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    const uint32_t hz = p != pl->tut ? fastest_other(p, pl->tut_hz) : 0u;
    if (hz > pl->ref_hz) {
      pl->ref = p;
      pl->ref_hz = hz;
    }
  }
}

static void add_plan(plan_t pl) {
  pick_ref(&pl);
  if (pl.ref != NULL && nplans < MAX_RUNS) {
    plans[nplans++] = pl;
  }
}

static void make_plans(void) {
  /* Channels at 1 MHz; where none counts at 1 MHz (a fixed timebase, the
   * RISC-V machine timer's 10 MHz), channels at the frequency closest to it. */
  for (unsigned pass = 0u; pass < 2u && nplans == 0u; pass++) {
    const bool exact = pass == 0u;
    for (unsigned i = 0; i < utim_count(); i++) {
      const utim_periph_t *p = utim_by_index(i);
      uint32_t hz = 0;
      if (utim_channels(p) == 0u || utim_closest_freq(p, TUT_HZ, UTIM_CLOCK_DEFAULT, &hz) != 0 ||
          (exact && hz != TUT_HZ)) {
        continue;
      }
      add_plan((plan_t){.tut = p, .tut_hz = hz, .api = BENCH_STRESS_UAPI});
      add_plan((plan_t){.tut = p, .tut_hz = hz, .api = BENCH_STRESS_TM, .mode = UTIM_TM_TICKLESS});
    }
  }
  if (nplans != 0u) {
    return;
  }
  /* No compare channel anywhere: the manager ticked on an overflow. A
   * settable top makes any tick possible; whether the hardware tells a
   * pending wrap too, utim_tm_init() checks (the run fails when not). */
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    const uint32_t hz = fastest_other(p, 0u);
    if ((utim_caps(p) & UTIM_CAP_TOP) == 0u || hz == 0u) {
      continue;
    }
    add_plan((plan_t){.tut = p,
                      .tut_hz = hz,
                      .api = BENCH_STRESS_TM,
                      .mode = UTIM_TM_TICKED,
                      .ch = UTIM_TM_OVERFLOW,
                      .tick = hz / TICKED_PER_S});
    return;
  }
}

/* "12.34" from a double, two decimals, rounded. */
static const char *fmt2(char *buf, unsigned cap, double v) {
  const bool neg = v < 0;
  const uint64_t c = (uint64_t)((neg ? -v : v) * 100.0 + 0.5);
  (void)th_snprintf(buf, cap, "%s%llu.%02llu", neg && c != 0u ? "-" : "",
                    (unsigned long long)(c / 100u), (unsigned long long)(c % 100u));
  return buf;
}

static const char *api_name(const plan_t *pl) {
  return pl->api == BENCH_STRESS_UAPI ? "uapi" : "tm";
}

/* @p s in a column of @p w characters: left-aligned for w < 0, else right
 * (th_printf() pads numbers only). */
static void col(const char *s, int w) {
  unsigned len = 0;
  while (s[len] != '\0') {
    len++;
  }
  const unsigned width = (unsigned)(w < 0 ? -w : w);
  if (w < 0) {
    th_printf("%s", s);
  }
  for (unsigned i = len; i < width; i++) {
    th_printf(" ");
  }
  if (w >= 0) {
    th_printf("%s", s);
  }
}

/* The statistics columns of a row whose label columns are printed. */
static void print_stat(const bench_stress_stat_t *x) {
  char m[24];
  char v[24];
  if (x->n == 0u) {
    th_printf(" %8u\n", 0u);
    return;
  }
  th_printf(" %8llu ", (unsigned long long)x->n);
  col(fmt2(m, sizeof m, x->mean), 10);
  th_printf(" ");
  col(fmt2(v, sizeof v, bench_stress_var(x)), 12);
  th_printf(" %8lld %8lld%s\n", (long long)x->min, (long long)x->max,
            bench_stress_sic(&st, x) ? "  <=== SIC!" : "");
}

static void print_table(const plan_t *pl) {
  char a[24];
  char b[24];
  char c[24];
  char d[24];
  th_printf("\nstress: %s channel %s at %lu Hz%s, reference %s at %lu Hz, api %s\n",
            utim_name(pl->tut), pl->ch == UTIM_TM_OVERFLOW ? "overflow" : "0",
            (unsigned long)pl->tut_hz, pl->mode == UTIM_TM_TICKED ? " (manager ticked)" : "",
            utim_name(pl->ref), (unsigned long)pl->ref_hz, api_name(pl));
  th_printf("  %llu operations; early %llu, lost %llu, unexpected %llu, refused %llu\n",
            (unsigned long long)st.ops, (unsigned long long)st.early, (unsigned long long)st.lost,
            (unsigned long long)st.unexpected, (unsigned long long)st.refused);
  th_printf("  overhead %s reference ticks (variance %s)%s; SIC! limits |mean| > %s, variance > "
            "%s; intervals 1..%llu ticks\n",
            fmt2(a, sizeof a, st.overhead_mean), fmt2(b, sizeof b, st.overhead_var),
            st.overhead_warning ? " WARNING: high variance" : "", fmt2(c, sizeof c, st.limit_mean),
            fmt2(d, sizeof d, st.limit_var), (unsigned long long)st.limit);
  th_printf("  difference (callback - expected), reference ticks; positive: late\n  ");
  col("function", -13);
  col("resched", -9);
  col("stopped", -9);
  col("count", 9);
  col("mean", 11);
  col("variance", 13);
  col("min", 9);
  col("max", 9);
  th_printf("\n");
  for (unsigned fn = 0; fn < BENCH_STRESS_NFN; fn++) {
    for (unsigned v = 0; v < 4u; v++) {
      const bool re = (v & 2u) != 0u;
      const bool so = (v & 1u) != 0u;
      if (!bench_stress_has_fn(&st, (bench_stress_fn_t)fn) || (so && !st.can_stop)) {
        continue;
      }
      th_printf("  ");
      col(bench_stress_fn_name((bench_stress_fn_t)fn), -13);
      col(re ? "yes" : "no", -9);
      col(so ? "yes" : "no", -9);
      print_stat(&st.cat[BENCH_STRESS_CAT(fn, re, so)]);
    }
  }
  th_printf("  by interval (ticks of the timer under test):\n");
  char label[48];
  for (unsigned bk = 0; bk < BENCH_STRESS_NBUCKETS; bk++) {
    if (st.bucket[bk].n != 0u) {
      (void)th_snprintf(label, sizeof label, "%llu - %llu", 1ull << bk, (2ull << bk) - 1u);
      th_printf("  ");
      col(label, -31);
      print_stat(&st.bucket[bk]);
    }
  }
}

static void json_stat(const bench_stress_stat_t *x) {
  char m[24];
  char v[24];
  if (x->n == 0u) {
    th_printf("\"count\":0,\"mean\":null,\"variance\":null,\"min\":null,\"max\":null,"
              "\"sic\":false");
    return;
  }
  th_printf("\"count\":%llu,\"mean\":%s,\"variance\":%s,\"min\":%lld,\"max\":%lld,\"sic\":%s",
            (unsigned long long)x->n, fmt2(m, sizeof m, x->mean),
            fmt2(v, sizeof v, bench_stress_var(x)), (long long)x->min, (long long)x->max,
            bench_stress_sic(&st, x) ? "true" : "false");
}

/* One line, fields as the host's runs. */
static void print_json(const plan_t *pl, int err) {
  char a[24];
  char b[24];
  th_printf("{\"benchmark\":\"stress\",\"machine\":{\"board\":\"%s\",\"qemu\":true,"
            "\"icount_shift\":%d,\"virtual_time\":true},\"runs\":[{\"board\":\"%s\","
            "\"timer\":\"%s\",\"channel\":\"%s\",\"timer_hz\":%lu,\"reference\":\"%s\","
            "\"ref_hz\":%lu,\"api\":\"%s\",\"mode\":\"%s\",\"seed\":%u,\"error\":%d,\"ops\":%llu,",
            utim_board.name, UTIM_QEMU_ICOUNT_SHIFT, utim_board.name, utim_name(pl->tut),
            pl->ch == UTIM_TM_OVERFLOW ? "overflow" : "0", (unsigned long)pl->tut_hz,
            utim_name(pl->ref), (unsigned long)pl->ref_hz, api_name(pl),
            pl->api == BENCH_STRESS_UAPI ? "channel"
            : pl->mode == UTIM_TM_TICKED ? "ticked"
                                         : "tickless",
            SEED, err, (unsigned long long)st.ops);
  th_printf("\"limit\":%llu,\"overhead\":{\"mean\":%s,\"variance\":%s,\"warning\":%s},",
            (unsigned long long)st.limit, fmt2(a, sizeof a, st.overhead_mean),
            fmt2(b, sizeof b, st.overhead_var), st.overhead_warning ? "true" : "false");
  th_printf("\"early\":%llu,\"lost\":%llu,\"unexpected\":%llu,\"refused\":%llu,"
            "\"first_fired\":%llu,",
            (unsigned long long)st.early, (unsigned long long)st.lost,
            (unsigned long long)st.unexpected, (unsigned long long)st.refused,
            (unsigned long long)st.first_fired);
  th_printf("\"limits\":{\"mean\":%s,\"variance\":%s},\"rows\":[", fmt2(a, sizeof a, st.limit_mean),
            fmt2(b, sizeof b, st.limit_var));
  bool comma = false;
  for (unsigned fn = 0; fn < BENCH_STRESS_NFN; fn++) {
    for (unsigned v = 0; v < 4u; v++) {
      const bool re = (v & 2u) != 0u;
      const bool so = (v & 1u) != 0u;
      if (!bench_stress_has_fn(&st, (bench_stress_fn_t)fn) || (so && !st.can_stop)) {
        continue;
      }
      th_printf("%s{\"function\":\"%s\",\"rescheduled\":%s,\"stopped\":%s,", comma ? "," : "",
                bench_stress_fn_name((bench_stress_fn_t)fn), re ? "true" : "false",
                so ? "true" : "false");
      json_stat(&st.cat[BENCH_STRESS_CAT(fn, re, so)]);
      th_printf("}");
      comma = true;
    }
  }
  th_printf("],\"by_interval\":[");
  comma = false;
  for (unsigned bk = 0; bk < BENCH_STRESS_NBUCKETS; bk++) {
    if (st.bucket[bk].n != 0u) {
      th_printf("%s{\"lo\":%llu,\"hi\":%llu,", comma ? "," : "", 1ull << bk, (2ull << bk) - 1u);
      json_stat(&st.bucket[bk]);
      th_printf("}");
      comma = true;
    }
  }
  th_printf("]}]}\n");
}

static int set_up(const plan_t *pl) {
  int rc = utim_init(pl->ref, pl->ref_hz, UTIM_CLOCK_DEFAULT);
  rc = rc != 0 ? rc : utim_init(pl->tut, pl->tut_hz, UTIM_CLOCK_DEFAULT);
  rc = rc != 0 ? rc : utim_start(pl->ref);
  rc = rc != 0 ? rc : utim_start(pl->tut);
  if (rc == 0 && pl->api == BENCH_STRESS_TM) {
    rc = utim_tm_init(&tm, pl->tut, pl->ch, pl->mode, pl->tick);
    rc = rc != 0 ? rc : utim_tm_tasks_init(&tasks, &tm, &task_timer, wake, 1u, NULL, NULL);
  }
  if (rc != 0) {
    return rc;
  }
  const bool ticked = pl->mode == UTIM_TM_TICKED;
  const bench_stress_cfg_t cfg = {
      .tut = pl->tut,
      .ch = ticked ? 0u : pl->ch,
      .ref = pl->ref,
      .api = pl->api,
      .tm = &tm,
      .tasks = &tasks,
      .seed = SEED,
      .limit = ticked ? TICKED_LIMIT : LIMIT_TICKS,
      .min_abs = MIN_ABS,
      .lost_ref = (uint64_t)pl->ref_hz * (LOST_NS / 1000u) / 1000000u,
      .wait = no_wait,
  };
  return bench_stress_init(&st, &cfg);
}

static void t_run(void *arg) {
  const plan_t *pl = arg;
  th_context("%s %s", utim_name(pl->tut), api_name(pl));
  const int rc = set_up(pl);
  if (TH_EQ(rc, 0)) {
    bench_stress_overhead(&st, OVERHEAD_N);
    bench_stress_run(&st, OPS_PER_RUN);
    bench_stress_finish(&st);
    TH_EQU(st.ops, OPS_PER_RUN);
    TH_CHECKF(st.early == 0u && st.lost == 0u && st.unexpected == 0u,
              "early %llu, lost %llu, unexpected %llu", (unsigned long long)st.early,
              (unsigned long long)st.lost, (unsigned long long)st.unexpected);
    TH_CHECKF(st.refused < OPS_PER_RUN / 10u, "%llu of %u armings refused (last error %d)",
              (unsigned long long)st.refused, OPS_PER_RUN, st.last_error);
  }
  if (pl->api == BENCH_STRESS_TM && tm.running) {
    (void)utim_tm_deinit(&tm);
  }
  (void)utim_stop(pl->tut);
  (void)utim_stop(pl->ref);
  print_table(pl);
  print_json(pl, rc);
}

static void t_none(void *arg) {
  (void)arg;
  TH_CHECKF(false, "no instance with a channel at 1 MHz, nor an overflow with a top to tick on");
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  th_printf("TAP version 13\n");
  th_note("utim-bench stress on %s under QEMU -icount shift=%d: random timeouts against a "
          "reference timer (RIOT bench_timers method; see stress_mcu.c), seed %u, %u operations "
          "per run; differences in reference ticks, positive: late",
          utim_board.name, UTIM_QEMU_ICOUNT_SHIFT, SEED, OPS_PER_RUN);
  make_plans();
  static char names[MAX_RUNS][64];
  for (unsigned i = 0; i < nplans; i++) {
    (void)th_snprintf(names[i], sizeof names[i], "stress %s %s%s: no early, lost or unexpected",
                      utim_name(plans[i].tut), api_name(&plans[i]),
                      plans[i].mode == UTIM_TM_TICKED ? " ticked" : "");
    th_run(names[i], t_run, &plans[i]);
  }
  if (nplans == 0u) {
    th_run("the board has a timer to stress", t_none, NULL);
  }
  return th_finish();
}
