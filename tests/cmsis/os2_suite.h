/**
 * @file os2_suite.h
 * @brief Our port of the timer, generic-wait and kernel-time cases of ARM's
 *        CMSIS-RTOS2 validation suite (RV2_Timer, RV2_GenWait, RV2_Kernel),
 *        over utim/cmsis_os2.h only, run with each kernel binding: sim,
 *        POSIX threads (native), bare metal (Cortex-M boards under QEMU).
 */
#ifndef UTIM_TESTS_OS2_SUITE_H
#define UTIM_TESTS_OS2_SUITE_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/tm.h"

/** @brief What a platform gives the suite. */
typedef struct os2_suite_env {
  const char *binding; /**< the binding's name, for the log */
  uint32_t tick_hz;    /**< the kernel tick it sets up */
  /**
   * @brief Start a fresh manager and the binding (utim_os2_*_start() or
   *        utim_os2_init()); false on failure (the case fails).
   */
  bool (*setup)(void);
  /** @brief Stop what setup() started. */
  void (*teardown)(void);
  /** @brief The manager setup() started (the interrupt case runs a raw timer on it). */
  utim_tm_t *tm;
  /** @brief Cases only this binding can run (th_run() each), after the suite's; or NULL. */
  void (*more_cases)(void);
} os2_suite_env_t;

/**
 * @brief Run every case with @p env; prints TAP.
 * @return the harness's exit status (0 when every case passed)
 */
int os2_suite_run(const os2_suite_env_t *env);

/**
 * @brief The cases of os2_suite_more.c (th_run() each) with @p env;
 *        os2_suite_run() runs them after its own.
 */
void os2_suite_more(const os2_suite_env_t *env);

#endif /* UTIM_TESTS_OS2_SUITE_H */
