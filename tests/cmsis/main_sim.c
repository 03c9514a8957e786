/*
 * The CMSIS-RTOS2 validation cases (os2_suite.c) on the sim board, in
 * virtual time, over a binding of the sim machine: one thread (the test),
 * blocking by letting virtual time pass a kernel tick at a time, the timer
 * context run by the blocking thread at each step (as a timer thread of
 * higher priority would run before the delayed thread goes on), "in an
 * interrupt" whenever the simulated CPU runs a handler. The manager runs
 * tickless on SIM_MTIME64 at 1 MHz, the kernel tick at 1 kHz.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim.h"
#include "harness.h"
#include "os2_suite.h"
#include "sim.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"

#define SYS_HZ  1000000u
#define TICK_HZ 1000u
#define QLEN    64u

static utim_tm_t g_tm;
static utim_os2_deferred_t g_q[QLEN];
static unsigned g_qhead;
static unsigned g_qtail;

static bool b_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}

static int b_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  if (g_qtail - g_qhead >= QLEN) {
    return -ENOSPC;
  }
  g_q[g_qtail++ % QLEN] = d;
  return 0;
}

static void run_queue(void) {
  while (g_qhead != g_qtail) {
    utim_os2_run_deferred(g_q[g_qhead++ % QLEN]);
  }
}

static int b_block_until(void *ctx, utim_tm_t *tm, uint64_t deadline) {
  (void)ctx;
  const uint64_t per_tick = SYS_HZ / TICK_HZ;
  for (;;) {
    const uint64_t now = utim_tm_now(tm);
    run_queue();
    /* Modular, as the manager's time is (a delay may cross its wrap). */
    if ((int64_t)(deadline - now) <= 0) {
      return 0;
    }
    const uint64_t to_tick = per_tick - now % per_tick;
    const uint64_t step = deadline - now < to_tick ? deadline - now : to_tick;
    sim_advance(step * (1000000000u / SYS_HZ));
  }
}

static const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};

static bool setup(void) {
  sim_board_init();
  g_qhead = g_qtail = 0;
  const utim_periph_t *p = utim_by_name("SIM_MTIME64");
  return p != NULL && utim_init(p, SYS_HZ, UTIM_CLOCK_DEFAULT) == 0 && utim_start(p) == 0 &&
         utim_tm_init(&g_tm, p, 0u, UTIM_TM_TICKLESS, 0u) == 0 &&
         utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &binding) == 0;
}

/* setup() for a case of this file's own: a failure fails the case. */
static bool begin(void) {
  if (!setup()) {
    TH_CHECK(!"set-up failed");
    return false;
  }
  return true;
}

static void teardown(void) {
  run_queue();
  (void)utim_tm_deinit(&g_tm);
}

/* ---- sim only: callbacks already deferred when a timer is stopped,
 * restarted or deleted (virtual time passes without the timer context
 * running, which no blocking call of the suite allows) ---- */

static unsigned g_fired;

static void fired_cb(void *arg) {
  (void)arg;
  g_fired++;
}

/* Virtual time for @p ticks kernel ticks; the timer context does not run. */
static void pass_ticks(uint32_t ticks) {
  sim_advance((uint64_t)ticks * (1000000000u / TICK_HZ));
}

static unsigned queued(void) {
  return g_qtail - g_qhead;
}

/* Start @p t for @p ticks and let them pass: its expiry is deferred, not run. */
static void start_and_expire(osTimerId_t t, uint32_t ticks) {
  TH_EQ(osTimerStart(t, ticks), osOK);
  pass_ticks(ticks);
  TH_EQU(queued(), 1u);
}

static void c_deferred(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  osTimerId_t per = osTimerNew(fired_cb, osTimerPeriodic, NULL, NULL);
  osTimerId_t once = osTimerNew(fired_cb, osTimerOnce, NULL, NULL);
  TH_CHECK(per != NULL && once != NULL);
  g_fired = 0;

  /* Stop: a periodic's deferred expiry is dropped. */
  start_and_expire(per, 2u);
  TH_EQ(osTimerStop(per), osOK);
  run_queue();
  TH_EQU(g_fired, 0u);

  /* Restart: the replaced setting's deferred expiry is dropped, the new
   * one comes on its own grid. */
  start_and_expire(per, 2u);
  TH_EQ(osTimerStart(per, 5u), osOK);
  run_queue();
  TH_EQU(g_fired, 0u);
  pass_ticks(4u);
  TH_EQU(queued(), 0u);
  pass_ticks(1u);
  TH_EQU(queued(), 1u);
  run_queue();
  TH_EQU(g_fired, 1u);
  TH_EQ(osTimerStop(per), osOK);

  /* A one-shot that expired is not running: its stop says so
   * (osErrorResource) and still drops the deferred callback. */
  start_and_expire(once, 1u);
  TH_EQU(osTimerIsRunning(once), 0u);
  TH_EQ(osTimerStop(once), osErrorResource);
  run_queue();
  TH_EQU(g_fired, 1u);

  /* Left alone, it runs once. */
  start_and_expire(once, 1u);
  run_queue();
  TH_EQU(g_fired, 2u);

  /* Restarted with an expiry deferred, and expired again before the
   * timer context runs: only the new setting's callback runs (each
   * deferred expiry carries its setting; both used to run). */
  start_and_expire(once, 1u);
  TH_EQ(osTimerStart(once, 1u), osOK);
  pass_ticks(1u);
  TH_EQU(queued(), 2u);
  run_queue();
  TH_EQU(g_fired, 3u);

  /* Deleted with an expiry deferred: nothing runs, also when a new timer
   * takes the same control block and expires before the queue is run (it
   * runs once: the old expiry is not taken for its own). */
  start_and_expire(per, 1u);
  TH_EQ(osTimerDelete(per), osOK);
  run_queue();
  TH_EQU(g_fired, 3u);
  /* A new timer in the freed block, started once (its first setting), its
   * expiry deferred, deleted; a newer one there started once too. */
  osTimerId_t fresh = osTimerNew(fired_cb, osTimerOnce, NULL, NULL);
  TH_CHECK(fresh == per); /* the pool's first free block */
  start_and_expire(fresh, 1u);
  TH_EQ(osTimerDelete(fresh), osOK);
  osTimerId_t again = osTimerNew(fired_cb, osTimerOnce, NULL, NULL);
  TH_CHECK(again == per);
  TH_EQ(osTimerStart(again, 1u), osOK);
  pass_ticks(1u);
  TH_EQU(queued(), 2u);
  run_queue();
  TH_EQU(g_fired, 4u);
  TH_EQ(osTimerDelete(again), osOK);
  TH_EQ(osTimerDelete(once), osOK);

  /* Deleted with an expiry deferred, its caller's memory zeroed and a new
   * timer set up there and started: the old expiry is not taken for the
   * new timer's (it was when the new timer's generation began at 1 again,
   * and its callback ran 100 ticks early). */
  static uint64_t mem[UTIM_OS2_TIMER_CB_SIZE / 8u];
  const osTimerAttr_t at = {"zeroed", 0u, mem, sizeof mem};
  osTimerId_t old = osTimerNew(fired_cb, osTimerOnce, NULL, &at);
  TH_CHECK(old == (osTimerId_t)mem);
  start_and_expire(old, 1u);
  TH_EQ(osTimerDelete(old), osOK);
  memset(mem, 0, sizeof mem);
  osTimerId_t anew = osTimerNew(fired_cb, osTimerOnce, NULL, &at);
  TH_CHECK(anew == (osTimerId_t)mem);
  TH_EQ(osTimerStart(anew, 100u), osOK);
  run_queue();
  TH_EQU(g_fired, 4u);
  TH_EQU(osTimerIsRunning(anew), 1u);
  TH_EQ(osTimerDelete(anew), osOK);
  teardown();
}

/* utim_os2_init()'s refusals change nothing: the set-up before stays. */
static void c_init_args(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  static const utim_os2_binding_t no_isr = {NULL, b_block_until, b_defer, NULL};
  static const utim_os2_binding_t no_block = {b_in_isr, NULL, b_defer, NULL};
  static const utim_os2_binding_t no_defer = {b_in_isr, b_block_until, NULL, NULL};
  TH_EQ(utim_os2_init(NULL, SYS_HZ, TICK_HZ, &binding), -EINVAL);
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, NULL), -EINVAL);
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &no_isr), -EINVAL);
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &no_block), -EINVAL);
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &no_defer), -EINVAL);
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, 0u, &binding), -EINVAL);
  TH_EQ(utim_os2_init(&g_tm, 0u, TICK_HZ, &binding), -EINVAL); /* a tick of 0 */
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, 3u, &binding), -EINVAL);  /* not a divisor */
  /* A kernel tick of 2^31 manager ticks: a 32-bit tick count would
   * overflow the manager's 2^62 range, which the start path relies on. */
  TH_EQ(utim_os2_init(&g_tm, 0x80000000u, 1u, &binding), -EINVAL);
  TH_EQU(osKernelGetTickFreq(), TICK_HZ);
  TH_EQU(osKernelGetSysTimerFreq(), SYS_HZ);
  osTimerId_t t = osTimerNew(fired_cb, osTimerOnce, NULL, NULL);
  g_fired = 0;
  TH_EQ(osTimerStart(t, 3u), osOK);
  TH_EQ(osDelay(4u), osOK);
  TH_EQU(g_fired, 1u);
  TH_EQ(osTimerDelete(t), osOK);
  /* 2^30 manager ticks a kernel tick is the most taken; the manager not
   * running is refused. */
  TH_EQ(utim_os2_init(&g_tm, 0x40000000u, 1u, &binding), 0);
  TH_EQU(osKernelGetTickFreq(), 1u);
  (void)utim_tm_deinit(&g_tm);
  TH_EQ(utim_os2_init(&g_tm, SYS_HZ, TICK_HZ, &binding), -EINVAL);
}

/* A full timer-context queue: each expiry it cannot take is counted lost
 * (utim_os2_lost_expiries()), none is run twice, and once the queue drains
 * the expiries are delivered again; a new set-up starts the count afresh. */
static void c_lost(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  osTimerId_t per = osTimerNew(fired_cb, osTimerPeriodic, NULL, NULL);
  TH_CHECK(per != NULL);
  g_fired = 0;
  TH_EQU(utim_os2_lost_expiries(), 0u);
  TH_EQ(osTimerStart(per, 1u), osOK);
  pass_ticks(QLEN + 6u); /* one expiry a tick, the timer context not run */
  TH_EQU(queued(), QLEN);
  TH_EQU(utim_os2_lost_expiries(), 6u);
  run_queue();
  TH_EQU(g_fired, QLEN);
  pass_ticks(3u);
  TH_EQU(queued(), 3u);
  TH_EQU(utim_os2_lost_expiries(), 6u);
  run_queue();
  TH_EQU(g_fired, QLEN + 3u);
  TH_EQ(osTimerDelete(per), osOK);
  teardown();
  TH_CHECK(setup());
  TH_EQU(utim_os2_lost_expiries(), 0u);
  teardown();
}

/* A deleted timer's control block is the caller's again at once, also
 * with an expiry of it still waiting for the timer context: that expiry is
 * dropped without reading the block (it used to read it: freed memory, and
 * a block reused with a timer's bytes ran the old callback). */
static void c_deleted_block(void *arg) {
  (void)arg;
  if (!begin()) {
    return;
  }
  g_fired = 0;
  /* Reused for bytes that look like a live timer (a copy taken before the
   * delete): the waiting expiry is not taken for one of it. */
  static uint64_t mem[UTIM_OS2_TIMER_CB_SIZE / 8u];
  static uint64_t copy[UTIM_OS2_TIMER_CB_SIZE / 8u];
  const osTimerAttr_t at = {"reused", 0u, mem, sizeof mem};
  osTimerId_t t = osTimerNew(fired_cb, osTimerOnce, NULL, &at);
  TH_CHECK(t == (osTimerId_t)mem);
  start_and_expire(t, 1u);
  memcpy(copy, mem, sizeof mem);
  TH_EQ(osTimerDelete(t), osOK);
  memcpy(mem, copy, sizeof mem);
  run_queue();
  TH_EQU(g_fired, 0u);
  memset(mem, 0, sizeof mem);

  /* Freed (host-asan: a read of it is a use after free). */
  void *heap = calloc(1u, UTIM_OS2_TIMER_CB_SIZE); /* zeroed, as osTimerNew() asks */
  TH_CHECK(heap != NULL);
  const osTimerAttr_t ht = {"heap", 0u, heap, UTIM_OS2_TIMER_CB_SIZE};
  t = osTimerNew(fired_cb, osTimerPeriodic, NULL, &ht);
  TH_CHECK(t == heap);
  start_and_expire(t, 2u);
  TH_EQ(osTimerDelete(t), osOK);
  free(heap);
  run_queue();
  TH_EQU(g_fired, 0u);

  /* Set up again in the block of a deleted one whose expiry waits, and
   * expired itself: the old expiry is dropped, the new one runs; deleted
   * in turn with an expiry waiting, that one is dropped too. */
  t = osTimerNew(fired_cb, osTimerOnce, NULL, &at);
  start_and_expire(t, 1u);
  TH_EQ(osTimerDelete(t), osOK);
  TH_CHECK(osTimerNew(fired_cb, osTimerOnce, NULL, &at) == t);
  TH_EQ(osTimerStart(t, 1u), osOK);
  pass_ticks(1u);
  TH_EQU(queued(), 2u);
  run_queue();
  TH_EQU(g_fired, 1u);
  start_and_expire(t, 1u);
  TH_EQ(osTimerDelete(t), osOK);
  TH_CHECK(osTimerNew(fired_cb, osTimerOnce, NULL, &at) == t);
  run_queue();
  TH_EQU(g_fired, 1u);
  TH_EQ(osTimerDelete(t), osOK);

  /* One more deleted timer with an expiry waiting than the layer notes:
   * its delete is refused and changes nothing (its callback still runs);
   * once the timer context ran, it is deleted. */
  osTimerId_t ts[UTIM_OS2_DELETED_WAITING + 1u] = {NULL};
  for (unsigned i = 0; i <= UTIM_OS2_DELETED_WAITING; i++) {
    ts[i] = osTimerNew(fired_cb, osTimerOnce, NULL, NULL);
    TH_CHECK(ts[i] != NULL);
    TH_EQ(osTimerStart(ts[i], 1u), osOK);
  }
  pass_ticks(1u);
  TH_EQU(queued(), UTIM_OS2_DELETED_WAITING + 1u);
  for (unsigned i = 0; i < UTIM_OS2_DELETED_WAITING; i++) {
    TH_EQ(osTimerDelete(ts[i]), osOK);
  }
  osTimerId_t last = ts[UTIM_OS2_DELETED_WAITING];
  TH_EQ(osTimerDelete(last), osErrorResource);
  TH_CHECK(osTimerStart(last, 5u) == osOK && osTimerIsRunning(last) == 1u);
  TH_EQ(osTimerStop(last), osOK);
  TH_EQ(osTimerStart(last, 1u), osOK);
  run_queue();
  TH_EQU(g_fired, 1u); /* the deleted ones' expiries dropped, its own stopped */
  TH_EQ(osTimerDelete(last), osOK);
  teardown();
}

static void more_cases(void) {
  th_run("sim: a deleted timer's block is not read by its expiries still waiting", c_deleted_block,
         NULL);
  th_run("sim: deferred callbacks dropped by stop, restart and delete, kept otherwise", c_deferred,
         NULL);
  th_run("sim: utim_os2_init refuses bad arguments and keeps the set-up", c_init_args, NULL);
  th_run("sim: expiries the timer context's full queue cannot take are counted lost", c_lost, NULL);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  const os2_suite_env_t env = {"sim", TICK_HZ, setup, teardown, &g_tm, more_cases};
  return os2_suite_run(&env);
}
