/*
 * The CMSIS-RTOS2 validation cases (os2_suite.c) on Linux with the POSIX
 * binding (utim/cmsis_os2_posix.h): the manager tickless on NATIVE_ALARM at
 * 1 MHz (100 kHz where the machine's timers are slow to arm), the kernel tick at 100 Hz (10 ms), so
 * that the exact tick counts the cases check survive a loaded machine's scheduling delays (a thread
 * held off for a whole tick between two of its calls would shift them).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "board_native.h"
#include "harness.h"
#include "os2_suite.h"
#include "utim/cmsis_os2_posix.h"

#define SYS_HZ  1000000u
#define TICK_HZ 100u

static utim_tm_t g_tm;
static const utim_periph_t *g_p;

static bool setup(void) {
  uint32_t hz = 0;
  g_p = utim_by_name("NATIVE_ALARM");
  return g_p != NULL && utim_closest_freq(g_p, SYS_HZ, UTIM_CLOCK_DEFAULT, &hz) == 0 &&
         utim_init(g_p, hz, UTIM_CLOCK_DEFAULT) == 0 && utim_start(g_p) == 0 &&
         utim_tm_init(&g_tm, g_p, 0u, UTIM_TM_TICKLESS, 0u) == 0 &&
         utim_os2_posix_start(&g_tm, hz, TICK_HZ) == 0;
}

static void teardown(void) {
  (void)utim_os2_posix_stop();
  (void)utim_tm_deinit(&g_tm);
  (void)utim_stop(g_p);
}

int main(void) {
  native_board_init();
  th_set_putc(th_stdio_putc);
  const struct sched_param sp = {.sched_priority = UTIM_OS2_POSIX_PRIORITY - 10};
  const int fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
  printf("# test thread: %s\n", fifo == 0 ? "SCHED_FIFO" : "SCHED_OTHER (SCHED_FIFO refused)");
  const os2_suite_env_t env = {"POSIX threads", TICK_HZ, setup, teardown, &g_tm, NULL};
  const int rc = os2_suite_run(&env);
  const utim_os2_posix_info_t i = utim_os2_posix_info();
  printf("# timer thread: %s (SCHED_FIFO %s), %llu callbacks, %llu delays, %llu re-sleeps\n",
         i.running ? "running" : "stopped", i.fifo ? "granted" : "refused",
         (unsigned long long)i.callbacks, (unsigned long long)i.delays,
         (unsigned long long)i.resleeps);
  return rc;
}
