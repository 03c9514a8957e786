/**
 * @file case_invalid.c
 * @brief Conformance case: invalid input gets its documented error and
 *        changes no state.
 */
#include "ct.h"

/* State that an invalid call must leave unchanged. */
typedef struct ct_snap {
  uint64_t count;
  uint32_t hz;
  uint32_t pending;
  uint64_t clk;
  uint64_t div;
} ct_snap_t;

static ct_snap_t ct_snapshot(const utim_periph_t *p) {
  ct_snap_t s = {utim_read(p), utim_freq(p), utim_pending(p), ct_prop(p, UTIM_PROP_CLOCK),
                 ct_prop(p, UTIM_PROP_DIVIDER)};
  return s;
}

/* Compares with the snapshot @p a; a counter that cannot be stopped is
 * compared with its count at the previous check, which is then moved on. */
static void ct_unchanged(const utim_periph_t *p, ct_snap_t *a, const char *call, int line) {
  ct_snap_t b = ct_snapshot(p);
  /* A counter that cannot be stopped moves on: by what a refused call and
   * the check around it take, which on a clock as fast as the CPU (mcycle)
   * is thousands of ticks, so the bound includes the board's latency. */
  bool cnt_ok = ct_has(p, UTIM_CAP_STOP) ? b.count == a->count
                                         : ct_dist(p, a->count, b.count) < 2000u + 2u * ct_lat(p);
  th_check(cnt_ok && b.hz == a->hz && b.pending == a->pending && b.clk == a->clk &&
               b.div == a->div && ct_count() == 0u,
           __FILE__, line, call,
           "state changed: count 0x%llx -> 0x%llx, hz %lu -> %lu, pending 0x%lx -> 0x%lx, "
           "clock %llu -> %llu, divider %llu -> %llu, %u callbacks",
           (unsigned long long)a->count, (unsigned long long)b.count, (unsigned long)a->hz,
           (unsigned long)b.hz, (unsigned long)a->pending, (unsigned long)b.pending,
           (unsigned long long)a->clk, (unsigned long long)b.clk, (unsigned long long)a->div,
           (unsigned long long)b.div, ct_count());
  if (!ct_has(p, UTIM_CAP_STOP)) {
    a->count = ct_snapshot(p).count;
  }
}

/* Check an invalid call's error code, then that nothing changed. */
#define CT_INVALID(call, err)                                                                      \
  do {                                                                                             \
    int ct_r_ = (call);                                                                            \
    th_check(ct_r_ == (err), __FILE__, __LINE__, #call " == " #err, "returned %d", ct_r_);         \
    ct_unchanged(p, &snap, #call, __LINE__);                                                       \
  } while (0)

void ct_case_invalid(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  uint64_t max = utim_max(p);
  unsigned nclk = (unsigned)ct_prop(p, UTIM_PROP_CLOCKS);
  th_context("%s", utim_name(p));
  uint32_t hz = ct_hz_test(p);
  if (!ct_init_start(p, hz)) {
    return;
  }
  tb_wait_ticks(p, 50u); /* counter away from 0, so a reset would show */
  uint64_t ahead = ct_min64(3000u, max / 2u - 10u);
  uint64_t t = 0;
  if (n > 0u) {
    t = ct_add(p, utim_read(p), ahead);
    TH_EQ(utim_set_abs(p, 0, t), 0);
  }
  if (ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_stop(p), 0);
  }
  ct_ev_reset();
  ct_snap_t snap = ct_snapshot(p);
  uint32_t out = 0;
  uint64_t v = 0;
  int owner = 0;

  CT_INVALID(utim_init(p, 0u, UTIM_CLOCK_DEFAULT), -EINVAL);
  CT_INVALID(utim_init(p, hz, UTIM_CLOCK_PLATFORM(nclk)), -EINVAL);
  CT_INVALID(utim_init(p, hz, UTIM_CLOCK_PLATFORM(200u)), -EINVAL);
  if (ct_hz_unachievable(p) != 0u) {
    CT_INVALID(utim_init(p, ct_hz_unachievable(p), UTIM_CLOCK_DEFAULT), -ERANGE);
  }
  if (ct_hz_gap(p) != 0u) {
    CT_INVALID(utim_init(p, ct_hz_gap(p), UTIM_CLOCK_DEFAULT), -ERANGE);
  }
  CT_INVALID(utim_closest_freq(p, 0u, UTIM_CLOCK_DEFAULT, &out), -EINVAL);
  CT_INVALID(utim_closest_freq(p, hz, UTIM_CLOCK_DEFAULT, NULL), -EINVAL);
  CT_INVALID(utim_closest_freq(p, hz, UTIM_CLOCK_PLATFORM(nclk), &out), -EINVAL);
  CT_INVALID(utim_freqs(p, nclk, NULL, 0u), -EINVAL);
  CT_INVALID(utim_freqs(p, 0u, NULL, 4u), -EINVAL);
  if (utim_width(p) < 64u) {
    CT_INVALID(utim_write(p, max + 1u), -ERANGE);
    CT_INVALID(utim_write(p, UINT64_MAX), -ERANGE);
  }
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    CT_INVALID(utim_write(p, 0u), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_STOP)) {
    CT_INVALID(utim_stop(p), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    CT_INVALID(utim_set_overflow_cb(p, ct_ovf_cb, NULL), -ENOTSUP);
  }
  const unsigned bad_ch[] = {n, n + 1u, UTIM_MAX_CHANNELS, 31u, 32u, 1000u, ~0u};
  for (unsigned i = 0; i < sizeof bad_ch / sizeof bad_ch[0]; i++) {
    unsigned ch = bad_ch[i];
    th_context("%s channel %u", utim_name(p), ch);
    CT_INVALID(utim_set_abs(p, ch, ct_add(p, snap.count, 100u)), -EINVAL);
    CT_INVALID(utim_set_rel(p, ch, 100u), -EINVAL);
    CT_INVALID(utim_set_periodic(p, ch, ct_md(p) + 100u), -EINVAL);
    CT_INVALID(utim_clear(p, ch), -EINVAL);
  }
  th_context("%s", utim_name(p));
  if (n > 0u) {
    /* Invalid values on a valid, armed channel: the setting survives (below). */
    if (utim_width(p) < 64u) {
      CT_INVALID(utim_set_abs(p, 0, max + 1u), -ERANGE);
      CT_INVALID(utim_set_rel(p, 0, max + 1u), -ERANGE);
      CT_INVALID(utim_set_periodic(p, 0, max + 1u), -ERANGE);
    }
    CT_INVALID(utim_set_periodic(p, 0, 0u), -EINVAL);
    if (ct_md(p) > 1u) {
      CT_INVALID(utim_set_periodic(p, 0, ct_md(p) - 1u), -ERANGE);
      /* Its grid could put a point too close to arm with the next beyond
       * one compare: the re-arm then waited for a stopped counter. */
      CT_INVALID(utim_set_periodic(p, 0, max - ct_md(p) + 2u), -ERANGE);
      CT_INVALID(utim_set_periodic(p, 0, max), -ERANGE);
    }
  }
  uint32_t bad_evt[4];
  unsigned nbad = 0;
  bad_evt[nbad++] = 1u << 30;
  if (n < 16u) {
    bad_evt[nbad++] = UTIM_EVT_CH(n);
    bad_evt[nbad++] = UTIM_EVT_CH(n) | (n > 0u ? UTIM_EVT_CH(0) : 0u);
  }
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    bad_evt[nbad++] = UTIM_EVT_OVF | (n > 0u ? UTIM_EVT_CH(0) : 0u);
  }
  for (unsigned i = 0; i < nbad; i++) {
    th_context("%s events 0x%lx", utim_name(p), (unsigned long)bad_evt[i]);
    CT_INVALID(utim_mask(p, bad_evt[i]), -EINVAL);
    CT_INVALID(utim_unmask(p, bad_evt[i]), -EINVAL);
  }
  th_context("%s", utim_name(p));
  CT_INVALID(utim_get_property(p, UTIM_PROP_WIDTH, NULL), -EINVAL);
  CT_INVALID(utim_get_property(p, 0u, &v), -ENOTSUP);
  CT_INVALID(utim_get_property(p, 0xffu, &v), -ENOTSUP);
  CT_INVALID(utim_get_property(p, UTIM_PROP_DRIVER_BASE + 0xfff0u, &v), -ENOTSUP);
  for (unsigned id = UTIM_PROP_WIDTH; id <= UTIM_PROP_DIVIDER; id++) {
    th_context("%s property %u", utim_name(p), id);
    CT_INVALID(utim_set_property(p, id, 1u), -EINVAL);
  }
  th_context("%s", utim_name(p));
  CT_INVALID(utim_set_property(p, UTIM_PROP_DRIVER_BASE + 0xfff0u, 0u), -ENOTSUP);
  CT_INVALID(utim_claim(p, NULL), -EINVAL);
  CT_INVALID(utim_release(p, &owner), -EINVAL);

  /* The armed channel is still armed, unmasked, at its value. */
  if (ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_start(p), 0);
  }
  if (n > 0u) {
    th_context("%s ch 0 armed before the invalid calls", utim_name(p));
    tb_wait_ticks(p, ct_dist(p, utim_read(p), t) + ct_lat(p) + 2u);
    if (TH_CHECKF(ct_count() == 1u, "%u callbacks", ct_count())) {
      TH_EQ(ct_event(0).ch, 0);
      TH_CHECKF(ct_dist(p, t, ct_event(0).at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_event(0).at, (unsigned long long)t);
    }
  }
}
