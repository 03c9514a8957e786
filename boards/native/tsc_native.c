/*
 * The one probe of the CPU counter (x86-64 TSC, aarch64 CNTVCT_EL0), run
 * once per process and shared by the NATIVE_TSC/NATIVE_CNTVCT instance
 * (native_board_init()) and the clock source behind utim_now()
 * (clocksource.c): its flags, the frequency the CPU or hypervisor states,
 * one measurement against CLOCK_MONOTONIC_RAW, and the cross-CPU check. So
 * both always report the same frequency, found the same way.
 *
 * Stated frequency, first that answers (x86-64):
 * 1. the hypervisor's timing leaf 0x40000010 (kHz), under a hypervisor that
 *    offers it: what the guest's TSC runs at, even where leaf 0x15 passes
 *    the host's values through;
 * 2. CPUID 0x15: crystal clock x TSC/crystal ratio;
 * 3. CPUID 0x15's ratio with leaf 0x16's base frequency (MHz), on parts
 *    that leave the crystal out (how Linux derives it there).
 * aarch64: CNTFRQ_EL0. The measurement always runs: a stated value more
 * than 0.1 % from it (firmware or a hypervisor can state a wrong one) is
 * not used, and the measured rate (rounded to kHz) is.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "native_internal.h"
#include "utim/port.h"
#include "utim/time.h"
#include "utim_native_hw.h"

/* Two samples this far apart: brackets of ~100 ns give a few ppm. */
#define MEASURE_NS    (20 * UTIM_NS_PER_MS)
#define MEASURE_TRIES 16u
/*
 * Readings exchanged per CPU pair in the cross-CPU check, its time limit per
 * pair, and the fewest that still count as a check (a busy machine may not
 * schedule both threads often enough for all of them).
 */
#define SYNC_ROUNDS     1000u
#define SYNC_MIN_ROUNDS 100u
#define SYNC_LIMIT_NS   (50 * UTIM_NS_PER_MS)
/* CPUs checked at most (the first usable one against each of the others). */
#define SYNC_MAX_CPUS 256

static native_cpu_probe_t g_probe;
static pthread_once_t g_probe_once = PTHREAD_ONCE_INIT;

native_cpu_sample_t native_cpu_sample(unsigned tries) {
  native_cpu_sample_t best = {0u, 0, UINT64_MAX};
#if UTIM_NATIVE_HAVE_CPU_COUNTER
  for (unsigned i = 0; i < tries; i++) {
    uint64_t t1 = utim_native_cpu_count_ordered();
    int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    uint64_t t2 = utim_native_cpu_count_ordered();
    uint64_t w = t2 - t1;
    if (w < best.width) {
      best.ticks = t1 + w / 2u;
      best.raw = r;
      best.width = w;
    }
  }
#else
  (void)tries;
#endif
  return best;
}

/* ---- flags ----------------------------------------------------------------------- */

#if defined(__x86_64__)
/* Whether the "flags" line of the first CPU in /proc/cpuinfo lists @p flag
 * (x86 only: aarch64's cpuinfo has "Features", and its counter needs no flag).
 * Plain read(): the board does without stdio. */
static bool cpuinfo_flag(const char *flag) {
  static char buf[16384];
  int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  size_t len = 0;
  while (len < sizeof buf - 1u) {
    ssize_t r = read(fd, buf + len, sizeof buf - 1u - len);
    if (r <= 0) {
      break;
    }
    len += (size_t)r;
  }
  (void)close(fd);
  buf[len] = '\0';
  const char *line = strstr(buf, "\nflags");
  if (line == NULL) {
    return false;
  }
  const char *end = strchr(line + 1, '\n');
  size_t n = strlen(flag);
  for (const char *s = strstr(line, flag); s != NULL && (end == NULL || s < end);
       s = strstr(s + 1, flag)) {
    if ((s[-1] == ' ' || s[-1] == '\t') && (s[n] == ' ' || s[n] == '\n' || s[n] == '\0')) {
      return true;
    }
  }
  return false;
}

/* The frequency the hypervisor or CPUID states, with its source, or 0 (see
 * the file comment for the order). */
static uint64_t stated_hz(bool hypervisor, native_tsc_source_t *src) {
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  if (hypervisor) {
    __cpuid(0x40000000u, a, b, c, d);
    if (a >= 0x40000010u) {
      __cpuid(0x40000010u, a, b, c, d);
      if (a != 0u) {
        *src = NATIVE_TSC_HYPERVISOR;
        return (uint64_t)a * 1000u;
      }
    }
  }
  unsigned max = (unsigned)__get_cpuid_max(0u, NULL);
  if (max >= 0x15u) {
    __cpuid_count(0x15u, 0u, a, b, c, d);
    const unsigned den = a;
    const unsigned num = b;
    if (den != 0u && num != 0u && c != 0u) {
      *src = NATIVE_TSC_CPUID_15;
      return (uint64_t)c * num / den;
    }
    if (den != 0u && num != 0u && max >= 0x16u) {
      __cpuid_count(0x16u, 0u, a, b, c, d);
      if ((a & 0xffffu) != 0u) {
        *src = NATIVE_TSC_CPUID_16;
        return (uint64_t)(a & 0xffffu) * 1000000u;
      }
    }
  }
  return 0u;
}
#endif

/* Flags and the stated frequency (0 when none). */
static uint64_t read_flags(native_tsc_info_t *out, native_tsc_source_t *src) {
#if defined(__x86_64__)
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  __cpuid(1u, a, b, c, d);
  out->hypervisor = (c & (1u << 31)) != 0u;
  if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000007u) {
    __cpuid(0x80000007u, a, b, c, d);
    out->invariant = (d & (1u << 8)) != 0u;
  }
  out->constant = cpuinfo_flag("constant_tsc");
  out->nonstop = cpuinfo_flag("nonstop_tsc");
  *src = NATIVE_TSC_NONE;
  return stated_hz(out->hypervisor, src);
#elif defined(__aarch64__)
  /* The architecture defines CNTVCT as a constant-rate, always-on counter. */
  out->invariant = true;
  out->constant = true;
  out->nonstop = true;
  *src = NATIVE_TSC_CNTFRQ;
  return utim_native_cntfrq();
#else
  (void)out;
  *src = NATIVE_TSC_NONE;
  return 0u;
#endif
}

/* ---- cross-CPU check ------------------------------------------------------------- */

typedef struct sync_ctx {
  uint64_t last;    /* last reading, by either side */
  uint32_t turn;    /* whose turn: 0 or 1 */
  uint32_t abort;   /* set on time-out */
  int64_t deadline; /* CLOCK_MONOTONIC time-out */
  uint64_t back[2]; /* largest step back each side saw */
  uint32_t done[2]; /* rounds each side completed */
} sync_ctx_t;

typedef struct sync_arg {
  sync_ctx_t *ctx;
  uint32_t side;
} sync_arg_t;

/*
 * Each side waits for its turn, reads the counter and compares it with the
 * other side's last reading: with synchronised counters a reading taken
 * after seeing another can never be lower.
 */
static void *sync_thread(void *arg) {
  const sync_arg_t *a = arg;
  sync_ctx_t *c = a->ctx;
  for (uint32_t i = 0u; i < SYNC_ROUNDS; i++) {
    unsigned spins = 0u;
    while (__atomic_load_n(&c->turn, __ATOMIC_ACQUIRE) != a->side) {
      if (__atomic_load_n(&c->abort, __ATOMIC_RELAXED) != 0u) {
        return NULL;
      }
      utim_port_relax();
      /* The other side may be waiting for a CPU: give ours up now and then. */
      if ((++spins & 0xffu) == 0u) {
        (void)sched_yield();
        if (utim_native_clock_ns(CLOCK_MONOTONIC) > c->deadline) {
          __atomic_store_n(&c->abort, 1u, __ATOMIC_RELAXED);
          return NULL;
        }
      }
    }
    uint64_t prev = __atomic_load_n(&c->last, __ATOMIC_RELAXED);
    uint64_t t = utim_native_cpu_count_ordered();
    if (t < prev && prev - t > c->back[a->side]) {
      c->back[a->side] = prev - t;
    }
    __atomic_store_n(&c->last, t, __ATOMIC_RELAXED);
    c->done[a->side] = i + 1u;
    __atomic_store_n(&c->turn, 1u - a->side, __ATOMIC_RELEASE);
  }
  return NULL;
}

/* One pair of CPUs; 1 ok, 0 went back, -1 could not run. *rounds: the fewest exchanged. */
static int sync_pair(int cpu0, int cpu1, uint64_t *back, uint32_t *rounds) {
  sync_ctx_t ctx = {0};
  ctx.last = utim_native_cpu_count_ordered();
  ctx.deadline = utim_native_clock_ns(CLOCK_MONOTONIC) + SYNC_LIMIT_NS;
  sync_arg_t args[2] = {{&ctx, 0u}, {&ctx, 1u}};
  pthread_t th[2];
  int cpus[2] = {cpu0, cpu1};
  int started = 0;
  for (int i = 0; i < 2; i++) {
    pthread_attr_t attr;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[i], &set);
    if (pthread_attr_init(&attr) != 0) {
      break;
    }
    int rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
    if (rc == 0) {
      rc = pthread_create(&th[i], &attr, sync_thread, &args[i]);
    }
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      break;
    }
    started++;
  }
  if (started < 2) {
    __atomic_store_n(&ctx.abort, 1u, __ATOMIC_RELAXED);
  }
  for (int i = 0; i < started; i++) {
    pthread_join(th[i], NULL);
  }
  uint64_t b = ctx.back[0] > ctx.back[1] ? ctx.back[0] : ctx.back[1];
  if (b > *back) {
    *back = b;
  }
  if (b != 0u) {
    return 0; /* a step back is a failure however few readings showed it */
  }
  uint32_t done = ctx.done[0] < ctx.done[1] ? ctx.done[0] : ctx.done[1];
  *rounds = done < *rounds ? done : *rounds;
  return (started < 2 || done < SYNC_MIN_ROUNDS) ? -1 : 1;
}

/* The first usable CPU against every other. */
static void sync_check(native_cpu_probe_t *p) {
  cpu_set_t set;
  p->sync = -1;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    return;
  }
  int first = -1;
  int checked = 0;
  int result = 1;
  uint64_t back = 0u;
  uint32_t rounds = SYNC_ROUNDS;
  for (int cpu = 0; cpu < CPU_SETSIZE && checked < SYNC_MAX_CPUS; cpu++) {
    if (!CPU_ISSET(cpu, &set)) {
      continue;
    }
    if (first < 0) {
      first = cpu;
      checked = 1;
      continue;
    }
    int r = sync_pair(first, cpu, &back, &rounds);
    if (r < 0) {
      result = -1;
      break;
    }
    checked++;
    if (r == 0) {
      result = 0;
      break;
    }
  }
  p->sync_cpus = (uint32_t)checked;
  p->sync_rounds = rounds;
  p->sync_backwards = back;
  p->sync = checked < 2 ? -1 : result;
}

/* ---- the probe ------------------------------------------------------------------- */

static void probe_once(void) {
  native_cpu_probe_t *p = &g_probe;
  memset(p, 0, sizeof *p);
  p->sync = -1;
#if UTIM_NATIVE_HAVE_CPU_COUNTER
  native_tsc_info_t *out = &p->info;
  native_tsc_source_t src = NATIVE_TSC_NONE;
  uint64_t stated = read_flags(out, &src);
  /* The cross-CPU check runs inside the measurement's window. */
  p->first = native_cpu_sample(MEASURE_TRIES);
  sync_check(p);
  const int64_t end = p->first.raw + MEASURE_NS;
  for (int64_t r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW); r < end;
       r = utim_native_clock_ns(CLOCK_MONOTONIC_RAW)) {
    struct timespec ts = {0, (long)(end - r)};
    (void)nanosleep(&ts, NULL);
  }
  p->second = native_cpu_sample(MEASURE_TRIES);
  const uint64_t dt = p->second.ticks - p->first.ticks;
  const int64_t dr = p->second.raw - p->first.raw;
  uint64_t hz = 0u;
  if (dt != 0u && dr > 0 &&
      utim_muldiv(dt, (uint64_t)UTIM_NS_PER_S, (uint64_t)dr, UTIM_ROUND_NEAREST, &hz) == 0) {
    out->measured_hz = hz;
    uint64_t wmax = p->first.width > p->second.width ? p->first.width : p->second.width;
    out->measure_bracket_ns = hz != 0u ? utim_ticks_to_ns_ceil(wmax, hz) : 0u;
  }
  /* The instance's input: the measured rate to the kHz (the measurement's
   * own uncertainty is a few ppm, several kHz at GHz rates) ... */
  out->hz = (out->measured_hz + 500u) / 1000u * 1000u;
  out->source = out->hz != 0u ? NATIVE_TSC_MEASURED : NATIVE_TSC_NONE;
  /* ... or the stated one when it agrees: 0.1 % is far above the
   * measurement's error and far below a wrong leaf. */
  uint64_t m = out->measured_hz;
  if (stated != 0u && (m == 0u || (stated > m ? stated - m : m - stated) <= m / 1000u)) {
    out->hz = stated;
    out->source = src;
  }
  while ((out->hz >> out->shift) > UINT32_MAX) {
    out->shift++;
  }
#endif
}

const native_cpu_probe_t *native_cpu_probe(void) {
  (void)pthread_once(&g_probe_once, probe_once);
  return &g_probe;
}
