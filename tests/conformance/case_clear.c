/**
 * @file case_clear.c
 * @brief Conformance cases: armed while stopped, clear, re-arm after clear, re-arm replaces.
 */
#include "ct.h"

void ct_case_stopped(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  th_context("%s", utim_name(p));
  if (!ct_has(p, UTIM_CAP_STOP)) {
    TH_SKIP("no UTIM_CAP_STOP");
  }
  if (n == 0u) {
    TH_SKIP("no channels");
  }
  if (!ct_init(p, ct_hz_test(p))) {
    return;
  }
  uint64_t d = ct_md(p) + 10u;
  /* Freshly initialised: stopped at 0. */
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_rel(p, ch, d + ch), 0);
  }
  tb_wait_ticks(p, 1000u);
  TH_CHECKF(ct_count() == 0u, "%u callbacks while stopped", ct_count());
  TH_EQU(utim_read(p), 0);
  TH_EQ(utim_start(p), 0);
  tb_wait_ticks(p, d + n + ct_lat(p) + 2u);
  if (TH_EQ(ct_count(), n)) {
    for (unsigned k = 0; k < n; k++) {
      TH_EQ(ct_event(k).ch, (int)k);
      TH_CHECKF(ct_dist(p, d + k, ct_event(k).at) <= ct_lat(p) + 2u, "ch %u fired at %llu", k,
                (unsigned long long)ct_event(k).at);
    }
  }
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    /* Stopped after running: an absolute value ahead waits for the start. */
    ct_ev_reset();
    TH_EQ(utim_stop(p), 0);
    uint64_t t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    tb_wait_ticks(p, 500u);
    TH_EQ(ct_count(), 0);
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, d + ct_lat(p) + 2u);
    if (TH_EQ(ct_count(), 1)) {
      TH_CHECKF(ct_dist(p, t, ct_event(0).at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_event(0).at, (unsigned long long)t);
    }
    /* Armed, then stopped before the match: waits for the start. */
    ct_ev_reset();
    uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, ch, 3u * d), 0);
    TH_EQ(utim_stop(p), 0);
    tb_wait_ticks(p, 10u * d);
    TH_EQ(ct_count(), 0);
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, 3u * d + ct_lat(p) + 2u);
    if (TH_EQ(ct_count(), 1)) {
      TH_CHECK(ct_dist(p, s, ct_event(0).at) >= 3u * d);
    }
    /* Periodic armed while stopped. */
    ct_ev_reset();
    TH_EQ(utim_stop(p), 0);
    TH_EQ(utim_set_periodic(p, ch, 2u * d), 0);
    tb_wait_ticks(p, 20u * d);
    TH_EQ(ct_count(), 0);
    uint64_t s0 = utim_read(p); /* stopped: where counting resumes */
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, 5u * d);
    /* Matches at 2d and 4d after the start; a third only if the wait ran
     * past 6d (a real-time host can overrun a wait), never early. */
    if (TH_CHECKF(ct_count() >= 2u, "%u callbacks", ct_count())) {
      TH_CHECK(ct_dist(p, s0, ct_event(0).at) >= 2u * d);
      TH_CHECK(ct_dist(p, s0, ct_event(1).at) >= 4u * d);
      TH_CHECKF(ct_count() == 2u || ct_dist(p, s0, ct_event(2).at) >= 6u * d, "third at 0x%llx",
                (unsigned long long)ct_event(2).at);
    }
    TH_EQ(utim_clear(p, ch), 0);
  }
}

void ct_case_clear(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t d = ct_md(p) + 20u;
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_clear(p, ch), 0); /* nothing armed: fine */
    TH_EQ(utim_set_rel(p, ch, d), 0);
    TH_EQ(utim_clear(p, ch), 0);
    TH_EQ(utim_set_abs(p, ch, ct_add(p, utim_read(p), d)), 0);
    TH_EQ(utim_clear(p, ch), 0);
    TH_EQ(utim_set_periodic(p, ch, d), 0);
    TH_EQ(utim_clear(p, ch), 0);
    tb_wait_ticks(p, ct_wrap_or(p, 4u * d) + ct_lat(p));
    TH_CHECKF(ct_count() == 0u, "%u callbacks after clear", ct_count());
  }

  /*
   * Cleared one tick before the match: 10,000 tries, no callback. The extra
   * reads spread the moment of the clear over the last tick; only as many as
   * fit in one tick on this board, so that slow CPUs still clear in it.
   */
  unsigned rpt = ct_reads_per_tick(p);
  th_note("%s: %u counter reads fit in one tick", utim_name(p), rpt);
  const unsigned want = 10000u;
  unsigned valid = 0;
  unsigned tries = 0;
  uint64_t dn = ct_md(p) + 6u;
  for (; valid < want && tries < 3u * want; tries++) {
    unsigned ch = tries % n;
    th_context("%s ch %u try %u", utim_name(p), ch, tries);
    ct_ev_reset();
    /* From the read the value counts from: a stall right after it (a
     * host's preemption, TSan's slowness) used to be missed by a second
     * read taken after it, and the refused arming failed the case. */
    const uint64_t before = utim_read(p);
    uint64_t t = ct_add(p, before, dn);
    int ra = utim_set_abs(p, ch, t);
    if (ra == -ETIME && ct_dist(p, before, utim_read(p)) + ct_md(p) >= dn) {
      continue; /* preempted past the value before arming (a host): not a try */
    }
    if (!TH_EQ(ra, 0)) {
      break;
    }
    uint64_t c = ct_approach(p, t, tries % rpt);
    int r = ct_clear_now(p, ch);
    ct_set_phase(CT_AFTER);
    tb_wait_ticks(p, ct_lat(p) + 3u);
    TH_EQ(r, 0);
    unsigned bad = ct_count_from(CT_IN);
    if (!TH_CHECKF(
            bad == 0u, "callback during/after clear at 0x%llx (match 0x%llx, last read 0x%llx)",
            (unsigned long long)ct_first_at(CT_IN), (unsigned long long)t, (unsigned long long)c)) {
      break;
    }
    if (ct_dist(p, c, t) == 1u && ct_count() == 0u) {
      valid++;
    }
  }
  th_context("%s", utim_name(p));
  TH_CHECKF(valid == want, "%u of %u tries cleared one tick before the match", valid, tries);

  /* Race: the match happens at every register access of utim_clear(). */
  ct_ev_reset();
  TH_EQ(utim_set_abs(p, 0, ct_add(p, utim_read(p), dn)), 0);
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_clear(p, 0), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_clear()", utim_name(p), cnt);
  for (unsigned ch = 0; ch < n; ch++) {
    for (unsigned k = 0; k <= cnt; k++) {
      for (uint64_t a = 1u; a <= 2u; a++) {
        th_context("%s ch %u race: +%llu ticks before access %u of %u", utim_name(p), ch,
                   (unsigned long long)a, k, cnt);
        ct_ev_reset();
        uint64_t t = ct_add(p, utim_read(p), dn);
        TH_EQ(utim_set_abs(p, ch, t), 0);
        uint64_t c = ct_approach(p, t, 0u);
        tb_race_set(p, k, a);
        int r = ct_clear_now(p, ch);
        ct_set_phase(CT_AFTER);
        tb_race_cancel();
        tb_wait_ticks(p, ct_lat(p) + 3u);
        TH_EQ(r, 0);
        TH_CHECKF(ct_count_from(CT_IN) == 0u, "callback at 0x%llx, match 0x%llx, last read 0x%llx",
                  (unsigned long long)ct_first_at(CT_IN), (unsigned long long)t,
                  (unsigned long long)c);
      }
    }
  }
}

/* One re-arm after a clear one tick before the old match: exactly one
 * callback, not before the new distance. @p race_in: 0 none, 1 inject in the
 * clear, 2 inject in the re-arm. */
static void ct_rearm_once(const utim_periph_t *p, unsigned ch, unsigned extra, unsigned race_in,
                          unsigned k, uint64_t adv) {
  uint64_t n1 = ct_md(p) + 6u;
  uint64_t n2 = ct_max64(20u, ct_md(p) + 10u);
  ct_ev_reset();
  uint64_t t1 = ct_add(p, utim_read(p), n1);
  TH_EQ(utim_set_abs(p, ch, t1), 0);
  (void)ct_approach(p, t1, extra);
  if (race_in == 1u) {
    tb_race_set(p, k, adv);
  }
  TH_EQ(ct_clear_now(p, ch), 0);
  tb_race_cancel();
  uint64_t s2 = utim_read(p);
  if (race_in == 2u) {
    tb_race_set(p, k, adv);
  }
  int r = utim_set_rel(p, ch, n2);
  tb_race_cancel();
  uint64_t e2 = utim_read(p);
  ct_set_phase(CT_AFTER);
  TH_EQ(r, 0);
  tb_wait_ticks(p, n2 + ct_lat(p) + 4u);
  unsigned got = ct_count_from(CT_IN);
  const ct_ev_t *ev = ct_first_from(CT_IN);
  if (TH_CHECKF(got == 1u, "%u callbacks (old match 0x%llx, re-armed at 0x%llx + %llu)", got,
                (unsigned long long)t1, (unsigned long long)s2, (unsigned long long)n2)) {
    uint64_t at = ct_dist(p, s2, ev->at);
    TH_CHECKF(at >= n2 && at <= n2 + ct_dist(p, s2, e2) + ct_lat(p),
              "fired at 0x%llx, %llu ticks after the re-arm began (armed %llu; old match 0x%llx)",
              (unsigned long long)ev->at, (unsigned long long)at, (unsigned long long)n2,
              (unsigned long long)t1);
  }
}

void ct_case_rearm(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  for (unsigned i = 0; i < 1000u && !th_test_failed(); i++) {
    th_context("%s ch %u try %u", utim_name(p), i % n, i);
    ct_rearm_once(p, i % n, i % 61u, 0u, 0u, 0u);
  }
  /* Race: count the accesses of utim_clear() and utim_set_rel(). */
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_clear(p, 0), 0);
  unsigned cnt_clear = tb_race_count(mark);
  mark = tb_race_mark();
  TH_EQ(utim_set_rel(p, 0, 1000u < utim_max(p) / 2u ? 1000u : ct_md(p)), 0);
  unsigned cnt_rel = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_clear(), %u of utim_set_rel()", utim_name(p),
          cnt_clear, cnt_rel);
  TH_EQ(utim_clear(p, 0), 0);
  for (unsigned where = 1; where <= 2u; where++) {
    unsigned cnt = where == 1u ? cnt_clear : cnt_rel;
    for (unsigned k = 0; k <= cnt; k++) {
      for (uint64_t a = 1u; a <= 2u; a++) {
        th_context("%s race in %s: +%llu ticks before access %u of %u", utim_name(p),
                   where == 1u ? "clear" : "set_rel", (unsigned long long)a, k, cnt);
        ct_rearm_once(p, k % n, 0u, where, k, a);
      }
    }
  }
}

void ct_case_replace(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t lat = ct_lat(p);
  uint64_t near = ct_max64(20u, ct_md(p) + 10u);
  uint64_t far = near + 40u + 2u * lat;
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u far->near", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_rel(p, ch, far), 0);
    uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, ch, near), 0);
    uint64_t e = utim_read(p);
    tb_wait_ticks(p, near + lat + 2u);
    if (TH_EQ(ct_count(), 1)) {
      uint64_t at = ct_dist(p, s, ct_event(0).at);
      TH_CHECKF(at >= near && at <= near + ct_dist(p, s, e) + lat, "fired %llu ticks after",
                (unsigned long long)at);
    }
    tb_wait_ticks(p, far + lat);
    TH_CHECKF(ct_count() == 1u, "%u callbacks: the replaced setting fired", ct_count());

    th_context("%s ch %u near->far", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_rel(p, ch, near), 0);
    s = utim_read(p);
    TH_EQ(utim_set_abs(p, ch, ct_add(p, s, far)), 0);
    tb_wait_ticks(p, near + lat + 2u);
    TH_CHECKF(ct_count() == 0u, "the replaced setting fired at 0x%llx",
              (unsigned long long)ct_event(0).at);
    tb_wait_ticks(p, far - near + lat);
    if (TH_EQ(ct_count(), 1)) {
      TH_CHECKF(ct_dist(p, ct_add(p, s, far), ct_event(0).at) <= lat + 2u, "fired at 0x%llx",
                (unsigned long long)ct_event(0).at);
    }

    th_context("%s ch %u periodic->one-shot", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_periodic(p, ch, near), 0);
    s = utim_read(p);
    /* Counted from the re-arm on: a host stall before it may let the
     * periodic setting fire once, legitimately. */
    ct_set_phase(CT_IN);
    TH_EQ(utim_set_rel(p, ch, far), 0);
    ct_set_phase(CT_AFTER);
    tb_wait_ticks(p, 3u * far);
    if (TH_CHECKF(ct_count_from(CT_IN) == 1u, "%u callbacks", ct_count_from(CT_IN))) {
      TH_CHECK(ct_dist(p, s, ct_first_at(CT_IN)) >= far);
    }

    th_context("%s ch %u one-shot->periodic", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_rel(p, ch, near), 0);
    s = utim_read(p);
    ct_set_phase(CT_IN);
    TH_EQ(utim_set_periodic(p, ch, far), 0);
    e = utim_read(p);
    ct_set_phase(CT_AFTER);
    tb_wait_ticks(p, 3u * far + far / 2u);
    unsigned got = ct_check_grid(p, ch, s, e, far, 3u);
    TH_CHECKF(got == 3u && ct_count() == 3u, "%u matches on the grid, %u callbacks", got,
              ct_count());
    TH_EQ(utim_clear(p, ch), 0);
  }

  /* Race: re-arm one tick before the old match, time advanced at every access. */
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_set_rel(p, 0, far), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_set_rel()", utim_name(p), cnt);
  TH_EQ(utim_clear(p, 0), 0);
  for (unsigned k = 0; k <= cnt; k++) {
    for (uint64_t a = 1u; a <= 2u; a++) {
      unsigned ch = k % n;
      th_context("%s ch %u race: +%llu ticks before access %u of %u", utim_name(p), ch,
                 (unsigned long long)a, k, cnt);
      ct_ev_reset();
      uint64_t t = ct_add(p, utim_read(p), ct_md(p) + 6u);
      TH_EQ(utim_set_abs(p, ch, t), 0);
      (void)ct_approach(p, t, 0u);
      uint64_t s = utim_read(p);
      tb_race_set(p, k, a);
      ct_set_phase(CT_IN);
      int r = utim_set_rel(p, ch, far);
      tb_race_cancel();
      uint64_t e = utim_read(p);
      ct_set_phase(CT_AFTER);
      TH_EQ(r, 0);
      tb_wait_ticks(p, far + lat + 2u);
      unsigned got = ct_count_from(CT_IN);
      uint64_t new_at = ct_first_at(CT_IN);
      /* Without race injection (a real board) nothing holds the old match
       * back until the call takes the lock: on a counter as fast as the CPU
       * (100 instructions a tick) it may come in the instructions before,
       * and is then rightly delivered; it counts when it came before the
       * call returned, not early. Then the re-arm's callback is the other. */
      if (got == 2u && !tb_race_supported()) {
        unsigned in[2] = {0u, 0u};
        unsigned nin = 0u;
        for (unsigned i = 0; i < ct_count() && nin < 2u; i++) {
          if (ct_event(i).phase >= CT_IN) {
            in[nin++] = i;
          }
        }
        if (nin == 2u && ct_dist(p, t, ct_event(in[0]).at) <= ct_dist(p, t, e)) {
          got = 1u;
          new_at = ct_event(in[1]).at;
        }
      }
      if (TH_CHECKF(got == 1u, "%u callbacks (old match 0x%llx)", got, (unsigned long long)t)) {
        uint64_t at = ct_dist(p, s, new_at);
        TH_CHECKF(at >= far && at <= far + ct_dist(p, s, e) + lat,
                  "fired at 0x%llx, %llu ticks after the re-arm began (old match 0x%llx)",
                  (unsigned long long)new_at, (unsigned long long)at, (unsigned long long)t);
      }
    }
  }
}
