/**
 * @file ct_freqref.c
 * @brief Reference frequency computations of the conformance suite, made
 *        from the clock input descriptions independently of the core's own
 *        frequency search, which the cases check against them.
 */
#include "ct.h"

uint32_t ct_fbuf2[CT_MAX_FREQS];

bool ct_usable(const utim_clock_desc_t *c) {
  return c != NULL && c->hz != 0u && c->cls != UTIM_CLASS_CHAIN;
}

static bool ct_div_ok(const utim_clock_desc_t *c, uint64_t d) {
  if (d == 0u) {
    return false;
  }
  if (c->div_kind == UTIM_DIV_POW2) {
    if ((d & (d - 1u)) != 0u) {
      return false;
    }
    unsigned e = 0;
    while ((d >> e) != 1u) {
      e++;
    }
    return e >= c->div_lo && e <= c->div_hi;
  }
  return d >= c->div_lo && d <= c->div_hi;
}

bool ct_achievable_on(const utim_clock_desc_t *c, uint32_t f) {
  return ct_usable(c) && f != 0u && c->hz % f == 0u && ct_div_ok(c, c->hz / f);
}

/* Whether clock selector @p clock (UTIM_CLOCK_*) includes input @p i. */
static bool ct_selects(const utim_periph_t *p, unsigned clock, unsigned i) {
  const utim_clock_desc_t *c = utim_clock(p, i);
  if (!ct_usable(c)) {
    return false;
  }
  switch (clock) {
  case UTIM_CLOCK_DEFAULT:
    return true;
  case UTIM_CLOCK_HF:
    return c->cls == UTIM_CLASS_HF;
  case UTIM_CLOCK_LP:
    return c->cls == UTIM_CLASS_LP;
  default:
    return clock == UTIM_CLOCK_PLATFORM(i);
  }
}

bool ct_achievable(const utim_periph_t *p, unsigned clock, uint32_t f) {
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    if (ct_selects(p, clock, i) && ct_achievable_on(utim_clock(p, i), f)) {
      return true;
    }
  }
  return false;
}

/* Reference list of the integer frequencies of input @p c, highest first.
 * Returns the total (entries beyond @p cap are counted, not stored), or -1
 * when the divider range is too large to enumerate here. */
long ct_expect_freqs(const utim_clock_desc_t *c, uint32_t *out, unsigned cap) {
  long n = 0;
  if (!ct_usable(c)) {
    return 0;
  }
  if (c->div_kind == UTIM_DIV_POW2) {
    for (uint32_t e = c->div_lo; e <= c->div_hi && e < 32u; e++) {
      uint32_t d = 1u << e;
      if (c->hz % d == 0u) {
        if ((unsigned long)n < cap) {
          out[n] = c->hz / d;
        }
        n++;
      }
    }
    return n;
  }
  uint32_t lo = c->div_lo == 0u ? 1u : c->div_lo;
  uint32_t hi = c->div_hi < c->hz ? c->div_hi : c->hz;
  if (hi >= lo && hi - lo > (1u << 22)) {
    return -1;
  }
  for (uint32_t d = lo; d <= hi && d != 0u; d++) {
    if (c->hz % d == 0u) {
      if ((unsigned long)n < cap) {
        out[n] = c->hz / d;
      }
      n++;
    }
    if (d == UINT32_MAX) {
      break;
    }
  }
  return n;
}

/* Reference closest frequency for selector @p clock: ties go to the lower. */
bool ct_ref_closest(const utim_periph_t *p, unsigned clock, uint32_t q, uint32_t *best) {
  bool found = false;
  uint64_t bd = 0;
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    if (!ct_selects(p, clock, i)) {
      continue;
    }
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf2, CT_MAX_FREQS);
    for (long k = 0; k < n && k < (long)CT_MAX_FREQS; k++) {
      uint32_t f = ct_fbuf2[k];
      uint64_t d = f > q ? (uint64_t)f - q : (uint64_t)q - f;
      if (!found || d < bd || (d == bd && f < *best)) {
        found = true;
        bd = d;
        *best = f;
      }
    }
  }
  return found;
}

/* Highest achievable frequency of the instance (0 if none). */
uint32_t ct_hz_fastest(const utim_periph_t *p) {
  uint32_t best = 0;
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf2, 1u);
    if (n > 0 && ct_fbuf2[0] > best) {
      best = ct_fbuf2[0];
    }
  }
  return best;
}

/* A frequency no input reaches (0 if none found): just above the fastest. */
uint32_t ct_hz_unachievable(const utim_periph_t *p) {
  uint32_t f = ct_hz_fastest(p);
  return f != 0u && f < UINT32_MAX ? f + 1u : 0u;
}

/* A frequency below the fastest that no input reaches (0 if none found). */
uint32_t ct_hz_gap(const utim_periph_t *p) {
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf2, CT_MAX_FREQS);
    for (long k = 0; k < n && k < (long)CT_MAX_FREQS; k++) {
      uint32_t f = ct_fbuf2[k];
      if (f > 2u && !ct_achievable(p, UTIM_CLOCK_DEFAULT, f - 1u)) {
        return f - 1u;
      }
    }
  }
  return 0;
}

/* Frequency for timing tests: an achievable one near 1 MHz, so a tick is
 * long compared with a register access and short enough for quick tests. */
uint32_t ct_hz_test(const utim_periph_t *p) {
  uint32_t f = 0;
  if (utim_closest_freq(p, 1000000u, UTIM_CLOCK_DEFAULT, &f) != 0) {
    return 0;
  }
  return f;
}
