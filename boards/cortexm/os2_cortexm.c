/*
 * The bare-metal binding of the CMSIS-RTOS2 time services on the Cortex-M
 * boards (see utim/cmsis_os2_cortexm.h): PendSV as the timer context,
 * delays halted in WFI until the manager's one-shot at the deadline.
 */
#include "utim/cmsis_os2_cortexm.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "cortexm.h"
#include "utim/port.h"

#define EXC_PENDSV 14u
/* System Control Block: ICSR (PENDSVSET is bit 28) and SHPR3 (PendSV's
 * priority in bits 23:16; ARMv6-M implements the top two bits of a field,
 * ARMv7-M up to eight: 0xFF is the lowest on both). Word accesses only:
 * ARMv6-M has no byte access to the SCB. */
#define SCB_ICSR        (*(volatile uint32_t *)0xE000ED04u)
#define SCB_SHPR3       (*(volatile uint32_t *)0xE000ED20u)
#define ICSR_PENDSVSET  (1u << 28)
#define SHPR3_PENDSV_LO (0xFFu << 16)

/* A delay's wake-up: one per context that can delay (main, and a callback
 * in the timer context), so a callback's delay does not disturb main's. */
typedef struct wake {
  utim_tm_timer_t t;
  volatile bool woke;
} wake_t;

static struct {
  /* The queue: written in the manager's interrupt (masked by the port
   * lock, never nested with itself), read by PendSV, which the manager's
   * interrupt preempts: indices only move forward, each on one side. */
  utim_os2_deferred_t q[UTIM_OS2_CORTEXM_QUEUE];
  volatile uint32_t head; /* entries written */
  volatile uint32_t tail; /* entries read */
  wake_t wake[2];         /* [0] main, [1] the timer context */
  utim_os2_cortexm_info_t info;
} g;

static uint32_t ipsr(void) {
  uint32_t v;
  __asm__ volatile("mrs %0, ipsr" : "=r"(v));
  return v & 0x1ffu;
}

static uint32_t primask(void) {
  uint32_t v;
  __asm__ volatile("mrs %0, primask" : "=r"(v));
  return v & 1u;
}

static bool b_in_isr(void *ctx) {
  (void)ctx;
  const uint32_t exc = ipsr();
  return exc != 0u && exc != EXC_PENDSV;
}

static int b_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  if (g.head - g.tail >= UTIM_OS2_CORTEXM_QUEUE) {
    return -ENOSPC;
  }
  g.q[g.head % UTIM_OS2_CORTEXM_QUEUE] = d;
  g.head = g.head + 1u;
  SCB_ICSR = ICSR_PENDSVSET;
  return 0;
}

/* The timer context. The queue is read until empty: entries written while
 * a callback runs are taken in the same pass. */
void cortexm_pendsv(void) {
  g.info.pendsv++;
  while (g.tail != g.head) {
    const utim_os2_deferred_t d = g.q[g.tail % UTIM_OS2_CORTEXM_QUEUE];
    g.tail = g.tail + 1u;
    utim_os2_run_deferred(d);
    g.info.callbacks++;
  }
}

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
static void on_wake(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  ((wake_t *)arg)->woke = true;
}

static int b_block_until(void *ctx, utim_tm_t *tm, uint64_t deadline) {
  (void)ctx;
  /* Interrupts masked by the caller (the port's lock held, or cpsid i): the
   * wake-up's interrupt could never be taken and WFI would never end. */
  if (primask() != 0u) {
    return -EDEADLK;
  }
  wake_t *w = &g.wake[ipsr() == EXC_PENDSV ? 1 : 0];
  w->woke = false;
  utim_tm_timer_init(&w->t, on_wake, w);
  const int rc = utim_tm_start_at(tm, &w->t, deadline, 0u);
  if (rc != 0) {
    return rc;
  }
  /* Masked around the check: the wake-up's interrupt cannot slip in between
   * the check and the WFI (a pending interrupt ends WFI even when masked). */
  uint32_t key = utim_port_lock();
  while (!w->woke) {
    g.info.wfi++;
    __asm__ volatile("dsb\n\twfi" ::: "memory");
    utim_port_unlock(key);
    key = utim_port_lock();
  }
  utim_port_unlock(key);
  /* Unmasked: PendSV, pended by the expiries due with the wake-up, has run. */
  g.info.delays++;
  return 0;
}

static const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};

int utim_os2_cortexm_start(utim_tm_t *tm, uint32_t sys_hz, uint32_t tick_hz) {
  /* PendSV's priority only once the set-up is taken (a refusal changes
   * nothing); no expiry is deferred before this returns, as no timer of
   * the layer can run before it. A second set-up finds it set already. */
  const int rc = utim_os2_init(tm, sys_hz, tick_hz, &binding);
  if (rc == 0) {
    SCB_SHPR3 = SCB_SHPR3 | SHPR3_PENDSV_LO;
  }
  return rc;
}

utim_os2_cortexm_info_t utim_os2_cortexm_info(void) {
  const uint32_t key = utim_port_lock();
  const utim_os2_cortexm_info_t i = g.info;
  utim_port_unlock(key);
  return i;
}
