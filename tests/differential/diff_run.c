/**
 * @file diff_run.c
 * @brief Running operations of differential_sim: each one on the uAPI of a
 *        sim instance and on the reference model, compared step by step
 *        (return values, values read, callbacks, counter, pending events).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diff.h"
#include "sim.h"

static rec_t got[MAX_RECS];
static unsigned ngot;

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

/*
 * Run one operation on the implementation and on the model and compare.
 * Returns true when they agree.
 */
bool exec_op(ctx_t *x, const op_t *op) {
  const utim_periph_t *p = x->p;
  model_t *m = &x->m;
  char desc[160];
  ngot = 0;
  m_nwant = 0;
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
    } else if (op->a > m->max - (m->md - 1u) || op->a < m->md) {
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
    case UTIM_PROP_TOP:
      eval = m->max; /* no sim timer has a top */
      break;
    case UTIM_PROP_OVF_PENDING:
      /* The hardware's wrap flag: 0 or 1 where the timer has an overflow
       * (whether a wrap is unserviced is the flag's, the model keeps none);
       * the chain driver cannot tell (its carry is in software). */
      if ((m->caps & UTIM_CAP_OVERFLOW) == 0u || (m->caps & UTIM_CAP_VIRTUAL) != 0u) {
        er = -ENOTSUP;
        has_val = false;
      } else {
        val_loose = true;
        if (r == 0 && v > 1u) {
          say(x, "UTIM_PROP_OVF_PENDING read %" PRIu64 ", not 0 or 1\n", v);
        }
      }
      break;
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
  bool same = ngot == m_nwant;
  for (unsigned i = 0; same && i < ngot && i < MAX_RECS; i++) {
    same = memcmp(&got[i], &m_want[i], sizeof(rec_t)) == 0;
  }
  if (!same) {
    char b[160];
    mark(x, op->kind, D_CALLBACKS);
    say(x, "%s: callbacks differ (%u run, model expects %u)\n", desc, ngot, m_nwant);
    for (unsigned i = 0; i < ngot && i < 8; i++) {
      fmt_rec(b, sizeof(b), &got[i]);
      say(x, "  run:      %s\n", b);
    }
    for (unsigned i = 0; i < m_nwant && i < 8; i++) {
      fmt_rec(b, sizeof(b), &m_want[i]);
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
bool seq_begin(ctx_t *x, const seq_hdr_t *h) {
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
long replay(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t n) {
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
