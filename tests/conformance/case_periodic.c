/**
 * @file case_periodic.c
 * @brief Conformance case: periodic arming.
 */
#include "ct.h"

void ct_case_periodic(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t period = ct_max64(ct_md(p), ct_max64(40u, 4u * ct_lat(p)));
  if (period > utim_max(p) / 4u) {
    period = ct_max64(ct_md(p), utim_max(p) / 4u);
  }
  const unsigned k_want = 8u;
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u period %llu", utim_name(p), ch, (unsigned long long)period);
    ct_ev_reset();
    uint64_t s = utim_read(p);
    ct_set_phase(CT_IN);
    int r = utim_set_periodic(p, ch, period);
    uint64_t e = utim_read(p);
    ct_set_phase(CT_AFTER);
    TH_EQ(r, 0);
    tb_wait_ticks(p, k_want * period + period / 2u);
    /* A wait may overrun (interrupts lengthen it on a board that counts
     * instructions): the matches due are those the counter has passed, where
     * the counter's range can tell; on a narrow one the wait is short enough
     * for an exact count. Where it can tell, the wait ends mid-period by the
     * counter itself, so that no match is on its way while `end` is read (on
     * a fast counter the interrupts alone move a counted wait by half a
     * period). */
    if ((k_want + 2u) * period <= utim_max(p) / 2u) {
      for (uint64_t ph = ct_dist(p, s, utim_read(p)) % period;
           ph < period / 4u || ph > 3u * period / 4u; ph = ct_dist(p, s, utim_read(p)) % period) {
        tb_wait_ticks(p, 1u);
      }
    }
    const uint64_t end = utim_read(p);
    unsigned got = ct_check_grid(p, ch, s, e, period, k_want);
    if ((k_want + 2u) * period <= utim_max(p) / 2u) {
      const uint64_t lo = ct_dist(p, e, end - ct_min64(ct_dist(p, e, end), ct_lat(p))) / period;
      const uint64_t hi = ct_dist(p, s, end) / period;
      TH_CHECKF(got >= k_want && got >= lo && got <= hi,
                "%u matches, the counter passed %llu..%llu grid points (%u or more asked)", got,
                (unsigned long long)lo, (unsigned long long)hi, k_want);
    } else {
      TH_CHECKF(got == k_want, "%u matches in %u periods", got, k_want);
    }
    TH_EQ(utim_clear(p, ch), 0);
    unsigned after = ct_count();
    tb_wait_ticks(p, 3u * period);
    TH_CHECKF(ct_count() == after, "%u callbacks after clear", ct_count() - after);
  }
  /* All channels at once, each with its own period. */
  th_context("%s all channels", utim_name(p));
  ct_ev_reset();
  uint64_t s0[UTIM_MAX_CHANNELS];
  uint64_t e0[UTIM_MAX_CHANNELS];
  ct_set_phase(CT_IN);
  for (unsigned ch = 0; ch < n; ch++) {
    s0[ch] = utim_read(p);
    TH_EQ(utim_set_periodic(p, ch, period + 3u * (uint64_t)ch), 0);
    e0[ch] = utim_read(p);
  }
  ct_set_phase(CT_AFTER);
  uint64_t span = 5u * period;
  tb_wait_ticks(p, span);
  uint64_t now_d = ct_dist(p, s0[0], utim_read(p));
  for (unsigned ch = 0; ch < n; ch++) {
    uint64_t pc = period + 3u * (uint64_t)ch;
    unsigned got = ct_check_grid(p, ch, s0[ch], e0[ch], pc, 64u);
    uint64_t lo = (now_d - ct_min64(now_d, ct_lat(p) + 2u * (uint64_t)n)) / pc;
    uint64_t hi = now_d / pc;
    TH_CHECKF(got >= lo && got <= hi + 1u, "ch %u: %u matches, expected %llu..%llu", ch, got,
              (unsigned long long)lo, (unsigned long long)hi);
    TH_EQ(utim_clear(p, ch), 0);
  }
  TH_EQ(ct_lost_count(), 0);

  /* Race: time advanced before every register access of the arming call. */
  ct_ev_reset();
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_set_periodic(p, 0, period), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_set_periodic()", utim_name(p), cnt);
  TH_EQ(utim_clear(p, 0), 0);
  const uint64_t adv[] = {1u, period / 2u};
  for (unsigned k = 0; k <= cnt; k++) {
    for (unsigned a = 0; a < 2u; a++) {
      th_context("%s ch 0 race: +%llu ticks before access %u of %u", utim_name(p),
                 (unsigned long long)adv[a], k, cnt);
      ct_ev_reset();
      tb_idle();
      uint64_t s = utim_read(p);
      tb_race_set(p, k, adv[a]);
      ct_set_phase(CT_IN);
      int r = utim_set_periodic(p, 0, period);
      ct_set_phase(CT_AFTER);
      tb_race_cancel();
      uint64_t e = utim_read(p);
      TH_EQ(r, 0);
      tb_wait_ticks(p, 3u * period + period / 2u);
      unsigned got = ct_check_grid(p, 0, s, e, period, 3u);
      TH_CHECKF(got >= 3u && got <= 4u, "%u matches in 3.5 periods", got);
      TH_EQ(utim_clear(p, 0), 0);
    }
  }
}
