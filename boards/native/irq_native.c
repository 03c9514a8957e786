/*
 * The native board's "interrupt controller": one thread that sleeps on the
 * alarms' interrupt line and runs their handlers under the port lock, so
 * callbacks run in a context that excludes every utim operation of the user
 * threads, as an ISR excludes thread code on an MCU.
 *
 * It sleeps in one system call until the next event (utim_native_line.h: a
 * futex wait with an absolute CLOCK_MONOTONIC deadline, woken by the
 * kernel's high-resolution timer like clock_nanosleep(TIMER_ABSTIME)), or
 * until an alarm raises the line because its next event moved earlier;
 * then takes the lock and runs the handlers at once. It replaced a timerfd +
 * eventfd + poll() design: measured on a 2-vCPU KVM guest, sample by sample
 * against a clock_nanosleep() thread of the same priority, poll()'s wake-up
 * and return path cost 1 to 10 us more than a direct sleep for 1 ms to 1 s
 * timeouts and the read() of the timerfd another 1 to 3 us (caches are cold
 * after a long sleep), and each event cost a timerfd_settime() (a
 * hypervisor trap, ~10 us of CPU) to disarm or re-arm. What is left between
 * the kernel's wake-up and the callback is the port lock, the handler and
 * the core's dispatch: 1 to 5 us.
 *
 * It asks for SCHED_FIFO at NATIVE_IRQ_PRIORITY and for mlockall(), so a
 * timer interrupt is neither queued behind normal threads nor stalled by a
 * page fault; where either is refused the thread runs anyway and
 * native_irq_info() says what was refused and why. Its timer slack is 1 ns,
 * so a SCHED_OTHER fallback is not woken up to 50 us late on purpose.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "native_internal.h"
#include "utim/port.h"
#include "utim_native_alarm.h"
#include "utim_native_hw.h"
#include "utim_native_line.h"

/* mlockall() would try to lock the sanitizers' shadow memory: terabytes of
 * reserved address space. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NATIVE_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NATIVE_SANITIZER 1
#endif
#endif
/* ThreadSanitizer ends a child of a multi-threaded fork() that starts a
 * thread ("not supported"): there, a child gets no interrupt thread. */
#if defined(__SANITIZE_THREAD__)
#define NATIVE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NATIVE_TSAN 1
#endif
#endif

static const utim_periph_t *const *g_alarms;
/* Atomic: set before the interrupt thread starts, read by other threads. */
static _Atomic unsigned g_nalarms;
/* Set once by native_irq_start()/native_irq_set_probe() inside the board's
 * pthread_once, before any reader can get at it. */
static native_irq_info_t g_info;
static _Atomic uint64_t g_wakeups;
static _Atomic uint64_t g_services;
static _Atomic uint64_t g_spins;
static _Atomic uint64_t g_spin_ns = NATIVE_IRQ_SPIN_NS;
/* What arming the kernel's timer costs (the probe's compare_write_ns): a wait
 * shorter than this is spun even with the spin window off, because a sleep
 * could not end sooner and would cost as much CPU. Capped: a probe disturbed
 * by a stall must not make the thread spin for long. */
#define IRQ_MIN_SLEEP_CAP_NS 50000u
static _Atomic uint64_t g_min_sleep_ns;
/* When the last sleep ended at its deadline, during the handler pass that
 * follows it; -1 otherwise (native_irq_deadline_wake_ns()). */
static _Atomic int64_t g_deadline_wake_ns = -1;
static _Thread_local bool t_on_irq_thread; /* true on the interrupt thread */
static _Thread_local bool t_in_service;    /* in native_irq_service()'s handlers */
static pthread_t g_thread;
/* The one interrupt line every alarm raises. */
static utim_native_line_t g_line;

/*
 * Busy-wait for the next event, watching the alarms' lock-free next-event
 * times so that re-arming, clearing or an earlier event is noticed without
 * a system call. Returns when an event is due, or when the next one moved
 * out of the spin window (the caller then sleeps again).
 */
static void spin_towards(unsigned na, int64_t spin) {
  atomic_fetch_add_explicit(&g_spins, 1u, memory_order_relaxed);
  for (;;) {
    int64_t next = INT64_MAX;
    for (unsigned i = 0; i < na; i++) {
      int64_t t = utim_native_alarm_next(g_alarms[i]);
      next = t < next ? t : next;
    }
    int64_t now = utim_native_clock_ns(CLOCK_MONOTONIC);
    if (next == INT64_MAX || now >= next || next - now > spin) {
      return;
    }
    utim_port_relax();
  }
}

static void *irq_thread(void *arg) {
  (void)arg;
  const unsigned na = atomic_load_explicit(&g_nalarms, memory_order_acquire);
  t_on_irq_thread = true;
  /* Per thread: without it a SCHED_OTHER thread's wake-ups may come up to
   * 50 us late by design (SCHED_FIFO threads get no slack anyway). */
  (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  /* When the thread last came back from a sleep: it starts no spin once
   * it has been busy (spinning, running handlers) a spin window since. */
  int64_t awake_since = utim_native_clock_ns(CLOCK_MONOTONIC);
  for (;;) {
    /* Handlers first: the first pass also takes whatever was armed before
     * the thread ran. */
    int64_t earliest = INT64_MAX;
    uint32_t key = utim_port_lock();
    // cppcheck-suppress knownConditionTrueFalse ; na is set before the thread starts
    for (unsigned i = 0; i < na; i++) {
      int64_t d = utim_native_alarm_irq(g_alarms[i]);
      if (d > 0 && d < earliest) {
        earliest = d;
      }
    }
    /* Read under the lock the raisers hold: a raise from here on changes
     * it, and the wait below then returns at once. */
    const uint32_t seen = utim_native_line_count(&g_line);
    atomic_store_explicit(&g_deadline_wake_ns, -1, memory_order_relaxed);
    utim_port_unlock(key);
    int64_t spin = (int64_t)atomic_load_explicit(&g_spin_ns, memory_order_relaxed);
    int64_t min_sleep = (int64_t)atomic_load_explicit(&g_min_sleep_ns, memory_order_relaxed);
    int64_t window = spin > min_sleep ? spin : min_sleep;
    int64_t until = earliest != INT64_MAX ? earliest - spin : 0;
    if (earliest != INT64_MAX) {
      const int64_t now = utim_native_clock_ns(CLOCK_MONOTONIC);
      const int64_t left = earliest - now;
      /* Events that keep coming closer together than the window would
       * keep a SCHED_FIFO thread spinning from one to the next for good,
       * and a program on its CPU would get none of the time the periodic
       * overload guard leaves it: once busy a window, the thread sleeps to
       * the next event itself. */
      if (left <= min_sleep || (left <= window && now - awake_since <= window)) {
        spin_towards(na, window);
        continue;
      }
      if (left <= window) {
        until = earliest;
      }
    }
    /* Until the spin window before the deadline, or a raise. The kernel
     * timer fires on this CPU, because this thread arms it. */
    int w = utim_native_line_wait(&g_line, seen, until);
    const int64_t woke = utim_native_clock_ns(CLOCK_MONOTONIC);
    if (w != -EAGAIN) {
      awake_since = woke;
    }
    if (w == -ETIMEDOUT) {
      atomic_store_explicit(&g_deadline_wake_ns, woke, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&g_wakeups, 1u, memory_order_relaxed);
  }
  return NULL;
}

static void lock_memory(void) {
#ifdef NATIVE_SANITIZER
  g_info.mlock_error = ENOTSUP;
#else
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
    g_info.mlocked = true;
  } else {
    g_info.mlock_error = errno;
  }
#endif
}

static void spawn(void) {
  pthread_attr_t attr;
  struct sched_param sp = {.sched_priority = NATIVE_IRQ_PRIORITY};
  (void)pthread_attr_init(&attr);
  (void)pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  (void)pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
  (void)pthread_attr_setschedparam(&attr, &sp);
  int rc = pthread_create(&g_thread, &attr, irq_thread, NULL);
  (void)pthread_attr_destroy(&attr);
  if (rc == 0) {
    g_info.policy = SCHED_FIFO;
    g_info.priority = NATIVE_IRQ_PRIORITY;
  } else {
    /* EPERM without CAP_SYS_NICE or an RLIMIT_RTPRIO: run as a normal
     * thread, and say so. */
    g_info.fifo_error = rc;
    rc = pthread_create(&g_thread, NULL, irq_thread, NULL);
    g_info.policy = SCHED_OTHER;
    g_info.priority = 0;
  }
  g_info.running = rc == 0;
  if (rc == 0) {
    (void)pthread_setname_np(g_thread, "utim-irq");
  }
}

/*
 * fork(): the child has the forking thread only, so without a thread of its
 * own its alarms would never fire (and native_irq_pin() would move the
 * parent's thread). The port's child handler, registered before this one
 * (native_irq_start() attaches the alarms under the port lock first), has
 * given the child a fresh port lock. Memory locks are not inherited, and
 * are not taken again: mlockall() in a child would copy every shared page.
 * (pthread_create() in a fork handler: glibc supports it, POSIX only
 * promises async-signal-safe calls in the child of a multi-threaded
 * process. Under ThreadSanitizer the child gets no thread, see NATIVE_TSAN.)
 */
static void fork_child(void) {
  g_info.mlocked = false;
#ifdef NATIVE_TSAN
  g_info.running = false;
#else
  if (g_info.running) {
    spawn();
  }
#endif
}

void native_irq_start(const utim_periph_t *const *alarms, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    utim_native_alarm_attach(alarms[i], &g_line);
  }
  g_alarms = alarms;
  atomic_store_explicit(&g_nalarms, n, memory_order_release);
  lock_memory();
  spawn();
  (void)pthread_atfork(NULL, NULL, fork_child);
}

int64_t native_irq_deadline_wake_ns(void) {
  if (!t_on_irq_thread) {
    return -1;
  }
  return atomic_load_explicit(&g_deadline_wake_ns, memory_order_relaxed);
}

void native_irq_set_probe(uint64_t write_ns, uint32_t max_hz) {
  g_info.compare_write_ns = write_ns;
  g_info.alarm_max_hz = max_hz;
  atomic_store_explicit(&g_min_sleep_ns,
                        write_ns < IRQ_MIN_SLEEP_CAP_NS ? write_ns : IRQ_MIN_SLEEP_CAP_NS,
                        memory_order_relaxed);
}

native_irq_info_t native_irq_info(void) {
  native_irq_info_t i = g_info;
  i.wakeups = atomic_load_explicit(&g_wakeups, memory_order_relaxed);
  i.services = atomic_load_explicit(&g_services, memory_order_relaxed);
  i.spins = atomic_load_explicit(&g_spins, memory_order_relaxed);
  i.spin_ns = atomic_load_explicit(&g_spin_ns, memory_order_relaxed);
  return i;
}

void native_irq_set_spin(uint64_t ns) {
  atomic_store_explicit(&g_spin_ns, ns < NATIVE_IRQ_SPIN_MAX_NS ? ns : NATIVE_IRQ_SPIN_MAX_NS,
                        memory_order_relaxed);
}

int native_irq_pin(int cpu) {
  if (!g_info.running) {
    return -ESRCH;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu < 0) {
    for (int i = 0; i < CPU_SETSIZE; i++) {
      CPU_SET(i, &set);
    }
  } else if (cpu < CPU_SETSIZE) {
    CPU_SET(cpu, &set);
  } else {
    return -EINVAL;
  }
  int rc = pthread_setaffinity_np(g_thread, sizeof set, &set);
  return rc == 0 ? 0 : -rc;
}

void native_irq_service(void) {
  /* Only take the lock when an event may be due: polling threads must not
   * keep the interrupt thread waiting on the lock for nothing. */
  const unsigned total = atomic_load_explicit(&g_nalarms, memory_order_acquire);
  for (unsigned i = 0; i < total; i++) {
    if (utim_native_alarm_due(g_alarms[i])) {
      atomic_fetch_add_explicit(&g_services, 1u, memory_order_relaxed);
      uint32_t key = utim_port_lock();
      /* Restored, not cleared: a callback of an outer handler pass may call
       * this too, and is still in its handler afterwards. */
      const bool outer = t_in_service;
      t_in_service = true;
      utim_native_alarm_isr(g_alarms[i]);
      t_in_service = outer;
      utim_port_unlock(key);
    }
  }
}

/* The interrupt thread runs nothing but handler passes. */
bool utim_port_in_isr(void) {
  return t_on_irq_thread || t_in_service;
}
