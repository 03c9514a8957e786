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
#include "utim/port.h"
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

/*
 * osTimerStart() of a timer whose setting expires during the call, from a
 * callback in the timer context: the replaced setting's expiry must not
 * run after the call returned (it used to when it came between the new
 * generation and the manager's start, and was taken for the new setting's:
 * 2 trials of 600 on the micro:bit). The restart is swept across B's old
 * expiry by a dwell loop (deterministic under -icount). A kernel tick of 10
 * manager ticks; tickless managers only (a ticked one serves both settings
 * at its ticks, never between).
 */
#define RACE_TICK_HZ 100000u
#define RACE_TRIALS  600u
static osTimerId_t g_race_a;
static osTimerId_t g_race_b;
static volatile uint32_t g_dwell;
static volatile uint32_t g_b_runs;
static volatile uint32_t g_b_early;
static volatile bool g_restarted;
static uint64_t g_b_old;
static uint64_t g_b_new;

static void race_b(void *arg) {
  (void)arg;
  g_b_runs++;
  if (g_restarted && utim_tm_now(&g_tm) < g_b_new) {
    g_b_early++; /* the old setting's, after the restart returned */
  }
}

static void race_a(void *arg) {
  (void)arg;
  while (utim_tm_now(&g_tm) + 2u < g_b_old) {
  }
  for (volatile uint32_t i = 0; i < g_dwell; i++) {
  }
  (void)osTimerStart(g_race_b, 3u);
  (void)utim_os2_timer_expiry(g_race_b, &g_b_new);
  g_restarted = true;
}

static void c_restart_race(void *arg) {
  (void)arg;
  if (g_k.ch == UTIM_TM_OVERFLOW) {
    th_note("%s", "a ticked manager: no expiry between a start's steps to race with");
    return;
  }
  if (!TH_CHECK(os2_pick_start(&g_k, &g_tm, RACE_TICK_HZ) == 0 &&
                utim_os2_cortexm_start(&g_tm, g_k.hz, RACE_TICK_HZ) == 0)) {
    return;
  }
  g_race_a = osTimerNew(race_a, osTimerOnce, NULL, NULL);
  g_race_b = osTimerNew(race_b, osTimerOnce, NULL, NULL);
  unsigned bad = 0;
  for (uint32_t d = 0; d < RACE_TRIALS && bad < 3u; d++) {
    g_dwell = d;
    g_b_runs = 0;
    g_b_early = 0;
    g_restarted = false;
    TH_EQ(osTimerStart(g_race_b, 3u), osOK);
    TH_EQ(utim_os2_timer_expiry(g_race_b, &g_b_old), 0);
    TH_EQ(osTimerStart(g_race_a, 1u), osOK);
    TH_EQ(osDelay(10u), osOK);
    if (!TH_CHECKF(g_b_runs == 1u && g_b_early == 0u, "dwell %lu: %lu callbacks, %lu early",
                   (unsigned long)d, (unsigned long)g_b_runs, (unsigned long)g_b_early)) {
      bad++;
    }
  }
  TH_EQU(utim_os2_lost_expiries(), 0u);
  TH_EQ(osTimerDelete(g_race_a), osOK);
  TH_EQ(osTimerDelete(g_race_b), osOK);
  teardown();
}

/* A delay with interrupts masked (PRIMASK, the port's lock) cannot end: no
 * interrupt can report its deadline. It is refused (osError: the binding
 * cannot block) and changes nothing; it used to halt the core for good. */
static void c_masked_delay(void *arg) {
  (void)arg;
  if (!TH_CHECK(setup())) {
    return;
  }
  const uint32_t k0 = osKernelGetTickCount();
  const uint32_t key = utim_port_lock();
  const osStatus_t st = osDelay(1u);
  utim_port_unlock(key);
  TH_EQ(st, osError);
  TH_EQ(osDelay(1u), osOK); /* unmasked: delays as before */
  TH_CHECK(osKernelGetTickCount() - k0 <= 2u);
  teardown();
}

static void more_cases(void) {
  th_run("bare-metal: a delay with interrupts masked is refused, not a hang", c_masked_delay, NULL);
  th_run("bare-metal: a refused start leaves PendSV's priority", c_refused_start, NULL);
  th_run("bare-metal: a restart racing its old expiry drops it", c_restart_race, NULL);
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
  /* Not the WFI count (utim_os2_cortexm_info().wfi): the log must be the
   * same bytes in the repeat run, and under -icount without record/replay
   * QEMU runs its virtual-clock timers from the main loop thread, so the
   * moment a wake-up's interrupt meets the delay loop moved by one WFI in
   * 2 of 6 CI runs (2041 and 2042 WFI), every other figure and result
   * being the same. */
  th_printf("# timer context: %lu callbacks in %lu PendSV runs; %lu delays\n",
            (unsigned long)i.callbacks, (unsigned long)i.pendsv, (unsigned long)i.delays);
  return rc;
}
