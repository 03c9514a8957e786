/**
 * @file bench_core.c
 * @brief Portable measuring core of utim-bench (no heap, no stdio).
 */
#include "utim/port.h"
#include "utim_bench.h"

volatile bench_ops_params_t bench_ops_params = {
    .value_mask = UINT64_MAX, .target = 0u, .channel = 0u};
volatile uint64_t bench_sink;

const char *bench_op_name(unsigned op) {
  static const char *const names[BENCH_OP_COUNT] = {"read", "write", "set", "clear"};
  return op < BENCH_OP_COUNT ? names[op] : "?";
}

const char *bench_path_name(unsigned path) {
  static const char *const names[BENCH_PATH_COUNT] = {"uapi-ct", "uapi-rt", "hapi"};
  return path < BENCH_PATH_COUNT ? names[path] : path == BENCH_PATH_RIOT ? "riot" : "?";
}

BENCH_NOINLINE void bench_loop_baseline(uint32_t n) {
  /* Mirrors the measured loops (barrier, accumulator, final store) minus the call. */
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    acc += i;
  }
  bench_sink = acc;
}

BENCH_NOINLINE void bench_loop_port_lock(uint32_t n) {
  uint64_t acc = 0;
  for (uint32_t i = 0; i < n; i++) {
    BENCH_BARRIER();
    uint32_t key = utim_port_lock();
    acc += key;
    utim_port_unlock(key);
  }
  bench_sink = acc;
}

static int prepare_one(const utim_periph_t *p, uint32_t hz) {
  int rc = utim_init(p, hz, UTIM_CLOCK_DEFAULT);
  if (rc == 0) {
    rc = utim_start(p);
  }
  if (rc == 0 && (utim_caps(p) & UTIM_CAP_WRITE) != 0u) {
    rc = utim_write(p, 0u);
  }
  if (rc == 0) {
    rc = utim_clear(p, bench_ops_params.channel);
  }
  return rc;
}

int bench_ops_prepare(const bench_ops_set_t *set, uint32_t hz) {
  const utim_periph_t *rt = *set->rt;
  int rc = prepare_one(set->ct, hz);
  if (rc == 0 && rt != set->ct) {
    rc = prepare_one(rt, hz);
  }
  if (rc != 0) {
    return rc;
  }
  /*
   * Both instances have the same shape, so one target serves both. 16 ticks
   * of margin beyond the minimum distance keep set_abs valid when the counter
   * moves a little during a run; +0xff is the spread the set loops add.
   */
  uint64_t now = utim_read(set->ct);
  bench_ops_params.value_mask = utim_max(set->ct);
  bench_ops_params.target = (now + utim_min_distance(set->ct) + 16u) & utim_max(set->ct);
  return 0;
}

int bench_ops_check(const bench_ops_set_t *set, uint32_t hz, uint32_t n, unsigned *failed) {
  for (unsigned i = 0; i < BENCH_OP_COUNT * BENCH_PATH_COUNT; i++) {
    const bench_case_t *c = &set->cases[i];
    int rc = bench_ops_prepare(set, hz);
    if (rc == 0) {
      bench_sink = 0u;
      c->loop(n);
      /* The write, set and clear loops OR the return codes into the sink. */
      if (c->op != BENCH_OP_READ && bench_sink != 0u) {
        rc = (int)(int64_t)bench_sink;
        rc = rc < 0 ? rc : -EINVAL;
      }
    }
    if (rc != 0) {
      if (failed != NULL) {
        *failed = i;
      }
      return rc;
    }
  }
  return 0;
}

void bench_time_runs(bench_loop_fn loop, uint32_t iters, unsigned runs, bench_stamp_fn stamp,
                     uint64_t *d0, uint64_t *d1) {
  for (unsigned r = 0; r < runs; r++) {
    bench_stamp_t a;
    bench_stamp_t b;
    stamp(&a);
    loop(iters);
    stamp(&b);
    d0[r] = b.t[0] - a.t[0];
    d1[r] = b.t[1] - a.t[1];
  }
}

uint64_t bench_median_u64(uint64_t *v, unsigned n) {
  if (n == 0u) {
    return 0u;
  }
  /* Insertion sort: n is a run count (tens), and it needs no heap. */
  for (unsigned i = 1; i < n; i++) {
    uint64_t x = v[i];
    unsigned j = i;
    while (j > 0u && v[j - 1u] > x) {
      v[j] = v[j - 1u];
      j--;
    }
    v[j] = x;
  }
  if ((n & 1u) != 0u) {
    return v[n / 2u];
  }
  uint64_t lo = v[n / 2u - 1u];
  uint64_t hi = v[n / 2u];
  return lo + (hi - lo) / 2u;
}
