/*
 * Probe of the CPU counter: frequency (CPUID 0x15/0x16, the hypervisor leaf
 * 0x40000010, or a measurement against CLOCK_MONOTONIC_RAW) and the
 * invariant/constant/nonstop flags. x86-64 TSC, aarch64 CNTVCT_EL0.
 *
 * The measurement always runs, also when CPUID knows the frequency: a
 * hypervisor or firmware can report a value the counter does not have, and
 * a disagreement of more than 0.1 % means the reported value is not used.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "native_internal.h"
#include "utim_native_counter.h"

#define NS_PER_S 1000000000u
/* Long enough that two clock brackets of ~100 ns give a few ppm, short
 * enough not to slow program start noticeably. */
#define MEASURE_NS    25000000u
#define BRACKET_TRIES 32u

static uint64_t cpu_count(void) {
#if defined(__x86_64__)
  return utim_native_rdtsc_ordered();
#elif defined(__aarch64__)
  return utim_native_cntvct();
#else
  return 0u;
#endif
}

/* One counter value paired with the clock time it was read at: the best of
 * several clock-counter-clock brackets, the narrowest one winning (a
 * preempted or interrupted bracket is wide and loses). */
typedef struct sample {
  uint64_t count;
  uint64_t ns;
  uint64_t width;
} sample_t;

static sample_t take_sample(void) {
  sample_t best = {0u, 0u, UINT64_MAX};
  for (unsigned i = 0; i < BRACKET_TRIES; i++) {
    uint64_t t0 = (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    uint64_t c = cpu_count();
    uint64_t t1 = (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC_RAW);
    if (t1 >= t0 && t1 - t0 < best.width) {
      best.count = c;
      best.ns = t0 + (t1 - t0) / 2u;
      best.width = t1 - t0;
    }
  }
  return best;
}

/* Frequency measured against CLOCK_MONOTONIC_RAW, rounded to kHz (the
 * measurement's own uncertainty is a few ppm, several kHz at GHz rates). */
static uint64_t measure_hz(uint64_t *bracket) {
  sample_t a = take_sample();
  struct timespec d = {0, (long)MEASURE_NS};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, &d) != 0) {
  }
  sample_t b = take_sample();
  *bracket = a.width > b.width ? a.width : b.width;
  if (b.ns <= a.ns || b.count <= a.count) {
    return 0u;
  }
  unsigned __int128 hz = (unsigned __int128)(b.count - a.count) * NS_PER_S / (b.ns - a.ns);
  return (uint64_t)((hz + 500u) / 1000u * 1000u);
}

/* Whether /proc/cpuinfo's first "flags" line lists @p flag. Plain read():
 * the board does without stdio. */
static bool cpuinfo_flag(const char *flag) {
  static char buf[16384];
  int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  size_t len = 0;
  for (;;) {
    ssize_t r = read(fd, buf + len, sizeof buf - 1u - len);
    if (r <= 0) {
      break;
    }
    len += (size_t)r;
    if (len == sizeof buf - 1u) {
      break;
    }
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
    if (s[-1] == ' ' && (s[n] == ' ' || s[n] == '\n' || s[n] == '\0')) {
      return true;
    }
  }
  return false;
}

#if defined(__x86_64__)
/* The frequency CPUID reports, with its source, or 0. */
static uint64_t cpuid_hz(native_tsc_source_t *src) {
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  unsigned max = __get_cpuid_max(0u, NULL);
  if (max >= 0x15u) {
    __cpuid_count(0x15u, 0u, a, b, c, d);
    unsigned den = a;
    unsigned num = b;
    if (den != 0u && num != 0u && c != 0u) {
      *src = NATIVE_TSC_CPUID_15;
      return (uint64_t)c * num / den;
    }
    if (den != 0u && num != 0u && max >= 0x16u) {
      /* No crystal frequency: the base frequency (MHz) of leaf 0x16 is what
       * the TSC runs at on these parts (Linux derives the crystal from it). */
      __cpuid_count(0x16u, 0u, a, b, c, d);
      if ((a & 0xffffu) != 0u) {
        *src = NATIVE_TSC_CPUID_16;
        return (uint64_t)(a & 0xffffu) * 1000000u;
      }
    }
  }
  __cpuid(1u, a, b, c, d);
  if ((c & (1u << 31)) != 0u) {
    __cpuid(0x40000000u, a, b, c, d);
    if (a >= 0x40000010u) {
      __cpuid(0x40000010u, a, b, c, d);
      if (a != 0u) {
        *src = NATIVE_TSC_HYPERVISOR;
        return (uint64_t)a * 1000u;
      }
    }
  }
  return 0u;
}
#endif

void native_tsc_probe(native_tsc_info_t *out) {
  memset(out, 0, sizeof *out);
#if defined(__x86_64__) || defined(__aarch64__)
  out->measured_hz = measure_hz(&out->measure_bracket_ns);
  out->hz = out->measured_hz;
  out->source = out->hz != 0u ? NATIVE_TSC_MEASURED : NATIVE_TSC_NONE;
  uint64_t reported = 0;
  native_tsc_source_t src = NATIVE_TSC_NONE;
#if defined(__x86_64__)
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  __cpuid(1u, a, b, c, d);
  out->hypervisor = (c & (1u << 31)) != 0u;
  if (__get_cpuid_max(0x80000000u, NULL) >= 0x80000007u) {
    __cpuid(0x80000007u, a, b, c, d);
    out->invariant = (d & (1u << 8)) != 0u;
  }
  out->constant = cpuinfo_flag("constant_tsc");
  out->nonstop = cpuinfo_flag("nonstop_tsc");
  reported = cpuid_hz(&src);
#else
  reported = utim_native_cntfrq();
  src = NATIVE_TSC_CNTFRQ;
  /* The architecture defines CNTVCT as a constant-rate, always-on counter. */
  out->invariant = true;
  out->constant = true;
  out->nonstop = true;
#endif
  /* 0.1 %: far above the measurement's error, far below a wrong leaf. */
  uint64_t m = out->measured_hz;
  if (reported != 0u && (m == 0u || (reported > m ? reported - m : m - reported) <= m / 1000u)) {
    out->hz = reported;
    out->source = src;
  }
  while ((out->hz >> out->shift) > UINT32_MAX) {
    out->shift++;
  }
#endif
}
