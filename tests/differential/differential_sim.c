/**
 * @file differential_sim.c
 * @brief Seeded randomized differential test of the uAPI on the sim board.
 *
 * Random sequences of uAPI operations run on every instance of the sim board
 * and, step by step, on a small reference model written from the semantics
 * documented in include/utim/utim.h. The simulated machine runs with zero
 * register access cost, so virtual time moves only by explicit advances (and
 * by the core's busy-waits); the model predicts every return value, every
 * callback (source, argument, counter read inside it, virtual time), the
 * counter and the pending events. On a mismatch the failing sequence is
 * shrunk by delta debugging and printed as readable operations.
 *
 * Usage: differential_sim [--seed N] [--ops N] [--verbose]; the environment
 * variable UTIM_SEED sets the seed when --seed is not given.
 */
/* fork(), alarm(), setitimer(): the hang detector (host only); _XOPEN_SOURCE comes from CMake */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board_sim.h"
#include "sim.h"
#include "utim/utim.h"

/* ---- configuration ------------------------------------------------------ */

#define DEFAULT_SEED  0x75746d31ull /* fixed so CI runs are reproducible */
#define DEFAULT_OPS   1200000ull
#define MAX_SEQ       400u  /* operations per sequence, at most */
#define EVENT_CAP     48u   /* callbacks one advance may produce, at most */
#define MAX_RECS      1024u /* callback records per operation */
#define MAX_FREQS     2048u /* achievable frequencies per instance */
#define RELAX_NS      25u   /* below the shortest tick period (62.5 ns) */
#define SHRINK_BUDGET 20000u
#define NS_PER_S      1000000000ull
#ifndef HANG_S
#define HANG_S 10u /* a sequence taking this long (wall clock) is reported as a hang */
#endif

typedef unsigned __int128 u128;

/* ---- documented shapes (boards/sim/board_sim.h) ------------------------- */

typedef struct doc_shape {
  const char *name;
  unsigned width, channels, down;
  bool ovf, write, stop;
  unsigned min_distance; /* 0: not documented */
  /* Ticks between the interrupts a software-carry chain takes on its own
   * (one per low wrap); 0 for the others. Long steps are capped to a number
   * of these so that one step stays quick. */
  uint64_t carry_period;
} doc_shape_t;

static const doc_shape_t doc_shapes[] = {
    {"SIM_TIMER16", 16, 4, 0, true, true, true, 0, 0},
    {"SIM_SYSTICK24", 24, 1, 1, true, false, true, 2, 0},
    {"SIM_NRF32", 32, 4, 0, false, false, true, 2, 0},
    {"SIM_MTIME64", 64, 1, 0, false, true, false, 0, 0},
    {"SIM_TIMER8", 8, 2, 1, true, true, true, 3, 0},
    {"SIM_CHAIN32", 32, 2, 0, true, true, true, 0, 0},
    {"SIM_SOFT32", 32, 2, 0, true, true, true, 2, 0x10000},
};
#define NSHAPES (sizeof(doc_shapes) / sizeof(doc_shapes[0]))

/* ---- random numbers ------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, n); n == 0 means the full 64-bit range. */
static uint64_t rnd_below(uint64_t n) {
  return n == 0 ? rnd() : rnd() % n;
}

static bool chance(unsigned percent) {
  return rnd_below(100) < percent;
}

/* ---- callback records ---------------------------------------------------- */

#define SRC_OVF (-1)

typedef struct rec {
  int inst;
  int src; /* channel, or SRC_OVF */
  uintptr_t arg;
  uint64_t count;
  uint64_t time;
} rec_t;

static rec_t got[MAX_RECS];
static unsigned ngot;
static rec_t want[MAX_RECS];
static unsigned nwant;

static int inst_index(const utim_periph_t *p) {
  for (unsigned i = 0; i < utim_count(); i++) {
    if (utim_by_index(i) == p) {
      return (int)i;
    }
  }
  return -1;
}

static void record(const utim_periph_t *p, int src, void *arg) {
  if (ngot < MAX_RECS) {
    got[ngot] = (rec_t){inst_index(p), src, (uintptr_t)arg, utim_read(p), sim_now()};
  }
  ngot++;
}

static void cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  record(p, (int)ch, arg);
}

static void ovf_cb(const utim_periph_t *p, void *arg) {
  record(p, SRC_OVF, arg);
}

/* ---- the reference model -------------------------------------------------- */

typedef struct model {
  int inst;
  unsigned width, nch, md;
  uint64_t max;
  uint32_t caps;
  uint32_t hz;
  unsigned clock_sel; /* clock argument of the last successful init */
  bool running;
  uint64_t base; /* counter value at t0 */
  uint64_t t0;   /* virtual time counting (re)started from base */
  uint64_t now;  /* model's virtual time */
  bool armed[UTIM_MAX_CHANNELS];
  uint64_t target[UTIM_MAX_CHANNELS];
  uint64_t period[UTIM_MAX_CHANNELS]; /* 0: one-shot */
  bool ovf_on;
  uintptr_t ovf_arg, cmp_arg;
  uint32_t mask, pending;
} model_t;

static uint64_t m_ticks(const model_t *m, uint64_t t) {
  return (uint64_t)(((u128)(t - m->t0) * m->hz) / NS_PER_S);
}

static uint64_t m_count(const model_t *m) {
  if (!m->running) {
    return m->base;
  }
  return (m->base + m_ticks(m, m->now)) & m->max;
}

static uint32_t m_valid_events(const model_t *m) {
  uint32_t v = m->nch >= 32 ? 0xffffffffu : ((1u << m->nch) - 1u);
  if (m->caps & UTIM_CAP_OVERFLOW) {
    v |= UTIM_EVT_OVF;
  }
  return v;
}

static void emit(const model_t *m, int src, uintptr_t arg, uint64_t count) {
  if (nwant < MAX_RECS) {
    want[nwant] = (rec_t){m->inst, src, arg, count, m->now};
  }
  nwant++;
}

/* Ticks until the counter steps onto v: a full wrap when it is there already. */
static u128 m_dist(const model_t *m, uint64_t cur, uint64_t v) {
  uint64_t d = (v - cur) & m->max;
  return d == 0 ? (u128)m->max + 1u : (u128)d;
}

/*
 * Let time run to t1, delivering events in order. Stops early after the tick
 * on which the @p limit-th event happened (the whole tick is delivered).
 * Returns the number of events.
 */
static unsigned m_advance(model_t *m, uint64_t t1, unsigned limit, bool out) {
  unsigned n = 0;
  while (m->running && n < limit) {
    uint64_t cur = m_count(m);
    u128 best = 0;
    bool any = false;
    for (unsigned c = 0; c < m->nch; c++) {
      if (m->armed[c]) {
        u128 d = m_dist(m, cur, m->target[c]);
        if (!any || d < best) {
          best = d;
          any = true;
        }
      }
    }
    if (m->ovf_on) {
      u128 d = m_dist(m, cur, 0);
      if (!any || d < best) {
        best = d;
        any = true;
      }
    }
    if (!any) {
      break;
    }
    u128 k = (u128)m_ticks(m, m->now) + best;
    u128 te = (u128)m->t0 + (k * NS_PER_S + m->hz - 1u) / m->hz;
    if (te > t1) {
      break;
    }
    m->now = (uint64_t)te;
    uint64_t at = (cur + (uint64_t)best) & m->max;
    for (unsigned c = 0; c < m->nch; c++) {
      if (m->armed[c] && m->target[c] == at) {
        if (m->period[c] != 0) {
          m->target[c] = (m->target[c] + m->period[c]) & m->max;
        } else {
          m->armed[c] = false;
        }
        n++;
        if (m->mask & UTIM_EVT_CH(c)) {
          m->pending |= UTIM_EVT_CH(c);
        } else if (out) {
          emit(m, (int)c, m->cmp_arg, at);
        }
      }
    }
    if (m->ovf_on && at == 0) {
      n++;
      if (m->mask & UTIM_EVT_OVF) {
        m->pending |= UTIM_EVT_OVF;
      } else if (out) {
        emit(m, SRC_OVF, m->ovf_arg, 0);
      }
    }
  }
  if (n < limit) {
    m->now = t1;
  }
  return n;
}

/* Deferred events become deliverable: channel-ascending, the overflow last. */
static void m_deliver(model_t *m) {
  uint32_t due = m->pending & ~m->mask;
  uint64_t cur = m_count(m);
  for (unsigned c = 0; c < m->nch; c++) {
    if (due & UTIM_EVT_CH(c)) {
      emit(m, (int)c, m->cmp_arg, cur);
    }
  }
  if ((due & UTIM_EVT_OVF) && m->ovf_on) {
    emit(m, SRC_OVF, m->ovf_arg, cur);
  }
  m->pending &= ~due;
}

/* ---- frequencies (from the clock descriptors, independently of the core) - */

static bool clock_reaches(const utim_clock_desc_t *c, uint32_t hz, uint32_t *div_out) {
  if (c->hz == 0 || hz == 0 || c->hz % hz != 0) {
    return false;
  }
  uint32_t div = c->hz / hz;
  bool ok;
  if (c->div_kind == UTIM_DIV_POW2) {
    ok = (div & (div - 1u)) == 0;
    unsigned e = 0;
    while (ok && (1u << e) < div) {
      e++;
    }
    ok = ok && e >= c->div_lo && e <= c->div_hi;
  } else {
    ok = div >= c->div_lo && div <= c->div_hi;
  }
  if (ok && div_out != NULL) {
    *div_out = div;
  }
  return ok;
}

static bool class_ok(const utim_clock_desc_t *c, unsigned sel, unsigned idx) {
  if (sel == UTIM_CLOCK_DEFAULT) {
    return c->cls == UTIM_CLASS_HF || c->cls == UTIM_CLASS_LP;
  }
  if (sel == UTIM_CLOCK_HF) {
    return c->cls == UTIM_CLASS_HF;
  }
  if (sel == UTIM_CLOCK_LP) {
    return c->cls == UTIM_CLASS_LP;
  }
  return sel == UTIM_CLOCK_PLATFORM(idx);
}

static bool has_class(const utim_periph_t *p, unsigned cls) {
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    if (utim_clock(p, i)->cls == cls) {
      return true;
    }
  }
  return false;
}

static bool sel_names_input(const utim_periph_t *p, unsigned sel) {
  if (sel == UTIM_CLOCK_DEFAULT || sel == UTIM_CLOCK_HF || sel == UTIM_CLOCK_LP) {
    return true;
  }
  return sel >= UTIM_CLOCK_PLATFORM(0) && utim_clock(p, sel - UTIM_CLOCK_PLATFORM(0)) != NULL;
}

static int expect_init(const utim_periph_t *p, uint32_t hz, unsigned sel) {
  if (hz == 0 || !sel_names_input(p, sel)) {
    return -EINVAL;
  }
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    if (class_ok(utim_clock(p, i), sel, i) && clock_reaches(utim_clock(p, i), hz, NULL)) {
      return 0;
    }
  }
  return -ERANGE;
}

/* ---- operations ------------------------------------------------------------ */

enum op_kind {
  OP_INIT,
  OP_START,
  OP_STOP,
  OP_READ,
  OP_WRITE,
  OP_SET_ABS,
  OP_SET_REL,
  OP_SET_PER,
  OP_CLEAR,
  OP_MASK,
  OP_UNMASK,
  OP_PENDING,
  OP_SET_OVF,
  OP_ADVANCE,
  OP_GETPROP,
  OP_KINDS
};

/* How OP_WRITE / OP_SET_ABS interpret their value. */
enum val_mode { V_ABS, V_COUNTER, V_TARGET };

typedef struct op {
  uint8_t kind;
  uint8_t mode; /* enum val_mode; OP_GETPROP: 1 passes a NULL value */
  unsigned ch;
  uint64_t a; /* value, ticks, period, events, ns, hz, arg or property id */
  uint64_t b; /* OP_INIT: clock selector */
} op_t;

typedef struct seq_hdr {
  unsigned shape;
  uint32_t hz;
  unsigned clock;
  uintptr_t cmp_arg;
} seq_hdr_t;

typedef struct ctx {
  const utim_periph_t *p;
  model_t m;
  char msg[4096];
  size_t msg_len;
  bool verbose;
  uint64_t callbacks;
  unsigned sig; /* kind of the failing operation and of the first difference */
} ctx_t;

enum diff_kind { D_TIME = 1, D_RET, D_VALUE, D_CALLBACKS, D_READ, D_PENDING, D_SETUP };

static void mark(ctx_t *x, unsigned kind, unsigned what) {
  if (x->sig == 0) {
    x->sig = kind << 8 | what;
  }
}

static void say(ctx_t *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (x->msg_len < sizeof(x->msg)) {
    int n = vsnprintf(x->msg + x->msg_len, sizeof(x->msg) - x->msg_len, fmt, ap);
    if (n > 0) {
      x->msg_len += (size_t)n;
    }
  }
  va_end(ap);
}

static const char *err_name(int64_t r) {
  switch (r) {
  case 0:
    return "0";
  case -EINVAL:
    return "-EINVAL";
  case -ERANGE:
    return "-ERANGE";
  case -ENOTSUP:
    return "-ENOTSUP";
  case -ETIME:
    return "-ETIME";
  case -EBUSY:
    return "-EBUSY";
  default:
    return "?";
  }
}

static void fmt_rec(char *buf, size_t n, const rec_t *r) {
  char src[16];
  if (r->src == SRC_OVF) {
    snprintf(src, sizeof(src), "ovf");
  } else {
    snprintf(src, sizeof(src), "ch%d", r->src);
  }
  snprintf(buf, n, "inst %d %s arg=0x%" PRIxPTR " count=0x%" PRIx64 " t=%" PRIu64 "ns", r->inst,
           src, r->arg, r->count, r->time);
}

/* Resolve the value of a write / set_abs against the model state. */
static uint64_t resolve_value(const model_t *m, const op_t *op) {
  switch (op->mode) {
  case V_COUNTER:
    return (m_count(m) + op->a) & m->max;
  case V_TARGET:
    return op->ch < m->nch && m->armed[op->ch] ? (m->target[op->ch] + op->a) & m->max : op->a;
  default:
    return op->a;
  }
}

static void describe(char *buf, size_t n, const model_t *m, const op_t *op) {
  static const char *const names[OP_KINDS] = {
      "init",  "start", "stop",   "read",    "write",      "set_abs", "set_rel",     "set_periodic",
      "clear", "mask",  "unmask", "pending", "set_ovf_cb", "advance", "get_property"};
  const char *nm = names[op->kind];
  switch (op->kind) {
  case OP_INIT:
    snprintf(buf, n, "utim_init(hz=%" PRIu64 ", clock=0x%" PRIx64 ")", op->a, op->b);
    break;
  case OP_WRITE:
  case OP_SET_ABS: {
    uint64_t v = resolve_value(m, op);
    const char *how = op->mode == V_COUNTER ? "counter" : op->mode == V_TARGET ? "target" : "";
    if (op->kind == OP_WRITE) {
      snprintf(buf, n, "utim_write(0x%" PRIx64 ")", v);
    } else {
      snprintf(buf, n, "utim_set_abs(ch=%u, 0x%" PRIx64 ")", op->ch, v);
    }
    if (op->mode != V_ABS) {
      size_t l = strlen(buf);
      snprintf(buf + l, n - l, " [%s+0x%" PRIx64 "]", how, op->a);
    }
    break;
  }
  case OP_SET_REL:
  case OP_SET_PER:
    snprintf(buf, n, "utim_%s(ch=%u, %" PRIu64 ")", nm, op->ch, op->a);
    break;
  case OP_CLEAR:
    snprintf(buf, n, "utim_clear(ch=%u)", op->ch);
    break;
  case OP_MASK:
  case OP_UNMASK:
    snprintf(buf, n, "utim_%s(0x%" PRIx64 ")", nm, op->a);
    break;
  case OP_SET_OVF:
    if (op->a == 0) {
      snprintf(buf, n, "utim_set_overflow_cb(NULL)");
    } else {
      snprintf(buf, n, "utim_set_overflow_cb(cb, arg=0x%" PRIx64 ")", op->a);
    }
    break;
  case OP_ADVANCE:
    snprintf(buf, n, "sim_advance(%" PRIu64 " ns)", op->a);
    break;
  case OP_GETPROP:
    snprintf(buf, n, "utim_get_property(id=0x%" PRIx64 "%s)", op->a, op->mode ? ", NULL" : "");
    break;
  default:
    snprintf(buf, n, "utim_%s()", nm);
    break;
  }
}

/*
 * Operations whose outcome the documentation leaves open (see the report)
 * are skipped in the same way on the model and the implementation, so that
 * shrinking can never turn a real failure into an ambiguous one.
 */
static bool ambiguous(const ctx_t *x, const op_t *op) {
  const model_t *m = &x->m;
  switch (op->kind) {
  case OP_SET_OVF:
    return op->a == 0 && (m->pending & UTIM_EVT_OVF) != 0;
  case OP_WRITE:
    if (op->mode != V_ABS || op->a <= m->max) {
      /* an armed target less than min_distance ahead of the written value */
      uint64_t v = resolve_value(m, op);
      for (unsigned c = 0; c < m->nch; c++) {
        uint64_t d = (m->target[c] - v) & m->max;
        if (m->armed[c] && d != 0 && d < m->md) {
          return true;
        }
      }
    }
    return false;
  case OP_INIT:
    return (op->b == UTIM_CLOCK_LP && !has_class(x->p, UTIM_CLASS_LP)) ||
           (op->b == UTIM_CLOCK_HF && !has_class(x->p, UTIM_CLASS_HF));
  default:
    return false;
  }
}

/* get_property of CLOCK / DIVIDER: check the choice, which the docs leave partly open. */
static bool clock_choice_ok(const ctx_t *x, uint64_t clk, uint64_t div) {
  const model_t *m = &x->m;
  const utim_clock_desc_t *c = clk < 256 ? utim_clock(x->p, (unsigned)clk) : NULL;
  uint32_t d = 0;
  if (c == NULL || !class_ok(c, m->clock_sel, (unsigned)clk) || !clock_reaches(c, m->hz, &d) ||
      d != div) {
    return false;
  }
  if (m->clock_sel == UTIM_CLOCK_DEFAULT && c->cls != UTIM_CLASS_HF) {
    /* "high-frequency inputs first" */
    for (unsigned i = 0; utim_clock(x->p, i) != NULL; i++) {
      if (utim_clock(x->p, i)->cls == UTIM_CLASS_HF &&
          clock_reaches(utim_clock(x->p, i), m->hz, NULL)) {
        return false;
      }
    }
  }
  return true;
}

static uint64_t ticks_to_ns(const model_t *m, u128 ticks);

/*
 * Run one operation on the implementation and on the model and compare.
 * Returns true when they agree.
 */
static bool exec_op(ctx_t *x, const op_t *op) {
  const utim_periph_t *p = x->p;
  model_t *m = &x->m;
  char desc[160];
  ngot = 0;
  nwant = 0;
  x->msg_len = 0;
  x->msg[0] = '\0';
  x->sig = 0;
  describe(desc, sizeof(desc), m, op);
  uint64_t t_before = sim_now();
  if (t_before != m->now) {
    mark(x, op->kind, D_TIME);
    say(x, "virtual time %" PRIu64 " differs from the model's %" PRIu64 "\n", t_before, m->now);
    return false;
  }
  if (ambiguous(x, op)) {
    if (x->verbose) {
      printf("#   %s: skipped (undocumented case)\n", desc);
    }
    return true;
  }
  int64_t r = 0;
  int64_t er = 0;
  bool has_val = false;
  uint64_t val = 0;
  uint64_t eval = 0;
  bool val_loose = false; /* CLOCK / DIVIDER: checked by clock_choice_ok() */
  unsigned ch = op->ch;
  bool chok = ch < m->nch;

  switch (op->kind) {
  case OP_INIT: {
    uint32_t hz = (uint32_t)op->a;
    unsigned sel = (unsigned)op->b;
    r = utim_init(p, hz, sel);
    er = expect_init(p, hz, sel);
    if (er == 0) {
      bool keep_running = m->running && !(m->caps & UTIM_CAP_STOP);
      m->hz = hz;
      m->clock_sel = sel;
      m->base = 0;
      m->t0 = m->now;
      m->running = keep_running;
      memset(m->armed, 0, sizeof(m->armed));
      m->mask = 0;
      m->pending = 0;
    }
    break;
  }
  case OP_START:
    r = utim_start(p);
    if (!m->running) {
      m->running = true;
      m->t0 = m->now;
    }
    break;
  case OP_STOP:
    r = utim_stop(p);
    if (!(m->caps & UTIM_CAP_STOP)) {
      er = -ENOTSUP;
    } else if (m->running) {
      m->base = m_count(m);
      m->running = false;
    }
    break;
  case OP_READ:
    has_val = true;
    val = utim_read(p);
    eval = m_count(m);
    break;
  case OP_WRITE: {
    uint64_t v = resolve_value(m, op);
    if (op->mode == V_ABS && op->a > m->max) {
      v = op->a;
    }
    r = utim_write(p, v);
    if (v > m->max) {
      er = -ERANGE;
    } else if (!(m->caps & UTIM_CAP_WRITE)) {
      er = -ENOTSUP;
    } else {
      m->base = v;
      m->t0 = m->now;
    }
    break;
  }
  case OP_SET_ABS: {
    uint64_t v = resolve_value(m, op);
    r = utim_set_abs(p, ch, v);
    if (!chok) {
      er = -EINVAL;
    } else if (v > m->max) {
      er = -ERANGE;
    } else {
      uint64_t d = (v - m_count(m)) & m->max;
      if (d == 0 || d < m->md || d > m->max / 2) {
        er = -ETIME; /* an error changes nothing: the earlier setting stays */
      } else {
        m->armed[ch] = true;
        m->target[ch] = v;
        m->period[ch] = 0;
        m->pending &= ~UTIM_EVT_CH(ch); /* re-arming drops an undelivered event */
      }
    }
    break;
  }
  case OP_SET_REL:
    r = utim_set_rel(p, ch, op->a);
    if (!chok) {
      er = -EINVAL;
    } else if (op->a > m->max) {
      er = -ERANGE;
    } else {
      uint64_t n = op->a < m->md ? m->md : op->a;
      m->armed[ch] = true;
      m->target[ch] = (m_count(m) + n) & m->max;
      m->period[ch] = 0;
      m->pending &= ~UTIM_EVT_CH(ch);
    }
    break;
  case OP_SET_PER:
    r = utim_set_periodic(p, ch, op->a);
    if (!chok || op->a == 0) {
      er = -EINVAL;
    } else if (op->a > m->max || op->a < m->md) {
      er = -ERANGE;
    } else {
      m->armed[ch] = true;
      m->target[ch] = (m_count(m) + op->a) & m->max;
      m->period[ch] = op->a;
      m->pending &= ~UTIM_EVT_CH(ch);
    }
    break;
  case OP_CLEAR:
    r = utim_clear(p, ch);
    if (!chok) {
      er = -EINVAL;
    } else {
      m->armed[ch] = false;
      m->pending &= ~UTIM_EVT_CH(ch);
    }
    break;
  case OP_MASK:
  case OP_UNMASK: {
    uint32_t ev = (uint32_t)op->a;
    r = op->kind == OP_MASK ? utim_mask(p, ev) : utim_unmask(p, ev);
    if (ev & ~m_valid_events(m)) {
      er = -EINVAL;
    } else if (op->kind == OP_MASK) {
      m->mask |= ev;
    } else {
      m->mask &= ~ev;
      m_deliver(m);
    }
    break;
  }
  case OP_PENDING:
    has_val = true;
    val = utim_pending(p);
    eval = m->pending;
    break;
  case OP_SET_OVF:
    r = utim_set_overflow_cb(p, op->a ? ovf_cb : NULL, (void *)(uintptr_t)op->a);
    if (!(m->caps & UTIM_CAP_OVERFLOW)) {
      er = -ENOTSUP;
    } else {
      m->ovf_on = op->a != 0;
      m->ovf_arg = (uintptr_t)op->a;
    }
    break;
  case OP_ADVANCE: {
    model_t probe = *m;
    uint64_t ns = op->a;
    uint64_t carry = doc_shapes[m->inst].carry_period;
    if (carry != 0u && ns > ticks_to_ns(m, (u128)64u * carry)) {
      ns = ticks_to_ns(m, (u128)64u * carry);
    }
    if (m_advance(&probe, m->now + ns, EVENT_CAP, false) >= EVENT_CAP) {
      ns = probe.now - m->now; /* bound the callbacks of one step */
    }
    sim_advance(ns);
    m_advance(m, m->now + ns, UINT32_MAX, true);
    if (x->verbose) {
      snprintf(desc, sizeof(desc), "sim_advance(%" PRIu64 " ns)", ns);
    }
    break;
  }
  case OP_GETPROP: {
    unsigned id = (unsigned)op->a;
    uint64_t v = 0xdeadbeefull;
    r = utim_get_property(p, id, op->mode ? NULL : &v);
    if (op->mode) {
      er = -EINVAL;
      break;
    }
    const doc_shape_t *d = &doc_shapes[m->inst];
    has_val = true;
    val = v;
    switch (id) {
    case UTIM_PROP_WIDTH:
      eval = m->width;
      break;
    case UTIM_PROP_MAX:
      eval = m->max;
      break;
    case UTIM_PROP_CHANNELS:
      eval = m->nch;
      break;
    case UTIM_PROP_COUNT_DOWN:
      eval = d->down;
      break;
    case UTIM_PROP_CAPS:
      eval = m->caps;
      break;
    case UTIM_PROP_FREQ:
      eval = m->hz;
      break;
    case UTIM_PROP_MIN_DISTANCE:
      eval = m->md;
      break;
    case UTIM_PROP_CLOCKS: {
      unsigned n = 0;
      while (utim_clock(p, n) != NULL) {
        n++;
      }
      eval = n;
      break;
    }
    case UTIM_PROP_CLOCK:
    case UTIM_PROP_DIVIDER: {
      uint64_t clk = 0;
      uint64_t div = 0;
      int r2 = utim_get_property(p, UTIM_PROP_CLOCK, &clk);
      int r3 = utim_get_property(p, UTIM_PROP_DIVIDER, &div);
      val_loose = true;
      if (r2 != 0 || r3 != 0 || !clock_choice_ok(x, clk, div)) {
        say(x,
            "clock %" PRIu64 " (ret %d) / divider %" PRIu64 " (ret %d) do not give %" PRIu32
            " Hz for clock selector 0x%x\n",
            clk, r2, div, r3, m->hz, m->clock_sel);
      }
      break;
    }
    default:
      er = -ENOTSUP;
      has_val = false;
      break;
    }
    break;
  }
  default:
    break;
  }

  uint64_t t_after = sim_now();
  if (op->kind != OP_ADVANCE && t_after != t_before) {
    /* the core busy-waited: time passed inside the call */
    m_advance(m, t_after, UINT32_MAX, true);
  }
  if (x->verbose) {
    printf("#   %s -> %s", desc, err_name(r));
    if (has_val) {
      printf(" value 0x%" PRIx64, val);
    }
    printf("  [t=%" PRIu64 "ns]\n", sim_now());
  }

  bool ok = x->msg_len == 0;
  if (!ok) {
    mark(x, op->kind, D_VALUE);
  }
  if (r != er) {
    mark(x, op->kind, D_RET);
    say(x, "%s returned %" PRId64 " (%s), model expects %" PRId64 " (%s)\n", desc, r, err_name(r),
        er, err_name(er));
    ok = false;
  }
  if (has_val && !val_loose && r == 0 && val != eval) {
    mark(x, op->kind, D_VALUE);
    say(x, "%s gave 0x%" PRIx64 ", model expects 0x%" PRIx64 "\n", desc, val, eval);
    ok = false;
  }
  x->callbacks += ngot;
  bool same = ngot == nwant;
  for (unsigned i = 0; same && i < ngot && i < MAX_RECS; i++) {
    same = memcmp(&got[i], &want[i], sizeof(rec_t)) == 0;
  }
  if (!same) {
    char b[160];
    mark(x, op->kind, D_CALLBACKS);
    say(x, "%s: callbacks differ (%u run, model expects %u)\n", desc, ngot, nwant);
    for (unsigned i = 0; i < ngot && i < 8; i++) {
      fmt_rec(b, sizeof(b), &got[i]);
      say(x, "  run:      %s\n", b);
    }
    for (unsigned i = 0; i < nwant && i < 8; i++) {
      fmt_rec(b, sizeof(b), &want[i]);
      say(x, "  expected: %s\n", b);
    }
    ok = false;
  }
  uint64_t c = utim_read(p);
  if (c != m_count(m)) {
    mark(x, op->kind, D_READ);
    say(x, "after %s: utim_read() = 0x%" PRIx64 ", model expects 0x%" PRIx64 "\n", desc, c,
        m_count(m));
    ok = false;
  }
  uint32_t pend = utim_pending(p);
  if (pend != m->pending) {
    mark(x, op->kind, D_PENDING);
    say(x, "after %s: utim_pending() = 0x%" PRIx32 ", model expects 0x%" PRIx32 "\n", desc, pend,
        m->pending);
    ok = false;
  }
  return ok;
}

/* ---- sequences ------------------------------------------------------------ */

static void model_reset(ctx_t *x, const seq_hdr_t *h) {
  const utim_periph_t *p = x->p;
  model_t *m = &x->m;
  memset(m, 0, sizeof(*m));
  m->inst = (int)h->shape;
  m->width = utim_width(p);
  m->max = utim_max(p);
  m->nch = utim_channels(p);
  m->md = utim_min_distance(p);
  m->caps = utim_caps(p);
  m->hz = h->hz;
  m->clock_sel = h->clock;
  m->cmp_arg = h->cmp_arg;
}

/* Reset the machine and the model to the start of a sequence. */
static bool seq_begin(ctx_t *x, const seq_hdr_t *h) {
  sim_reset();
  sim_set_access_cost(0);
  sim_set_relax_step(RELAX_NS);
  x->p = utim_by_index(h->shape);
  model_reset(x, h);
  int r1 = utim_init(x->p, h->hz, h->clock);
  int r2 = utim_set_compare_cb(x->p, cmp_cb, (void *)h->cmp_arg);
  int r3 = 0;
  if (x->m.caps & UTIM_CAP_OVERFLOW) {
    r3 = utim_set_overflow_cb(x->p, NULL, NULL);
  }
  if (r1 != 0 || r2 != 0 || r3 != 0 || utim_read(x->p) != 0) {
    x->msg_len = 0;
    x->sig = D_SETUP;
    say(x,
        "sequence start: utim_init(%" PRIu32 ", 0x%x) = %d, set_compare_cb = %d, "
        "set_overflow_cb(NULL) = %d, read = 0x%" PRIx64 "\n",
        h->hz, h->clock, r1, r2, r3, utim_read(x->p));
    return false;
  }
  return true;
}

/* Replay ops[0..n) from reset; the index of the first failing op, or -1 (n on setup failure). */
static long replay(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t n) {
  if (!seq_begin(x, h)) {
    return (long)n;
  }
  for (size_t i = 0; i < n; i++) {
    if (!exec_op(x, &ops[i])) {
      return (long)i;
    }
  }
  return -1;
}

/* ---- generation ----------------------------------------------------------- */

typedef struct freqset {
  uint32_t hz[MAX_FREQS];
  unsigned n;
} freqset_t;

static freqset_t freqs[NSHAPES];

static bool in_set(const freqset_t *f, uint32_t hz) {
  for (unsigned i = 0; i < f->n; i++) {
    if (f->hz[i] == hz) {
      return true;
    }
  }
  return false;
}

static uint64_t pick_ch(const model_t *m) {
  if (chance(4)) {
    static const uint64_t bad[] = {16, 31, 255, 0xffffffffu};
    return chance(50) ? m->nch + rnd_below(3) : bad[rnd_below(4)];
  }
  return rnd_below(m->nch);
}

/* A tick count: mostly small, sometimes anywhere up to max. */
static uint64_t pick_ticks(const model_t *m) {
  switch (rnd_below(6)) {
  case 0:
    return rnd_below(m->md + 3u);
  case 1:
    return rnd_below(64) & m->max;
  case 2:
    return rnd_below(2000) & m->max;
  case 3:
    return m->max - rnd_below(4);
  case 4:
    return m->max / 2 + rnd_below(5) - 2;
  default:
    return rnd() & m->max;
  }
}

static uint64_t ticks_to_ns(const model_t *m, u128 ticks) {
  u128 ns = (ticks * NS_PER_S + m->hz - 1u) / m->hz;
  return ns > (u128)1 << 50 ? (uint64_t)1 << 50 : (uint64_t)ns;
}

static op_t gen_op(const ctx_t *x, unsigned shape) {
  const model_t *m = &x->m;
  op_t op = {0};
  static const uint8_t weights[OP_KINDS] = {
      [OP_INIT] = 2,     [OP_START] = 5,    [OP_STOP] = 3,    [OP_READ] = 2,     [OP_WRITE] = 5,
      [OP_SET_ABS] = 12, [OP_SET_REL] = 10, [OP_SET_PER] = 6, [OP_CLEAR] = 5,    [OP_MASK] = 5,
      [OP_UNMASK] = 6,   [OP_PENDING] = 2,  [OP_SET_OVF] = 3, [OP_ADVANCE] = 30, [OP_GETPROP] = 3};
  unsigned total = 0;
  for (unsigned k = 0; k < OP_KINDS; k++) {
    total += weights[k];
  }
  unsigned w = (unsigned)rnd_below(total);
  unsigned kind = 0;
  while (w >= weights[kind]) {
    w -= weights[kind];
    kind++;
  }
  op.kind = (uint8_t)kind;
  switch (kind) {
  case OP_INIT: {
    const freqset_t *f = &freqs[shape];
    uint32_t hz = f->hz[rnd_below(f->n)];
    unsigned nclk = 0;
    while (utim_clock(x->p, nclk) != NULL) {
      nclk++;
    }
    unsigned sel = UTIM_CLOCK_DEFAULT;
    switch (rnd_below(8)) {
    case 0:
      sel = UTIM_CLOCK_HF;
      break;
    case 1:
      sel = UTIM_CLOCK_LP;
      break;
    case 2:
    case 3:
      sel = UTIM_CLOCK_PLATFORM(rnd_below(nclk));
      break;
    default:
      break;
    }
    if (chance(15)) {
      /* unachievable: a neighbour of an achievable frequency */
      uint32_t bad = hz + 1u + (uint32_t)rnd_below(7);
      while (in_set(f, bad)) {
        bad++;
      }
      hz = chance(20) ? 0u : bad;
      sel = UTIM_CLOCK_DEFAULT;
    } else if (chance(5)) {
      sel = chance(50) ? UTIM_CLOCK_PLATFORM(nclk) : 3u;
    }
    op.a = hz;
    op.b = sel;
    break;
  }
  case OP_WRITE:
    op.mode = (uint8_t)rnd_below(3);
    op.ch = (unsigned)rnd_below(m->nch);
    if (op.mode == V_ABS) {
      op.a = chance(8) && m->max != UINT64_MAX ? m->max + 1u + rnd_below(100) : pick_ticks(m);
    } else {
      op.a = (rnd_below(2 * m->md + 4) - m->md - 2) & m->max;
    }
    break;
  case OP_SET_ABS:
    op.ch = (unsigned)pick_ch(m);
    op.mode = chance(85) ? V_COUNTER : (chance(50) ? V_TARGET : V_ABS);
    if (op.mode == V_ABS) {
      op.a = chance(50) && m->max != UINT64_MAX ? m->max + 1u + rnd_below(1000) : rnd() & m->max;
    } else if (chance(40)) {
      op.a = (rnd_below(2 * m->md + 4) - m->md - 1) & m->max; /* near, passed, too close */
    } else {
      op.a = pick_ticks(m);
    }
    break;
  case OP_SET_REL:
    op.ch = (unsigned)pick_ch(m);
    op.a = chance(4) && m->max != UINT64_MAX ? m->max + 1u : pick_ticks(m);
    break;
  case OP_SET_PER:
    op.ch = (unsigned)pick_ch(m);
    if (chance(8)) {
      op.a = chance(50) ? 0 : (m->max != UINT64_MAX ? m->max + 1u : 0);
    } else if (chance(30)) {
      op.a = rnd_below(m->md + 4u);
    } else {
      op.a = pick_ticks(m);
    }
    break;
  case OP_CLEAR:
    op.ch = (unsigned)pick_ch(m);
    break;
  case OP_MASK:
  case OP_UNMASK: {
    uint32_t valid = m_valid_events(m);
    op.a = (uint32_t)rnd() & valid;
    if (chance(8)) {
      uint32_t invalid = ~valid;
      op.a |= (1u << rnd_below(32)) & invalid;
    }
    break;
  }
  case OP_SET_OVF:
    op.a = chance(30) ? 0u : 0x1000u + rnd_below(0x10000);
    break;
  case OP_ADVANCE:
    switch (rnd_below(8)) {
    case 0:
      op.a = rnd_below(120);
      break;
    case 1:
    case 2:
      op.a = ticks_to_ns(m, rnd_below(2 * m->md + 4u));
      op.a -= op.a > 0 ? rnd_below(2) : 0;
      break;
    case 3:
    case 4:
      op.a = ticks_to_ns(m, rnd_below(300));
      break;
    case 5:
      op.a = ticks_to_ns(m, rnd_below(m->max / 2 + 1u));
      break;
    case 6:
      op.a = ticks_to_ns(m, (u128)rnd_below(m->max) + 1u);
      break;
    default:
      /* several wraps on narrow timers (the event cap bounds the step) */
      op.a = ticks_to_ns(m, (u128)(m->max < 0xffffffffu ? m->max + 1u : 0x100000000ull) *
                                (1u + rnd_below(4)));
      break;
    }
    break;
  case OP_GETPROP: {
    static const unsigned ids[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xff};
    op.a = ids[rnd_below(sizeof(ids) / sizeof(ids[0]))];
    op.mode = chance(5);
    break;
  }
  default:
    break;
  }
  return op;
}

/* ---- shrinking ------------------------------------------------------------- */

static op_t shrink_buf[MAX_SEQ];
static op_t try_buf[MAX_SEQ];

/* Whether ops[0..n) still fails the same way; may lower *n to the failing prefix. */
typedef bool (*fails_fn)(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t *n, unsigned sig);

static bool fails_same(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t *n, unsigned sig) {
  long f = replay(x, h, ops, *n);
  if (f < 0 || x->sig != sig) {
    return false;
  }
  if ((size_t)f < *n) {
    *n = (size_t)f + 1u;
  }
  return true;
}

/* A replay in a child process that the wall-clock alarm kills. */
/* NOLINTNEXTLINE(readability-non-const-parameter): shares fails_fn's signature */
static bool hangs(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t *n, unsigned sig) {
  (void)sig;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    struct itimerval it = {{0, 0}, {0, 300000}};
    signal(SIGALRM, SIG_DFL);
    setitimer(ITIMER_REAL, &it, NULL); /* a replay normally takes well under 1 ms */
    (void)replay(x, h, ops, *n);
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    return false;
  }
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
}

/* Delta debugging: drop chunks, then single operations, while it still fails. */
static size_t shrink(ctx_t *x, const seq_hdr_t *h, size_t n, unsigned *replays, fails_fn fails) {
  const unsigned sig = x->sig;
  size_t chunk = n / 2 ? n / 2 : 1;
  const unsigned budget = fails == hangs ? 2000u : SHRINK_BUDGET;
  while (*replays < budget) {
    bool changed = false;
    for (size_t start = 0; start < n && *replays < budget;) {
      size_t end = start + chunk < n ? start + chunk : n;
      size_t m = 0;
      for (size_t i = 0; i < n; i++) {
        if (i < start || i >= end) {
          try_buf[m++] = shrink_buf[i];
        }
      }
      (*replays)++;
      if (fails(x, h, try_buf, &m, sig)) {
        n = m;
        memcpy(shrink_buf, try_buf, n * sizeof(op_t));
        changed = true;
      } else {
        start = end;
      }
    }
    if (!changed) {
      if (chunk == 1) {
        break;
      }
      chunk /= 2;
    } else if (chunk > n / 2 && n > 1) {
      chunk = n / 2;
    }
  }
  return n;
}

static void report_failure(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t fail,
                           uint64_t seed, uint64_t seqno) {
  printf("# FAIL on %s: seed %" PRIu64 ", sequence %" PRIu64 ", operation %zu\n",
         doc_shapes[h->shape].name, seed, seqno, fail);
  printf("# %s", x->msg);
  size_t n = fail + 1u;
  memcpy(shrink_buf, ops, n * sizeof(op_t));
  unsigned replays = 0;
  n = shrink(x, h, n, &replays, fails_same);
  printf("# shortest failing sequence found (%zu operations, %u replays); start: sim_reset(), "
         "access cost 0, relax %u ns, utim_init(%" PRIu32 ", 0x%x), compare cb arg 0x%" PRIxPTR
         ":\n",
         n, replays, RELAX_NS, h->hz, h->clock, h->cmp_arg);
  x->verbose = true;
  long f = replay(x, h, shrink_buf, n);
  x->verbose = false;
  if (f >= 0) {
    printf("# difference:\n# %s", x->msg);
  } else {
    printf("# (the shrunk sequence no longer fails on replay)\n");
  }
}

/* ---- hangs ------------------------------------------------------------------ */

static const char *hang_self;
static unsigned hang_tap, hang_passed, hang_failed; /* results so far, for the replay */
static ctx_t g_ctx;
static seq_hdr_t hang_hdr;
static const op_t *hang_ops;
static volatile size_t hang_n;
static uint64_t hang_seed, hang_seqno;

/*
 * A sequence did not finish: the implementation is stuck inside an operation
 * and nothing in this process can be trusted any more. Save the sequence and
 * start afresh in replay mode, which shrinks it in child processes.
 */
/* Decimal digits of @p v into @p b (no NUL); async-signal-safe. */
static size_t fmt_u64(char *b, uint64_t v) {
  char t[20];
  size_t n = 0;
  do {
    t[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0u);
  for (size_t k = 0; k < n; k++) {
    b[k] = t[n - 1u - k];
  }
  return n;
}

/*
 * A sequence did not finish: the implementation is stuck inside an operation
 * and nothing in this process can be trusted any more. Save the sequence and
 * start afresh in replay mode, which reports and shrinks it in child
 * processes. Only async-signal-safe calls here (open, write, execv, _exit).
 */
static void on_alarm(int signo) {
  (void)signo;
  static const char prefix[] = "/tmp/utim_diff_hang.";
  char path[64];
  size_t len = sizeof(prefix) - 1u;
  memcpy(path, prefix, len);
  len += fmt_u64(path + len, (uint64_t)getpid());
  path[len] = '\0';
  /* "tap,passed,failed,seed,seqno,op" for the replay's report */
  char info[128];
  const uint64_t vals[] = {hang_tap + 1u, hang_passed, hang_failed,
                           hang_seed,     hang_seqno,  hang_n - 1u};
  size_t il = 0;
  for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
    il += fmt_u64(info + il, vals[k]);
    info[il++] = k + 1u < sizeof(vals) / sizeof(vals[0]) ? ',' : '\0';
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  size_t n = hang_n;
  if (fd < 0 || write(fd, &hang_hdr, sizeof(hang_hdr)) != (ssize_t)sizeof(hang_hdr) ||
      write(fd, &n, sizeof(n)) != (ssize_t)sizeof(n) ||
      write(fd, hang_ops, sizeof(op_t) * n) != (ssize_t)(sizeof(op_t) * n) || close(fd) != 0) {
    _exit(1);
  }
  char *const args[] = {(char *)hang_self, (char *)"--replay-hang", path, info, NULL};
  execv(hang_self, args);
  _exit(1);
}

/* @p counts: "tap,passed,failed,seed,seqno,op" of the process that saw the hang. */
static int replay_hang(const char *path, const char *counts) {
  unsigned tap = 1;
  unsigned passed = 0;
  unsigned failed = 0;
  unsigned long long seed = 0;
  unsigned long long seqno = 0;
  unsigned long long opno = 0;
  unsigned long long v[6] = {1, 0, 0, 0, 0, 0};
  const char *c = counts;
  for (size_t k = 0; k < 6u && *c != '\0'; k++) {
    char *end = NULL;
    v[k] = strtoull(c, &end, 10);
    c = (*end == ',') ? end + 1 : end;
  }
  tap = (unsigned)v[0];
  passed = (unsigned)v[1];
  failed = (unsigned)v[2];
  seed = v[3];
  seqno = v[4];
  opno = v[5];
  seq_hdr_t h;
  size_t n = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL || fread(&h, sizeof(h), 1, f) != 1 || fread(&n, sizeof(n), 1, f) != 1 ||
      n > MAX_SEQ || fread(shrink_buf, sizeof(op_t), n, f) != n) {
    printf("# cannot read %s\nnot ok %u - hang\n%u passed, %u failed\n", path, tap, passed,
           failed + 1u);
    return 1;
  }
  fclose(f);
  remove(path);
  printf("# HANG on %s: seed %llu, sequence %llu, operation %llu did not return within %u s\n",
         doc_shapes[h.shape].name, seed, seqno, opno, HANG_S);
  unsigned replays = 0;
  g_ctx.sig = 0;
  if (hangs(&g_ctx, &h, shrink_buf, &n, 0)) {
    n = shrink(&g_ctx, &h, n, &replays, hangs);
    printf("# shortest hanging sequence found (%zu operations, %u replays)", n, replays);
  } else {
    printf("# the sequence does not hang when replayed in a fresh process (state kept across "
           "sequences?); it was (%zu operations)",
           n);
  }
  printf("; start: sim_reset(), access cost 0, relax %u ns, utim_init(%" PRIu32 ", 0x%x), compare "
         "cb arg 0x%" PRIxPTR ":\n",
         RELAX_NS, h.hz, h.clock, h.cmp_arg);
  g_ctx.verbose = true;
  if (hangs(&g_ctx, &h, shrink_buf, &n, 0)) {
    printf("# (the last operation does not return)\n");
  }
  printf("not ok %u - %s differential: hangs\n%u passed, %u failed\n", tap,
         doc_shapes[h.shape].name, passed, failed + 1u);
  return 1;
}

/* ---- static checks ---------------------------------------------------------- */

static bool check_static(unsigned shape, char *why, size_t n) {
  const utim_periph_t *p = utim_by_index(shape);
  const doc_shape_t *d = &doc_shapes[shape];
  why[0] = '\0';
  if (p == NULL || strcmp(utim_name(p), d->name) != 0) {
    snprintf(why, n, "instance %u is not %s", shape, d->name);
    return false;
  }
  uint32_t caps = utim_caps(p);
  if (utim_width(p) != d->width || utim_channels(p) != d->channels ||
      utim_count_down(p) != d->down || !!(caps & UTIM_CAP_OVERFLOW) != d->ovf ||
      !!(caps & UTIM_CAP_WRITE) != d->write || !!(caps & UTIM_CAP_STOP) != d->stop ||
      utim_min_distance(p) < 1 || (d->min_distance && utim_min_distance(p) != d->min_distance)) {
    snprintf(why, n, "static properties differ from board_sim.h");
    return false;
  }
  freqset_t *f = &freqs[shape];
  f->n = 0;
  static uint32_t buf[MAX_FREQS];
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    const utim_clock_desc_t *c = utim_clock(p, i);
    unsigned mine = 0;
    int cnt = utim_freqs(p, i, buf, MAX_FREQS);
    if (cnt < 0 || cnt > (int)MAX_FREQS) {
      snprintf(why, n, "utim_freqs(clk %u) = %d", i, cnt);
      return false;
    }
    for (int k = 0; k < cnt; k++) {
      if (!clock_reaches(c, buf[k], NULL) || (k > 0 && buf[k] >= buf[k - 1])) {
        snprintf(why, n, "utim_freqs(clk %u)[%d] = %" PRIu32 " not achievable or not descending", i,
                 k, buf[k]);
        return false;
      }
      if (!in_set(f, buf[k]) && f->n < MAX_FREQS) {
        f->hz[f->n++] = buf[k];
      }
    }
    if (c->hz != 0) {
      bool pow2 = c->div_kind == UTIM_DIV_POW2;
      for (uint32_t e = c->div_lo; e <= c->div_hi; e++) {
        uint32_t dv = pow2 ? 1u << e : e;
        mine += dv != 0 && c->hz % dv == 0;
      }
    }
    if ((unsigned)cnt != mine) {
      snprintf(why, n, "utim_freqs(clk %u) lists %d frequencies, the descriptor gives %u", i, cnt,
               mine);
      return false;
    }
  }
  if (f->n == 0) {
    snprintf(why, n, "no achievable frequency");
    return false;
  }
  return true;
}

/* ---- main ----------------------------------------------------------------- */

static uint64_t parse_u64(const char *s) {
  return strtoull(s, NULL, 0);
}

static op_t seq_ops[MAX_SEQ];

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  uint64_t seed = DEFAULT_SEED;
  uint64_t total_ops = DEFAULT_OPS;
  const char *env = getenv("UTIM_SEED");
  if (env != NULL && *env != '\0') {
    seed = parse_u64(env);
  }
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = parse_u64(argv[++i]);
    } else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
      total_ops = parse_u64(argv[++i]);
    } else if (strcmp(argv[i], "--replay-hang") == 0 && i + 2 < argc) {
      sim_board_init();
      return replay_hang(argv[i + 1], argv[i + 2]);
    } else {
      fprintf(stderr, "usage: %s [--seed N] [--ops N]  (env UTIM_SEED)\n", argv[0]);
      return 2;
    }
  }
  hang_self = argv[0];
  hang_ops = seq_ops;
  hang_seed = seed;
  signal(SIGALRM, on_alarm);
  sim_board_init();
  printf("TAP version 13\n1..%u\n", (unsigned)(2 * NSHAPES));
  printf("# seed %" PRIu64 ", %" PRIu64 " operations\n", seed, total_ops);
  unsigned passed = 0;
  unsigned failed = 0;
  unsigned tap = 0;
  for (unsigned shape = 0; shape < NSHAPES; shape++) {
    char why[256];
    bool st = check_static(shape, why, sizeof(why));
    printf("%s %u - %s static properties and frequencies%s%s\n", st ? "ok" : "not ok", ++tap,
           doc_shapes[shape].name, st ? "" : ": ", why);
    st ? passed++ : failed++;
    if (!st) {
      printf("not ok %u - %s differential # skipped: no frequencies\n", ++tap,
             doc_shapes[shape].name);
      failed++;
      continue;
    }
    rng_state = seed ^ (0x1000193ull * (shape + 1u));
    uint64_t budget = total_ops / NSHAPES + (shape < total_ops % NSHAPES);
    uint64_t done = 0;
    uint64_t seqno = 0;
    bool ok = true;
    g_ctx.callbacks = 0;
    while (done < budget && ok) {
      seq_hdr_t h = {shape, freqs[shape].hz[rnd_below(freqs[shape].n)], UTIM_CLOCK_DEFAULT,
                     (uintptr_t)(0x100000u + seqno)};
      size_t len = 1u + (size_t)rnd_below(MAX_SEQ);
      if (len > budget - done) {
        len = (size_t)(budget - done);
      }
      hang_hdr = h;
      hang_tap = tap;
      hang_passed = passed;
      hang_failed = failed;
      hang_seqno = seqno;
      alarm(HANG_S);
      if (!seq_begin(&g_ctx, &h)) {
        printf("# FAIL on %s: seed %" PRIu64 ", sequence %" PRIu64 "\n# %s", doc_shapes[shape].name,
               seed, seqno, g_ctx.msg);
        ok = false;
        break;
      }
      for (size_t i = 0; i < len; i++) {
        seq_ops[i] = gen_op(&g_ctx, shape);
        hang_n = i + 1u;
        if (!exec_op(&g_ctx, &seq_ops[i])) {
          report_failure(&g_ctx, &h, seq_ops, i, seed, seqno);
          ok = false;
          break;
        }
      }
      done += len;
      seqno++;
    }
    alarm(0);
    printf("%s %u - %s differential: %" PRIu64 " operations in %" PRIu64 " sequences, %" PRIu64
           " callbacks\n",
           ok ? "ok" : "not ok", ++tap, doc_shapes[shape].name, done, seqno, g_ctx.callbacks);
    ok ? passed++ : failed++;
  }
  printf("%u passed, %u failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
