/*
 * The native board's "interrupt controller": one thread that waits on the
 * alarms' timerfds and runs their handlers under the port lock, so callbacks
 * run in a context that excludes every utim operation of the user threads,
 * as an ISR excludes thread code on an MCU.
 *
 * It asks for SCHED_FIFO at NATIVE_IRQ_PRIORITY and for mlockall(), so a
 * timer interrupt is neither queued behind normal threads nor stalled by a
 * page fault; where either is refused the thread runs anyway and
 * native_irq_info() says what was refused and why.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "native_internal.h"
#include "utim/port.h"
#include "utim_native_alarm.h"

#if defined(__SANITIZE_ADDRESS__)
#define NATIVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NATIVE_ASAN 1
#endif
#endif

#define IRQ_MAX_LINES 8u

static const utim_periph_t *const *g_alarms;
/* Atomic: set before the interrupt thread starts, read by other threads. */
static _Atomic unsigned g_nalarms;
static native_irq_info_t g_info;
static _Atomic uint64_t g_wakeups;
static _Atomic uint64_t g_services;
static _Atomic uint64_t g_spins;
static _Atomic uint64_t g_spin_ns = NATIVE_IRQ_SPIN_NS;
static pthread_t g_thread;

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
    int64_t now = native_clock_ns(CLOCK_MONOTONIC);
    if (next == INT64_MAX || now >= next || next - now > spin) {
      return;
    }
    utim_port_relax();
  }
}

static void *irq_thread(void *arg) {
  (void)arg;
  const unsigned total = atomic_load_explicit(&g_nalarms, memory_order_acquire);
  const unsigned na = total < IRQ_MAX_LINES ? total : IRQ_MAX_LINES;
  struct pollfd pfd[IRQ_MAX_LINES];
  nfds_t n = 0;
  // cppcheck-suppress knownConditionTrueFalse ; na is set before the thread starts
  for (unsigned i = 0; i < na; i++) {
    static const unsigned props[] = {UTIM_NATIVE_ALARM_PROP_FD, UTIM_NATIVE_ALARM_PROP_KICK_FD};
    for (unsigned k = 0; k < 2u && n < IRQ_MAX_LINES; k++) {
      uint64_t fd = UINT64_MAX;
      if (utim_get_property(g_alarms[i], props[k], &fd) == 0 && fd <= INT32_MAX) {
        pfd[n].fd = (int)fd;
        pfd[n].events = POLLIN;
        pfd[n].revents = 0;
        n++;
      }
    }
  }
  if (n == 0u) {
    return NULL;
  }
  int64_t armed[IRQ_MAX_LINES];
  for (unsigned i = 0; i < IRQ_MAX_LINES; i++) {
    armed[i] = -1;
  }
  for (;;) {
    /* Handlers first: the first pass also takes whatever was armed before
     * the thread ran. */
    int64_t deadline[IRQ_MAX_LINES] = {0};
    int64_t earliest = INT64_MAX;
    uint32_t key = utim_port_lock();
    // cppcheck-suppress knownConditionTrueFalse ; na is set before the thread starts
    for (unsigned i = 0; i < na; i++) {
      deadline[i] = utim_native_alarm_irq(g_alarms[i]);
      if (deadline[i] > 0 && deadline[i] < earliest) {
        earliest = deadline[i];
      }
    }
    utim_port_unlock(key);
    int64_t spin = (int64_t)atomic_load_explicit(&g_spin_ns, memory_order_relaxed);
    if (earliest != INT64_MAX && earliest - native_clock_ns(CLOCK_MONOTONIC) <= spin) {
      spin_towards(na, spin);
      continue;
    }
    /* Sleep until the spin window before each deadline. The kernel timer
     * fires on this CPU, because this thread programs it. */
    // cppcheck-suppress knownConditionTrueFalse ; na is set before the thread starts
    for (unsigned i = 0; i < na; i++) {
      int64_t wake = deadline[i] > 0 ? deadline[i] - spin : -1;
      if (wake != armed[i]) {
        utim_native_alarm_arm(g_alarms[i], wake);
        armed[i] = wake;
      }
    }
    while (poll(pfd, n, -1) < 0) {
      /* EINTR: a signal, nothing to service. */
    }
    for (nfds_t i = 0; i < n; i++) {
      if ((pfd[i].revents & POLLIN) != 0) {
        /* Consume the count so poll() blocks again; the handler decides
         * from the counter what is due, not from this count. */
        uint64_t count = 0;
        (void)read(pfd[i].fd, &count, sizeof count);
      }
    }
    atomic_fetch_add_explicit(&g_wakeups, 1u, memory_order_relaxed);
  }
  return NULL;
}

static void lock_memory(void) {
#ifdef NATIVE_ASAN
  g_info.mlock_error = ENOTSUP;
#else
  if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
    g_info.mlocked = true;
  } else {
    g_info.mlock_error = errno;
  }
#endif
}

void native_irq_start(const utim_periph_t *const *alarms, unsigned n) {
  g_alarms = alarms;
  atomic_store_explicit(&g_nalarms, n, memory_order_release);
  lock_memory();

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
  if (rc == 0) {
    g_info.running = true;
    (void)pthread_setname_np(g_thread, "utim-irq");
  }
}

void native_irq_set_probe(uint64_t write_ns, uint32_t max_hz) {
  g_info.compare_write_ns = write_ns;
  g_info.alarm_max_hz = max_hz;
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
      utim_native_alarm_isr(g_alarms[i]);
      utim_port_unlock(key);
    }
  }
}
