/*
 * The POSIX-threads binding of the CMSIS-RTOS2 time services (see
 * utim/cmsis_os2_posix.h): a timer thread fed from the manager's interrupt,
 * and delays with utim's precise sleep.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include "utim/cmsis_os2_posix.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include "board_native.h"
#include "utim/port.h"
#include "utim/time.h"

static struct {
  pthread_t thread;
  sem_t sem;    /* one post per queued expiry, and one to stop */
  bool started; /* under g_ctl */
  int fifo;
  int fifo_error;
  _Atomic bool stop;
  utim_tm_t *tm;
  uint32_t sys_hz;
  /* The queue: written by defer() under the port lock (every handler pass
   * holds it), read by the timer thread alone. */
  utim_os2_deferred_t q[UTIM_OS2_POSIX_QUEUE];
  _Atomic uint64_t queued; /* entries ever written */
  _Atomic uint64_t taken;  /* entries ever read */
  /* Progress of the timer thread, for the delays that wait for it. */
  pthread_mutex_t done_mx;
  pthread_cond_t done_cv;
  uint64_t done; /* entries run or dropped, under done_mx */
  /* The timer thread is in a callback's delay, under done_mx: as a
   * kernel's timer thread that blocks, it lets the other threads go on. */
  bool blocked;
  _Atomic uint64_t callbacks;
  _Atomic uint64_t delays;
  _Atomic uint64_t resleeps;
} g = {.done_mx = PTHREAD_MUTEX_INITIALIZER, .done_cv = PTHREAD_COND_INITIALIZER};

static pthread_mutex_t g_ctl = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool t_timer_thread;

static bool b_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}

/* In the manager's interrupt, under the port lock. sem_post() is safe in any
 * context. */
static int b_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  const uint64_t w = atomic_load_explicit(&g.queued, memory_order_relaxed);
  if (atomic_load_explicit(&g.stop, memory_order_relaxed) ||
      w - atomic_load_explicit(&g.taken, memory_order_acquire) >= UTIM_OS2_POSIX_QUEUE) {
    return -ENOSPC;
  }
  g.q[w % UTIM_OS2_POSIX_QUEUE] = d;
  atomic_store_explicit(&g.queued, w + 1u, memory_order_release);
  (void)sem_post(&g.sem);
  return 0;
}

static void mark_done(uint64_t n) {
  (void)pthread_mutex_lock(&g.done_mx);
  g.done = n;
  (void)pthread_cond_broadcast(&g.done_cv);
  (void)pthread_mutex_unlock(&g.done_mx);
}

/* The timer thread enters or leaves a callback's delay. */
static void mark_blocked(bool b) {
  (void)pthread_mutex_lock(&g.done_mx);
  g.blocked = b;
  (void)pthread_cond_broadcast(&g.done_cv);
  (void)pthread_mutex_unlock(&g.done_mx);
}

static void *timer_thread(void *arg) {
  (void)arg;
  t_timer_thread = true;
  for (;;) {
    while (sem_wait(&g.sem) != 0) {
      /* EINTR: wait again */
    }
    if (atomic_load_explicit(&g.stop, memory_order_acquire)) {
      break;
    }
    const uint64_t r = atomic_load_explicit(&g.taken, memory_order_relaxed);
    if (r == atomic_load_explicit(&g.queued, memory_order_acquire)) {
      continue;
    }
    const utim_os2_deferred_t d = g.q[r % UTIM_OS2_POSIX_QUEUE];
    atomic_store_explicit(&g.taken, r + 1u, memory_order_release);
    utim_os2_run_deferred(d);
    atomic_fetch_add_explicit(&g.callbacks, 1u, memory_order_relaxed);
    mark_done(r + 1u);
  }
  return NULL;
}

/* Wait until the timer thread has run what was queued by now, or is
 * blocked in a callback's delay (then the callbacks after it wait for it,
 * and this thread goes on, as beside a kernel's timer thread that blocks). */
static void wait_timer_thread(void) {
  /* Every handler pass holds the port lock from start to end: once we have
   * it, the passes due so far have queued all they will. */
  const uint32_t key = utim_port_lock();
  const uint64_t upto = atomic_load_explicit(&g.queued, memory_order_acquire);
  utim_port_unlock(key);
  (void)pthread_mutex_lock(&g.done_mx);
  while (g.done < upto && !g.blocked && !atomic_load_explicit(&g.stop, memory_order_acquire)) {
    (void)pthread_cond_wait(&g.done_cv, &g.done_mx);
  }
  (void)pthread_mutex_unlock(&g.done_mx);
}

/* A delay's wake-up: a manager one-shot at the deadline, so the delay ends
 * when the manager serves that moment (on a ticked manager, at its tick). */
typedef struct wake {
  utim_tm_timer_t t;
  sem_t sem; /* posted once, by the one-shot's callback */
} wake_t;

// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
static void on_wake(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  wake_t *w = arg;
  (void)sem_post(&w->sem);
}

/* Sleep until the manager's time reaches @p deadline (modular: the time
 * may wrap). It is a count: the moment it was read lies anywhere in that
 * count, so the deadline is more than (deadline - now - 1) counts away and
 * at most (deadline - now). Sleep the first (never past it), then watch
 * the count for the rest (at most one count). */
static int sleep_to(utim_tm_t *tm, uint64_t deadline) {
  bool slept = false;
  for (;;) {
    const uint64_t left = deadline - utim_tm_now(tm);
    if (left == 0u || left >= ((uint64_t)1 << 63)) {
      return 0;
    }
    if (left < 2u) {
      utim_port_relax();
      continue;
    }
    if (slept) {
      atomic_fetch_add_explicit(&g.resleeps, 1u, memory_order_relaxed);
    }
    slept = true;
    const uint64_t ns = utim_ticks_to_ns(left - 1u, g.sys_hz);
    const int rc = utim_sleep_until(utim_port_now_ns() + (utim_ns_t)ns);
    if (rc != 0) {
      return rc;
    }
  }
}

static int b_block_until(void *ctx, utim_tm_t *tm, uint64_t deadline) {
  (void)ctx;
  if (atomic_load_explicit(&g.stop, memory_order_acquire)) {
    return -ESRCH;
  }
  /* The port's lock held by the caller (its interrupts masked): neither the
   * interrupt thread nor the timer thread could go on, and the delay would
   * wait for them for good. (The owner, read without the lock, is exact for
   * the one question whether it is this thread.) */
  if (native_port_lock_owner() == (int)gettid()) {
    return -EDEADLK;
  }
  wake_t w;
  if (sem_init(&w.sem, 0, 0u) != 0) {
    return -errno;
  }
  if (t_timer_thread) {
    mark_blocked(true);
  }
  utim_tm_timer_init(&w.t, on_wake, &w);
  int rc = utim_tm_start_at(tm, &w.t, deadline, 0u);
  /* Precisely to the deadline on the manager's time, then the wake-up's
   * interrupt is served here when due (tickless: at once), or awaited (a
   * ticked manager's next tick). */
  if (rc == 0) {
    rc = sleep_to(tm, deadline);
  }
  if (rc == 0) {
    native_irq_service();
    while (sem_wait(&w.sem) != 0) {
      /* EINTR: wait again */
    }
  }
  /* Not pending once woken; after an error it must not stay on the wheel. */
  (void)utim_tm_stop(tm, &w.t);
  (void)sem_destroy(&w.sem);
  if (t_timer_thread) {
    mark_blocked(false);
  }
  if (rc != 0) {
    return rc;
  }
  if (!t_timer_thread) {
    wait_timer_thread();
  }
  atomic_fetch_add_explicit(&g.delays, 1u, memory_order_relaxed);
  return 0;
}

static const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};

/* End the timer thread and its semaphore (under g_ctl). */
static void end_timer_thread(void) {
  atomic_store_explicit(&g.stop, true, memory_order_release);
  /* A handler pass that read the flag before ends before we go on: none
   * posts to the semaphore once it is gone. */
  utim_port_unlock(utim_port_lock());
  (void)sem_post(&g.sem);
  (void)pthread_join(g.thread, NULL);
  /* What the thread left queued is dropped: the layer no longer counts it
   * as waiting (no defer() adds to the queue once the flag is read). */
  const uint64_t upto = atomic_load_explicit(&g.queued, memory_order_acquire);
  for (uint64_t r = atomic_load_explicit(&g.taken, memory_order_relaxed); r != upto; r++) {
    utim_os2_drop_deferred(g.q[r % UTIM_OS2_POSIX_QUEUE]);
  }
  atomic_store_explicit(&g.taken, upto, memory_order_relaxed);
  mark_done(g.done); /* wakes delays waiting for the thread */
  (void)sem_destroy(&g.sem);
}

int utim_os2_posix_start(utim_tm_t *tm, uint32_t sys_hz, uint32_t tick_hz) {
  (void)pthread_mutex_lock(&g_ctl);
  int rc = g.started ? -EBUSY : 0;
  if (rc == 0 && sem_init(&g.sem, 0, 0u) != 0) {
    rc = -errno;
  }
  if (rc == 0) {
    atomic_store(&g.stop, false);
    atomic_store(&g.queued, 0u);
    atomic_store(&g.taken, 0u);
    mark_done(0u); /* under done_mx: a delay of the set-up before may still read it */
    g.tm = tm;
    g.sys_hz = sys_hz;
    /* The timer thread first, the layer's set-up last: a thread that cannot
     * be created leaves the layer as it was (bound to nothing new). */
    pthread_attr_t attr;
    struct sched_param sp = {.sched_priority = UTIM_OS2_POSIX_PRIORITY};
    (void)pthread_attr_init(&attr);
    (void)pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    (void)pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
    (void)pthread_attr_setschedparam(&attr, &sp);
    int e = pthread_create(&g.thread, &attr, timer_thread, NULL);
    (void)pthread_attr_destroy(&attr);
    g.fifo = e == 0;
    g.fifo_error = e;
    if (e != 0) {
      /* EPERM without CAP_SYS_NICE or an RLIMIT_RTPRIO: a normal thread. */
      e = pthread_create(&g.thread, NULL, timer_thread, NULL);
    }
    if (e == 0) {
      (void)pthread_setname_np(g.thread, "utim-os2-timer");
      rc = utim_os2_init(tm, sys_hz, tick_hz, &binding);
      if (rc == 0) {
        g.started = true;
      } else {
        end_timer_thread();
      }
    } else {
      /* Delays of a set-up before this one keep finding no timer thread. */
      atomic_store(&g.stop, true);
      (void)sem_destroy(&g.sem);
      rc = -e;
    }
  }
  (void)pthread_mutex_unlock(&g_ctl);
  return rc;
}

int utim_os2_posix_stop(void) {
  /* From a timer callback the thread would join itself: the join fails,
   * the stop went on regardless and destroyed the semaphore the thread
   * then waited on, and a later start ran a second timer thread on it. */
  if (t_timer_thread) {
    return -EDEADLK;
  }
  (void)pthread_mutex_lock(&g_ctl);
  int rc = g.started ? 0 : -ESRCH;
  if (rc == 0) {
    end_timer_thread();
    g.started = false;
  }
  (void)pthread_mutex_unlock(&g_ctl);
  return rc;
}

utim_os2_posix_info_t utim_os2_posix_info(void) {
  (void)pthread_mutex_lock(&g_ctl);
  const utim_os2_posix_info_t i = {
      .running = g.started ? 1 : 0,
      .fifo = g.fifo,
      .fifo_error = g.fifo_error,
      .callbacks = atomic_load(&g.callbacks),
      .delays = atomic_load(&g.delays),
      .resleeps = atomic_load(&g.resleeps),
  };
  (void)pthread_mutex_unlock(&g_ctl);
  return i;
}
