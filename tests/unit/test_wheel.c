/**
 * @file test_wheel.c
 * @brief The time manager's timing wheel (src/tm/wheel.c): level boundaries
 *        and cascades, expiries at the wheel's time, 0 and the farthest
 *        ahead, the far list, a wrap of the 64-bit tick count, removal and
 *        changes made from the expiry function; then a seeded randomized run
 *        against a reference model (a plain array searched for the earliest
 *        entry). Built for several wheel geometries (UTIM_TM_WHEEL_BITS and
 *        _LEVELS from the build), the small ones putting most entries on the
 *        far list and through many cascades.
 *
 * Usage: test_wheel [--seed N] [--ops N]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "utim/tm_wheel.h"

#define SPAN_BITS (UTIM_TM_WHEEL_BITS * UTIM_TM_WHEEL_LEVELS)
#define HALF      ((uint64_t)1 << 63)
#define NNODES    512u

static utim_tm_wheel_t wheel;

typedef struct tnode {
  utim_tm_node_t node; /* first: the wheel's node */
  unsigned id;
} tnode_t;

static tnode_t nodes[NNODES];

/* ---- what expired, with the wheel's time then ----------------------------- */

#define LOG_MAX 4096u
static unsigned log_id[LOG_MAX];
static uint64_t log_at[LOG_MAX];
static unsigned log_n;

static bool record(utim_tm_node_t *n, void *ctx) {
  (void)ctx;
  if (log_n < LOG_MAX) {
    log_id[log_n] = ((tnode_t *)(void *)n)->id;
    log_at[log_n] = utim_tm_wheel_time(&wheel);
  }
  log_n++;
  return true;
}

static void reset(uint64_t now) {
  utim_tm_wheel_init(&wheel, now);
  for (unsigned i = 0; i < NNODES; i++) {
    memset(&nodes[i], 0, sizeof nodes[i]);
    nodes[i].id = i;
  }
  log_n = 0;
}

/* Insert node id at expiry e, advance through e - 1, e, and check it expired
 * exactly at e (and not before). */
static void expect_exact(uint64_t clk, uint64_t e) {
  reset(clk);
  utim_tm_wheel_insert(&wheel, &nodes[1].node, e);
  uint64_t nx = 0;
  TH_CHECK(utim_tm_wheel_next(&wheel, &nx));
  TH_CHECKF(nx - clk <= e - clk, "next 0x%" PRIx64 " after the expiry 0x%" PRIx64, nx, e);
  if (e != clk) {
    TH_EQU(utim_tm_wheel_advance(&wheel, e - 1u, record, NULL), 0);
    TH_CHECKF(log_n == 0u, "expired before 0x%" PRIx64 " (clk 0x%" PRIx64 ")", e, clk);
  }
  TH_EQU(utim_tm_wheel_advance(&wheel, e, record, NULL), 1);
  if (TH_EQU(log_n, 1)) {
    TH_EQU(log_at[0], e);
  }
  TH_CHECK(!utim_tm_node_pending(&nodes[1].node));
  TH_EQU(wheel.count, 0);
}

static void t_level_boundaries(void *arg) {
  (void)arg;
  static const uint64_t clks[] = {0u, 1u, 63u, 64u, 0x12345u, 0xffffffffu, HALF - 1u, HALF};
  for (unsigned c = 0; c < sizeof clks / sizeof clks[0]; c++) {
    for (unsigned b = 0; b < 63u; b++) {
      const uint64_t p = (uint64_t)1 << b;
      /* Just below, at and just above each power of two from clk, and the
       * tick that carries into each digit. */
      const uint64_t es[] = {clks[c] + p - 1u, clks[c] + p, clks[c] + p + 1u,
                             (clks[c] | (p - 1u)) + 1u};
      for (unsigned k = 0; k < 4u; k++) {
        th_context("clk 0x%" PRIx64 " expiry 0x%" PRIx64, clks[c], es[k]);
        expect_exact(clks[c], es[k]);
      }
    }
  }
}

static void t_now_zero_max(void *arg) {
  (void)arg;
  th_context("at the wheel's time");
  expect_exact(0u, 0u);
  expect_exact(777u, 777u);
  th_context("farthest ahead");
  expect_exact(0u, HALF - 1u);
  expect_exact(5u, 5u + HALF - 1u);
  /* Not ahead (2^63 or more away): due at once. */
  th_context("due when inserted");
  reset(1000u);
  utim_tm_wheel_insert(&wheel, &nodes[2].node, 10u);
  utim_tm_wheel_insert(&wheel, &nodes[3].node, 1000u + HALF);
  uint64_t nx = 0;
  TH_CHECK(utim_tm_wheel_next(&wheel, &nx) && nx == 1000u);
  TH_EQU(utim_tm_wheel_advance(&wheel, 1000u, record, NULL), 2);
  TH_CHECK(log_n == 2u && log_id[0] == 2u && log_id[1] == 3u && log_at[1] == 1000u);
  /* Behind the wheel's time: nothing moves. */
  TH_EQU(utim_tm_wheel_advance(&wheel, 999u, record, NULL), 0);
  TH_EQU(utim_tm_wheel_time(&wheel), 1000u);
  /* Empty: no next; time still moves. */
  TH_CHECK(!utim_tm_wheel_next(&wheel, &nx));
  TH_EQU(utim_tm_wheel_advance(&wheel, 1u << 30, record, NULL), 0);
  TH_EQU(utim_tm_wheel_time(&wheel), 1u << 30);
}

static void t_wrap(void *arg) {
  (void)arg;
  /* Across the 64-bit wrap: expiry 50 counts as 150 ticks ahead of clk. */
  const uint64_t clk = UINT64_MAX - 99u;
  expect_exact(clk, 50u);
  expect_exact(clk, UINT64_MAX);
  expect_exact(clk, 0u);
  reset(clk);
  for (unsigned i = 0; i < 200u; i++) {
    utim_tm_wheel_insert(&wheel, &nodes[i].node, clk + 1u + (uint64_t)i * 7u);
  }
  TH_EQU(utim_tm_wheel_advance(&wheel, 2000u, record, NULL), 200);
  for (unsigned i = 0; i < 200u && i < log_n; i++) {
    TH_CHECKF(log_id[i] == i && log_at[i] == clk + 1u + (uint64_t)i * 7u, "%u: id %u at 0x%" PRIx64,
              i, log_id[i], log_at[i]);
  }
}

static void t_order_and_remove(void *arg) {
  (void)arg;
  reset(100u);
  /* Equal expiries in insertion order, also when some arrive by cascade. */
  utim_tm_wheel_insert(&wheel, &nodes[0].node, 100000u);
  utim_tm_wheel_insert(&wheel, &nodes[1].node, 100000u);
  TH_EQU(utim_tm_wheel_advance(&wheel, 99990u, record, NULL), 0);
  utim_tm_wheel_insert(&wheel, &nodes[2].node, 100000u);
  utim_tm_wheel_insert(&wheel, &nodes[3].node, 99995u);
  /* Removed ones never expire, wherever they are. */
  utim_tm_wheel_insert(&wheel, &nodes[4].node, 100000u);
  utim_tm_wheel_insert(&wheel, &nodes[5].node, 100000u + ((uint64_t)1 << 60));
  TH_CHECK(utim_tm_wheel_remove(&wheel, &nodes[4].node));
  TH_CHECK(utim_tm_wheel_remove(&wheel, &nodes[5].node));
  TH_CHECK(!utim_tm_wheel_remove(&wheel, &nodes[5].node)); /* not pending: nothing */
  TH_EQU(wheel.count, 4);
  TH_EQU(utim_tm_wheel_advance(&wheel, (uint64_t)1 << 62, record, NULL), 4);
  TH_CHECK(log_n == 4u && log_id[0] == 3u && log_id[1] == 0u && log_id[2] == 1u && log_id[3] == 2u);
}

/* The expiry function re-inserts its node (a periodic timer), removes
 * another and inserts a due one, which expires in the same call. */
static unsigned fn_calls;

static bool periodic_fn(utim_tm_node_t *n, void *ctx) {
  (void)ctx;
  (void)record(n, NULL);
  const tnode_t *t = (const tnode_t *)(void *)n;
  fn_calls++;
  if (t->id == 0u && fn_calls < 10u) {
    utim_tm_wheel_insert(&wheel, n, n->expiry + 1000u);
    if (fn_calls == 3u) {
      (void)utim_tm_wheel_remove(&wheel, &nodes[1].node);
      utim_tm_wheel_insert(&wheel, &nodes[2].node, utim_tm_wheel_time(&wheel) - 5u);
    }
  }
  return true;
}

static void t_changes_from_expiry(void *arg) {
  (void)arg;
  reset(0u);
  fn_calls = 0;
  utim_tm_wheel_insert(&wheel, &nodes[0].node, 1000u);
  utim_tm_wheel_insert(&wheel, &nodes[1].node, 3500u);
  TH_EQU(utim_tm_wheel_advance(&wheel, 20000u, periodic_fn, NULL), 10);
  /* 0 at 1000..9000 (9 times), 2 at 3000 right after 0's third expiry. */
  if (TH_EQU(log_n, 10)) {
    unsigned k = 0;
    for (unsigned i = 0; i < 10u; i++) {
      if (i == 3u) {
        TH_CHECK(log_id[i] == 2u && log_at[i] == 3000u);
        continue;
      }
      k++;
      TH_CHECKF(log_id[i] == 0u && log_at[i] == (uint64_t)k * 1000u, "%u: id %u at %" PRIu64, i,
                log_id[i], log_at[i]);
    }
  }
  TH_EQU(wheel.count, 0);
}

/* An expiry function that sets the wheel up again (the time manager's
 * callback that ends the manager and starts it anew) ends the advance: the
 * new wheel's entries are not advanced to the old target. */
static bool reinit_fn(utim_tm_node_t *n, void *ctx) {
  (void)ctx;
  (void)record(n, NULL);
  utim_tm_wheel_init(&wheel, 0u);
  utim_tm_wheel_insert(&wheel, &nodes[1].node, 100u);
  return false;
}

static void t_stop_from_expiry(void *arg) {
  (void)arg;
  reset(0u);
  utim_tm_wheel_insert(&wheel, &nodes[0].node, 4000u);
  TH_EQU(utim_tm_wheel_advance(&wheel, 5000u, reinit_fn, NULL), 1);
  TH_EQU(log_n, 1);
  TH_EQU(utim_tm_wheel_time(&wheel), 0);
  TH_CHECK(utim_tm_node_pending(&nodes[1].node));
  TH_EQU(utim_tm_wheel_advance(&wheel, 99u, record, NULL), 0);
  TH_EQU(utim_tm_wheel_advance(&wheel, 100u, record, NULL), 1);
}

/* ---- randomized run against a reference model ------------------------------ */

typedef struct model {
  bool pending;
  uint64_t key; /* effective expiry: the expiry, or the wheel's time if inserted due */
  uint64_t seq; /* insertion order */
} model_t;

static model_t mdl[NNODES];
static uint64_t mdl_seq;
static uint64_t rng_state;
static unsigned mismatches;

static uint64_t rnd(void) {
  return th_rand64(&rng_state);
}

/* A distance spread over every magnitude up to 2^63 - 1. */
static uint64_t rnd_dist(void) {
  const unsigned b = (unsigned)(rnd() % 64u);
  uint64_t d = b == 0u ? 0u : rnd() >> (64u - b);
  return d >= HALF ? HALF - 1u : d;
}

static void m_insert(unsigned id, uint64_t e) {
  const uint64_t clk = utim_tm_wheel_time(&wheel);
  mdl[id].pending = true;
  mdl[id].key = (e - clk >= HALF) ? clk : e;
  mdl[id].seq = mdl_seq++;
  utim_tm_wheel_insert(&wheel, &nodes[id].node, e);
}

static void m_remove(unsigned id) {
  /* It says whether the entry was on the wheel, as the model has it. */
  TH_EQ(utim_tm_wheel_remove(&wheel, &nodes[id].node), mdl[id].pending);
  mdl[id].pending = false;
}

/* The model's earliest pending entry, or NNODES. */
static unsigned m_first(void) {
  const uint64_t clk = utim_tm_wheel_time(&wheel);
  unsigned best = NNODES;
  for (unsigned i = 0; i < NNODES; i++) {
    if (!mdl[i].pending) {
      continue;
    }
    if (best == NNODES || mdl[i].key - clk < mdl[best].key - clk ||
        (mdl[i].key == mdl[best].key && mdl[i].seq < mdl[best].seq)) {
      best = i;
    }
  }
  return best;
}

static bool random_fn(utim_tm_node_t *n, void *ctx) {
  (void)ctx;
  const unsigned id = ((tnode_t *)(void *)n)->id;
  const unsigned want = m_first();
  const uint64_t clk = utim_tm_wheel_time(&wheel);
  if (want != id || mdl[id].key != clk) {
    if (mismatches++ < 5u) {
      TH_CHECKF(false, "expired %u at 0x%" PRIx64 ", the model expects %u at 0x%" PRIx64, id, clk,
                want, want < NNODES ? mdl[want].key : 0u);
    }
  }
  mdl[id].pending = false;
  /* From the expiry: sometimes re-insert it, remove another, insert another. */
  const uint64_t r = rnd() % 8u;
  if (r == 0u) {
    m_insert(id, clk + 1u + rnd_dist() % 100000u);
  } else if (r == 1u) {
    m_remove((unsigned)(rnd() % NNODES));
  } else if (r == 2u) {
    const unsigned o = (unsigned)(rnd() % NNODES);
    if (!mdl[o].pending) {
      m_insert(o, clk + rnd_dist() % 1000u);
    }
  }
  return true;
}

static unsigned long long opt_seed = 20261124u;
static unsigned long long opt_ops = 300000u;

static void t_random(void *arg) {
  (void)arg;
  rng_state = opt_seed;
  th_note("seed %llu, %llu operations (repeat: test_wheel --seed %llu --ops %llu)", opt_seed,
          opt_ops, opt_seed, opt_ops);
  const uint64_t start = rnd();
  reset(start);
  memset(mdl, 0, sizeof mdl);
  mdl_seq = 0;
  mismatches = 0;
  unsigned long long fired = 0;
  for (unsigned long long op = 0; op < opt_ops && mismatches == 0u; op++) {
    const unsigned id = (unsigned)(rnd() % NNODES);
    const uint64_t clk = utim_tm_wheel_time(&wheel);
    const unsigned r = (unsigned)(rnd() % 16u);
    if (r < 7u) {
      if (mdl[id].pending) {
        m_remove(id);
      }
      /* Mostly ahead; now and then exactly now or in the past. */
      const uint64_t e = r == 0u ? clk - rnd_dist() : clk + rnd_dist();
      m_insert(id, e);
    } else if (r < 10u) {
      m_remove(id);
    } else {
      /* Advance by a distance of any magnitude, often to the next expiry. */
      uint64_t to = clk + (rnd_dist() >> (rnd() % 40u));
      uint64_t nx = 0;
      const unsigned first = m_first();
      if (utim_tm_wheel_next(&wheel, &nx)) {
        if (first == NNODES || nx - clk > mdl[first].key - clk) {
          TH_CHECKF(false, "next 0x%" PRIx64 " is after the earliest 0x%" PRIx64, nx,
                    first < NNODES ? mdl[first].key : 0u);
          break;
        }
        if (r == 10u) {
          to = nx;
        }
      } else if (!TH_CHECKF(first == NNODES, "next() says empty, the model has %u", first)) {
        break;
      }
      fired += utim_tm_wheel_advance(&wheel, to, random_fn, NULL);
      const unsigned left = m_first();
      const uint64_t ahead = left < NNODES ? mdl[left].key - to : 1u;
      if (!TH_CHECKF(ahead >= 1u && ahead < HALF,
                     "0x%" PRIx64 " still pending after advancing to 0x%" PRIx64,
                     left < NNODES ? mdl[left].key : 0u, to)) {
        break;
      }
    }
    unsigned pending = 0;
    for (unsigned i = 0; i < NNODES; i++) {
      pending += mdl[i].pending ? 1u : 0u;
      if (mdl[i].pending != utim_tm_node_pending(&nodes[i].node)) {
        TH_CHECKF(false, "node %u pending %d, the model says %d", i,
                  utim_tm_node_pending(&nodes[i].node), mdl[i].pending);
        mismatches++;
        break;
      }
    }
    if (!TH_EQU(wheel.count, pending)) {
      break;
    }
  }
  th_note("%llu expiries checked", fired);
}

int main(int argc, char **argv) {
  if (th_seed_ops_args(argc, argv, "test_wheel", &opt_seed, &opt_ops) != 0) {
    return 2;
  }
  th_set_putc(th_stdio_putc);
  th_printf("TAP version 13\n");
  th_note("wheel: %d bits x %d levels (%d bits), node %zu bytes, wheel %zu bytes",
          UTIM_TM_WHEEL_BITS, UTIM_TM_WHEEL_LEVELS, SPAN_BITS, sizeof(utim_tm_node_t),
          sizeof(utim_tm_wheel_t));
  th_run("level boundaries and cascades", t_level_boundaries, NULL);
  th_run("at the wheel's time, 0, farthest ahead, due", t_now_zero_max, NULL);
  th_run("wrap of the 64-bit tick count", t_wrap, NULL);
  th_run("order of equal expiries, removal", t_order_and_remove, NULL);
  th_run("changes from the expiry function", t_changes_from_expiry, NULL);
  th_run("an expiry function that returns false ends the advance", t_stop_from_expiry, NULL);
  th_run("randomized against a reference model", t_random, NULL);
  return th_finish();
}
