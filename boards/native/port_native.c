/*
 * utim port for a Linux host: one process-wide recursive lock shared by the
 * user threads and the interrupt thread, and the CPU's pause hint.
 *
 * The lock is what "interrupts off" is on an MCU: while a thread holds it,
 * the interrupt thread cannot run a timer handler, and the handler holds it
 * from reading its timer to the return of utim_core_event(). Priority
 * inheritance keeps a SCHED_FIFO interrupt thread from waiting behind a
 * preempted normal thread that holds the lock.
 *
 * When the lock can be held forever (the "hang in utim_port_lock with the
 * interrupt thread idle" of the project's defect list). Every path that
 * takes it was checked, and tests/unit/stress_native.c hammers them all at
 * once (arming, clearing, reading, polling threads, callbacks calling the
 * API, start/stop, forced clock-source re-fits and source switches) under a
 * watchdog, also under ThreadSanitizer's deadlock detector:
 * - lock order: the only other lock, the clock source's, is taken after
 *   this one when both are (a callback calling the clock source's API,
 *   its fork() handler; utim_now() only try-locks it) and never held
 *   while this one is taken; the board's and the clock source's
 *   pthread_once bodies take neither while the other's is running; no
 *   system call made with the lock held blocks (the interrupt line's raise
 *   is a FUTEX_WAKE);
 * - the depth bookkeeping below is exact for balanced lock/unlock pairs,
 *   which is all the core and the drivers make.
 * What does leave it held forever is its owner going away without
 * unlocking, and glibc makes that silent: a later pthread_mutex_lock() of a
 * non-robust priority-inheritance mutex whose owner is gone does not fail,
 * it parks the caller for good ("delay the thread indefinitely"), which is
 * exactly the symptom. Two ways lead there, both handled here:
 * - fork() while another thread holds the lock: the child's copy stays
 *   owned by a thread that does not exist in the child. The fork handlers
 *   take the lock around fork() and give the child a fresh one.
 * - a thread that ends inside a locked section (pthread_exit() or a
 *   cancellation point in a callback): the lock is robust, so the next
 *   caller gets EOWNERDEAD instead, takes the lock over and says so on
 *   stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "board_native.h"
#include "utim/port.h"

static pthread_mutex_t g_lock;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* Lock depth of the holder; only the holder touches it. */
static uint32_t g_depth;
/* The forking thread's depth before the prepare handler's lock. */
static uint32_t g_fork_key;
/* Owners found gone (robust mutex): counted, announced once. */
static _Atomic uint32_t g_owner_died;

static void lock_create(void) {
  pthread_mutexattr_t a;
  (void)pthread_mutexattr_init(&a);
  (void)pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  (void)pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  /* Without priority inheritance (refused by some kernels/containers) the
   * lock still excludes correctly, only with the inversion risk. */
  if (pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) != 0 ||
      pthread_mutex_init(&g_lock, &a) != 0) {
    (void)pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_NONE);
    (void)pthread_mutex_init(&g_lock, &a);
  }
  (void)pthread_mutexattr_destroy(&a);
}

/* Around fork(): the lock is held by the forking thread, so no other
 * thread owns it at the moment of the copy. */
static void fork_prepare(void) {
  g_fork_key = utim_port_lock();
}

static void fork_parent(void) {
  utim_port_unlock(g_fork_key);
}

/* The child's lock names the parent's thread as owner: a new lock, held to
 * the depth the forking thread held it before fork(), so its own pending
 * unlocks still balance. The child has no interrupt thread. */
static void fork_child(void) {
  uint32_t key = g_fork_key;
  lock_create();
  g_depth = 0u;
  for (uint32_t i = 0; i < key; i++) {
    (void)utim_port_lock();
  }
}

static void port_init(void) {
  lock_create();
  (void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* The previous owner ended inside a locked section: the lock is ours with a
 * count of 1, whatever depth it was at. The state it protected may be half
 * updated; say so once (write(2): the board does without stdio). */
static void take_over(void) {
  (void)pthread_mutex_consistent(&g_lock);
  g_depth = 0u;
  if (atomic_fetch_add(&g_owner_died, 1u) == 0u) {
    static const char msg[] = "utim: a thread ended while holding the port lock (pthread_exit or "
                              "cancellation inside a utim call or callback); taken over, the "
                              "timer state it was changing may be inconsistent\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1u);
  }
}

uint32_t utim_port_lock(void) {
  (void)pthread_once(&g_once, port_init);
  if (pthread_mutex_lock(&g_lock) == EOWNERDEAD) {
    take_over();
  }
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

int native_port_lock_owner(void) {
#if defined(__GLIBC__)
  /* glibc keeps the owner's thread id in the mutex; read without the lock,
   * for a diagnostic only. */
  return __atomic_load_n(&g_lock.__data.__owner, __ATOMIC_RELAXED);
#else
  return -1;
#endif
}

uint32_t native_port_owner_died(void) {
  return atomic_load(&g_owner_died);
}
