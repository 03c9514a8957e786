/**
 * @file case_top.c
 * @brief Conformance case: the counter's top (UTIM_PROP_TOP, a reload) and
 *        the overflow-pending query (UTIM_PROP_OVF_PENDING).
 */
#include "ct.h"

void ct_case_top(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  uint64_t v = 0;
  /* The pending query: a 0/1 answer where the driver can tell. */
  int rc = utim_get_property(p, UTIM_PROP_OVF_PENDING, &v);
  TH_CHECKF(rc == 0 ? v <= 1u : rc == -ENOTSUP, "UTIM_PROP_OVF_PENDING: rc %d, value %llu", rc,
            (unsigned long long)v);
  TH_CHECKF(ct_has(p, UTIM_CAP_OVERFLOW) || rc == -ENOTSUP,
            "UTIM_PROP_OVF_PENDING answered without UTIM_CAP_OVERFLOW");
  TH_EQ(utim_set_property(p, UTIM_PROP_OVF_PENDING, 0u), -EINVAL);
  if (!ct_has(p, UTIM_CAP_TOP)) {
    TH_EQU(ct_prop(p, UTIM_PROP_TOP), utim_max(p));
    TH_EQ(utim_set_property(p, UTIM_PROP_TOP, utim_max(p)), -ENOTSUP);
    TH_SKIP("no UTIM_CAP_TOP (top = max and -ENOTSUP checked)");
  }
  uint32_t hz = ct_hz_fastest(p);
  if (!ct_init(p, hz)) {
    return;
  }
  TH_EQU(ct_prop(p, UTIM_PROP_TOP), utim_max(p));
  TH_EQ(utim_set_property(p, UTIM_PROP_TOP, 0u), -EINVAL);
  if (utim_max(p) < UINT64_MAX) {
    TH_EQ(utim_set_property(p, UTIM_PROP_TOP, utim_max(p) + 1u), -EINVAL);
  }
  TH_EQU(ct_prop(p, UTIM_PROP_TOP), utim_max(p));

  /* A period long against the callback latency, short against the wait. */
  const uint64_t lat = ct_lat(p);
  const uint64_t top = ct_min64(utim_max(p) - 1u, 40u * lat + 1000u);
  const unsigned periods = 6u;
  TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  TH_EQ(utim_set_property(p, UTIM_PROP_TOP, top), 0);
  TH_EQU(ct_prop(p, UTIM_PROP_TOP), top);
  TH_CHECKF(utim_read(p) <= 1u, "count 0x%llx right after setting the top",
            (unsigned long long)utim_read(p));
  if (ct_has(p, UTIM_CAP_WRITE)) {
    TH_EQ(utim_write(p, top + 1u), -ERANGE);
  }
  TH_EQ(utim_start(p), 0);
  uint64_t highest = 0;
  unsigned reads = 0;
  for (unsigned i = 0; i < 8u * periods; i++) {
    tb_wait_ticks(p, (top + 1u) / 8u);
    const uint64_t c = utim_read(p);
    highest = ct_max64(highest, c);
    reads++;
  }
  /* Six periods and a fraction passed: six wraps, each an overflow event. */
  tb_wait_ticks(p, (top + 1u) / 16u + lat);
  TH_EQ(utim_stop(p), 0);
  th_context("%s, top %llu, %u reads", utim_name(p), (unsigned long long)top, reads);
  TH_CHECKF(highest <= top, "read 0x%llx above the top", (unsigned long long)highest);
  TH_CHECKF(ct_count() == periods, "%u overflow callbacks in %u periods", ct_count(), periods);
  for (unsigned i = 0; i < ct_count(); i++) {
    TH_CHECKF(ct_event(i).ch == CT_OVF && ct_event(i).at <= lat,
              "event %u: ch %d, counter 0x%llx after the wrap", i, ct_event(i).ch,
              (unsigned long long)ct_event(i).at);
  }
  /* Back to free running. */
  TH_EQ(utim_set_property(p, UTIM_PROP_TOP, utim_max(p)), 0);
  TH_EQU(ct_prop(p, UTIM_PROP_TOP), utim_max(p));
  TH_EQ(utim_set_overflow_cb(p, NULL, NULL), 0);
}
