/*
 * The native board: instance table of a Linux host (see board_native.h).
 *
 * Instances, drivers and clock descriptions are const like on an MCU; the
 * only clock that is not known at build time, the CPU counter's, has its
 * descriptor in RAM and is filled by native_board_init().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "board_native.h"
#include "native_internal.h"
#include "utim_native_alarm.h"
#include "utim_native_counter.h"
#include "utim_native_hw.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum {
  CPU_DIV_MAX = 4096,
  NS_HZ = 1000000000,
  NS_DIV_MAX = 1000,
  ALARM_DIV_1MHZ = 1000,
  ALARM_DIV_100KHZ = 10000,
  ALARM_DIV_MAX = 1000000,
};

_Static_assert(NS_HZ / ALARM_DIV_1MHZ == 1000000 && NS_HZ / ALARM_DIV_100KHZ == 100000,
               "the alarm's fastest frequency is 1 MHz or 100 kHz");

/* A compare write (arming a kernel timer a few ticks ahead) must cost well
 * under one tick, or arming a compare a few ticks ahead is already late when
 * it returns. Median cost at or below this: 1 MHz is offered. */
#define ALARM_1MHZ_WRITE_NS 1000u
#define ALARM_PROBE_WRITES  33u

/* Fields of utim_clock_desc_t: hz, class, divider kind, reserved, lo, hi. */
static const utim_clock_desc_t ns_clocks[] = {
    {NS_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, NS_DIV_MAX},
};
/* In RAM: native_board_init() lowers div_lo to 1000 (1 MHz) on machines
 * where a compare write is cheap enough (see probe_compare_write()). */
static utim_clock_desc_t alarm_clocks[] = {
    {NS_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, ALARM_DIV_100KHZ, ALARM_DIV_MAX},
};

UTIM_NATIVE_COUNTER_DEFINE(mono, "NATIVE_MONOTONIC", UTIM_NATIVE_SRC_CLOCK, CLOCK_MONOTONIC,
                           ns_clocks);
UTIM_NATIVE_COUNTER_DEFINE(mono_raw, "NATIVE_MONOTONIC_RAW", UTIM_NATIVE_SRC_CLOCK,
                           CLOCK_MONOTONIC_RAW, ns_clocks);
UTIM_NATIVE_COUNTER_DEFINE(boottime, "NATIVE_BOOTTIME", UTIM_NATIVE_SRC_CLOCK, CLOCK_BOOTTIME,
                           ns_clocks);
UTIM_NATIVE_ALARM_DEFINE(alarm0, "NATIVE_ALARM", alarm_clocks);

_Static_assert(alarm0_CHANNELS >= 4 && alarm0_CHANNELS <= UTIM_MAX_CHANNELS,
               "the alarm has 4 or more channels");

#if UTIM_NATIVE_HAVE_CPU_COUNTER
/* In RAM: the frequency is known only once native_board_init() probed it;
 * until then hz is 0 and the input is unusable (utim_init() says -ERANGE). */
static utim_clock_desc_t cpu_clocks[] = {
    {0u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, CPU_DIV_MAX},
};
#if defined(__x86_64__)
UTIM_NATIVE_COUNTER_DEFINE(cpu, "NATIVE_TSC", UTIM_NATIVE_SRC_TSC, 0, cpu_clocks);
#else
UTIM_NATIVE_COUNTER_DEFINE(cpu, "NATIVE_CNTVCT", UTIM_NATIVE_SRC_CNTVCT, 0, cpu_clocks);
#endif
#endif

static const utim_periph_t *const instances[] = {
#if UTIM_NATIVE_HAVE_CPU_COUNTER
    [NATIVE_IDX_CPU] = &cpu,
#endif
    [NATIVE_IDX_MONOTONIC] = &mono,    [NATIVE_IDX_MONOTONIC_RAW] = &mono_raw,
    [NATIVE_IDX_BOOTTIME] = &boottime, [NATIVE_IDX_ALARM] = &alarm0,
};
_Static_assert(ARRAY_LEN(instances) == NATIVE_INSTANCES, "board_native.h lists every instance");

const utim_board_t utim_board = {
    .name = "native", .instances = instances, .count = NATIVE_INSTANCES};

/* The interrupt route table: every alarm raises the interrupt thread's line. */
static const utim_periph_t *const alarms[] = {&alarm0};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Median cost of arming a kernel timer 20 us ahead (a timerfd: the cleanest
 * way to time just that), what the interrupt thread pays to sleep towards
 * a new deadline. On bare metal it is a fraction of a microsecond; in a
 * virtual machine the kernel's timer reprogramming traps to the hypervisor
 * and costs several. */
static uint64_t probe_compare_write(void) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0) {
    return UINT64_MAX;
  }
  uint64_t cost[ALARM_PROBE_WRITES];
  for (unsigned i = 0; i < ALARM_PROBE_WRITES; i++) {
    int64_t t0 = utim_native_clock_ns(CLOCK_MONOTONIC);
    int64_t due = t0 + 20000;
    struct itimerspec its = {{0, 0}, {(time_t)(due / NS_HZ), (long)(due % NS_HZ)}};
    (void)timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
    cost[i] = (uint64_t)(utim_native_clock_ns(CLOCK_MONOTONIC) - t0);
    struct itimerspec off = {{0, 0}, {0, 0}};
    (void)timerfd_settime(fd, TFD_TIMER_ABSTIME, &off, NULL);
  }
  (void)close(fd);
  /* Insertion sort: 33 values, once. */
  for (unsigned i = 1; i < ALARM_PROBE_WRITES; i++) {
    uint64_t v = cost[i];
    unsigned j = i;
    for (; j > 0u && cost[j - 1u] > v; j--) {
      cost[j] = cost[j - 1u];
    }
    cost[j] = v;
  }
  return cost[ALARM_PROBE_WRITES / 2u];
}

static void board_init_once(void) {
  uint64_t write_ns = probe_compare_write();
  if (write_ns <= ALARM_1MHZ_WRITE_NS) {
    alarm_clocks[0].div_lo = ALARM_DIV_1MHZ;
  }
  native_irq_set_probe(write_ns, NS_HZ / alarm_clocks[0].div_lo);
#if UTIM_NATIVE_HAVE_CPU_COUNTER
  const native_tsc_info_t *tsc = &native_cpu_probe()->info;
  utim_native_counter_set_shift(&cpu, tsc->shift);
  cpu_clocks[0].hz = (uint32_t)(tsc->hz >> tsc->shift);
#endif
  native_irq_start(alarms, ARRAY_LEN(alarms));
}

void native_board_init(void) {
  (void)pthread_once(&g_once, board_init_once);
}

const native_tsc_info_t *native_tsc_info(void) {
  return &native_cpu_probe()->info;
}
