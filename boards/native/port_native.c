/*
 * utim port for a Linux host: one process-wide recursive lock shared by the
 * user threads and the interrupt thread, and the CPU's pause hint.
 *
 * The lock is what "interrupts off" is on an MCU: while a thread holds it,
 * the interrupt thread cannot run a timer handler, and the handler holds it
 * from reading its timer to the return of utim_core_event(). Priority
 * inheritance keeps a SCHED_FIFO interrupt thread from waiting behind a
 * preempted normal thread that holds the lock.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <pthread.h>
#include <stdint.h>

#include "utim/port.h"

static pthread_mutex_t g_lock;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* Lock depth of the holder; only the holder touches it. */
static uint32_t g_depth;

static void port_init(void) {
  pthread_mutexattr_t a;
  (void)pthread_mutexattr_init(&a);
  (void)pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  /* Without priority inheritance (refused by some kernels/containers) the
   * lock still excludes correctly, only with the inversion risk. */
  if (pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) != 0 ||
      pthread_mutex_init(&g_lock, &a) != 0) {
    (void)pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_NONE);
    (void)pthread_mutex_init(&g_lock, &a);
  }
  (void)pthread_mutexattr_destroy(&a);
}

uint32_t utim_port_lock(void) {
  (void)pthread_once(&g_once, port_init);
  (void)pthread_mutex_lock(&g_lock);
  return g_depth++;
}

/* The key is the depth before the matching lock; unlocking down to it, as a
 * CPU restores a saved interrupt mask, also repairs an unbalanced pair. */
void utim_port_unlock(uint32_t key) {
  /* g_depth is only ours while we hold the lock: settle it before the last
   * release, never re-read it after. */
  uint32_t n = g_depth > key ? g_depth - key : 0u;
  g_depth = key;
  for (; n > 0u; n--) {
    (void)pthread_mutex_unlock(&g_lock);
  }
}

void utim_port_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  __asm__ __volatile__("" ::: "memory");
#endif
}
