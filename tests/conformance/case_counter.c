/**
 * @file case_counter.c
 * @brief Conformance cases: the counter advancing, stopping, being written.
 */
#include "ct.h"

void ct_case_counter(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (!ct_init(p, ct_hz_test(p))) {
    return;
  }
  uint64_t n = ct_min64(100u, utim_max(p) / 4u);
  if (ct_has(p, UTIM_CAP_STOP)) {
    /* utim_init() leaves the counter stopped at 0. */
    TH_EQU(utim_read(p), 0);
    tb_wait_ticks(p, n);
    TH_EQU(utim_read(p), 0);
  }
  TH_EQ(utim_start(p), 0);
  uint64_t prev = utim_read(p);
  for (unsigned i = 0; i < 20u; i++) {
    tb_wait_ticks(p, n);
    uint64_t c = utim_read(p);
    uint64_t d = ct_dist(p, prev, c);
    TH_CHECKF(d >= n && d <= 2u * n + ct_lat(p), "advanced %llu ticks (%llu -> %llu) in %llu",
              (unsigned long long)d, (unsigned long long)prev, (unsigned long long)c,
              (unsigned long long)n);
    prev = c;
  }
  TH_EQ(utim_start(p), 0); /* starting a running counter is harmless */
  if (ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_stop(p), 0);
    uint64_t c1 = utim_read(p);
    tb_wait_ticks(p, n);
    TH_EQU(utim_read(p), c1);
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, n);
    uint64_t d = ct_dist(p, c1, utim_read(p));
    TH_CHECKF(d >= n && d <= 2u * n + ct_lat(p), "advanced %llu after restart",
              (unsigned long long)d);
  } else {
    TH_EQ(utim_stop(p), -ENOTSUP);
    tb_wait_ticks(p, n);
    TH_CHECK(ct_dist(p, prev, utim_read(p)) >= n);
  }
}

void ct_case_write(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (!ct_init(p, ct_hz_test(p))) {
    return;
  }
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    TH_EQ(utim_write(p, 0u), -ENOTSUP);
    TH_SKIP("no UTIM_CAP_WRITE (utim_write() = -ENOTSUP checked)");
  }
  uint64_t max = utim_max(p);
  const uint64_t vals[] = {0u,
                           1u,
                           2u,
                           max / 2u,
                           max / 2u + 1u,
                           max - 1u,
                           max,
                           0x5a5a5a5a5a5a5a5aull & max,
                           0xa5a5a5a5a5a5a5a5ull & max};
  const unsigned nv = sizeof vals / sizeof vals[0];
  uint64_t slack = ct_lat(p) + 4u;
  if (ct_has(p, UTIM_CAP_STOP)) {
    for (unsigned i = 0; i < nv; i++) {
      th_context("%s stopped, value 0x%llx", utim_name(p), (unsigned long long)vals[i]);
      TH_EQ(utim_write(p, vals[i]), 0);
      TH_EQU(utim_read(p), vals[i]);
    }
  }
  TH_EQ(utim_start(p), 0);
  for (unsigned i = 0; i < nv; i++) {
    th_context("%s running, value 0x%llx", utim_name(p), (unsigned long long)vals[i]);
    TH_EQ(utim_write(p, vals[i]), 0);
    uint64_t c = utim_read(p);
    TH_CHECKF(ct_dist(p, vals[i], c) <= slack, "read 0x%llx", (unsigned long long)c);
    tb_wait_ticks(p, 10u);
    c = utim_read(p);
    uint64_t d = ct_dist(p, vals[i], c);
    TH_CHECKF(d >= 10u && d <= 10u + slack, "read 0x%llx 10 ticks later", (unsigned long long)c);
  }
  /* Armed channels keep their absolute compare values across a write. */
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    uint64_t a = ct_min64(400u, max / 2u - 10u);
    uint64_t t = ct_add(p, utim_read(p), a);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    TH_EQ(utim_write(p, ct_add(p, t, max - 19u)), 0); /* t - 20 */
    tb_wait_ticks(p, 15u);
    TH_EQ(ct_count(), 0);
    tb_wait_ticks(p, 5u + slack);
    if (TH_EQ(ct_count(), 1)) {
      TH_EQ(ct_event(0).ch, (int)ch);
      TH_CHECKF(ct_dist(p, t, ct_event(0).at) <= slack, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_event(0).at, (unsigned long long)t);
    }
  }
}
