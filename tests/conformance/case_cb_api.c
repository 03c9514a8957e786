/**
 * @file case_cb_api.c
 * @brief Conformance case: callbacks calling the API.
 */
#include "ct.h"

/*
 * The actions run in the interrupt context (native: the interrupt thread).
 * They read ct_self_period, written before ct_set_action() publishes them
 * (release/acquire), so a plain variable is safe. Their checks write the
 * harness's state only when they fail.
 */
static uint64_t ct_self_period;

/* Channel 0's callback clears channel 1, which became due at the same time. */
static void ct_act_clear_1(const utim_periph_t *p, unsigned ch) {
  if (ch == 0u) {
    TH_EQ(utim_clear(p, 1), 0);
  }
}

/* Each callback re-arms its own channel, five times in all. */
static void ct_act_rearm(const utim_periph_t *p, unsigned ch) {
  if (ct_count() < 5u) {
    TH_EQ(utim_set_rel(p, ch, ct_self_period), 0);
  }
}

/* A periodic channel clears itself from its first callback. */
static void ct_act_clear_self(const utim_periph_t *p, unsigned ch) {
  TH_EQ(utim_clear(p, ch), 0);
}

void ct_case_cb_api(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t lat = ct_lat(p);
  uint64_t d = ct_md(p) + 10u;
  if (n >= 2u) {
    th_context("%s ch 0 callback clears ch 1 due at the same value", utim_name(p));
    ct_ev_reset();
    ct_set_action(ct_act_clear_1);
    uint64_t t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, 0, t), 0);
    TH_EQ(utim_set_abs(p, 1, t), 0);
    tb_wait_ticks(p, d + lat + 2u);
    if (TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count())) {
      TH_EQ(ct_event(0).ch, 0);
    }
    /* The same with both events held behind a mask, delivered by unmask. */
    ct_ev_reset();
    ct_set_action(ct_act_clear_1);
    TH_EQ(utim_mask(p, UTIM_EVT_CH(0) | UTIM_EVT_CH(1)), 0);
    t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, 0, t), 0);
    TH_EQ(utim_set_abs(p, 1, t), 0);
    tb_wait_ticks(p, d + lat + 2u);
    TH_EQ(ct_count(), 0);
    TH_EQ(utim_unmask(p, UTIM_EVT_CH(0) | UTIM_EVT_CH(1)), 0);
    if (TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count())) {
      TH_EQ(ct_event(0).ch, 0);
    }
  }
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u re-arms itself from its callback", utim_name(p), ch);
    ct_ev_reset();
    ct_self_period = d;
    ct_set_action(ct_act_rearm);
    uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, ch, d), 0);
    tb_wait_ticks(p, 7u * (d + lat));
    if (TH_CHECKF(ct_count() == 5u, "%u callbacks", ct_count())) {
      uint64_t prev = s;
      for (unsigned k = 0; k < 5u; k++) {
        uint64_t gap = ct_dist(p, prev, ct_event(k).at);
        TH_CHECKF(gap >= d && gap <= d + 2u * lat, "callback %u %llu ticks after the previous", k,
                  (unsigned long long)gap);
        prev = ct_event(k).at;
      }
    }
    th_context("%s ch %u periodic clears itself from its callback", utim_name(p), ch);
    ct_ev_reset();
    ct_set_action(ct_act_clear_self);
    TH_EQ(utim_set_periodic(p, ch, d), 0);
    tb_wait_ticks(p, 5u * d);
    TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count());
  }
}
