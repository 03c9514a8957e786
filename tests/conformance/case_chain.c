/**
 * @file case_chain.c
 * @brief Conformance case: chained instances, reads and matches across the
 *        wraps of the low half.
 */
#include "ct.h"

/* Boundaries of every bit: the chain's low half wraps at one of them. */
void ct_case_chain(const utim_periph_t *p) {
  unsigned w = utim_width(p);
  th_context("%s", utim_name(p));
  if (!ct_has(p, UTIM_CAP_CHAINED)) {
    TH_SKIP("no UTIM_CAP_CHAINED");
  }
  uint32_t hz = ct_hz_fastest(p);
  if (!ct_init_start(p, hz)) {
    return;
  }
  uint64_t lat = ct_lat(p);
  uint64_t max = utim_max(p);

  /* Monotonic reads over many low-half wraps. */
  uint64_t total = ct_min64((uint64_t)300u << (w / 2u), tb_long_wait_ticks(p));
  uint64_t prev = utim_read(p);
  uint64_t done = 0;
  for (unsigned i = 0; done < total && !th_test_failed(); i++) {
    uint64_t step = 1u + (i * 7919u) % 4093u;
    tb_wait_ticks(p, step);
    uint64_t c = utim_read(p);
    uint64_t d = ct_dist(p, prev, c);
    TH_CHECKF(d >= step && d <= step + lat + 8u, "read 0x%llx then 0x%llx, %llu ticks apart",
              (unsigned long long)prev, (unsigned long long)c, (unsigned long long)step);
    done += d;
    prev = c;
  }
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    TH_SKIP("not writable: only monotonic reads checked");
  }

  /* Reads across each bit boundary, at every phase and with time advanced
   * at every register access of the read. */
  uint64_t mark = tb_race_mark();
  (void)utim_read(p);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_read()", utim_name(p), cnt);
  for (unsigned k = 2; k < w && !th_test_failed(); k++) {
    uint64_t b = 1ull << k;
    th_context("%s boundary 0x%llx", utim_name(p), (unsigned long long)b);
    TH_EQ(utim_write(p, b - 3u), 0);
    prev = utim_read(p);
    for (unsigned i = 0; i < 60u; i++) {
      uint64_t c = utim_read(p);
      /* A glitch is a whole low period (or a step back): far beyond the
       * board's latency allowance, which covers a slow read on a fast clock. */
      TH_CHECKF(ct_dist(p, prev, c) <= 3u + lat, "read 0x%llx then 0x%llx",
                (unsigned long long)prev, (unsigned long long)c);
      prev = c;
    }
    TH_CHECKF(ct_dist(p, b, prev) < max / 2u, "ended at 0x%llx", (unsigned long long)prev);
    if (ct_has(p, UTIM_CAP_STOP)) {
      for (unsigned j = 0; j <= cnt; j++) {
        TH_EQ(utim_stop(p), 0);
        TH_EQ(utim_write(p, b - 1u), 0);
        TH_EQ(utim_start(p), 0);
        tb_race_set(p, j, 2u);
        uint64_t c = utim_read(p);
        tb_race_cancel();
        TH_CHECKF(ct_dist(p, b - 1u, c) <= 4u + lat, "read 0x%llx with +2 ticks before access %u",
                  (unsigned long long)c, j);
      }
    }
  }

  /* Compare values whose upper bits differ from the counter's. */
  unsigned nch = utim_channels(p);
  for (unsigned k = 8; k + 2u <= w && nch > 0u && !th_test_failed(); k++) {
    if (k > 20u && k != w / 2u) {
      continue;
    }
    uint64_t b = 1ull << k;
    const uint64_t from[] = {2u * b - 100u, b + 100u, b + 100u, b + 5u};
    const uint64_t to[] = {2u * b + 50u, 2u * b + 100u, 2u * b + 300u, 3u * b - 7u};
    for (unsigned i = 0; i < 4u; i++) {
      unsigned ch = (k + i) % nch;
      th_context("%s ch %u counter 0x%llx, match 0x%llx", utim_name(p), ch,
                 (unsigned long long)from[i], (unsigned long long)to[i]);
      ct_ev_reset();
      if (ct_has(p, UTIM_CAP_STOP)) {
        TH_EQ(utim_stop(p), 0);
      }
      TH_EQ(utim_write(p, from[i]), 0);
      TH_EQ(utim_set_abs(p, ch, to[i]), 0);
      TH_EQ(utim_start(p), 0);
      uint64_t d = to[i] - from[i];
      tb_wait_ticks(p, d - 3u);
      /* A wait may overrun (interrupts lengthen it on a board that counts
       * instructions): what must not happen is a callback before the match. */
      TH_CHECKF(ct_count() == 0u || ct_dist(p, to[i], ct_event(0).at) <= lat + 2u,
                "fired early, at 0x%llx", (unsigned long long)ct_event(0).at);
      tb_wait_ticks(p, 3u + lat + 2u);
      if (TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count())) {
        TH_CHECKF(ct_dist(p, to[i], ct_event(0).at) <= lat + 2u, "fired at 0x%llx",
                  (unsigned long long)ct_event(0).at);
      }
      TH_EQ(utim_clear(p, ch), 0);
    }
  }
  /* A relative distance spanning several low-half wraps. */
  if (nch > 0u && w >= 8u) {
    uint64_t dist = 3u * (1ull << (w / 2u)) + 17u;
    if (dist < max / 2u) {
      th_context("%s set_rel(%llu)", utim_name(p), (unsigned long long)dist);
      ct_rel_once(p, 0, dist, 0u, 0u);
    }
  }
}
