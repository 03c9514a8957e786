/**
 * @file diff_model.c
 * @brief The reference model of differential_sim, written from the semantics
 *        documented in include/utim/utim.h and boards/sim/board_sim.h, and
 *        independent of the core.
 */
#include "diff.h"

const doc_shape_t doc_shapes[NSHAPES] = {
    {"SIM_TIMER16", 16, 4, 0, true, true, true, 0, 0},
    {"SIM_SYSTICK24", 24, 1, 1, true, false, true, 2, 0},
    {"SIM_NRF32", 32, 4, 0, false, false, true, 2, 0},
    {"SIM_MTIME64", 64, 1, 0, false, true, false, 0, 0},
    {"SIM_TIMER8", 8, 2, 1, true, true, true, 3, 0},
    {"SIM_CHAIN32", 32, 2, 0, true, true, true, 0, 0},
    {"SIM_SOFT32", 32, 2, 0, true, true, true, 2, 0x10000},
};

_Static_assert(sizeof(doc_shapes) / sizeof(doc_shapes[0]) == NSHAPES, "NSHAPES");

rec_t m_want[MAX_RECS];
unsigned m_nwant;

static uint64_t m_ticks(const model_t *m, uint64_t t) {
  return (uint64_t)(((u128)(t - m->t0) * m->hz) / NS_PER_S);
}

uint64_t m_count(const model_t *m) {
  if (!m->running) {
    return m->base;
  }
  return (m->base + m_ticks(m, m->now)) & m->max;
}

uint32_t m_valid_events(const model_t *m) {
  uint32_t v = m->nch >= 32 ? 0xffffffffu : ((1u << m->nch) - 1u);
  if (m->caps & UTIM_CAP_OVERFLOW) {
    v |= UTIM_EVT_OVF;
  }
  return v;
}

static void emit(const model_t *m, int src, uintptr_t arg, uint64_t count) {
  if (m_nwant < MAX_RECS) {
    m_want[m_nwant] = (rec_t){m->inst, src, arg, count, m->now};
  }
  m_nwant++;
}

/* Ticks until the counter steps onto v: a full wrap when it is there already. */
static u128 m_dist(const model_t *m, uint64_t cur, uint64_t v) {
  uint64_t d = (v - cur) & m->max;
  return d == 0 ? (u128)m->max + 1u : (u128)d;
}

unsigned m_advance(model_t *m, uint64_t t1, unsigned limit, bool out) {
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

void m_deliver(model_t *m) {
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

bool clock_reaches(const utim_clock_desc_t *c, uint32_t hz, uint32_t *div_out) {
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

bool class_ok(const utim_clock_desc_t *c, unsigned sel, unsigned idx) {
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

bool has_class(const utim_periph_t *p, unsigned cls) {
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

int expect_init(const utim_periph_t *p, uint32_t hz, unsigned sel) {
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

uint64_t ticks_to_ns(const model_t *m, u128 ticks) {
  u128 ns = (ticks * NS_PER_S + m->hz - 1u) / m->hz;
  return ns > (u128)1 << 50 ? (uint64_t)1 << 50 : (uint64_t)ns;
}
