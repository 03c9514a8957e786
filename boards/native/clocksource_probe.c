/*
 * The clock source's candidates and their ratings (the table in
 * clocksource.h): the clock_gettime clocks always, and the CPU counter from
 * what the board's one probe of it found (tsc_native.c) and what the kernel
 * uses as its own clocksource.
 *
 * No heap and no stdio: files are read with open/read into stack buffers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "clocksource_internal.h"

/* Read a small file into buf (NUL-terminated); length or -1. */
static ssize_t read_file(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return -1;
  }
  size_t len = 0u;
  while (len + 1u < cap) {
    ssize_t n = read(fd, buf + len, cap - 1u - len);
    if (n <= 0) {
      break;
    }
    len += (size_t)n;
  }
  close(fd);
  buf[len] = '\0';
  return (ssize_t)len;
}

bool native_cs_ieq(const char *a, const char *b) {
  while (*a != '\0' && *b != '\0') {
    int ca = (unsigned char)*a;
    int cb = (unsigned char)*b;
    ca = (ca >= 'a' && ca <= 'z') ? ca - 'a' + 'A' : ca;
    cb = (cb >= 'a' && cb <= 'z') ? cb - 'a' + 'A' : cb;
    if (ca != cb) {
      return false;
    }
    a++;
    b++;
  }
  return *a == *b;
}

int native_cs_find(const char *name) {
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (native_cs_ieq(name, native_cs_names[i]) || native_cs_ieq(name, native_cs_names[i] + 7)) {
      return i;
    }
  }
  return -1;
}

int native_cs_best(void) {
  int best = UTIM_CS_MONOTONIC;
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (native_cs.rep.cand[i].rating > native_cs.rep.cand[best].rating) {
      best = i;
    }
  }
  return best;
}

static uint8_t freq_src_of(native_tsc_source_t s) {
  switch (s) {
  case NATIVE_TSC_CPUID_15:
    return UTIM_CS_FREQ_CPUID_15;
  case NATIVE_TSC_CPUID_16:
    return UTIM_CS_FREQ_CPUID_16;
  case NATIVE_TSC_HYPERVISOR:
    return UTIM_CS_FREQ_HYPERVISOR;
  case NATIVE_TSC_CNTFRQ:
    return UTIM_CS_FREQ_CNTFRQ;
  default:
    return UTIM_CS_FREQ_UNKNOWN;
  }
}

static void rate_counter(int id, const char *kernel_name) {
  utim_cs_candidate_t *c = &native_cs.rep.cand[id];
  bool inv = (c->flags & UTIM_CS_F_INVARIANT) != 0u ||
             ((c->flags & UTIM_CS_F_CONSTANT) != 0u && (c->flags & UTIM_CS_F_NONSTOP) != 0u);
  if (id == UTIM_CS_CNTVCT) {
    inv = true; /* the architected generic timer runs at a constant rate */
  }
  if (strcmp(native_cs.rep.kernel_cs, kernel_name) == 0) {
    c->flags |= UTIM_CS_F_KERNEL;
  }
  if (!inv) {
    c->rating = 50;
    c->why = "counter not invariant (no invariant bit, not constant+nonstop)";
  } else if ((c->flags & UTIM_CS_F_SYNC_FAIL) != 0u) {
    c->rating = 50;
    c->why = "counter goes back between CPUs";
  } else if ((c->flags & UTIM_CS_F_KERNEL) == 0u) {
    c->rating = 150;
    c->why = "the kernel does not use this counter as its clocksource";
  } else {
    /*
     * A cross-CPU check that could not run (one usable CPU, or no second
     * thread got scheduled in time) does not demote the counter: the kernel
     * checked TSC synchronisation at boot before choosing it.
     */
    bool known = (c->flags & UTIM_CS_F_FREQ_KNOWN) != 0u;
    bool synced = (c->flags & UTIM_CS_F_SYNC_OK) != 0u;
    c->rating = known ? 400 : 390;
    c->flags |= UTIM_CS_F_RELIABLE;
    if (synced) {
      c->why = known ? "invariant, monotonic across CPUs, kernel clocksource, frequency known"
                     : "invariant, monotonic across CPUs, kernel clocksource, frequency measured";
    } else {
      c->why = known ? "invariant, kernel clocksource (cross-CPU check not run), frequency known"
                     : "invariant, kernel clocksource (cross-CPU check not run), frequency "
                       "measured";
    }
  }
}

/* The CPU counter as the board's probe found it. */
static void probe_counter(void) {
#if UTIM_NATIVE_HAVE_CPU_COUNTER
#if defined(__x86_64__)
  const int id = UTIM_CS_TSC;
  const char *kernel_name = "tsc";
#else
  const int id = UTIM_CS_CNTVCT;
  const char *kernel_name = "arch_sys_counter";
#endif
  const native_cpu_probe_t *p = native_cpu_probe();
  utim_cs_candidate_t *c = &native_cs.rep.cand[id];
  native_cs.counter = id;
  c->flags = UTIM_CS_F_PRESENT;
  c->flags |= p->info.invariant ? UTIM_CS_F_INVARIANT : 0u;
  c->flags |= p->info.constant ? UTIM_CS_F_CONSTANT : 0u;
  c->flags |= p->info.nonstop ? UTIM_CS_F_NONSTOP : 0u;
  /* Known: stated by CPUID, the hypervisor or CNTFRQ, and confirmed by the
   * measurement (the probe drops a stated value more than 0.1 % off). */
  c->freq_src = freq_src_of(p->info.source);
  if (c->freq_src != UTIM_CS_FREQ_UNKNOWN) {
    c->hz = p->info.hz;
    c->flags |= UTIM_CS_F_FREQ_KNOWN;
  }
  c->flags |= p->sync > 0    ? UTIM_CS_F_SYNC_OK
              : p->sync == 0 ? UTIM_CS_F_SYNC_FAIL
                             : UTIM_CS_F_SYNC_SKIPPED;
  native_cs.rep.cpus_checked = p->sync_cpus;
  native_cs.rep.sync_rounds = p->sync_rounds;
  native_cs.rep.sync_backwards = p->sync_backwards;
  rate_counter(id, kernel_name);
#endif
}

void native_cs_probe(void) {
  char buf[64];
  native_cs.counter = -1;
  native_cs.rep.chosen = UTIM_CS_MONOTONIC;
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    native_cs.rep.cand[i].name = native_cs_names[i];
    native_cs.rep.cand[i].why = "not present on this machine";
  }
  if (read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf,
                sizeof buf) > 0) {
    size_t n = strcspn(buf, "\n");
    n = n < sizeof(native_cs.rep.kernel_cs) - 1u ? n : sizeof(native_cs.rep.kernel_cs) - 1u;
    memcpy(native_cs.rep.kernel_cs, buf, n);
    native_cs.rep.kernel_cs[n] = '\0';
  }

  static const int32_t clk_rating[3] = {300, 290, 280};
  static const char *const clk_why[3] = {
      "always reliable; NTP-disciplined; vDSO read",
      "always reliable; not NTP-disciplined; vDSO read",
      "always reliable; counts suspend; vDSO read",
  };
  for (int i = 0; i < 3; i++) {
    struct timespec ts;
    utim_cs_candidate_t *c = &native_cs.rep.cand[UTIM_CS_MONOTONIC + i];
    if (clock_gettime(native_cs_clocks[i], &ts) == 0) {
      c->flags = UTIM_CS_F_PRESENT | UTIM_CS_F_RELIABLE | UTIM_CS_F_FREQ_KNOWN;
      c->rating = clk_rating[i];
      c->hz = (uint64_t)UTIM_NS_PER_S;
      c->freq_src = UTIM_CS_FREQ_NS;
      c->why = clk_why[i];
    }
  }
  probe_counter();
}
