/**
 * @file timeout_alarm.c
 * @brief `utim-bench timeout`: the callback latency of the native alarm
 *        driver (NATIVE_ALARM).
 *
 * Latency = the time the compare callback starts - the time the counter
 * reached the armed value, both on CLOCK_MONOTONIC (the alarm's own clock,
 * which cyclictest measures against too). The alarm is armed with
 * utim_set_abs(read + n) rather than utim_set_rel(n): the same arming path,
 * but the expiry is then known to the tick, where set_rel's starting count
 * may be the read's or the next one. The clock time at which the counter
 * steps onto a value is found once, before measuring, by bracketing many
 * counter reads between clock reads (the phase of the tick grid).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timeout.h"
#include "utim/utim.h"

#define TO_WARMUP     3u
#define TO_PHASE_READ 20000u
#define TO_ASK_HZ     1000000u
/* A callback that does not come this long after its expiry is lost. */
#define TO_LOST_NS (5 * 1000000000LL)

const char *const bench_to_alarm_name[2] = {"native_alarm", "native_alarm_nospin"};
const char *const bench_to_alarm_label[2] = {"alarm", "alarm no spin"};

typedef struct bench_to_ctx {
  sem_t done;
  volatile int64_t expiry; /* clock time of the armed value, written before arming */
  volatile int64_t latency;
  volatile int64_t wake; /* native_irq_deadline_wake_ns() in the callback */
} bench_to_ctx_t;

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  bench_to_ctx_t *c = arg;
  /* First thing: the callback's start is what is measured. */
  const int64_t now = utim_native_clock_ns(CLOCK_MONOTONIC);
  c->latency = now - c->expiry;
  c->wake = native_irq_deadline_wake_ns();
  (void)sem_post(&c->done);
}

/*
 * The counter is floor((clock - B) / tick) for a constant B while it runs.
 * Each counter read c bracketed by clock reads ta <= t <= tb says
 * B + c * tick <= tb and B + (c + 1) * tick > ta; intersecting many such
 * intervals at all phases of the tick pins B down to about one bracket.
 */
int bench_to_find_phase(const utim_periph_t *p, int64_t tick, int64_t *phase, int64_t *unc) {
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
  for (unsigned k = 0; k < TO_PHASE_READ; k++) {
    const int64_t ta = utim_native_clock_ns(CLOCK_MONOTONIC);
    const int64_t c = (int64_t)utim_read(p);
    const int64_t tb = utim_native_clock_ns(CLOCK_MONOTONIC);
    const int64_t l = ta - (c + 1) * tick + 1;
    const int64_t h = tb - c * tick;
    lo = l > lo ? l : lo;
    hi = h < hi ? h : hi;
  }
  if (lo > hi) {
    return -1;
  }
  *phase = lo + (hi - lo) / 2;
  *unc = (hi - lo + 1) / 2;
  return 0;
}

int bench_sem_wait_ns(sem_t *s, int64_t timeout_ns) {
  struct timespec dl;
  (void)clock_gettime(CLOCK_REALTIME, &dl);
  int64_t ns = (int64_t)dl.tv_nsec + timeout_ns;
  dl.tv_sec += (time_t)(ns / 1000000000);
  dl.tv_nsec = (long)(ns % 1000000000);
  while (sem_timedwait(s, &dl) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

/* One timeout; returns 0 with its latency in *lat and the interrupt
 * thread's deadline wake-up before the callback in *wake (-1: none), or an
 * errno value. */
static int alarm_once(const bench_to_report_t *r, const utim_periph_t *p, bench_to_ctx_t *c,
                      uint64_t ticks, int64_t *lat, int64_t *wake) {
  for (;;) {
    const uint64_t target = utim_read(p) + ticks;
    c->expiry = r->phase_ns + (int64_t)target * r->tick_ns;
    int e = utim_set_abs(p, 0, target);
    if (e == -ETIME) {
      continue; /* the counter passed the target between the read and the set: re-read */
    }
    if (e != 0) {
      return -e;
    }
    break;
  }
  int e = bench_sem_wait_ns(&c->done, (int64_t)ticks * r->tick_ns + TO_LOST_NS);
  if (e != 0) {
    return e;
  }
  *lat = c->latency;
  *wake = c->wake;
  return 0;
}

/*
 * CPU time of the board's interrupt thread (named "utim-irq") from
 * /proc/self/task/<tid>/schedstat, whose first field is its time on a CPU in
 * ns; -1 when it cannot be found. Shows what the spin window costs.
 */
static int64_t irq_cpu_ns(void) {
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) {
    return -1;
  }
  int64_t ns = -1;
  const struct dirent *e;
  while (ns < 0 && (e = readdir(d)) != NULL) {
    char path[300];
    char comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
      continue;
    }
    bool match = fgets(comm, sizeof comm, f) != NULL && strncmp(comm, "utim-irq", 8) == 0;
    fclose(f);
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    f = match ? fopen(path, "r") : NULL;
    if (f != NULL) {
      char line[128];
      if (fgets(line, sizeof line, f) != NULL) {
        char *end = NULL;
        unsigned long long v = strtoull(line, &end, 10);
        ns = end != line ? (int64_t)v : -1;
      }
      fclose(f);
    }
  }
  closedir(d);
  return ns;
}

static void run_alarm(bench_to_report_t *r, const utim_periph_t *p, bench_to_ctx_t *c,
                      unsigned mode) {
  native_irq_set_spin(mode == 0u ? r->spin_ns : 0u);
  double *v = bench_sample_buffer(r->o->samples, BENCH_TO_NSIZES);
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    bench_to_row_t *row = &r->alarm[mode][s];
    if (v == NULL) {
      row->error = ENOMEM;
      continue;
    }
    /* Whole ticks covering the timeout: at 100 kHz, 10 us is one tick. */
    const uint64_t ticks = (uint64_t)((bench_to_sizes_us[s] * 1000 + r->tick_ns - 1) / r->tick_ns);
    bench_progress("timeout: %s, %lld us x %lu", bench_to_alarm_name[mode],
                   (long long)bench_to_sizes_us[s], r->o->samples[s]);
    int64_t lat = 0;
    int64_t wake = -1;
    row->irq_cpu = -1.0;
    for (unsigned k = 0; k < TO_WARMUP && row->error == 0 && bench_to_sizes_us[s] < 1000000; k++) {
      row->error = alarm_once(r, p, c, ticks, &lat, &wake);
    }
    double wake_sum = 0.0;
    double path_sum = 0.0;
    const int64_t cpu0 = irq_cpu_ns();
    const int64_t w0 = utim_native_clock_ns(CLOCK_MONOTONIC);
    for (unsigned long k = 0; k < r->o->samples[s] && row->error == 0; k++) {
      row->error = alarm_once(r, p, c, ticks, &lat, &wake);
      v[k] = (double)lat;
      row->early += lat < -r->phase_unc ? 1u : 0u;
      if (row->error == 0 && wake >= 0 && mode == 1u) {
        /* The kernel's share (expiry to the end of the sleep) and utim's
         * (the end of the sleep to the callback's start). Only without the
         * spin window: with it the sleep's deadline is the spin window
         * before the expiry, so a sleep that ended there (late enough to be
         * followed by the handler) is no measure of expiry -> wake-up. */
        const int64_t expiry = c->expiry;
        wake_sum += (double)(wake - expiry);
        path_sum += (double)(expiry + lat - wake);
        row->n_split++;
      }
    }
    if (row->n_split != 0u) {
      row->wake_mean = wake_sum / (double)row->n_split;
      row->path_mean = path_sum / (double)row->n_split;
    }
    const int64_t w1 = utim_native_clock_ns(CLOCK_MONOTONIC);
    const int64_t cpu1 = irq_cpu_ns();
    if (cpu0 >= 0 && cpu1 >= cpu0 && w1 > w0) {
      row->irq_cpu = 100.0 * (double)(cpu1 - cpu0) / (double)(w1 - w0);
    }
    if (row->error == 0 && r->o->histogram != 0u &&
        bench_hist_fill(&row->hist, v, r->o->samples[s], (unsigned)r->o->histogram) != 0) {
      row->error = ENOMEM;
    }
    if (row->error == 0) {
      bench_stats(v, r->o->samples[s], &row->st); /* sorts v: the histogram first */
      row->measured = true;
    }
  }
  free(v);
}

static int setup_alarm(bench_to_report_t *r, const utim_periph_t **out, bench_to_ctx_t *ctx) {
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  if (p == NULL) {
    fprintf(stderr, BENCH_PROG ": timeout: the native board has no NATIVE_ALARM instance\n");
    return -1;
  }
  r->hz = TO_ASK_HZ;
  int e = utim_init(p, r->hz, UTIM_CLOCK_DEFAULT);
  if (e == -ERANGE && r->irq.alarm_max_hz != 0u) {
    bench_to_note(r,
                  "1 MHz is not offered on this machine: arming a kernel timer (measured with "
                  "timerfd_settime) costs %llu ns, more than a 1 us tick, so NATIVE_ALARM runs "
                  "at %u Hz",
                  (unsigned long long)r->irq.compare_write_ns, r->irq.alarm_max_hz);
    r->hz = r->irq.alarm_max_hz;
    e = utim_init(p, r->hz, UTIM_CLOCK_DEFAULT);
  }
  if (e != 0) {
    fprintf(stderr, BENCH_PROG ": timeout: utim_init(NATIVE_ALARM, %u Hz) failed: %d\n", r->hz, e);
    return -1;
  }
  r->tick_ns = 1000000000 / (int64_t)r->hz;
  if (sem_init(&ctx->done, 0, 0) != 0 || utim_set_compare_cb(p, on_compare, ctx) != 0 ||
      utim_start(p) != 0) {
    fprintf(stderr, BENCH_PROG ": timeout: cannot start NATIVE_ALARM\n");
    return -1;
  }
  if (bench_to_find_phase(p, r->tick_ns, &r->phase_ns, &r->phase_unc) != 0) {
    fprintf(stderr,
            BENCH_PROG ": timeout: NATIVE_ALARM's counter is not floor(CLOCK_MONOTONIC / tick) "
                       "+ constant, so the expiry time cannot be known\n");
    return -1;
  }
  *out = p;
  return 0;
}

int bench_to_alarm(bench_to_report_t *r) {
  /* Lives as long as the program: the interrupt thread may still be on its
   * way out of sem_post() when the last wait returns. */
  static bench_to_ctx_t ctx;
  const utim_periph_t *p = NULL;
  if (setup_alarm(r, &p, &ctx) != 0) {
    return -1;
  }
  /* What cyclictest does by default (keep CPUs out of deep idle states while
   * measuring): held for the alarm's rows too, so both see the same machine. */
  int qos = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
  if (qos >= 0) {
    const int32_t zero = 0;
    r->pm_qos = write(qos, &zero, sizeof zero) == (ssize_t)sizeof zero;
  }
  if (!r->pm_qos) {
    bench_to_note(r, "/dev/cpu_dma_latency cannot be set: cyclictest runs with --default-system");
  }
  r->spin_ns = r->irq.spin_ns;
  run_alarm(r, p, &ctx, 0u);
  run_alarm(r, p, &ctx, 1u);
  native_irq_set_spin(r->spin_ns);
  (void)utim_clear(p, 0);
  (void)utim_set_compare_cb(p, NULL, NULL);
  if (qos >= 0) {
    close(qos); /* cyclictest takes its own request */
  }
  return 0;
}
