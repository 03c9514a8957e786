/*
 * The CMSIS-RTOS2 validation cases (os2_suite.c) as firmware of a Cortex-M
 * board with the bare-metal binding (utim/cmsis_os2_cortexm.h), run under
 * QEMU with -icount (deterministic: a second run prints the same bytes).
 * The manager runs tickless on the first instance with a compare channel
 * that counts at 1 MHz; on a board without one (mps2-an385), ticked on the
 * overflow of an instance with a settable top, one overflow a kernel tick.
 * The kernel tick is 1 kHz.
 */
#include <stddef.h>
#include <stdint.h>

#include "cortexm.h"
#include "harness.h"
#include "os2_suite.h"
#include "utim/cmsis_os2_cortexm.h"
#include "utim/utim.h"

#define TICK_HZ 1000u
#define WANT_HZ 1000000u

static utim_tm_t g_tm;
static const utim_periph_t *g_p;
static uint32_t g_hz;
static unsigned g_ch;

/* The lowest frequency of @p p from 100 kHz up that is a whole number of
 * kernel ticks; 0 when none. */
static uint32_t tick_multiple(const utim_periph_t *p) {
  uint32_t f[16];
  const int n = utim_freqs(p, UTIM_CLOCK_DEFAULT, f, sizeof f / sizeof f[0]);
  uint32_t best = 0;
  for (int i = 0; i < n && i < 16; i++) {
    if (f[i] >= 100000u && f[i] % TICK_HZ == 0u && (best == 0u || f[i] < best)) {
      best = f[i];
    }
  }
  return best;
}

static void pick(void) {
  for (unsigned i = 0; i < utim_count() && g_p == NULL; i++) {
    const utim_periph_t *p = utim_by_index(i);
    uint32_t hz = 0;
    if (utim_channels(p) > 0u && utim_closest_freq(p, WANT_HZ, UTIM_CLOCK_DEFAULT, &hz) == 0 &&
        hz == WANT_HZ) {
      g_p = p;
      g_hz = hz;
      g_ch = 0u;
    }
  }
  for (unsigned i = 0; i < utim_count() && g_p == NULL; i++) {
    const utim_periph_t *p = utim_by_index(i);
    uint64_t pending = 0;
    const uint32_t hz = tick_multiple(p);
    if ((utim_caps(p) & UTIM_CAP_TOP) != 0u && hz != 0u &&
        utim_get_property(p, UTIM_PROP_OVF_PENDING, &pending) == 0) {
      g_p = p;
      g_hz = hz;
      g_ch = UTIM_TM_OVERFLOW;
    }
  }
}

static bool setup(void) {
  if (g_p == NULL || utim_init(g_p, g_hz, UTIM_CLOCK_DEFAULT) != 0 || utim_start(g_p) != 0) {
    return false;
  }
  const bool ticked = g_ch == UTIM_TM_OVERFLOW;
  return utim_tm_init(&g_tm, g_p, g_ch, ticked ? UTIM_TM_TICKED : UTIM_TM_TICKLESS,
                      ticked ? g_hz / TICK_HZ : 0u) == 0 &&
         utim_os2_cortexm_start(&g_tm, g_hz, TICK_HZ) == 0;
}

static void teardown(void) {
  (void)utim_tm_deinit(&g_tm);
  (void)utim_stop(g_p);
}

int main(void) {
  cortexm_console_init();
  th_set_putc(cortexm_console_putc);
  pick();
  if (g_p != NULL) {
    th_printf("# manager on %s at %lu Hz, %s\n", utim_name(g_p), (unsigned long)g_hz,
              g_ch == UTIM_TM_OVERFLOW ? "ticked on the overflow" : "tickless on channel 0");
  }
  const os2_suite_env_t env = {"bare-metal (Cortex-M, PendSV timer context)", TICK_HZ, setup,
                               teardown, &g_tm};
  const int rc = os2_suite_run(&env);
  const utim_os2_cortexm_info_t i = utim_os2_cortexm_info();
  th_printf("# timer context: %lu callbacks in %lu PendSV runs; %lu delays, %lu WFI\n",
            (unsigned long)i.callbacks, (unsigned long)i.pendsv, (unsigned long)i.delays,
            (unsigned long)i.wfi);
  return rc;
}
