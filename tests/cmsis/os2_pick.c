/**
 * @file os2_pick.c
 * @brief The instance under the CMSIS-RTOS2 layer on a board (os2_pick.h).
 */
#include "os2_pick.h"

#include <errno.h>
#include <stddef.h>

/* The lowest frequency of @p p from 100 kHz up that is a multiple of
 * @p tick_hz; 0 when none. */
static uint32_t tick_multiple(const utim_periph_t *p, uint32_t tick_hz) {
  uint32_t f[16];
  const int n = utim_freqs(p, UTIM_CLOCK_DEFAULT, f, sizeof f / sizeof f[0]);
  uint32_t best = 0;
  for (int i = 0; i < n && i < 16; i++) {
    if (f[i] >= 100000u && f[i] % tick_hz == 0u && (best == 0u || f[i] < best)) {
      best = f[i];
    }
  }
  return best;
}

os2_pick_t os2_pick(uint32_t want_hz, uint32_t tick_hz) {
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    uint32_t hz = 0;
    if (utim_channels(p) > 0u && utim_closest_freq(p, want_hz, UTIM_CLOCK_DEFAULT, &hz) == 0 &&
        hz == want_hz && hz % tick_hz == 0u) {
      return (os2_pick_t){p, hz, 0u};
    }
  }
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    uint64_t pending = 0;
    const uint32_t hz = tick_multiple(p, tick_hz);
    if ((utim_caps(p) & UTIM_CAP_TOP) != 0u && hz != 0u &&
        utim_get_property(p, UTIM_PROP_OVF_PENDING, &pending) == 0) {
      return (os2_pick_t){p, hz, UTIM_TM_OVERFLOW};
    }
  }
  return (os2_pick_t){NULL, 0u, 0u};
}

int os2_pick_start(const os2_pick_t *k, utim_tm_t *tm, uint32_t tick_hz) {
  if (k->p == NULL) {
    return -ENODEV;
  }
  int rc = utim_init(k->p, k->hz, UTIM_CLOCK_DEFAULT);
  rc = rc == 0 ? utim_start(k->p) : rc;
  const bool ticked = k->ch == UTIM_TM_OVERFLOW;
  return rc == 0 ? utim_tm_init(tm, k->p, k->ch, ticked ? UTIM_TM_TICKED : UTIM_TM_TICKLESS,
                                ticked ? k->hz / tick_hz : 0u)
                 : rc;
}
