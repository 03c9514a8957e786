/**
 * @file case_freqs.c
 * @brief Conformance cases: frequency enumeration, initialisation at every
 *        frequency, the closest frequency.
 */
#include "ct.h"

static uint32_t ct_fbuf[CT_MAX_FREQS];

void ct_case_freqs(const utim_periph_t *p) {
  unsigned nclk = 0;
  while (utim_clock(p, nclk) != NULL) {
    nclk++;
  }
  th_context("%s", utim_name(p));
  TH_EQ(utim_freqs(p, nclk, NULL, 0u), -EINVAL);
  TH_EQ(utim_freqs(p, 0u, NULL, 1u), -EINVAL);
  unsigned tested = 0;
  for (unsigned i = 0; i < nclk; i++) {
    const utim_clock_desc_t *c = utim_clock(p, i);
    if (!ct_usable(c)) {
      continue;
    }
    th_context("%s input %u (%lu Hz)", utim_name(p), i, (unsigned long)c->hz);
    long ne = ct_expect_freqs(c, ct_fbuf2, CT_MAX_FREQS);
    int n = utim_freqs(p, i, NULL, 0u);
    if (ne >= 0) {
      TH_EQ(n, ne);
    }
    if (n <= 0) {
      TH_CHECKF(false, "utim_freqs() = %d", n);
      continue;
    }
    TH_EQ(utim_freqs(p, i, ct_fbuf, CT_MAX_FREQS), n);
    unsigned m = (unsigned)ct_min64((uint64_t)n, CT_MAX_FREQS);
    for (unsigned k = 0; k < m; k++) {
      if (ne >= 0) {
        TH_CHECKF(ct_fbuf[k] == ct_fbuf2[k], "entry %u: %lu Hz, expected %lu Hz", k,
                  (unsigned long)ct_fbuf[k], (unsigned long)ct_fbuf2[k]);
      }
      TH_CHECKF(ct_achievable_on(c, ct_fbuf[k]), "entry %u: %lu Hz not reachable", k,
                (unsigned long)ct_fbuf[k]);
      TH_CHECKF(k == 0u || ct_fbuf[k] < ct_fbuf[k - 1u], "entry %u not below entry %u", k, k - 1u);
    }
    /* A short buffer receives the first entries only; the total is still returned. */
    uint32_t small[3] = {0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu};
    TH_EQ(utim_freqs(p, i, small, 1u), n);
    TH_EQU(small[0], ct_fbuf[0]);
    TH_EQU(small[1], 0xdeadbeefu);

    for (unsigned k = 0; k < m; k++) {
      uint32_t f = ct_fbuf[k];
      th_context("%s input %u at %lu Hz", utim_name(p), i, (unsigned long)f);
      tested++;
      if (!TH_EQ(utim_init(p, f, UTIM_CLOCK_PLATFORM(i)), 0)) {
        continue;
      }
      TH_EQU(utim_freq(p), f);
      TH_EQU(ct_prop(p, UTIM_PROP_FREQ), f);
      TH_EQU(ct_prop(p, UTIM_PROP_CLOCK), i);
      TH_EQU(ct_prop(p, UTIM_PROP_DIVIDER), c->hz / f);
      uint64_t c0 = utim_read(p);
      if (ct_has(p, UTIM_CAP_STOP)) {
        TH_EQU(c0, 0);
      } else {
        TH_CHECKF(c0 <= ct_lat(p), "counter %llu after init", (unsigned long long)c0);
      }
      /* DEFAULT picks any input that reaches it, high-frequency inputs first. */
      if (TH_EQ(utim_init(p, f, UTIM_CLOCK_DEFAULT), 0)) {
        uint64_t ck = ct_prop(p, UTIM_PROP_CLOCK);
        const utim_clock_desc_t *cc = utim_clock(p, (unsigned)ck);
        /* cc tested twice: the analyser cannot see that a check returns its verdict. */
        if (TH_CHECKF(cc != NULL, "clock %llu", (unsigned long long)ck) && cc != NULL) {
          TH_CHECK(ct_achievable_on(cc, f));
          if (ct_achievable(p, UTIM_CLOCK_HF, f)) {
            TH_CHECKF(cc->cls == UTIM_CLASS_HF, "DEFAULT chose input %llu (class %u)",
                      (unsigned long long)ck, cc->cls);
          }
        }
        TH_EQU(utim_freq(p), f);
      }
      if (c->cls == UTIM_CLASS_HF || c->cls == UTIM_CLASS_LP) {
        unsigned sel = c->cls == UTIM_CLASS_HF ? UTIM_CLOCK_HF : UTIM_CLOCK_LP;
        if (TH_EQ(utim_init(p, f, sel), 0)) {
          const utim_clock_desc_t *cc = utim_clock(p, (unsigned)ct_prop(p, UTIM_PROP_CLOCK));
          TH_CHECK(cc != NULL && cc->cls == c->cls);
        }
      }
      for (unsigned j = 0; j < nclk; j++) {
        if (j != i && !ct_achievable_on(utim_clock(p, j), f)) {
          TH_CHECKF(utim_init(p, f, UTIM_CLOCK_PLATFORM(j)) == -ERANGE, "on input %u", j);
        }
      }
    }
  }
  th_context("%s", utim_name(p));
  TH_CHECK(tested > 0u);
  uint32_t bad = ct_hz_unachievable(p);
  if (bad != 0u) {
    TH_CHECKF(utim_init(p, bad, UTIM_CLOCK_DEFAULT) == -ERANGE, "%lu Hz", (unsigned long)bad);
    TH_CHECKF(utim_init(p, bad, UTIM_CLOCK_PLATFORM(0)) == -ERANGE, "%lu Hz", (unsigned long)bad);
  }
  uint32_t gap = ct_hz_gap(p);
  if (gap != 0u) {
    TH_CHECKF(utim_init(p, gap, UTIM_CLOCK_DEFAULT) == -ERANGE, "%lu Hz", (unsigned long)gap);
  }
}

void ct_case_closest(const utim_periph_t *p) {
  uint32_t out = 7u;
  th_context("%s", utim_name(p));
  TH_EQ(utim_closest_freq(p, 0u, UTIM_CLOCK_DEFAULT, &out), -EINVAL);
  TH_EQ(utim_closest_freq(p, 1000u, UTIM_CLOCK_DEFAULT, NULL), -EINVAL);
  TH_EQ(utim_closest_freq(p, 1000u, UTIM_CLOCK_PLATFORM((unsigned)ct_prop(p, UTIM_PROP_CLOCKS)),
                          &out),
        -EINVAL);
  static const unsigned sels[] = {UTIM_CLOCK_DEFAULT, UTIM_CLOCK_HF, UTIM_CLOCK_LP};
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf, CT_MAX_FREQS);
    for (long k = 0; k < n && k < (long)CT_MAX_FREQS; k++) {
      uint32_t f = ct_fbuf[k];
      for (int dq = -1; dq <= 1; dq++) {
        uint32_t q = (uint32_t)((int64_t)f + dq);
        if (q == 0u || (dq > 0 && f == UINT32_MAX)) {
          continue;
        }
        th_context("%s input %u, f = %lu Hz, asking %lu Hz", utim_name(p), i, (unsigned long)f,
                   (unsigned long)q);
        uint32_t want = 0;
        int r = utim_closest_freq(p, q, UTIM_CLOCK_DEFAULT, &out);
        if (TH_EQ(r, 0)) {
          if (ct_ref_closest(p, UTIM_CLOCK_DEFAULT, q, &want)) {
            TH_EQU(out, want);
          }
          if (dq < 0) {
            TH_CHECKF(out + 2u >= f && out <= f, "got %lu", (unsigned long)out);
          } else if (dq > 0) {
            TH_CHECKF(out >= f && out <= f + 2u, "got %lu", (unsigned long)out);
          } else {
            TH_EQU(out, f);
          }
        }
        if (TH_EQ(utim_closest_freq(p, q, UTIM_CLOCK_PLATFORM(i), &out), 0) &&
            ct_ref_closest(p, UTIM_CLOCK_PLATFORM(i), q, &want)) {
          TH_EQU(out, want);
        }
        for (unsigned s = 1; s < sizeof sels / sizeof sels[0]; s++) {
          if (ct_ref_closest(p, sels[s], q, &want)) {
            TH_EQ(utim_closest_freq(p, q, sels[s], &out), 0);
            TH_EQU(out, want);
          }
        }
      }
    }
  }
  uint32_t want = 0;
  th_context("%s extremes", utim_name(p));
  if (ct_ref_closest(p, UTIM_CLOCK_DEFAULT, UINT32_MAX, &want)) {
    TH_EQ(utim_closest_freq(p, UINT32_MAX, UTIM_CLOCK_DEFAULT, &out), 0);
    TH_EQU(out, want);
    TH_EQU(want, ct_hz_fastest(p));
  }
  if (ct_ref_closest(p, UTIM_CLOCK_DEFAULT, 1u, &want)) {
    TH_EQ(utim_closest_freq(p, 1u, UTIM_CLOCK_DEFAULT, &out), 0);
    TH_EQU(out, want);
  }
}
