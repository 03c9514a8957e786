/*
 * The CMSIS-RTOS2 validation cases (os2_suite.c) as firmware of a Cortex-M
 * board with the bare-metal binding (utim/cmsis_os2_cortexm.h), run under
 * QEMU with -icount (deterministic: a second run prints the same bytes).
 * The manager runs tickless on the first instance with a compare channel
 * that counts at 1 MHz; on a board without one (mps2-an385), ticked on the
 * overflow of an instance with a settable top, one overflow a kernel tick.
 * The kernel tick is 1 kHz.
 */
#include <errno.h>
#include <stdint.h>

#include "cortexm.h"
#include "harness.h"
#include "os2_pick.h"
#include "os2_suite.h"
#include "utim/cmsis_os2_cortexm.h"
#include "utim/utim.h"

#define TICK_HZ 1000u
#define WANT_HZ 1000000u

static utim_tm_t g_tm;
static os2_pick_t g_k;

static bool setup(void) {
  return os2_pick_start(&g_k, &g_tm, TICK_HZ) == 0 &&
         utim_os2_cortexm_start(&g_tm, g_k.hz, TICK_HZ) == 0;
}

static void teardown(void) {
  (void)utim_tm_deinit(&g_tm);
  (void)utim_stop(g_k.p);
}

/* SHPR3: PendSV's priority in bits 23:16 (word access only on ARMv6-M). */
#define SCB_SHPR3        (*(volatile uint32_t *)0xE000ED20u)
#define SHPR3_PENDSV_PRI (0xFFu << 16)

/* A refused utim_os2_cortexm_start() (the manager not running) changes
 * nothing, PendSV's priority included; a taken one sets it the lowest. */
static void c_refused_start(void *arg) {
  (void)arg;
  const uint32_t saved = SCB_SHPR3;
  SCB_SHPR3 = saved & ~SHPR3_PENDSV_PRI; /* PendSV at the highest */
  const uint32_t before = SCB_SHPR3;
  TH_EQ(utim_os2_cortexm_start(&g_tm, g_k.hz, TICK_HZ), -EINVAL);
  TH_EQU(SCB_SHPR3, before);
  if (TH_CHECK(setup())) {
    TH_EQU(SCB_SHPR3 & SHPR3_PENDSV_PRI, saved & SHPR3_PENDSV_PRI);
    teardown();
  }
  SCB_SHPR3 = saved;
}

static void more_cases(void) {
  th_run("bare-metal: a refused start leaves PendSV's priority", c_refused_start, NULL);
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  g_k = os2_pick(WANT_HZ, TICK_HZ);
  if (g_k.p != NULL) {
    th_printf("# manager on %s at %lu Hz, %s\n", utim_name(g_k.p), (unsigned long)g_k.hz,
              g_k.ch == UTIM_TM_OVERFLOW ? "ticked on the overflow" : "tickless on channel 0");
  }
  const os2_suite_env_t env = {
      "bare-metal (Cortex-M, PendSV timer context)", TICK_HZ, setup, teardown, &g_tm, more_cases};
  const int rc = os2_suite_run(&env);
  const utim_os2_cortexm_info_t i = utim_os2_cortexm_info();
  th_printf("# timer context: %lu callbacks in %lu PendSV runs; %lu delays, %lu WFI\n",
            (unsigned long)i.callbacks, (unsigned long)i.pendsv, (unsigned long)i.delays,
            (unsigned long)i.wfi);
  return rc;
}
