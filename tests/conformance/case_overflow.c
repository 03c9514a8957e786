/**
 * @file case_overflow.c
 * @brief Conformance cases: overflow callbacks, masking and the pending query.
 */
#include "ct.h"

void ct_case_overflow(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), -ENOTSUP);
    TH_SKIP("no UTIM_CAP_OVERFLOW (-ENOTSUP checked)");
  }
  uint32_t hz = ct_hz_fastest(p);
  if (!ct_init(p, hz)) {
    return;
  }
  enum ct_wrap_mode mode = ct_wrap_mode(p);
  if (mode == CT_WRAP_NONE) {
    TH_SKIP("a wrap takes too long at %lu Hz and the counter is not writable", (unsigned long)hz);
  }
  uint64_t lat = ct_lat(p);
  const unsigned wraps_want = 4u;
  TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  TH_EQ(utim_start(p), 0);
  unsigned wraps = 0;
  if (mode == CT_WRAP_WAIT) {
    /* Count wraps from counter reads a quarter wrap apart. */
    uint64_t step = (utim_max(p) + 1u) / 4u;
    uint64_t prev = utim_read(p);
    for (unsigned i = 0; i < 4u * wraps_want + 2u; i++) {
      tb_wait_ticks(p, step);
      uint64_t c = utim_read(p);
      wraps += c < prev ? 1u : 0u;
      prev = c;
    }
    if (prev <= lat + 2u) {
      tb_wait_ticks(p, lat + 2u);
    }
    TH_CHECKF(wraps >= wraps_want, "only %u wraps seen", wraps);
  } else {
    uint64_t m = 40u + 2u * lat;
    for (unsigned i = 0; i < wraps_want; i++) {
      TH_EQ(utim_write(p, utim_max(p) - m), 0);
      tb_wait_ticks(p, m / 2u);
      TH_CHECKF(ct_count() == wraps, "callback before the wrap (%u, %u wraps)", ct_count(), wraps);
      tb_wait_ticks(p, m / 2u + lat + 3u);
      wraps++;
      TH_CHECKF(ct_count() == wraps, "%u callbacks for %u wraps", ct_count(), wraps);
    }
  }
  th_context("%s at %lu Hz, %u wraps", utim_name(p), (unsigned long)hz, wraps);
  TH_EQ(ct_count(), wraps);
  for (unsigned i = 0; i < ct_count(); i++) {
    TH_CHECKF(ct_event(i).ch == CT_OVF && ct_event(i).p == p && ct_event(i).arg == ct_arg(p),
              "event %u: ch %d", i, ct_event(i).ch);
    TH_CHECKF(ct_event(i).at <= lat, "overflow callback %u saw counter 0x%llx", i,
              (unsigned long long)ct_event(i).at);
  }

  /* NULL disables the overflow interrupt. */
  ct_ev_reset();
  TH_EQ(utim_set_overflow_cb(p, NULL, NULL), 0);
  ct_cause_wrap(p, mode);
  tb_wait_ticks(p, lat);
  TH_CHECKF(ct_count() == 0u, "%u callbacks after utim_set_overflow_cb(NULL)", ct_count());

  /* utim_init() keeps the callback; it is live again once started. */
  th_context("%s callback set before utim_init()", utim_name(p));
  ct_ev_reset();
  TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  if (!ct_init_start(p, hz)) {
    return;
  }
  ct_cause_wrap(p, mode);
  tb_wait_ticks(p, lat);
  TH_CHECKF(ct_count() == 1u, "%u callbacks for one wrap", ct_count());
}

void ct_case_mask(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  bool ovf = ct_has(p, UTIM_CAP_OVERFLOW);
  uint32_t chans = n == 0u ? 0u : (uint32_t)((1ull << n) - 1u);
  th_context("%s", utim_name(p));
  uint32_t hz = ovf ? ct_hz_fastest(p) : ct_hz_test(p);
  if (!ct_init(p, hz)) {
    return;
  }
  enum ct_wrap_mode mode = ovf ? ct_wrap_mode(p) : CT_WRAP_NONE;
  uint32_t all = chans | (mode != CT_WRAP_NONE ? UTIM_EVT_OVF : 0u);
  if (all == 0u) {
    TH_SKIP("no channels and no reachable overflow");
  }
  uint64_t lat = ct_lat(p);
  uint64_t md = ct_md(p);
  if (ovf) {
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  }
  TH_EQ(utim_start(p), 0);
  TH_EQ(utim_pending(p), 0);

  /* Everything masked: nothing delivered, all pending, all delivered in
   * order by utim_unmask(). */
  ct_ev_reset();
  TH_EQ(utim_mask(p, all), 0);
  if ((all & UTIM_EVT_OVF) != 0u) {
    ct_cause_wrap(p, mode);
  }
  uint64_t base = md + 10u;
  uint64_t s = utim_read(p);
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_abs(p, ch, ct_add(p, s, base + 3u * (uint64_t)ch)), 0);
  }
  tb_wait_ticks(p, base + 3u * (uint64_t)n + lat + 2u);
  TH_CHECKF(ct_count() == 0u, "%u callbacks while masked", ct_count());
  TH_EQU(utim_pending(p), all);
  ct_set_phase(CT_IN);
  TH_EQ(utim_unmask(p, all), 0);
  ct_set_phase(CT_AFTER);
  if (TH_CHECKF(ct_count() == ct_popcount(all), "%u callbacks from utim_unmask(), %u events",
                ct_count(), ct_popcount(all))) {
    for (unsigned k = 0; k < ct_count(); k++) {
      int want = k < n ? (int)k : CT_OVF;
      TH_CHECKF(ct_event(k).ch == want && ct_event(k).phase == CT_IN, "delivery %u: ch %d, want %d",
                k, ct_event(k).ch, want);
    }
  }
  TH_EQ(utim_pending(p), 0);
  unsigned after = ct_count();
  tb_wait_ticks(p, 4u * base);
  TH_CHECKF(ct_count() == after, "%u extra callbacks", ct_count() - after);
  /* Wraps would interleave with the channel checks below. */
  if (ovf) {
    TH_EQ(utim_set_overflow_cb(p, NULL, NULL), 0);
  }

  if (n >= 2u) {
    /* Only channel 0 masked: channel 1 is delivered on time. */
    th_context("%s ch 0 masked, ch 1 not", utim_name(p));
    ct_ev_reset();
    TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
    s = utim_read(p);
    TH_EQ(utim_set_abs(p, 0, ct_add(p, s, base)), 0);
    TH_EQ(utim_set_abs(p, 1, ct_add(p, s, base)), 0);
    tb_wait_ticks(p, base + lat + 2u);
    if (TH_EQ(ct_count(), 1)) {
      TH_EQ(ct_event(0).ch, 1);
    }
    TH_EQU(utim_pending(p), UTIM_EVT_CH(0));
    TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
    if (TH_EQ(ct_count(), 2)) {
      TH_EQ(ct_event(1).ch, 0);
    }
  }

  if (n >= 1u) {
    /* A periodic channel masked for several periods: one delivery, then on. */
    uint64_t period = ct_max64(md, ct_max64(30u, 3u * lat));
    if (period < utim_max(p) / 4u) {
      th_context("%s ch 0 periodic %llu masked", utim_name(p), (unsigned long long)period);
      ct_ev_reset();
      TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
      const uint64_t ps = utim_read(p);
      ct_tally_begin(ps, period, 0u);
      TH_EQ(utim_set_periodic(p, 0, period), 0);
      const uint64_t pe = utim_read(p);
      /* Unmasked mid-period, by the counter itself: a wait in instructions
       * also lasts the masked matches' interrupts, which on a fast clock
       * (64-bit arithmetic on RV32 at 10 MHz: some 8 ticks each) would move
       * the unmask next to a grid point. */
      while (ct_dist(p, ps, utim_read(p)) < 5u * period + period / 2u) {
        tb_wait_ticks(p, 1u);
      }
      TH_EQ(ct_count(), 0);
      TH_EQU(utim_pending(p) & UTIM_EVT_CH(0), UTIM_EVT_CH(0));
      TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
      const uint64_t u = utim_read(p);
      TH_CHECKF(ct_count() == 1u, "%u callbacks from unmask (masked events coalesce)", ct_count());
      TH_CHECKF(utim_overrun(p, 0) >= 4, "overrun %d after 5.5 periods masked", utim_overrun(p, 0));
      const unsigned at_unmask = ct_tally().credit;
      tb_wait_ticks(p, 2u * period);
      /* Every grid point the counter passed after the unmask is a callback
       * or an overrun of one (the wait may overrun on a board that counts
       * instructions, a real-time host may hold the interrupt back). */
      const uint64_t end = utim_read(p);
      const ct_tally_t t = ct_tally();
      const unsigned since = t.credit - at_unmask;
      const uint64_t tail = ct_min64(ct_dist(p, u, end), lat);
      const uint64_t lo = ct_dist(p, pe, end - tail) / period - ct_dist(p, ps, u) / period;
      const uint64_t hi = ct_dist(p, ps, end) / period - ct_dist(p, pe, u) / period;
      TH_CHECKF(ct_count() >= 2u && since >= lo && since <= hi + 1u,
                "%u callbacks after unmask for %u grid points, the counter passed %llu..%llu",
                ct_count() - 1u, since, (unsigned long long)lo, (unsigned long long)hi);
      TH_EQ(t.early, 0u);
      TH_EQ(utim_clear(p, 0), 0);
    }

    /* Cleared while pending behind the mask: never delivered. */
    th_context("%s ch 0 cleared while masked", utim_name(p));
    ct_ev_reset();
    TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
    TH_EQ(utim_set_rel(p, 0, base), 0);
    tb_wait_ticks(p, base + lat + 2u);
    TH_EQU(utim_pending(p) & UTIM_EVT_CH(0), UTIM_EVT_CH(0));
    TH_EQ(utim_clear(p, 0), 0);
    TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
    TH_CHECKF(ct_count() == 0u, "%u callbacks after clear", ct_count());
    TH_EQ(utim_pending(p) & UTIM_EVT_CH(0), 0);
  }

  if (mode == CT_WRAP_WAIT) {
    /* Several wraps while masked coalesce into one. */
    th_context("%s overflow masked over 3 wraps", utim_name(p));
    ct_ev_reset();
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
    TH_EQ(utim_mask(p, UTIM_EVT_OVF), 0);
    tb_wait_ticks(p, 3u * (utim_max(p) + 1u));
    TH_EQ(ct_count(), 0);
    TH_EQU(utim_pending(p), UTIM_EVT_OVF);
    TH_EQ(utim_unmask(p, UTIM_EVT_OVF), 0);
    TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count());
  }
}
