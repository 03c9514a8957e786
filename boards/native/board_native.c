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

int64_t native_clock_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    return 0;
  }
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

enum {
  CPU_DIV_MAX = 4096,
  NS_HZ = 1000000000,
  NS_DIV_MAX = 1000,
  ALARM_DIV_1MHZ = 1000,
  ALARM_DIV_100KHZ = 10000,
  ALARM_DIV_MAX = 1000000,
  ALARM_CH = UTIM_NATIVE_ALARM_CHANNELS,
  COUNTER_MD = 1,
  ALARM_MD = 1,
};

_Static_assert(ALARM_CH >= 4 && ALARM_CH <= UTIM_MAX_CHANNELS, "the alarm has 4 or more channels");
_Static_assert(NS_HZ / ALARM_DIV_1MHZ == 1000000 && NS_HZ / ALARM_DIV_100KHZ == 100000,
               "the alarm's fastest frequency is 1 MHz or 100 kHz");

/* A compare write (timerfd_settime() of a deadline a few ticks ahead) must
 * cost well under one tick, or arming a compare a few ticks ahead is already
 * late when it returns. Median cost at or below this: 1 MHz is offered. */
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

#define NATIVE_DEV(st, nm, clk, md)                                                                \
  { .state = &(st), .name = (nm), .clocks = (clk), .nclocks = ARRAY_LEN(clk), .min_distance = (md) }

#define COUNTER_PROPS UTIM_PROPS(64, 0, 0, UTIM_CAP_EMULATED)

UTIM_STATE_DEFINE(mono_state, 0);
UTIM_STATE_DEFINE(raw_state, 0);
UTIM_STATE_DEFINE(boot_state, 0);
UTIM_STATE_DEFINE(alarm_state, ALARM_CH);

static utim_native_counter_rt_t mono_rt;
static utim_native_counter_rt_t raw_rt;
static utim_native_counter_rt_t boot_rt;
static utim_native_alarm_rt_t alarm_rt = UTIM_NATIVE_ALARM_RT_INIT;

static const utim_native_counter_cfg_t mono_cfg = {
    .common = NATIVE_DEV(mono_state, "NATIVE_MONOTONIC", ns_clocks, COUNTER_MD),
    .rt = &mono_rt,
    .src = UTIM_NATIVE_SRC_CLOCK,
    .clock_id = CLOCK_MONOTONIC};
static const utim_native_counter_cfg_t raw_cfg = {
    .common = NATIVE_DEV(raw_state, "NATIVE_MONOTONIC_RAW", ns_clocks, COUNTER_MD),
    .rt = &raw_rt,
    .src = UTIM_NATIVE_SRC_CLOCK,
    .clock_id = CLOCK_MONOTONIC_RAW};
static const utim_native_counter_cfg_t boot_cfg = {
    .common = NATIVE_DEV(boot_state, "NATIVE_BOOTTIME", ns_clocks, COUNTER_MD),
    .rt = &boot_rt,
    .src = UTIM_NATIVE_SRC_CLOCK,
    .clock_id = CLOCK_BOOTTIME};
static const utim_native_alarm_cfg_t alarm_cfg = {
    .common = NATIVE_DEV(alarm_state, "NATIVE_ALARM", alarm_clocks, ALARM_MD),
    .rt = &alarm_rt,
    .clock_id = CLOCK_MONOTONIC};

static const utim_periph_t mono = {&utim_native_counter_driver, &mono_cfg.common, COUNTER_PROPS};
static const utim_periph_t mono_raw = {&utim_native_counter_driver, &raw_cfg.common, COUNTER_PROPS};
static const utim_periph_t boottime = {&utim_native_counter_driver, &boot_cfg.common,
                                       COUNTER_PROPS};
static const utim_periph_t alarm0 = {
    &utim_native_alarm_driver, &alarm_cfg.common,
    UTIM_PROPS(64, ALARM_CH, 0,
               UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_EMULATED)};

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_CPU_COUNTER 1
#if defined(__x86_64__)
#define CPU_NAME "NATIVE_TSC"
#define CPU_SRC  UTIM_NATIVE_SRC_TSC
#else
#define CPU_NAME "NATIVE_CNTVCT"
#define CPU_SRC  UTIM_NATIVE_SRC_CNTVCT
#endif
/* In RAM: the frequency is known only once native_board_init() probed it;
 * until then hz is 0 and the input is unusable (utim_init() says -ERANGE). */
static utim_clock_desc_t cpu_clocks[] = {
    {0u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, CPU_DIV_MAX},
};
UTIM_STATE_DEFINE(cpu_state, 0);
static utim_native_counter_rt_t cpu_rt;
static const utim_native_counter_cfg_t cpu_cfg = {
    .common = NATIVE_DEV(cpu_state, CPU_NAME, cpu_clocks, COUNTER_MD),
    .rt = &cpu_rt,
    .src = CPU_SRC,
    .clock_id = 0};
static const utim_periph_t cpu = {&utim_native_counter_driver, &cpu_cfg.common,
                                  UTIM_PROPS(64, 0, 0, 0)};
#endif

static const utim_periph_t *const instances[] = {
#ifdef HAVE_CPU_COUNTER
    [NATIVE_IDX_CPU] = &cpu,
#endif
    [NATIVE_IDX_MONOTONIC] = &mono,    [NATIVE_IDX_MONOTONIC_RAW] = &mono_raw,
    [NATIVE_IDX_BOOTTIME] = &boottime, [NATIVE_IDX_ALARM] = &alarm0,
};
_Static_assert(ARRAY_LEN(instances) == NATIVE_INSTANCES, "board_native.h lists every instance");

const utim_board_t utim_board = {
    .name = "native", .instances = instances, .count = NATIVE_INSTANCES};

static const utim_periph_t *const alarms[] = {&alarm0};

static native_tsc_info_t g_tsc;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static int64_t mono_ns(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * NS_HZ + ts.tv_nsec;
}

/* Median cost of arming a timerfd 20 us ahead, what a compare write costs.
 * On bare metal it is a fraction of a microsecond; in a virtual machine the
 * kernel's timer reprogramming traps to the hypervisor and costs several. */
static uint64_t probe_compare_write(void) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0) {
    return UINT64_MAX;
  }
  uint64_t cost[ALARM_PROBE_WRITES];
  for (unsigned i = 0; i < ALARM_PROBE_WRITES; i++) {
    int64_t t0 = mono_ns();
    int64_t due = t0 + 20000;
    struct itimerspec its = {{0, 0}, {(time_t)(due / NS_HZ), (long)(due % NS_HZ)}};
    (void)timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
    cost[i] = (uint64_t)(mono_ns() - t0);
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
  native_tsc_probe(&g_tsc);
#ifdef HAVE_CPU_COUNTER
  cpu_rt.shift = g_tsc.shift;
  cpu_clocks[0].hz = (uint32_t)(g_tsc.hz >> g_tsc.shift);
#endif
  /* Without its file descriptors an alarm still counts and its events are
   * still delivered by native_irq_service(); the interrupt thread just has
   * no line to wait on, which native_irq_info() shows as no wake-ups. */
  for (unsigned i = 0; i < ARRAY_LEN(alarms); i++) {
    (void)utim_native_alarm_attach(alarms[i]);
  }
  native_irq_start(alarms, ARRAY_LEN(alarms));
}

void native_board_init(void) {
  (void)pthread_once(&g_once, board_init_once);
}

const native_tsc_info_t *native_tsc_info(void) {
  return &g_tsc;
}
