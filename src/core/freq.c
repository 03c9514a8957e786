/*
 * utim core: frequency selection. Which clock input and divider give a
 * frequency exactly (utim_init()), the closest achievable one, and the list
 * of achievable ones, from the instance's clock descriptions; the one place
 * that validates a divider against its input's divider set (drivers trust
 * it).
 */
#include "core.h"

/* ---- frequency math --------------------------------------------------------- */

/* Whether divider `div` belongs to the divider set of clock input `c`. */
static bool div_in_set(const utim_clock_desc_t *c, uint32_t div) {
  if (div == 0u) {
    return false;
  }
  if (c->div_kind == UTIM_DIV_POW2) {
    if ((div & (div - 1u)) != 0u) {
      return false;
    }
    uint32_t e = 0u;
    while ((div >> e) != 1u) {
      e++;
    }
    return e >= c->div_lo && e <= c->div_hi;
  }
  return div >= c->div_lo && div <= c->div_hi;
}

/* Number of dividers of `c`; divider number i in increasing order. */
static uint32_t div_count(const utim_clock_desc_t *c) {
  if (c->div_hi < c->div_lo) {
    return 0u;
  }
  if (c->div_kind == UTIM_DIV_POW2 && c->div_hi > 31u) {
    return 32u - c->div_lo;
  }
  return c->div_hi - c->div_lo + 1u;
}

static uint32_t div_at(const utim_clock_desc_t *c, uint32_t i) {
  return c->div_kind == UTIM_DIV_POW2 ? (1u << (c->div_lo + i)) : (c->div_lo + i);
}

/* The divider giving exactly `hz` from input `c`, or 0 when there is none. */
static uint32_t exact_div(const utim_clock_desc_t *c, uint32_t hz) {
  if (c->hz == 0u || hz == 0u || c->hz % hz != 0u) {
    return 0u;
  }
  uint32_t div = c->hz / hz;
  return div_in_set(c, div) ? div : 0u;
}

/*
 * When divider `d` gives an integer frequency from input `c`, keep it in
 * `*best` if it is the closest to `hz` so far (the lower one on a tie) and
 * return true; false when c->hz / d is not an integer.
 */
static bool offer_exact(const utim_clock_desc_t *c, uint32_t d, uint32_t hz, uint32_t *best,
                        bool *have) {
  if (c->hz % d != 0u) {
    return false;
  }
  uint32_t f = c->hz / d;
  uint32_t err = f > hz ? f - hz : hz - f;
  uint32_t berr = *best > hz ? *best - hz : hz - *best;
  if (!*have || err < berr || (err == berr && f < *best)) {
    *best = f;
    *have = true;
  }
  return true;
}

/* The index of the first of input `c`'s @p n dividers d (ascending) with
 * c->hz / d <= hz, i.e. d >= ceil(c->hz / hz) (n when there is none): a
 * binary search (hz > 0). */
static uint32_t first_at_most(const utim_clock_desc_t *c, uint32_t n, uint32_t hz) {
  const uint32_t want = c->hz / hz + (c->hz % hz != 0u ? 1u : 0u);
  uint32_t lo = 0u;
  uint32_t hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2u;
    if (div_at(c, mid) < want) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/*
 * Closest integer frequency input `c` offers to `hz`: the exact frequencies
 * are c->hz / d for the dividers d that divide c->hz, decreasing in d, so the
 * answer is next to the divider c->hz / hz. Searching the divider list
 * outwards from there costs at most the size of the divider set.
 */
static bool closest_on(const utim_clock_desc_t *c, uint32_t hz, uint32_t *best, bool have) {
  uint32_t n = div_count(c);
  if (c->hz == 0u || n == 0u) {
    return have;
  }
  const uint32_t lo = first_at_most(c, n, hz);
  /* Scan up (lower frequencies) and down (higher) to the first exact divider. */
  for (uint32_t i = lo; i < n; i++) {
    if (offer_exact(c, div_at(c, i), hz, best, &have)) {
      break;
    }
  }
  for (uint32_t i = lo; i-- > 0u;) {
    if (offer_exact(c, div_at(c, i), hz, best, &have)) {
      break;
    }
  }
  return have;
}

/*
 * Clock inputs selected by `clock`, in the order they are tried: bit i of
 * the result selects input i; `first_hf` asks for high-frequency inputs to be
 * tried before the others. Returns false when the selector names no input.
 */
static bool select_inputs(const utim_periph_t *p, unsigned clock, uint32_t *sel) {
  const utim_dev_t *dev = p->dev;
  *sel = 0u;
  if (clock >= UTIM_CLOCK_PLATFORM(0)) {
    unsigned n = clock - UTIM_CLOCK_PLATFORM(0);
    if (n >= dev->nclocks) {
      return false;
    }
    *sel = 1u << n;
    return true;
  }
  if (clock > UTIM_CLOCK_LP) {
    return false;
  }
  for (unsigned i = 0u; i < dev->nclocks && i < 32u; i++) {
    uint8_t cls = dev->clocks[i].cls;
    if ((clock == UTIM_CLOCK_DEFAULT && cls != UTIM_CLASS_CHAIN) ||
        (clock == UTIM_CLOCK_HF && cls == UTIM_CLASS_HF) ||
        (clock == UTIM_CLOCK_LP && cls == UTIM_CLASS_LP)) {
      *sel |= 1u << i;
    }
  }
  return *sel != 0u;
}

/* Try inputs in `sel`: high-frequency ones first, then the rest, each in index order. */
static bool find_exact(const utim_periph_t *p, uint32_t sel, uint32_t hz, unsigned *clk,
                       uint32_t *div) {
  const utim_dev_t *dev = p->dev;
  for (unsigned pass = 0u; pass < 2u; pass++) {
    for (unsigned i = 0u; i < dev->nclocks && i < 32u; i++) {
      bool hf = dev->clocks[i].cls == UTIM_CLASS_HF;
      if ((sel & (1u << i)) == 0u || hf != (pass == 0u)) {
        continue;
      }
      uint32_t d = exact_div(&dev->clocks[i], hz);
      if (d != 0u) {
        *clk = i;
        *div = d;
        return true;
      }
    }
  }
  return false;
}

int utim_init(const utim_periph_t *p, uint32_t hz, unsigned clock) {
  uint32_t sel;
  if (hz == 0u || !select_inputs(p, clock, &sel)) {
    return -EINVAL;
  }
  unsigned clk;
  uint32_t div;
  if (!find_exact(p, sel, hz, &clk, &div)) {
    return -ERANGE;
  }
  utim_state_t *st = p->dev->state;
  uint32_t key = utim_port_lock();
  int rc = p->drv->init(p, clk, div);
  if (rc == 0) {
    utim__reset_state(p);
    st->hz = hz;
    st->clk = (uint8_t)clk;
    if (st->ovf_cb != NULL && p->drv->set_property != NULL) {
      (void)p->drv->set_property(p, UTIM_HPROP_OVF_IRQ, 1u);
    }
  }
  utim_port_unlock(key);
  return rc;
}

int utim_closest_freq(const utim_periph_t *p, uint32_t hz, unsigned clock, uint32_t *out) {
  uint32_t sel;
  if (hz == 0u || out == NULL || !select_inputs(p, clock, &sel)) {
    return -EINVAL;
  }
  uint32_t best = 0u;
  bool have = false;
  for (unsigned i = 0u; i < p->dev->nclocks && i < 32u; i++) {
    if ((sel & (1u << i)) != 0u) {
      have = closest_on(&p->dev->clocks[i], hz, &best, have);
    }
  }
  if (!have) {
    return -ERANGE;
  }
  *out = best;
  return 0;
}

int utim_freqs(const utim_periph_t *p, unsigned clk, uint32_t *out, size_t cap) {
  if (clk >= p->dev->nclocks || (out == NULL && cap > 0u)) {
    return -EINVAL;
  }
  const utim_clock_desc_t *c = &p->dev->clocks[clk];
  uint32_t n = div_count(c);
  int count = 0;
  if (c->hz == 0u) {
    return 0;
  }
  for (uint32_t i = 0u; i < n; i++) {
    uint32_t d = div_at(c, i);
    if (c->hz % d == 0u) {
      if ((size_t)count < cap) {
        out[count] = c->hz / d;
      }
      count++;
    }
  }
  return count;
}

int utim_freq_floor(const utim_periph_t *p, unsigned clk, uint32_t hz, uint32_t *out) {
  if (clk >= p->dev->nclocks || out == NULL) {
    return -EINVAL;
  }
  const utim_clock_desc_t *c = &p->dev->clocks[clk];
  const uint32_t n = div_count(c);
  if (c->hz == 0u || hz == 0u) {
    return -ERANGE;
  }
  /* From the first divider whose frequency is at most hz up to the first
   * that divides c->hz (frequencies fall as the divider grows). */
  for (uint32_t i = first_at_most(c, n, hz); i < n; i++) {
    const uint32_t d = div_at(c, i);
    if (c->hz % d == 0u) {
      *out = c->hz / d;
      return 0;
    }
  }
  return -ERANGE;
}
