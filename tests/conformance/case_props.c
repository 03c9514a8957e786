/**
 * @file case_props.c
 * @brief Conformance cases: the uninitialised state, properties, instance
 *        look-up, claim and release.
 */
#include "ct.h"

/* Must run before anything initialises the instance: there is no way back
 * to the uninitialised state through the uAPI. */
void ct_case_uninit(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (utim_freq(p) != 0u) {
    TH_SKIP("already initialised before this test");
  }
  TH_EQU(ct_prop(p, UTIM_PROP_FREQ), 0);
  TH_EQ(utim_start(p), -EINVAL);
  TH_EQ(utim_stop(p), -EINVAL);
  if (utim_channels(p) > 0u) {
    TH_EQ(utim_set_abs(p, 0, 1u), -EINVAL);
    TH_EQ(utim_set_rel(p, 0, 1u), -EINVAL);
    TH_EQ(utim_set_periodic(p, 0, ct_md(p) + 10u), -EINVAL);
  }
  TH_EQ(utim_init(p, 0u, UTIM_CLOCK_DEFAULT), -EINVAL);
  uint32_t bad = ct_hz_unachievable(p);
  if (bad != 0u) {
    TH_EQ(utim_init(p, bad, UTIM_CLOCK_DEFAULT), -ERANGE);
  }
  uint32_t nclk = (uint32_t)ct_prop(p, UTIM_PROP_CLOCKS);
  TH_EQ(utim_init(p, ct_hz_test(p), UTIM_CLOCK_PLATFORM(nclk)), -EINVAL);
  TH_EQU(utim_freq(p), 0);
  TH_EQ(utim_start(p), -EINVAL);
  TH_EQ(ct_count(), 0);
}

void ct_case_props(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  TH_CHECK(utim_name(p) != NULL && utim_name(p)[0] != '\0');
  TH_CHECK(utim_width(p) >= 1u && utim_width(p) <= 64u);
  TH_EQU(utim_max(p), utim_width(p) == 64u ? UINT64_MAX : (1ull << utim_width(p)) - 1u);
  TH_CHECK(utim_channels(p) <= UTIM_MAX_CHANNELS);
  TH_CHECK(utim_min_distance(p) >= 1u);
  TH_EQU(ct_prop(p, UTIM_PROP_WIDTH), utim_width(p));
  TH_EQU(ct_prop(p, UTIM_PROP_MAX), utim_max(p));
  TH_EQU(ct_prop(p, UTIM_PROP_CHANNELS), utim_channels(p));
  TH_EQU(ct_prop(p, UTIM_PROP_COUNT_DOWN), utim_count_down(p));
  TH_EQU(ct_prop(p, UTIM_PROP_CAPS), utim_caps(p));
  TH_EQU(ct_prop(p, UTIM_PROP_MIN_DISTANCE), utim_min_distance(p));
  unsigned nclk = 0;
  while (utim_clock(p, nclk) != NULL) {
    nclk++;
  }
  TH_CHECK(nclk >= 1u);
  TH_EQU(ct_prop(p, UTIM_PROP_CLOCKS), nclk);
  TH_EQU(ct_prop(p, UTIM_PROP_FREQ), utim_freq(p));

  uint32_t hz = ct_hz_test(p);
  if (!ct_init(p, hz)) {
    return;
  }
  TH_EQU(utim_freq(p), hz);
  TH_EQU(ct_prop(p, UTIM_PROP_FREQ), hz);
  uint64_t clk = ct_prop(p, UTIM_PROP_CLOCK);
  uint64_t div = ct_prop(p, UTIM_PROP_DIVIDER);
  if (TH_CHECKF(clk < nclk, "clock %llu", (unsigned long long)clk)) {
    const utim_clock_desc_t *c = utim_clock(p, (unsigned)clk);
    TH_CHECKF(div != 0u && (uint64_t)hz * div == c->hz,
              "input %llu at %lu Hz, divider property %llu, frequency %lu Hz",
              (unsigned long long)clk, (unsigned long)c->hz, (unsigned long long)div,
              (unsigned long)hz);
  }
  /* Capabilities agree with what the operations report. */
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    TH_EQ(utim_write(p, 0u), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_stop(p), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, NULL), -ENOTSUP);
  }
}

void ct_case_lookup(void *unused) {
  (void)unused;
  unsigned n = utim_count();
  TH_CHECK(n >= 1u);
  for (unsigned i = 0; i < n; i++) {
    const utim_periph_t *p = utim_by_index(i);
    if (p == NULL) {
      TH_CHECKF(false, "utim_by_index(%u) is NULL", i);
      continue;
    }
    th_context("index %u %s", i, utim_name(p));
    TH_CHECK(utim_by_name(utim_name(p)) == p);
    for (unsigned j = 0; j < i; j++) {
      const utim_periph_t *q = utim_by_index(j);
      TH_CHECKF(q == NULL || !ct_streq(utim_name(q), utim_name(p)), "name shared with index %u", j);
    }
    /* Names are case-sensitive: a lower-case copy must not find it. */
    char lower[64];
    unsigned k = 0;
    bool changed = false;
    for (; utim_name(p)[k] != '\0' && k + 1u < sizeof lower; k++) {
      char c = utim_name(p)[k];
      lower[k] = c;
      if (c >= 'A' && c <= 'Z') {
        lower[k] = "abcdefghijklmnopqrstuvwxyz"[c - 'A'];
      }
      changed = changed || lower[k] != c;
    }
    lower[k] = '\0';
    if (changed && utim_name(p)[k] == '\0') {
      const utim_periph_t *q = utim_by_name(lower);
      TH_CHECKF(q == NULL || ct_streq(utim_name(q), lower), "by_name(\"%s\")", lower);
    }
  }
  th_context("board");
  TH_CHECK(utim_by_index(n) == NULL);
  TH_CHECK(utim_by_index(n + 100u) == NULL);
  TH_CHECK(utim_by_index(~0u) == NULL);
  TH_CHECK(utim_by_name(NULL) == NULL);
  TH_CHECK(utim_by_name("") == NULL);
  TH_CHECK(utim_by_name("NO_SUCH_TIMER_xyzzy") == NULL);
}

void ct_case_claim(const utim_periph_t *p) {
  int a = 0;
  int b = 0;
  th_context("%s", utim_name(p));
  TH_EQ(utim_claim(p, NULL), -EINVAL);
  TH_EQ(utim_claim(NULL, &a), -EINVAL);
  TH_EQ(utim_release(NULL, &a), -EINVAL);
  TH_EQ(utim_release(p, &a), -EINVAL); /* not claimed */
  TH_EQ(utim_claim(p, &a), 0);
  TH_EQ(utim_claim(p, &a), 0);
  TH_EQ(utim_claim(p, &b), -EBUSY);
  TH_EQ(utim_release(p, &b), -EBUSY);
  TH_EQ(utim_release(p, NULL), -EINVAL);
  /* Advisory: the other functions do not check ownership. */
  TH_EQ(utim_init(p, ct_hz_test(p), UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_start(p), 0);
  /* utim_init() keeps the claim. */
  TH_EQ(utim_claim(p, &b), -EBUSY);
  TH_EQ(utim_release(p, &a), 0);
  TH_EQ(utim_release(p, &a), -EINVAL);
  TH_EQ(utim_claim(p, &b), 0);
  TH_EQ(utim_claim(p, &a), -EBUSY);
  TH_EQ(utim_release(p, &b), 0);
  /* Other instances are independent. */
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *q = utim_by_index(i);
    if (q != p) {
      TH_EQ(utim_claim(p, &a), 0);
      TH_EQ(utim_claim(q, &b), 0);
      TH_EQ(utim_release(q, &b), 0);
      TH_EQ(utim_release(p, &a), 0);
    }
  }
}
