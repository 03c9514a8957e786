/**
 * @file cmd_tm.c
 * @brief `utim-bench tm`: the time manager (utim/tm.h) against what users
 *        would otherwise pick, and the figures of the paper it follows.
 *
 * 1. **Cost per start, stop and expiry** with N timers pending (10 ... 10^6),
 *    for three workloads: (a) "uniform" timeouts of 1 ms to 10 s; (b)
 *    "network" timeouts of 100 ms to 3 s that are restarted while pending
 *    and mostly stopped before they expire (a TCP retransmit timer); (c)
 *    "periodic": half the timers periodic, so an expiry re-inserts. Side by
 *    side, in the same run and on the same timeouts: the time manager
 *    (start and stop on the NOP driver's NOP64 instance, whose register
 *    accesses cost nothing, as `ops` isolates the uAPI; expiries on the sim
 *    board's SIM_MTIME64, whose interrupt serves them), libuv's timers
 *    (uv_timer_start/stop on a uv_loop_t: a binary heap) and a sorted delta
 *    list (the structure of Zephyr's timeouts, RTX5, FreeRTOS's delayed
 *    list and RIOT's ztimer; a baseline written in tm_dlist.c). Each figure
 *    is the median over rounds of a batch of operations on distinct random
 *    pending timers, after an untimed round; instruction counts come from a
 *    run of the same batches under callgrind (N up to 10^5, to keep the run
 *    short). The same batches with one read of each timer (independent and
 *    dependent), a bare unlink of each from its list and the wheel's own
 *    remove give the floors (tm_floor.c).
 * 2. **Paper Fig. 3**: instructions of the interrupt that wakes one task,
 *    from its delivery to its return (the wake hook included), against the
 *    number of delayed tasks, tickless and ticked, under callgrind.
 * 3. **Paper Fig. 4**: the CPU cost of delay management over one second of
 *    virtual time for N tasks each delayed again every P, ticked at a 10 ms
 *    tick (as in the paper) and tickless, and the factor between them.
 *
 * Parts 2 and 3 are in tm_paper.c, the report (table and JSON) in
 * tm_output.c (tm_bench.h); this file has part 1 and the command. Speed is
 * reported, never asserted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim.h"
#include "sim.h"
#include "tm_bench.h"
#include "utim/port.h"
#include "utim_nop.h"

#ifdef UTIM_BENCH_HAVE_LIBUV
#include <uv.h>
#endif

/* ---- options ------------------------------------------------------------------ */

typedef struct tm_opts {
  unsigned long rounds;  /**< timed rounds per figure */
  unsigned long seed;    /**< random timeouts */
  unsigned long max_n;   /**< largest N of part 1 */
  bool quick;            /**< small N, few rounds: the smoke test */
  bool no_callgrind;     /**< no instruction counts */
  bool child;            /**< internal: the callgrind child */
  unsigned long child_n; /**< internal: its N */
} tm_opts_t;

static const bench_opt_t tm_optv[] = {
    BENCH_UINT("--rounds", tm_opts_t, rounds, 1, 1000,
               "timed rounds per figure, the median is reported (default 7)"),
    BENCH_UINT("--seed", tm_opts_t, seed, 0, 0xffffffffu,
               "seed of the random timeouts (default 1)"),
    BENCH_UINT("--max-n", tm_opts_t, max_n, 10, 1000000,
               "largest number of pending timers (default 1000000)"),
    BENCH_FLAG("--quick", tm_opts_t, quick, "N up to 1000, 3 rounds, fewer tasks: a smoke run"),
    BENCH_FLAG("--no-callgrind", tm_opts_t, no_callgrind, "no instruction counts"),
    BENCH_FLAG("--callgrind-child", tm_opts_t, child, NULL),
    BENCH_UINT("--child-n", tm_opts_t, child_n, 0, 1000000, NULL),
};

static void tm_describe(FILE *f) {
  fprintf(f, "The time manager (utim/tm.h) measured beside libuv's timers and a sorted\n"
             "delta list: cost per start, stop and expiry with 10 to 10^6 timers pending\n"
             "(uniform, network and periodic workloads), the paper's Fig. 3 (instructions\n"
             "from the interrupt to the wake hook against the number of delayed tasks)\n"
             "and Fig. 4 (CPU cost of delay management per second, ticked at 10 ms vs\n"
             "tickless). Runs on the sim board; instruction counts need valgrind.\n");
}

static const bench_cli_t tm_cli = {
    .cmd = "tm",
    .opts = tm_optv,
    .nopts = sizeof tm_optv / sizeof tm_optv[0],
    .json_help =
        "{\"benchmark\":\"tm\",\"machine\":{...},\"instance\":...,\"memory_floor\":[{"
        "\"n\",\"ns\",\"dependent_ns\",\"unlink_ns\",\"remove_ns\"}],\"cost\":[{\"workload\","
        "\"structure\",\"n\",\"start_ns\",\"stop_ns\",\"expiry_ns\",\"start_instr\","
        "\"stop_instr\",\"expiry_instr\",\"ops\"}],\"targets\":[...],"
        "\"fig3\":[{\"mode\",\"tasks\",\"instructions\"}],\"fig4\":[{\"tasks\","
        "\"period_ms\",\"ticked_ns\",\"tickless_ns\",\"factor\",...}]}; null where "
        "not measured",
    .describe = tm_describe,
};

/* ---- random numbers ------------------------------------------------------------- */

static uint64_t rng;
static uint64_t rng_seed; /* --seed */

/* Part 1's random stream of workload @p w at @p n pending (@p part 0: the
 * set-up and the start/stop batches, 1: the expiry batches), the same for
 * every structure: they are measured on the same timeouts and batches,
 * also in the callgrind child. */
static void reseed(unsigned w, size_t n, unsigned part) {
  rng = rng_seed ^ ((uint64_t)w + 1u) * 0x9e3779b97f4a7c15ull ^
        (uint64_t)n * 0xbf58476d1ce4e5b9ull ^ ((uint64_t)part + 1u) * 0x94d049bb133111ebull;
}

static uint64_t rnd(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rnd_in(uint64_t lo, uint64_t hi) {
  return lo + rnd() % (hi - lo + 1u);
}

/* ---- workloads ------------------------------------------------------------------- */

/* A timeout of workload w in microseconds (= ticks of the 1 MHz instance). */
static uint64_t timeout_us(unsigned w) {
  return w == W_NETWORK ? rnd_in(100000u, 3000000u) : rnd_in(1000u, 10000000u);
}

/* ---- the structures under test ---------------------------------------------------- */

static const utim_periph_t *inst;     /* expiries: a sim instance, interrupts */
static const utim_periph_t *inst_ops; /* start and stop: the NOP driver */
static utim_tm_t mgr;
static utim_tm_timer_t *tmt;
static volatile uint64_t fired; /* callbacks of all structures */

static void tm_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
  fired++;
}

#ifdef UTIM_BENCH_HAVE_LIBUV
static uv_loop_t uvl;
static uv_timer_t *uvt;

static void uv_cb(uv_timer_t *h) {
  (void)h;
  fired++;
}
#endif

static dl_node_t *dlt; /* the delta list baseline's nodes (tm_dlist.c) */

/* ---- one structure's operations --------------------------------------------------- */

/* Start timer i of structure s, @p ticks ahead (us), periodic when @p period. */
static void op_start(unsigned s, size_t i, uint64_t ticks, uint64_t period) {
  switch (s) {
  case S_TM:
    (void)utim_tm_start(&mgr, &tmt[i], ticks, period);
    break;
#ifdef UTIM_BENCH_HAVE_LIBUV
  case S_UV:
    (void)uv_timer_start(&uvt[i], uv_cb, ticks / 1000u, period / 1000u);
    break;
#endif
  default:
    dlt[i].period = period;
    dl_insert(&dlt[i], ticks);
    break;
  }
}

static void op_stop(unsigned s, size_t i) {
  switch (s) {
  case S_TM:
    (void)utim_tm_stop(&mgr, &tmt[i]);
    break;
#ifdef UTIM_BENCH_HAVE_LIBUV
  case S_UV:
    (void)uv_timer_stop(&uvt[i]);
    break;
#endif
  default:
    dl_remove(&dlt[i]);
    break;
  }
}

/* Batches: separate functions so that callgrind can count them apart. */
static size_t *batch_idx;
static uint64_t *batch_ticks;

/* A structure's start and stop batches (named apart for callgrind). */
#define BATCH_FNS(tag, S)                                                                          \
  __attribute__((noinline)) static void tmb_cg_##tag##_start(size_t k) {                           \
    for (size_t j = 0; j < k; j++) {                                                               \
      op_start((S), batch_idx[j], batch_ticks[j], 0u);                                             \
    }                                                                                              \
  }                                                                                                \
  __attribute__((noinline)) static void tmb_cg_##tag##_stop(size_t k) {                            \
    for (size_t j = 0; j < k; j++) {                                                               \
      op_stop((S), batch_idx[j]);                                                                  \
    }                                                                                              \
  }
BATCH_FNS(tm, S_TM)
BATCH_FNS(uv, S_UV)
BATCH_FNS(dl, S_DL)

typedef void (*batch_fn)(size_t k);
static const batch_fn start_fn[S_COUNT] = {tmb_cg_tm_start, tmb_cg_uv_start, tmb_cg_dl_start};
static const batch_fn stop_fn[S_COUNT] = {tmb_cg_tm_stop, tmb_cg_uv_stop, tmb_cg_dl_stop};
static const char *const start_name[S_COUNT] = {"tmb_cg_tm_start", "tmb_cg_uv_start",
                                                "tmb_cg_dl_start"};
static const char *const stop_name[S_COUNT] = {"tmb_cg_tm_stop", "tmb_cg_uv_stop",
                                               "tmb_cg_dl_stop"};
static const char *const expire_name[S_COUNT] = {"tmb_cg_tm_expire", "tmb_cg_uv_expire",
                                                 "tmb_cg_dl_expire"};

/* Expiry: the batch's timers are due; run what serves them. */
static uint32_t tm_key;

__attribute__((noinline)) static void tmb_cg_tm_expire(void) {
  utim_port_unlock(tm_key); /* the interrupt held off meanwhile is delivered */
}
#ifdef UTIM_BENCH_HAVE_LIBUV
__attribute__((noinline)) static void tmb_cg_uv_expire(void) {
  (void)uv_run(&uvl, UV_RUN_NOWAIT);
}
#endif
static uint64_t dl_due;
__attribute__((noinline)) static void tmb_cg_dl_expire(void) {
  fired += dl_advance(dl_due);
}

static bool have(unsigned s) {
#ifdef UTIM_BENCH_HAVE_LIBUV
  (void)s;
  return true;
#else
  return s != S_UV;
#endif
}

/* ---- set-up of N pending timers ------------------------------------------------------ */

static size_t *perm;
static uint64_t (*pairs)[2];

static int alloc_all(size_t n) {
  tmt = calloc(n, sizeof *tmt);
  dlt = calloc(n, sizeof *dlt);
  perm = calloc(n, sizeof *perm);
  pairs = calloc(n, sizeof *pairs);
  batch_idx = calloc(n, sizeof *batch_idx);
  batch_ticks = calloc(n, sizeof *batch_ticks);
#ifdef UTIM_BENCH_HAVE_LIBUV
  uvt = calloc(n, sizeof *uvt);
  if (uvt == NULL) {
    return -1;
  }
#endif
  return tmt != NULL && dlt != NULL && perm != NULL && pairs != NULL && batch_idx != NULL &&
                 batch_ticks != NULL
             ? 0
             : -1;
}

int tm_bench_begin(utim_tm_t *m, const utim_periph_t *p, utim_tm_mode_t mode, uint64_t tick) {
  sim_reset();
  sim_set_access_cost(BENCH_SIM_ACCESS_COST_NS);
  uint32_t hz = 0;
  if (utim_closest_freq(p, 1000000u, UTIM_CLOCK_DEFAULT, &hz) != 0 || hz != 1000000u ||
      utim_init(p, hz, UTIM_CLOCK_DEFAULT) != 0 || utim_start(p) != 0) {
    return -1;
  }
  return utim_tm_init(m, p, 0u, mode, tick);
}

/* N timers of structure s pending on workload w; the manager on @p p. */
static int setup(unsigned s, unsigned w, size_t n, const utim_periph_t *p) {
  reseed(w, n, 0u);
  if (s == S_TM) {
    if (tm_bench_begin(&mgr, p, UTIM_TM_TICKLESS, 0u) != 0) {
      return -1;
    }
    for (size_t i = 0; i < n; i++) {
      utim_tm_timer_init(&tmt[i], tm_cb, NULL);
    }
  }
#ifdef UTIM_BENCH_HAVE_LIBUV
  if (s == S_UV) {
    if (uv_loop_init(&uvl) != 0) {
      return -1;
    }
    for (size_t i = 0; i < n; i++) {
      (void)uv_timer_init(&uvl, &uvt[i]);
    }
  }
#endif
  for (size_t i = 0; i < n; i++) {
    perm[i] = i;
    const uint64_t t = timeout_us(w);
    const uint64_t period = w == W_PERIODIC && (i & 1u) != 0u ? t : 0u;
    if (s == S_DL) {
      pairs[i][0] = t;
      pairs[i][1] = i;
      dlt[i].period = period;
    } else {
      op_start(s, i, t, period);
    }
  }
  if (s == S_DL) {
    dl_build(dlt, pairs, n);
  }
  return 0;
}

static void teardown(unsigned s, size_t n) {
  if (s == S_TM) {
    (void)utim_tm_deinit(&mgr);
  }
#ifdef UTIM_BENCH_HAVE_LIBUV
  if (s == S_UV) {
    for (size_t i = 0; i < n; i++) {
      uv_close((uv_handle_t *)&uvt[i], NULL);
    }
    (void)uv_run(&uvl, UV_RUN_NOWAIT);
    (void)uv_loop_close(&uvl);
  }
#endif
  (void)n;
}

/* K distinct random timers (a partial shuffle) and their new timeouts. */
static void pick(size_t n, size_t k, unsigned w) {
  for (size_t j = 0; j < k; j++) {
    const size_t r = j + (size_t)(rnd() % (n - j));
    const size_t tmp = perm[j];
    perm[j] = perm[r];
    perm[r] = tmp;
    batch_idx[j] = perm[j];
    batch_ticks[j] = timeout_us(w);
  }
}

static double now_ns(void) {
  return (double)utim_native_clock_ns(CLOCK_MONOTONIC);
}

/* ---- part 1: cost per operation ---------------------------------------------------- */

/* Operations per timed batch: up to 1000 distinct timers, fewer for the
 * delta list at large N (each insert walks half of it). */
static size_t batch_of(unsigned s, size_t n) {
  size_t k = n / 2u < 1000u ? n / 2u : 1000u;
  if (s == S_DL) {
    const size_t lim = (size_t)(4000000u / n);
    k = k < lim ? k : (lim < 4u ? 4u : lim);
  }
  return k < 1u ? 1u : k;
}

/* The median of @p v[0..n) (sorts it), through the bench's statistics. */
static double median(double *v, size_t n) {
  bench_stats_t st;
  bench_stats(v, n, &st);
  return st.median;
}

/* The expiry batch: k of the pending timers made due, then served. */
static double expire_batch(unsigned s, unsigned w, size_t k, uint64_t *served) {
  const uint64_t fired0 = fired;
  const uint64_t period = w == W_PERIODIC ? timeout_us(w) : 0u;
  double t0 = 0.0;
  double t1 = 0.0;
  switch (s) {
  case S_TM:
    tm_key = utim_port_lock();
    for (size_t j = 0; j < k; j++) {
      (void)utim_tm_start(&mgr, &tmt[batch_idx[j]], 1u + j, period);
    }
    sim_advance((k + 2u) * 1000u); /* 1 us a tick: past all of them */
    t0 = now_ns();
    tmb_cg_tm_expire();
    t1 = now_ns();
    break;
#ifdef UTIM_BENCH_HAVE_LIBUV
  case S_UV:
    for (size_t j = 0; j < k; j++) {
      (void)uv_timer_start(&uvt[batch_idx[j]], uv_cb, 0u, period / 1000u);
    }
    t0 = now_ns();
    tmb_cg_uv_expire();
    t1 = now_ns();
    break;
#endif
  default:
    for (size_t j = 0; j < k; j++) {
      dlt[batch_idx[j]].period = period;
      dl_insert(&dlt[batch_idx[j]], 1u + j);
    }
    dl_due = k + 1u;
    t0 = now_ns();
    tmb_cg_dl_expire();
    t1 = now_ns();
    break;
  }
  *served = fired - fired0;
  /* Back to N pending on the workload's timeouts (untimed). */
  for (size_t j = 0; j < k; j++) {
    op_start(s, batch_idx[j], timeout_us(w), 0u);
  }
  return t1 - t0;
}

/* A fresh batch for the floors: the uniform workload's (pick()). */
typedef struct floor_pick {
  size_t n, k;
  unsigned w;
} floor_pick_t;

static void floor_pick(void *ctx) {
  const floor_pick_t *fp = ctx;
  pick(fp->n, fp->k, fp->w);
}

static void measure_cost(const tm_opts_t *o, tm_report_t *r, unsigned w, unsigned s, size_t ni) {
  const size_t n = tm_n_list[ni];
  cost_t *c = &r->cost[w][s][ni];
  bench_progress("%s: %s, %zu pending", tm_w_name[w], tm_s_name[s], n);
  if (!have(s) || setup(s, w, n, inst_ops) != 0) {
    return;
  }
  const size_t k = batch_of(s, n);
  const unsigned rounds = (unsigned)o->rounds;
  double *v0 = calloc(rounds, sizeof *v0);
  double *v1 = calloc(rounds, sizeof *v1);
  double *v2 = calloc(rounds, sizeof *v2);
  if (v0 != NULL && v1 != NULL && v2 != NULL) {
    /* One untimed round first: code and the batch's paths warm. */
    pick(n, k, w);
    stop_fn[s](k);
    start_fn[s](k);
    for (unsigned rd = 0; rd < rounds; rd++) {
      pick(n, k, w);
      double t0 = now_ns();
      if (w == W_NETWORK) {
        start_fn[s](k); /* a restart of pending timers */
      } else {
        stop_fn[s](k);
      }
      double t1 = now_ns();
      if (w == W_NETWORK) {
        v0[rd] = (t1 - t0) / (double)k;
        t0 = now_ns();
        stop_fn[s](k);
        t1 = now_ns();
        v1[rd] = (t1 - t0) / (double)k;
        start_fn[s](k); /* back to N pending (untimed) */
      } else {
        v1[rd] = (t1 - t0) / (double)k;
        t0 = now_ns();
        start_fn[s](k);
        t1 = now_ns();
        v0[rd] = (t1 - t0) / (double)k;
      }
    }
    if (s == S_TM && w == W_UNIFORM) {
      /* The memory floor: the same batches, each operation one read of
       * its timer (what any structure must at least touch), independent
       * reads and dependent ones, a bare unlink from its list, and the
       * wheel's own remove (the manager's stop without lock and checks). After
       * the timed rounds, so they cannot move the cost figures (with the
       * unlink measured first, one comparison of three runs each found the
       * starts at 10^6 at 45-61 ns against 38-39 without it). */
      floor_pick_t fp = {n, k, w};
      const tm_floor_batch_t fb = {&mgr.wheel, tmt, batch_idx, k, floor_pick, &fp};
      tm_floors_measure(&fb, rounds, v2, &r->floor[ni]);
    }
    if (s == S_TM) {
      /* Expiries need the interrupt: the same N pending on the sim instance. */
      teardown(s, n);
      if (setup(s, w, n, inst) != 0) {
        c->measured = false;
        free(v0);
        free(v1);
        free(v2);
        return;
      }
    }
    reseed(w, n, 1u);
    for (unsigned rd = 0; rd < rounds; rd++) {
      pick(n, k, w);
      uint64_t served = 0;
      double e = expire_batch(s, w, k, &served);
      if (s == S_UV) {
        e -= r->uv_idle_ns;
      }
      /* Per timer served: the batch, and any pending timer whose own
       * timeout passed meanwhile (libuv's clock runs during the set-up). */
      v2[rd] = (e < 0.0 ? 0.0 : e) / (double)(served > 0u ? served : 1u);
    }
    c->start_ns = median(v0, rounds);
    c->stop_ns = median(v1, rounds);
    c->expiry_ns = median(v2, rounds);
    c->ops = k;
    c->measured = true;
  }
  free(v0);
  free(v1);
  free(v2);
  teardown(s, n);
}

#ifdef UTIM_BENCH_HAVE_LIBUV
#define UV_IDLE_RUNS 15u
static double uv_idle(void) {
  (void)uv_loop_init(&uvl);
  double v[UV_IDLE_RUNS] = {0};
  for (unsigned i = 0; i < UV_IDLE_RUNS; i++) {
    const double t0 = now_ns();
    (void)uv_run(&uvl, UV_RUN_NOWAIT);
    v[i] = now_ns() - t0;
  }
  (void)uv_loop_close(&uvl);
  return median(v, UV_IDLE_RUNS);
}
#endif

/* ---- part 1 under callgrind: the child ---------------------------------------------- */

static int child_cost(const tm_opts_t *o) {
  const size_t n = o->child_n;
  for (unsigned s = 0; s < S_COUNT; s++) {
    if (!have(s) || setup(s, W_UNIFORM, n, inst_ops) != 0) {
      continue;
    }
    const size_t k = batch_of(s, n);
    pick(n, k, W_UNIFORM);
    stop_fn[s](k);
    start_fn[s](k);
    if (s == S_TM) {
      teardown(s, n);
      if (setup(s, W_UNIFORM, n, inst) != 0) {
        continue;
      }
    }
    reseed(W_UNIFORM, n, 1u);
    pick(n, k, W_UNIFORM);
    uint64_t served = 0;
    (void)expire_batch(s, W_UNIFORM, k, &served);
    teardown(s, n);
  }
  return 0;
}

/* ---- callgrind ---------------------------------------------------------------------- */

static void count_instructions(const tm_opts_t *o, tm_report_t *r) {
  char valgrind[512];
  char err[256];
  if (o->no_callgrind) {
    snprintf(r->cg_note, sizeof r->cg_note, "disabled (--no-callgrind)");
    return;
  }
  if (!bench_find_valgrind(valgrind, sizeof valgrind)) {
    snprintf(r->cg_note, sizeof r->cg_note, "not available (valgrind not found in PATH)");
    return;
  }
  snprintf(r->cg_note, sizeof r->cg_note,
           "valgrind --tool=callgrind, inclusive Ir of each batch / its operations (uniform "
           "workload, N up to 10^5)");
  char seed[32];
  snprintf(seed, sizeof seed, "%lu", o->seed);
  for (size_t ni = 0; ni < r->nn && tm_n_list[ni] <= 100000u; ni++) {
    bench_progress("callgrind: %zu pending", tm_n_list[ni]);
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", tm_n_list[ni]);
    char *args[] = {"tm", "--callgrind-child", "--child-n", nbuf, "--seed", seed, NULL};
    const char *names[3u * S_COUNT];
    uint64_t incl[3u * S_COUNT];
    for (size_t s = 0; s < S_COUNT; s++) {
      names[3u * s] = start_name[s];
      names[3u * s + 1u] = stop_name[s];
      names[3u * s + 2u] = expire_name[s];
    }
    if (bench_callgrind(valgrind, args, "tmb_cg_*", names, (size_t)3u * S_COUNT, incl, err,
                        sizeof err) != 0) {
      snprintf(r->cg_note, sizeof r->cg_note, "failed (%.250s)", err);
      return;
    }
    for (size_t s = 0; s < S_COUNT; s++) {
      cost_t *c = &r->cost[W_UNIFORM][s][ni];
      const double k = (double)batch_of((unsigned)s, tm_n_list[ni]);
      if (have((unsigned)s) && incl[3u * s] > 0u) {
        c->start_instr = (double)incl[3u * s] / k;
        c->stop_instr = (double)incl[3u * s + 1u] / k;
        c->expiry_instr = (double)incl[3u * s + 2u] / k;
        c->have_instr = true;
      }
    }
  }
  /* Fig. 3 and Fig. 4 (instructions) in one child. */
  bench_progress("callgrind: Fig. 3 and Fig. 4");
  if (tm_paper_count(&r->paper, valgrind, o->quick, err, sizeof err) != 0) {
    snprintf(r->cg_note, sizeof r->cg_note, "Fig. 3/4 failed (%.250s)", err);
  }
}

/* ---- the command ---------------------------------------------------------------------- */

static int prepare(const tm_opts_t *o) {
  sim_board_init();
  inst = utim_by_name("SIM_MTIME64");
  inst_ops = &utim_nop64;
  if (inst == NULL) {
    fprintf(stderr, BENCH_PROG ": tm: the sim board has no SIM_MTIME64 instance\n");
    return 1;
  }
  tm_paper_use(inst);
  rng_seed = o->seed;
  rng = o->seed;
  if (alloc_all(o->child ? (o->child_n > 0u ? o->child_n : 1u) : (size_t)o->max_n) != 0) {
    fprintf(stderr, BENCH_PROG ": tm: out of memory for %lu timers\n", o->max_n);
    return 1;
  }
  return 0;
}

int bench_cmd_tm(int argc, char **argv) {
  tm_opts_t o = {.rounds = 7u, .seed = 1u, .max_n = 1000000u};
  bench_output_t out;
  int rc = bench_cli_parse(&tm_cli, argc, argv, &o, &out);
  if (rc != BENCH_CLI_RUN) {
    return rc;
  }
  if (o.quick) {
    o.max_n = o.max_n < 1000u ? o.max_n : 1000u;
    o.rounds = o.rounds < 3u ? o.rounds : 3u;
  }
  if (prepare(&o) != 0) {
    bench_output_discard(&out);
    return 1;
  }
  if (o.child) {
    bench_output_discard(&out);
    return o.child_n > 0u ? child_cost(&o) : tm_paper_child(o.quick);
  }
  bench_progress_init();
  static tm_report_t r;
  bench_machine_t m;
  r.rounds = o.rounds;
  r.seed = o.seed;
  r.inst = utim_name(inst);
  r.inst_ops = utim_name(inst_ops);
  bench_progress("calibrating the TSC");
  bench_machine_probe(&m);
#ifdef UTIM_BENCH_HAVE_LIBUV
  r.uv_idle_ns = uv_idle();
#endif
  for (r.nn = 0; r.nn < TM_NS_COUNT && tm_n_list[r.nn] <= o.max_n; r.nn++) {
  }
  for (unsigned w = 0; w < W_COUNT; w++) {
    for (size_t ni = 0; ni < r.nn; ni++) {
      for (unsigned s = 0; s < S_COUNT; s++) {
        measure_cost(&o, &r, w, s, ni);
      }
    }
  }
  tm_paper_plan(&r.paper, o.quick);
  tm_paper_measure(&r.paper, o.rounds);
  count_instructions(&o, &r);
  bench_progress_done();
  return bench_output_write(&out, &tm_report_writer, &m, &r);
}
