/**
 * @file diff_gen.c
 * @brief Generating operations for differential_sim: seeded random numbers,
 *        the frequency sets of the instances (checked against their
 *        documentation first) and random uAPI operations, valid and invalid.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "diff.h"

static uint64_t rng_state;

void rng_seed(uint64_t state) {
  rng_state = state;
}

static uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, n); n == 0 means the full 64-bit range. */
uint64_t rnd_below(uint64_t n) {
  return n == 0 ? rnd() : rnd() % n;
}

static bool chance(unsigned percent) {
  return rnd_below(100) < percent;
}

freqset_t freqs[NSHAPES];

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

op_t gen_op(const ctx_t *x, unsigned shape) {
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
    static const unsigned ids[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0xff};
    op.a = ids[rnd_below(sizeof(ids) / sizeof(ids[0]))];
    op.mode = chance(5);
    break;
  }
  default:
    break;
  }
  return op;
}

bool check_static(unsigned shape, char *why, size_t n) {
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
