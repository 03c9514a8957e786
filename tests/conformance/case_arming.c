/**
 * @file case_arming.c
 * @brief Conformance cases: one-shot arming on every channel, delivery order,
 *        relative arming of 0..15 ticks, absolute values already passed.
 */
#include "ct.h"

void ct_case_oneshot(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (utim_channels(p) == 0u) {
    TH_SKIP("no channels");
  }
  if (!ct_init_start(p, ct_hz_test(p))) {
    return;
  }
  uint64_t d = ct_max64(20u, ct_md(p) + 5u);
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    uint64_t s = utim_read(p);
    int r = utim_set_rel(p, ch, d);
    uint64_t e = utim_read(p);
    TH_EQ(r, 0);
    tb_wait_ticks(p, d + ct_lat(p) + 2u);
    if (TH_EQ(ct_count(), 1)) {
      TH_CHECK(ct_event(0).p == p);
      TH_EQ(ct_event(0).ch, (int)ch);
      TH_CHECK(ct_event(0).arg == ct_arg(p));
      uint64_t at = ct_dist(p, s, ct_event(0).at);
      TH_CHECKF(at >= d && at <= d + ct_dist(p, s, e) + ct_lat(p),
                "fired %llu ticks after the call began, armed %llu", (unsigned long long)at,
                (unsigned long long)d);
    }
    tb_wait_ticks(p, ct_wrap_or(p, 4096u) + 8u);
    TH_CHECKF(ct_count() == 1u, "%u callbacks for one one-shot", ct_count());

    ct_ev_reset();
    uint64_t t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    tb_wait_ticks(p, d + ct_lat(p) + 2u);
    if (TH_EQ(ct_count(), 1)) {
      TH_EQ(ct_event(0).ch, (int)ch);
      TH_CHECK(ct_event(0).arg == ct_arg(p));
      TH_CHECKF(ct_dist(p, t, ct_event(0).at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_event(0).at, (unsigned long long)t);
    }
    tb_wait_ticks(p, ct_wrap_or(p, 4096u) + 8u);
    TH_CHECKF(ct_count() == 1u, "%u callbacks for one one-shot", ct_count());
  }
}

void ct_case_order(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t base = ct_md(p) + 10u + 2u * (uint64_t)n;
  uint64_t gap = ct_max64(5u, ct_lat(p) + 3u);
  while (base + gap * n >= utim_max(p) / 2u && gap > 1u) {
    gap--;
  }
  /* Distinct values, channel 0 last: callbacks follow the values. */
  ct_ev_reset();
  uint64_t s = utim_read(p);
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_abs(p, ch, ct_add(p, s, base + gap * (n - 1u - ch))), 0);
  }
  tb_wait_ticks(p, base + gap * n + ct_lat(p) + 2u);
  if (TH_EQ(ct_count(), n)) {
    for (unsigned k = 0; k < n; k++) {
      unsigned ch = n - 1u - k;
      uint64_t t = ct_add(p, s, base + gap * k);
      TH_CHECKF(ct_event(k).ch == (int)ch, "callback %u on ch %d, expected ch %u", k,
                ct_event(k).ch, ch);
      TH_CHECKF(ct_dist(p, t, ct_event(k).at) <= ct_lat(p) + 2u, "ch %u fired at 0x%llx for 0x%llx",
                ch, (unsigned long long)ct_event(k).at, (unsigned long long)t);
    }
  }
  /* The same value on every channel: delivered channel 0 first. */
  ct_ev_reset();
  uint64_t t = ct_add(p, utim_read(p), base);
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_abs(p, ch, t), 0);
  }
  tb_wait_ticks(p, base + ct_lat(p) + 2u);
  if (TH_EQ(ct_count(), n)) {
    for (unsigned k = 0; k < n; k++) {
      TH_CHECKF(ct_event(k).ch == (int)k, "callback %u on ch %d", k, ct_event(k).ch);
      TH_CHECKF(ct_dist(p, t, ct_event(k).at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_event(k).at, (unsigned long long)t);
    }
  }
}

void ct_case_rel(const utim_periph_t *p) {
  unsigned nch = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  for (uint64_t n = 0; n <= 15u && !th_test_failed(); n++) {
    for (unsigned rep = 0; rep < 128u && !th_test_failed(); rep++) {
      unsigned ch = rep % nch;
      th_context("%s ch %u set_rel(%llu) rep %u", utim_name(p), ch, (unsigned long long)n, rep);
      ct_jitter(p, (rep * 37u) % 101u);
      ct_rel_once(p, ch, n, 0u, 0u);
    }
    /* No duplicates later, e.g. one wrap on. */
    ct_ev_reset();
    tb_wait_ticks(p, ct_wrap_or(p, 70000u) + ct_lat(p));
    TH_CHECKF(ct_count() == 0u, "%u late extra callbacks for set_rel(%llu)", ct_count(),
              (unsigned long long)n);
  }
  /* Race: time advanced before every register access of utim_set_rel(). */
  for (uint64_t n = 0; n <= 15u && !th_test_failed(); n++) {
    ct_ev_reset();
    uint64_t mark = tb_race_mark();
    TH_EQ(utim_set_rel(p, 0, n), 0);
    unsigned cnt = tb_race_count(mark);
    if (n == 0u) {
      th_note("%s: race over %u accesses of utim_set_rel(0)", utim_name(p), cnt);
    }
    tb_wait_ticks(p, ct_max64(n, ct_md(p)) + ct_lat(p) + 4u);
    const uint64_t adv[] = {1u, n, n + 1u};
    for (unsigned k = 0; k <= cnt; k++) {
      for (unsigned a = 0; a < 3u; a++) {
        if (adv[a] == 0u || (a > 0u && adv[a] == adv[a - 1u])) {
          continue;
        }
        unsigned ch = k % nch;
        th_context("%s ch %u set_rel(%llu) race: +%llu ticks before access %u of %u", utim_name(p),
                   ch, (unsigned long long)n, (unsigned long long)adv[a], k, cnt);
        ct_rel_once(p, ch, n, k, adv[a]);
      }
    }
  }
}

void ct_case_abs_late(const utim_periph_t *p) {
  unsigned nch = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t max = utim_max(p);
  uint64_t md = ct_md(p);
  uint64_t prev = ct_max64(60u, md + 20u);
  tb_wait_ticks(p, 1000u); /* so that "passed" values below are not negative */
  for (unsigned ch = 0; ch < nch; ch++) {
    const uint64_t back[] = {0u, 1u, 2u, max / 4u, max / 2u - 8u};
    for (unsigned i = 0; i < sizeof back / sizeof back[0] + 1u; i++) {
      ct_ev_reset();
      uint64_t s0 = utim_read(p);
      TH_EQ(utim_set_rel(p, ch, prev), 0); /* a setting the failed call must keep */
      uint64_t s = utim_read(p);
      uint64_t v = i < sizeof back / sizeof back[0] ? ct_add(p, s, max + 1u - back[i])
                                                    : ct_add(p, s, md - 1u);
      if (i == sizeof back / sizeof back[0] && md <= 1u) {
        TH_EQ(utim_clear(p, ch), 0);
        continue;
      }
      ct_set_phase(CT_IN);
      int r = utim_set_abs(p, ch, v);
      ct_set_phase(CT_AFTER);
      /* The context after the call: formatting it costs ticks on a fast
       * counter, and the half-range boundary value above leaves only 9. */
      th_context("%s ch %u set_abs(0x%llx) at counter 0x%llx", utim_name(p), ch,
                 (unsigned long long)v, (unsigned long long)s);
      TH_EQ(r, -ETIME);
      tb_wait_ticks(p, prev + ct_lat(p) + 2u);
      /* An error changes nothing: the earlier relative setting still fires, once, on time. */
      if (TH_CHECKF(ct_count() == 1u, "-ETIME must keep the earlier setting; %u callbacks",
                    ct_count())) {
        TH_CHECKF(ct_dist(p, s0, ct_event(0).at) >= prev, "earlier setting fired early at 0x%llx",
                  (unsigned long long)ct_event(0).at);
      }
    }
    /* The late value never comes round either. */
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    tb_wait_ticks(p, ct_wrap_or(p, 70000u) + ct_lat(p));
    TH_EQ(ct_count(), 0);
    /* A value far enough ahead is accepted. */
    uint64_t t = ct_add(p, utim_read(p), md + 20u);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    tb_wait_ticks(p, md + 20u + ct_lat(p) + 2u);
    TH_EQ(ct_count(), 1);
  }
  /* Race near the limit: either armed and fires once at the value, or -ETIME
   * and never fires. */
  ct_ev_reset();
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_set_abs(p, 0, ct_add(p, utim_read(p), md + 100u)), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_set_abs()", utim_name(p), cnt);
  TH_EQ(utim_clear(p, 0), 0);
  for (uint64_t j = 0; j <= 3u; j++) {
    for (unsigned k = 0; k <= cnt; k++) {
      for (unsigned a = 0; a < 2u; a++) {
        uint64_t adv = a == 0u ? 1u : md + j;
        unsigned ch = k % nch;
        ct_ev_reset();
        tb_idle();
        uint64_t s = utim_read(p);
        uint64_t v = ct_add(p, s, md + j);
        th_context("%s ch %u set_abs(now + %llu) race: +%llu ticks before access %u of %u",
                   utim_name(p), ch, (unsigned long long)md + j, (unsigned long long)adv, k, cnt);
        tb_race_set(p, k, adv);
        ct_set_phase(CT_IN);
        int r = utim_set_abs(p, ch, v);
        ct_set_phase(CT_AFTER);
        tb_race_cancel();
        uint64_t e = utim_read(p);
        tb_wait_ticks(p, md + j + ct_lat(p) + 2u);
        if (r == 0) {
          if (TH_CHECKF(ct_count() == 1u, "armed (0) but %u callbacks", ct_count())) {
            TH_CHECKF(ct_dist(p, v, ct_event(0).at) <= ct_dist(p, s, e) + ct_lat(p),
                      "fired at 0x%llx for 0x%llx", (unsigned long long)ct_event(0).at,
                      (unsigned long long)v);
          }
        } else if (TH_CHECKF(r == -ETIME, "set_abs() = %d", r)) {
          tb_wait_ticks(p, ct_wrap_or(p, 70000u));
          TH_CHECKF(ct_count() == 0u, "-ETIME but %u callbacks", ct_count());
        }
        TH_EQ(utim_clear(p, ch), 0);
      }
    }
  }
}

/* Relative settings more than half the range ahead, up to utim_max(): the
 * target is numerically behind the counter (past the wrap), and is not due
 * (the RISC-V machine timer took such a target for a passed one and fired
 * at once). Nothing may fire within a quarter of the range, and the
 * channel then takes a near setting as usual. */
void ct_case_rel_far(const utim_periph_t *p) {
  if (!ct_begin_channels(p)) {
    return;
  }
  const uint64_t max = utim_max(p);
  const uint64_t far[] = {max, max - 10u, max / 2u + 1u};
  const uint64_t wait = ct_min64(2000u, max / 4u);
  const uint64_t md = ct_md(p);
  for (unsigned i = 0; i < sizeof far / sizeof far[0]; i++) {
    th_context("%s set_rel(0x%llx)", utim_name(p), (unsigned long long)far[i]);
    ct_ev_reset();
    const uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, 0, far[i]), 0);
    tb_wait_ticks(p, wait);
    TH_CHECKF(ct_count() == 0u, "fired %llu ticks after the call",
              ct_count() != 0u ? (unsigned long long)ct_dist(p, s, ct_event(0).at) : 0ull);
    TH_EQ(utim_clear(p, 0), 0);
  }
  th_context("%s", utim_name(p));
  ct_ev_reset();
  TH_EQ(utim_set_rel(p, 0, md + 20u), 0);
  tb_wait_ticks(p, md + 20u + ct_lat(p) + 2u);
  TH_EQ(ct_count(), 1);
}
