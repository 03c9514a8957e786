/**
 * @file cmsis_sim.c
 * @brief The callgrind child of `utim-bench cmsis` (see cmsis_bench.h): the
 *        CMSIS-RTOS2 layer and the time manager called directly, on the sim
 *        board (SIM_MTIME64 at 1 MHz, the manager tickless, the kernel tick
 *        1 kHz), each measured operation in a function of its own.
 *
 * The binding is the smallest a kernel could give: "in an interrupt" is
 * the simulated CPU's, defer() pushes onto an array, and block_until()
 * arms a one-shot of the manager at the deadline and returns (the kernel's
 * blocking itself is not the layer's cost): so osDelay()'s figure is its
 * set-up, against the direct equivalent, the deadline computed and the
 * same one-shot armed with utim_tm_start_at().
 */
#include <errno.h>
#include <string.h>

#include "bench_host.h"
#include "board_sim.h"
#include "cmsis_bench.h"
#include "sim.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"

#define SYS_HZ  1000000u
#define TICK_HZ 1000u
#define RATIO   (SYS_HZ / TICK_HZ)
#define QLEN    8u

static utim_tm_t g_tm;
static utim_tm_timer_t g_wake;
static utim_tm_timer_t g_direct;
static utim_os2_deferred_t g_q[QLEN];
static unsigned g_qn;
static volatile unsigned g_calls;

static bool b_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}

static int b_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  if (g_qn >= QLEN) {
    return -ENOSPC;
  }
  g_q[g_qn++] = d;
  return 0;
}

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
static void on_wake(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  (void)arg;
}

static int b_block_until(void *ctx, utim_tm_t *tm, uint64_t deadline) {
  (void)ctx;
  return utim_tm_start_at(tm, &g_wake, deadline, 0u);
}

static const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};

/* ---- the measured functions (noinline: callgrind counts each apart) ---- */

#define CMB_FN __attribute__((noinline)) void

CMB_FN cmb_os2_cb(void *arg);
CMB_FN cmb_tm_cb(utim_tm_t *tm, utim_tm_timer_t *t, void *arg);
CMB_FN cmb_cg_empty(osTimerId_t id);
CMB_FN cmb_cg_os2_start(osTimerId_t id);
CMB_FN cmb_cg_tm_start(utim_tm_timer_t *t);
CMB_FN cmb_cg_os2_stop(osTimerId_t id);
CMB_FN cmb_cg_tm_stop(utim_tm_timer_t *t);
CMB_FN cmb_cg_os2_delay(void);
CMB_FN cmb_cg_tm_delay(void);
CMB_FN cmb_cg_os2_dispatch(void);
CMB_FN cmb_cg_tm_dispatch(void);

CMB_FN cmb_os2_cb(void *arg) {
  (void)arg;
  g_calls = g_calls + 1u;
}

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
CMB_FN cmb_tm_cb(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  (void)arg;
  g_calls = g_calls + 1u;
}

CMB_FN cmb_cg_empty(osTimerId_t id) {
  __asm__ volatile("" ::"r"(id) : "memory");
}

CMB_FN cmb_cg_os2_start(osTimerId_t id) {
  (void)osTimerStart(id, BENCH_CMSIS_TICKS);
}

CMB_FN cmb_cg_tm_start(utim_tm_timer_t *t) {
  (void)utim_tm_start(&g_tm, t, (uint64_t)BENCH_CMSIS_TICKS * RATIO, 0u);
}

CMB_FN cmb_cg_os2_stop(osTimerId_t id) {
  (void)osTimerStop(id);
}

CMB_FN cmb_cg_tm_stop(utim_tm_timer_t *t) {
  (void)utim_tm_stop(&g_tm, t);
}

CMB_FN cmb_cg_os2_delay(void) {
  (void)osDelay(BENCH_CMSIS_TICKS);
}

CMB_FN cmb_cg_tm_delay(void) {
  (void)utim_tm_start_at(&g_tm, &g_wake, utim_tm_now(&g_tm) + (uint64_t)BENCH_CMSIS_TICKS * RATIO,
                         0u);
}

/* One expiry: virtual time passes over it (the manager's interrupt runs),
 * then the timer context runs what was deferred. */
CMB_FN cmb_cg_os2_dispatch(void) {
  sim_advance((uint64_t)2u * RATIO * 1000u);
  for (unsigned i = 0; i < g_qn; i++) {
    utim_os2_run_deferred(g_q[i]);
  }
  g_qn = 0;
}

CMB_FN cmb_cg_tm_dispatch(void) {
  sim_advance((uint64_t)2u * RATIO * 1000u);
}

static int setup(void) {
  char err[256];
  if (bench_sim_setup(err, sizeof err) != 0) {
    fprintf(stderr, BENCH_PROG ": cmsis: %s\n", err);
    return -1;
  }
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  if (p == NULL || utim_init(p, SYS_HZ, UTIM_CLOCK_DEFAULT) != 0 || utim_start(p) != 0 ||
      utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKLESS, 0u) != 0 ||
      utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &binding) != 0) {
    fprintf(stderr, BENCH_PROG ": cmsis: cannot set up the manager on SIM_MTIME64\n");
    return -1;
  }
  utim_tm_timer_init(&g_wake, on_wake, NULL);
  utim_tm_timer_init(&g_direct, cmb_tm_cb, NULL);
  return 0;
}

int bench_cmd_cmsis_child(int argc, char **argv) {
  if (argc != 2 || strcmp(argv[1], "--callgrind-child") != 0) {
    fprintf(stderr, BENCH_PROG "-ops: cmsis: this is the callgrind child of `utim-bench cmsis`; "
                               "run that instead\n");
    return BENCH_EXIT_USAGE;
  }
  if (setup() != 0) {
    return 1;
  }
  osTimerId_t id = osTimerNew(cmb_os2_cb, osTimerOnce, NULL, NULL);
  if (id == NULL) {
    fprintf(stderr, BENCH_PROG ": cmsis: osTimerNew failed\n");
    return 1;
  }
  /* Time stands still in these loops: nothing expires. Each start is a
   * restart of a pending timer after the first, as each stop stops one. */
  for (unsigned i = 0; i < BENCH_CMSIS_CG_CALLS; i++) {
    cmb_cg_empty(id);
    cmb_cg_os2_start(id);
    cmb_cg_tm_start(&g_direct);
    cmb_cg_os2_stop(id);
    cmb_cg_tm_stop(&g_direct);
    cmb_cg_os2_delay();
    cmb_cg_tm_delay();
  }
  (void)utim_tm_stop(&g_tm, &g_wake);
  /* One expiry each way per call: a one-shot of one kernel tick. */
  g_calls = 0;
  for (unsigned i = 0; i < BENCH_CMSIS_CG_CALLS; i++) {
    (void)osTimerStart(id, 1u);
    cmb_cg_os2_dispatch();
    (void)utim_tm_start(&g_tm, &g_direct, RATIO, 0u);
    cmb_cg_tm_dispatch();
  }
  if (g_calls != 2u * BENCH_CMSIS_CG_CALLS || utim_os2_lost_expiries() != 0u) {
    fprintf(stderr, BENCH_PROG ": cmsis: %u callbacks for %u expiries\n", g_calls,
            2u * BENCH_CMSIS_CG_CALLS);
    return 1;
  }
  return 0;
}
