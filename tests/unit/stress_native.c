/**
 * @file stress_native.c
 * @brief stress_native: every path that takes the native port lock, all at
 *        once, for a bounded number of operations, under a watchdog.
 *
 * Threads, beside the board's interrupt thread (SCHED_FIFO):
 * - two armers, on channels 0-1 and 2-3 of NATIVE_ALARM: set_rel, set_abs,
 *   set_periodic, clear, mask/unmask, pending, read and a driver property,
 *   in a pseudo-random mix; callbacks re-arm their channel or clear the
 *   other one (the API called from the interrupt context);
 * - a poller that takes due interrupts itself (native_irq_service()), as a
 *   busy-waiting program does;
 * - a controller that stops and restarts the alarm;
 * - a timekeeper that reads utim_now(), forces clock-source re-fits,
 *   fetches reports and switches the time source back and forth;
 * - a forker whose children take the port lock and the clock source's lock
 *   and exit.
 * Then, alone: a thread that ends while holding the port lock, and a lock
 * taken after it.
 *
 * Checks: no one-shot callback before its target; utim_now() never goes
 * back within a thread; every worker finishes; every child of fork()
 * exits; the lock is taken after its owner ended (and the take-over is
 * counted); the interrupt thread woke and callbacks came. Under
 * ThreadSanitizer (preset host-tsan) the same run is checked for data races
 * and lock-order inversions.
 *
 * The watchdog: when a worker makes no progress for STRESS_STALL_S seconds,
 * or the whole run takes longer than STRESS_LIMIT_S, it prints each
 * worker's count and last operation, the thread holding the port lock,
 * the interrupt thread's wake-ups and every thread's state, wait channel
 * and system call from /proc, then fails the test (exit status 1): a hang
 * becomes a report instead of a ctest time-out.
 *
 * Usage: stress_native [operations per armer]   (default 20000)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "board_native.h"
#include "clocksource.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"
#include "utim_native_alarm.h"

#define STRESS_STALL_S  20
#define STRESS_LIMIT_S  300
#define STRESS_FORKS    40u
#define STRESS_CONTROLS 400u
#define NS_PER_MS       1000000

enum { W_ARM0, W_ARM1, W_POLL, W_CTRL, W_TIME, W_FORK, W_MAIN, W_COUNT };

static const char *const worker_name[W_COUNT] = {"armer 0",    "armer 1", "poller", "controller",
                                                 "timekeeper", "forker",  "main"};

/* Progress of each worker, read by the watchdog. */
static _Atomic uint64_t progress[W_COUNT];
static const char *_Atomic phase[W_COUNT];
static atomic_bool active[W_COUNT];

/* Failures found by the workers (the harness is used by the main thread only). */
static _Atomic unsigned early_callbacks;
static _Atomic unsigned time_back;
static _Atomic unsigned stuck_children;
static _Atomic unsigned api_errors;
static _Atomic uint64_t callbacks;
static char first_failure[256];
static atomic_flag failure_taken = ATOMIC_FLAG_INIT;

static const utim_periph_t *alarm_p;
static unsigned long ops_per_armer = 20000u;
static atomic_bool workers_stop;

/* Per channel, written and read under the port lock: what the callback may check. */
static uint64_t min_count[UTIM_NATIVE_ALARM_CHANNELS]; /* no callback before the counter is here */
static bool checkable[UTIM_NATIVE_ALARM_CHANNELS];     /* a one-shot with a known lower bound */
static uint32_t cb_rng = 1u;                           /* under the port lock too */

static void note_failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note_failure(const char *fmt, ...) {
  if (!atomic_flag_test_and_set(&failure_taken)) {
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(first_failure, sizeof first_failure, fmt, ap);
    va_end(ap);
  }
}

static void step(unsigned w, const char *what) {
  atomic_store_explicit(&phase[w], what, memory_order_relaxed);
  atomic_fetch_add_explicit(&progress[w], 1u, memory_order_relaxed);
}

static uint32_t xorshift(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *s = x;
  return x;
}

static int64_t mono_ns(void) {
  return utim_native_clock_ns(CLOCK_MONOTONIC);
}

static void nap_us(long us) {
  struct timespec ts = {0, us * 1000L};
  (void)nanosleep(&ts, NULL);
}

/* The port lock's owner once it settles: the interrupt thread takes the
 * lock for a moment at any time, so a single look may find it holding it;
 * a lock left held for good (the defect these checks are about) keeps its
 * owner for the whole second. */
static int settled_lock_owner(void) {
  int owner = native_port_lock_owner();
  for (unsigned i = 0; i < 10000u && owner != 0; i++) {
    nap_us(100);
    owner = native_port_lock_owner();
  }
  return owner;
}

/* ---- the watchdog ------------------------------------------------------------ */

static void dump_file(const char *path, const char *label) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  if (f != NULL) {
    size_t n = fread(buf, 1, sizeof buf - 1u, f);
    buf[n] = '\0';
    fclose(f);
  }
  char *nl = strchr(buf, '\n');
  if (nl != NULL) {
    *nl = '\0';
  }
  fprintf(stderr, " %s=%s", label, buf);
}

/* Every thread of the process: name, state, wait channel, system call. */
static void dump_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) {
    return;
  }
  const struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') {
      continue;
    }
    char path[300];
    fprintf(stderr, "#   thread %s:", e->d_name);
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    dump_file(path, "name");
    snprintf(path, sizeof path, "/proc/self/task/%s/wchan", e->d_name);
    dump_file(path, "wchan");
    snprintf(path, sizeof path, "/proc/self/task/%s/syscall", e->d_name);
    dump_file(path, "syscall");
    fputc('\n', stderr);
  }
  closedir(d);
}

static void *watchdog(void *arg) {
  (void)arg;
  uint64_t last[W_COUNT] = {0};
  int64_t since[W_COUNT];
  const int64_t start = mono_ns();
  for (unsigned w = 0; w < W_COUNT; w++) {
    since[w] = start;
  }
  for (;;) {
    nap_us(100000);
    const int64_t now = mono_ns();
    int stuck = -1;
    for (unsigned w = 0; w < W_COUNT; w++) {
      uint64_t p = atomic_load_explicit(&progress[w], memory_order_relaxed);
      if (p != last[w] || !atomic_load(&active[w])) {
        last[w] = p;
        since[w] = now;
      } else if (now - since[w] > (int64_t)STRESS_STALL_S * 1000 * NS_PER_MS) {
        stuck = (int)w;
      }
    }
    bool over = now - start > (int64_t)STRESS_LIMIT_S * 1000 * NS_PER_MS;
    if (stuck < 0 && !over) {
      continue;
    }
    native_irq_info_t irq = native_irq_info();
    fflush(stdout);
    fprintf(stderr, "# WATCHDOG: %s\n",
            over ? "the run exceeded its time limit" : "a worker made no progress");
    for (unsigned w = 0; w < W_COUNT; w++) {
      const char *ph = atomic_load_explicit(&phase[w], memory_order_relaxed);
      fprintf(stderr, "#   %-10s %s, %llu steps, last: %s\n", worker_name[w],
              atomic_load(&active[w]) ? "running" : "idle",
              (unsigned long long)atomic_load(&progress[w]), ph != NULL ? ph : "-");
    }
    fprintf(stderr,
            "#   port lock held by thread %d (0: free); interrupt thread woke %llu times, "
            "%llu callbacks so far\n",
            native_port_lock_owner(), (unsigned long long)irq.wakeups,
            (unsigned long long)atomic_load(&callbacks));
    dump_threads();
    printf("not ok - watchdog: %s stuck (see the report on stderr)\n",
           stuck >= 0 ? worker_name[stuck] : "the run");
    fflush(stdout);
    _exit(1);
  }
  return NULL;
}

/* ---- callbacks ----------------------------------------------------------------- */

/* Runs under the port lock: in the interrupt thread, in the poller (which took
 * a due interrupt), or in an armer whose call delivered it inside the armer's
 * own utim_port_lock() section (every delivering call here is made inside
 * one). */
static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)arg;
  atomic_fetch_add_explicit(&callbacks, 1u, memory_order_relaxed);
  uint64_t c = utim_read(p);
  if (checkable[ch] && c < min_count[ch]) {
    atomic_fetch_add(&early_callbacks, 1u);
    note_failure("channel %u called back at %llu, before %llu", ch, (unsigned long long)c,
                 (unsigned long long)min_count[ch]);
  }
  checkable[ch] = false;
  uint32_t r = xorshift(&cb_rng);
  if ((r & 7u) == 0u) {
    /* Re-arm from the interrupt context. */
    uint64_t n = 1u + (r >> 8) % 40u;
    min_count[ch] = utim_read(p) + n;
    checkable[ch] = true;
    if (utim_set_rel(p, ch, n) != 0) {
      atomic_fetch_add(&api_errors, 1u);
    }
  } else if ((r & 7u) == 1u) {
    unsigned other = ch ^ 1u;
    checkable[other] = false;
    (void)utim_clear(p, other);
  }
}

/* ---- workers ------------------------------------------------------------------- */

typedef struct armer {
  unsigned w;
  unsigned ch0; /* channels ch0, ch0 + 1 */
  uint32_t rng;
} armer_t;

static void api(int rc, int allowed) {
  if (rc != 0 && rc != allowed) {
    atomic_fetch_add(&api_errors, 1u);
    note_failure("API call returned %d", rc);
  }
}

static void *armer(void *arg) {
  armer_t *a = arg;
  const utim_periph_t *p = alarm_p;
  for (unsigned long i = 0; i < ops_per_armer; i++) {
    uint32_t r = xorshift(&a->rng);
    unsigned ch = a->ch0 + (r & 1u);
    uint64_t n = 1u + (r >> 4) % 50u;
    uint32_t key;
    switch ((r >> 1) % 9u) {
    case 0:
    case 1:
      step(a->w, "utim_set_rel");
      /* Under the lock with the arming, so a callback never sees a stale bound. */
      key = utim_port_lock();
      min_count[ch] = utim_read(p) + n;
      checkable[ch] = true;
      api(utim_set_rel(p, ch, n), 0);
      utim_port_unlock(key);
      break;
    case 2:
    case 3: {
      step(a->w, "utim_set_abs");
      key = utim_port_lock();
      uint64_t t = utim_read(p) + n;
      min_count[ch] = t;
      checkable[ch] = true;
      /* -ETIME: the counter got there first (a stall). */
      int rc = utim_set_abs(p, ch, t);
      if (rc == -ETIME) {
        checkable[ch] = false;
      }
      api(rc, -ETIME);
      utim_port_unlock(key);
      break;
    }
    case 4:
      step(a->w, "utim_set_periodic");
      key = utim_port_lock();
      checkable[ch] = false;
      api(utim_set_periodic(p, ch, 20u + n), 0);
      utim_port_unlock(key);
      break;
    case 5:
      step(a->w, "utim_clear");
      key = utim_port_lock();
      checkable[ch] = false;
      api(utim_clear(p, ch), 0);
      utim_port_unlock(key);
      break;
    case 6:
      step(a->w, "utim_mask/unmask");
      /* Under the lock as well: utim_unmask() delivers what became pending,
       * and a delivery from an outermost call runs its callbacks without
       * the lock, beside the other armer writing min_count[]. */
      key = utim_port_lock();
      api(utim_mask(p, UTIM_EVT_CH(ch)), 0);
      (void)utim_pending(p);
      api(utim_unmask(p, UTIM_EVT_CH(ch)), 0);
      utim_port_unlock(key);
      break;
    case 7: {
      step(a->w, "utim_get_property");
      uint64_t v = 0;
      api(utim_get_property(p, UTIM_NATIVE_ALARM_PROP_ISR_RUNS, &v), 0);
      break;
    }
    default:
      step(a->w, "utim_read");
      (void)utim_read(p);
      break;
    }
    if ((r & 0xf0000u) == 0u) {
      nap_us(200); /* now and then, let armed channels fire */
    }
  }
  step(a->w, "done");
  return NULL;
}

static void *poller(void *arg) {
  (void)arg;
  while (!atomic_load(&workers_stop)) {
    step(W_POLL, "native_irq_service");
    native_irq_service();
    step(W_POLL, "utim_pending");
    (void)utim_pending(alarm_p);
  }
  return NULL;
}

static void *controller(void *arg) {
  (void)arg;
  for (unsigned i = 0; i < STRESS_CONTROLS && !atomic_load(&workers_stop); i++) {
    step(W_CTRL, "utim_stop");
    api(utim_stop(alarm_p), 0);
    nap_us(100);
    step(W_CTRL, "utim_start");
    api(utim_start(alarm_p), 0);
    nap_us(900);
  }
  step(W_CTRL, "done");
  return NULL;
}

static void *timekeeper(void *arg) {
  (void)arg;
  utim_ns_t prev = utim_now();
  utim_cs_report_t rep;
  for (unsigned long i = 0; !atomic_load(&workers_stop); i++) {
    step(W_TIME, "utim_now");
    utim_ns_t t = utim_now();
    if (t < prev) {
      atomic_fetch_add(&time_back, 1u);
      note_failure("utim_now() went back by %lld ns", (long long)(prev - t));
    }
    prev = t;
    if ((i & 63u) == 0u) {
      step(W_TIME, "utim_clocksource_refit");
      int rc = utim_clocksource_refit();
      api(rc, -EBUSY);
    }
    if ((i % 4000u) == 0u) {
      step(W_TIME, "utim_clocksource_report");
      api(utim_clocksource_report(&rep), 0);
    }
    if ((i % 20000u) == 10000u) {
      step(W_TIME, "utim_clocksource_select(NATIVE_MONOTONIC)");
      api(utim_clocksource_select("NATIVE_MONOTONIC"), 0);
    } else if ((i % 20000u) == 0u) {
      step(W_TIME, "utim_clocksource_select(auto)");
      api(utim_clocksource_select(NULL), 0);
    }
  }
  (void)utim_clocksource_select(NULL);
  return NULL;
}

/* A child of fork() takes the lock (utim_pending) and reads the counter. */
static void *forker(void *arg) {
  (void)arg;
  for (unsigned i = 0; i < STRESS_FORKS && !atomic_load(&workers_stop); i++) {
    nap_us(2000);
    step(W_FORK, "fork");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      /* Both locks of the board: the port lock and the clock source's
       * (the timekeeper holds the latter often). */
      (void)utim_pending(alarm_p);
      (void)utim_read(alarm_p);
      (void)utim_clocksource_name();
      _exit(0);
    }
    if (pid < 0) {
      note_failure("fork: %s", strerror(errno));
      break;
    }
    step(W_FORK, "waitpid");
    int status = 0;
    const int64_t limit = mono_ns() + 5000 * (int64_t)NS_PER_MS;
    pid_t got = 0;
    while ((got = waitpid(pid, &status, WNOHANG)) == 0 && mono_ns() < limit) {
      nap_us(1000);
    }
    if (got == 0) {
      char path[64];
      char wchan[64] = "";
      snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
      FILE *f = fopen(path, "r");
      if (f != NULL) {
        size_t n = fread(wchan, 1, sizeof wchan - 1u, f);
        wchan[n] = '\0';
        fclose(f);
      }
      atomic_fetch_add(&stuck_children, 1u);
      note_failure("child %d of fork() did not exit in 5 s (wait channel %s): stuck on a lock "
                   "its copy inherited held",
                   (int)pid, wchan);
      (void)kill(pid, SIGKILL);
      (void)waitpid(pid, &status, 0);
    } else if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      note_failure("child %d of fork() ended with status %d", (int)pid, status);
      atomic_fetch_add(&stuck_children, 1u);
    }
  }
  step(W_FORK, "done");
  return NULL;
}

typedef void *(*worker_fn)(void *);

static void t_stress(void *arg) {
  (void)arg;
  const utim_periph_t *p = alarm_p;
  native_irq_info_t irq0 = native_irq_info();
  armer_t arm[2] = {{W_ARM0, 0u, 0x12345678u}, {W_ARM1, 2u, 0x9abcdef1u}};
  pthread_t th[W_COUNT];
  const worker_fn fn[W_COUNT] = {armer, armer, poller, controller, timekeeper, forker, NULL};
  void *args[W_COUNT] = {&arm[0], &arm[1], NULL, NULL, NULL, NULL, NULL};
  bool started[W_COUNT] = {false};
  for (unsigned w = 0; w < W_MAIN; w++) {
    atomic_store(&active[w], true);
    started[w] = pthread_create(&th[w], NULL, fn[w], args[w]) == 0;
    TH_CHECKF(started[w], "cannot start the %s", worker_name[w]);
  }
  /* The armers and the controller end by themselves; the others when told. */
  const unsigned finite[] = {W_ARM0, W_ARM1, W_CTRL, W_FORK};
  for (size_t i = 0; i < sizeof finite / sizeof finite[0]; i++) {
    unsigned w = finite[i];
    if (started[w]) {
      (void)pthread_join(th[w], NULL);
    }
    atomic_store(&active[w], false);
  }
  atomic_store(&workers_stop, true);
  for (unsigned w = W_POLL; w <= W_TIME; w++) {
    if (w != W_CTRL && started[w]) {
      (void)pthread_join(th[w], NULL);
    }
    atomic_store(&active[w], false);
  }
  for (unsigned ch = 0; ch < UTIM_NATIVE_ALARM_CHANNELS; ch++) {
    TH_EQ(utim_clear(p, ch), 0);
  }
  native_irq_info_t irq1 = native_irq_info();
  th_note("%llu operations per armer; %llu callbacks; interrupt thread woke %llu times, the "
          "poller took %llu due interrupts; %llu clock-source steps",
          (unsigned long long)ops_per_armer, (unsigned long long)atomic_load(&callbacks),
          (unsigned long long)(irq1.wakeups - irq0.wakeups),
          (unsigned long long)(irq1.services - irq0.services),
          (unsigned long long)atomic_load(&progress[W_TIME]));
  if (atomic_flag_test_and_set(&failure_taken)) {
    th_note("first failure: %s", first_failure);
  }
  TH_EQU(atomic_load(&early_callbacks), 0u);
  TH_EQU(atomic_load(&time_back), 0u);
  TH_EQU(atomic_load(&stuck_children), 0u);
  TH_EQU(atomic_load(&api_errors), 0u);
  TH_CHECK(atomic_load(&callbacks) > 0u);
  TH_CHECK(irq1.wakeups > irq0.wakeups);
  /* The lock is free: another thread can take it. */
  TH_EQ(settled_lock_owner(), 0);
}

static void *die_holding_lock(void *arg) {
  (void)arg;
  (void)utim_port_lock();
  pthread_exit(NULL);
}

/* Whether the kernel keeps this thread's robust-futex list, which is what
 * tells a robust lock's next taker that its owner died. qemu-user (the
 * aarch64 preset) answers ENOSYS: it cannot hand the guest's list to the
 * host kernel, so an owner's death goes unnoticed there. */
static bool robust_list_kept(void) {
  void *head = NULL;
  size_t len = 0;
  return syscall(SYS_get_robust_list, 0, &head, &len) == 0 || errno != ENOSYS;
}

static void t_owner_ends(void *arg) {
  (void)arg;
  if (!robust_list_kept()) {
    TH_SKIP("get_robust_list: ENOSYS (qemu-user emulates no robust-futex list, so a lock "
            "owner's death cannot be detected; verified on the host build)");
  }
  uint32_t died0 = native_port_owner_died();
  pthread_t t;
  TH_EQ(pthread_create(&t, NULL, die_holding_lock, NULL), 0);
  (void)pthread_join(t, NULL);
  atomic_store(&active[W_MAIN], true);
  step(W_MAIN, "utim_pending after the lock's owner ended");
  /* Would wait forever on a non-robust priority-inheritance lock (glibc
   * parks the caller); the watchdog reports it if it does. */
  (void)utim_pending(alarm_p);
  step(W_MAIN, "utim_set_rel after the take-over");
  TH_EQ(utim_set_rel(alarm_p, 0, 10u), 0);
  TH_EQ(utim_clear(alarm_p, 0), 0);
  atomic_store(&active[W_MAIN], false);
  TH_EQU(native_port_owner_died() - died0, 1u);
  TH_EQ(settled_lock_owner(), 0);
}

int main(int argc, char **argv) {
  th_set_putc(th_stdio_putc);
  if (argc > 1) {
    char *end = NULL;
    unsigned long v = strtoul(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || v == 0u || v > 100000000u) {
      fprintf(stderr, "usage: %s [operations per armer, 1..100000000]\n", argv[0]);
      return 2;
    }
    ops_per_armer = v;
  }
  native_board_init();
  alarm_p = utim_by_name("NATIVE_ALARM");
  if (alarm_p == NULL) {
    fprintf(stderr, "stress_native: no NATIVE_ALARM on this board\n");
    return 1;
  }
  native_irq_info_t irq = native_irq_info();
  if (utim_init(alarm_p, irq.alarm_max_hz, UTIM_CLOCK_DEFAULT) != 0 ||
      utim_set_compare_cb(alarm_p, on_compare, NULL) != 0 || utim_start(alarm_p) != 0) {
    fprintf(stderr, "stress_native: cannot set up NATIVE_ALARM at %u Hz\n", irq.alarm_max_hz);
    return 1;
  }
  (void)utim_clocksource_init();
  pthread_t wd;
  if (pthread_create(&wd, NULL, watchdog, NULL) != 0) {
    fprintf(stderr, "stress_native: cannot start the watchdog\n");
    return 1;
  }
  th_run("stress: arming, clearing, polling, start/stop, re-fits and fork at once", t_stress, NULL);
  th_run("stress: the port lock after its owner ended holding it", t_owner_ends, NULL);
  return th_finish();
}
