/**
 * @file machine.c
 * @brief The machine a result was measured on: clocks, the TSC, the CPU,
 *        the compiler; printed with every result.
 */
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "bench_host.h"

#ifndef UTIM_BENCH_BUILD_TYPE
#define UTIM_BENCH_BUILD_TYPE "unknown"
#endif

static uint64_t mono_ns(void) {
  return (uint64_t)utim_native_clock_ns(CLOCK_MONOTONIC);
}

static uint64_t tsc_read(void) {
#if defined(__x86_64__)
  uint32_t lo;
  uint32_t hi;
  __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return ((uint64_t)hi << 32) | lo;
#else
  return 0u;
#endif
}

void bench_host_stamp(bench_stamp_t *out) {
  out->t[0] = mono_ns();
  out->t[1] = tsc_read();
}

static void cpuinfo(bench_machine_t *m) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  bool constant = false;
  bool nonstop = false;
  if (f != NULL) {
    char line[4096];
    while (fgets(line, sizeof line, f) != NULL) {
      const char *colon = strchr(line, ':');
      if (colon == NULL) {
        continue;
      }
      if (m->cpu[0] == '\0' &&
          (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0 ||
           strncmp(line, "cpu model", 9) == 0)) {
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t') {
          v++;
        }
        snprintf(m->cpu, sizeof m->cpu, "%.*s", (int)strcspn(v, "\n"), v);
      } else if (strncmp(line, "flags", 5) == 0) {
        constant = constant || strstr(line, " constant_tsc") != NULL;
        nonstop = nonstop || strstr(line, " nonstop_tsc") != NULL;
      }
    }
    fclose(f);
  }
  if (m->cpu[0] == '\0') {
    snprintf(m->cpu, sizeof m->cpu, "unknown");
  }
  m->tsc_invariant = constant && nonstop;
}

void bench_machine_probe(bench_machine_t *m) {
  memset(m, 0, sizeof *m);
  cpuinfo(m);
  struct utsname u;
  snprintf(m->arch, sizeof m->arch, "%.31s", uname(&u) == 0 ? u.machine : "unknown");
#if defined(__clang__)
  snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
  snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#else
  snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
  snprintf(m->build, sizeof m->build, "%s", UTIM_BENCH_BUILD_TYPE);
#if defined(__x86_64__)
  m->tsc = true;
  /* Median of 5 short calibrations; a preempted one lands at the edges. */
  double est[5];
  for (int k = 0; k < 5; k++) {
    uint64_t n0 = mono_ns();
    uint64_t c0 = tsc_read();
    uint64_t n1;
    do {
      n1 = mono_ns();
    } while (n1 - n0 < 10000000u);
    uint64_t c1 = tsc_read();
    est[k] = (double)(c1 - c0) * 1e9 / (double)(n1 - n0);
  }
  for (int i = 1; i < 5; i++) {
    for (int j = i; j > 0 && est[j - 1] > est[j]; j--) {
      double t = est[j];
      est[j] = est[j - 1];
      est[j - 1] = t;
    }
  }
  m->tsc_hz = est[2];
#endif
}

void bench_jw_machine(bench_jw_t *w, const bench_machine_t *m) {
  bench_jw_str(w, "cpu", m->cpu);
  bench_jw_str(w, "arch", m->arch);
  bench_jw_str(w, "compiler", m->compiler);
  bench_jw_str(w, "build", m->build);
  bench_jw_bool(w, "tsc", m->tsc);
  bench_jw_bool(w, "tsc_invariant", m->tsc_invariant);
  bench_jw_num(w, "tsc_hz", m->tsc, m->tsc_hz);
}

void bench_print_machine(FILE *f, const bench_machine_t *m) {
  fprintf(f, "  cpu:       %s (%s)\n", m->cpu, m->arch);
  if (m->tsc) {
    fprintf(f, "  tsc:       %.4f GHz (calibrated against CLOCK_MONOTONIC)%s\n", m->tsc_hz / 1e9,
            m->tsc_invariant ? ", invariant" : ", not flagged invariant");
  } else {
    fprintf(f, "  tsc:       not available on this architecture\n");
  }
  fprintf(f, "  compiler:  %s, build %s\n", m->compiler, m->build);
}
