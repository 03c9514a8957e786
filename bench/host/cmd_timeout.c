/**
 * @file cmd_timeout.c
 * @brief `utim-bench timeout`: callback latency of the native alarm driver
 *        (NATIVE_ALARM) for timeouts from 10 us to 1 s, beside cyclictest
 *        run with the same interval, priority and count.
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
#include <limits.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_host.h"
#include "board_native.h"
#include "utim/utim.h"

#define TO_HELP       BENCH_PROG " timeout"
#define TO_NSIZES     6u
#define TO_WARMUP     3u
#define TO_PHASE_READ 20000u
#define TO_ASK_HZ     1000000u
/* A callback that does not come this long after its expiry is lost. */
#define TO_LOST_NS (5 * 1000000000LL)

static const int64_t sizes_us[TO_NSIZES] = {10, 100, 1000, 10000, 100000, 1000000};
/* About 8 s of alarm and 8 s of cyclictest by default; 1 s timeouts stay few. */
static const unsigned long default_samples[TO_NSIZES] = {2000, 2000, 1000, 200, 20, 3};
static const unsigned long long_samples[TO_NSIZES] = {20000, 10000, 5000, 1000, 100, 20};

typedef struct to_opts {
  bench_output_t out;
  unsigned long samples[TO_NSIZES];
  bool cyclictest;
} to_opts_t;

typedef struct to_row {
  bench_stats_t st; /* ns */
  double irq_cpu;   /* alarm rows: CPU % of the interrupt thread over the row, < 0 unknown */
  unsigned long early;
  bool measured;
  int error; /* 0, or an errno value / exit status explaining why not measured */
} to_row_t;

typedef struct to_report {
  const to_opts_t *o;
  bench_machine_t m;
  native_irq_info_t irq;
  uint32_t hz;
  int64_t tick_ns;
  int64_t phase_ns;  /* clock time of counter value 0's start */
  int64_t phase_unc; /* half-width of its bracket */
  bool pm_qos;       /* /dev/cpu_dma_latency held at 0 during the alarm rows */
  char cyclictest[4096];
  bool have_ct;
  char ct_args[160];            /* the scheduling/locking arguments given to cyclictest */
  uint64_t spin_ns;             /* the interrupt thread's default spin window */
  to_row_t alarm[2][TO_NSIZES]; /* [0]: default spin window, [1]: spin off */
  to_row_t ct[TO_NSIZES];
  char notes[6][240];
  size_t nnotes;
} to_report_t;

static void to_usage(FILE *f) {
  fprintf(
      f,
      "usage: " BENCH_PROG " timeout [--json] [--json-out FILE] [-o FILE] [--samples N]\n"
      "                           [--long] [--no-cyclictest]\n"
      "\n"
      "Callback latency of the native alarm (NATIVE_ALARM at 1 MHz, or its fastest\n"
      "frequency where the machine offers less) for timeouts of 10 us, 100 us, 1 ms,\n"
      "10 ms, 100 ms and 1 s: each sample arms channel 0 with utim_set_abs(counter +\n"
      "timeout), waits on a semaphore the callback posts, and records the callback's\n"
      "first CLOCK_MONOTONIC read minus the time the counter reached the armed value.\n"
      "The callback runs in the board's interrupt thread (SCHED_FIFO priority %d and\n"
      "mlockall where permitted: native_irq_info()). Per row: mean (L_tout),\n"
      "standard deviation (J_tout), median, p99, max.\n"
      "When cyclictest (rt-tests) is in PATH, it runs with the same interval, count,\n"
      "priority and memory locking (cyclictest -t1 -i<us> -l<n> -p<prio> -m -v -N),\n"
      "and its per-wake-up latencies get the same statistics, in the same table.\n"
      "Both run with /dev/cpu_dma_latency held at 0, as cyclictest does by default.\n"
      "\n"
      "options:\n"
      "  --json           print one JSON document: {\"benchmark\":\"timeout\",\n"
      "                   \"machine\":{...},\"alarm\":{...},\"rows\":[{\"name\":\"native_alarm\"|\n"
      "                   "
      "\"cyclictest\",\"timeout_us\",\"unit\":\"ns\",\"median\",\"mean\",\"p99\",\n"
      "                   \"max\",\"min\",\"stddev\",\"n\",\"policy\",\"priority\"}]}\n"
      "  --samples N      timeouts per row, every size (default %lu/%lu/%lu/%lu/%lu/%lu from\n"
      "                   10 us to 1 s; %lu/%lu/%lu/%lu/%lu/%lu with --long)\n"
      "  --long           the longer sample counts above\n"
      "  --no-cyclictest  do not run cyclictest\n"
      "  -o, --output FILE  write the result to FILE instead of stdout\n"
      "  --json-out FILE  also write the JSON document to FILE\n"
      "  -h, --help       show this help\n",
      NATIVE_IRQ_PRIORITY, default_samples[0], default_samples[1], default_samples[2],
      default_samples[3], default_samples[4], default_samples[5], long_samples[0], long_samples[1],
      long_samples[2], long_samples[3], long_samples[4], long_samples[5]);
}

/* Returns -1 to continue, else the exit status. */
static int parse(int argc, char **argv, to_opts_t *o) {
  *o = (to_opts_t){.cyclictest = true};
  bool lng = false;
  unsigned long fixed = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool m = false;
    const char *v;
    int rc = -1;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      to_usage(stdout);
      return 0;
    }
    if (bench_parse_output(argc, argv, &i, TO_HELP, &o->out, &rc)) {
      if (rc >= 0) {
        return rc;
      }
    } else if (strcmp(a, "--long") == 0) {
      lng = true;
    } else if (strcmp(a, "--no-cyclictest") == 0) {
      o->cyclictest = false;
    } else if ((v = bench_opt_value(argc, argv, &i, "--samples", &m)) != NULL || m) {
      if (v == NULL) {
        return bench_usage_error(TO_HELP, "option '--samples' needs a value");
      }
      if (!bench_parse_uint(v, 1, 1000000, &fixed)) {
        return bench_usage_error(TO_HELP, "--samples needs a number from 1 to 1000000, got '%s'",
                                 v);
      }
    } else if (a[0] == '-') {
      return bench_usage_error(TO_HELP, "unknown option '%s'", a);
    } else {
      return bench_usage_error(TO_HELP, "unexpected argument '%s'", a);
    }
  }
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    o->samples[s] = fixed != 0u ? fixed : lng ? long_samples[s] : default_samples[s];
  }
  return -1;
}

static void add_note(to_report_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_note(to_report_t *r, const char *fmt, ...) {
  if (r->nnotes < sizeof r->notes / sizeof r->notes[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->nnotes++], sizeof r->notes[0], fmt, ap);
    va_end(ap);
  }
}

/* ---- the alarm ------------------------------------------------------------ */

typedef struct to_ctx {
  sem_t done;
  volatile int64_t expiry; /* clock time of the armed value, written before arming */
  volatile int64_t latency;
} to_ctx_t;

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  to_ctx_t *c = arg;
  /* First thing: the callback's start is what is measured. */
  const int64_t now = bench_clock_ns(CLOCK_MONOTONIC);
  c->latency = now - c->expiry;
  (void)sem_post(&c->done);
}

/*
 * The counter is floor((clock - B) / tick) for a constant B while it runs.
 * Each counter read c bracketed by clock reads ta <= t <= tb says
 * B + c * tick <= tb and B + (c + 1) * tick > ta; intersecting many such
 * intervals at all phases of the tick pins B down to about one bracket.
 */
static int find_phase(const utim_periph_t *p, int64_t tick, int64_t *phase, int64_t *unc) {
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
  for (unsigned k = 0; k < TO_PHASE_READ; k++) {
    const int64_t ta = bench_clock_ns(CLOCK_MONOTONIC);
    const int64_t c = (int64_t)utim_read(p);
    const int64_t tb = bench_clock_ns(CLOCK_MONOTONIC);
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

static int wait_callback(to_ctx_t *c, int64_t timeout_ns) {
  struct timespec dl;
  (void)clock_gettime(CLOCK_REALTIME, &dl);
  int64_t ns = (int64_t)dl.tv_nsec + timeout_ns;
  dl.tv_sec += (time_t)(ns / 1000000000);
  dl.tv_nsec = (long)(ns % 1000000000);
  while (sem_timedwait(&c->done, &dl) != 0) {
    if (errno != EINTR) {
      return errno;
    }
  }
  return 0;
}

/* One timeout; returns 0 with its latency in *lat, or an errno value. */
static int alarm_once(const to_report_t *r, const utim_periph_t *p, to_ctx_t *c, uint64_t ticks,
                      int64_t *lat) {
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
  int e = wait_callback(c, (int64_t)ticks * r->tick_ns + TO_LOST_NS);
  if (e != 0) {
    return e;
  }
  *lat = c->latency;
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

/* Row names of the two alarm settings. */
static const char *const alarm_name[2] = {"native_alarm", "native_alarm_nospin"};
static const char *const alarm_label[2] = {"alarm", "alarm no spin"};

static void run_alarm(to_report_t *r, const utim_periph_t *p, to_ctx_t *c, unsigned mode) {
  native_irq_set_spin(mode == 0u ? r->spin_ns : 0u);
  unsigned long nmax = 0;
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    nmax = r->o->samples[s] > nmax ? r->o->samples[s] : nmax;
  }
  double *v = calloc(nmax, sizeof *v);
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    to_row_t *row = &r->alarm[mode][s];
    if (v == NULL) {
      row->error = ENOMEM;
      continue;
    }
    /* Whole ticks covering the timeout: at 100 kHz, 10 us is one tick. */
    const uint64_t ticks = (uint64_t)((sizes_us[s] * 1000 + r->tick_ns - 1) / r->tick_ns);
    bench_progress("timeout: %s, %lld us x %lu", alarm_name[mode], (long long)sizes_us[s],
                   r->o->samples[s]);
    int64_t lat = 0;
    row->irq_cpu = -1.0;
    for (unsigned k = 0; k < TO_WARMUP && row->error == 0 && sizes_us[s] < 1000000; k++) {
      row->error = alarm_once(r, p, c, ticks, &lat);
    }
    const int64_t cpu0 = irq_cpu_ns();
    const int64_t w0 = bench_clock_ns(CLOCK_MONOTONIC);
    for (unsigned long k = 0; k < r->o->samples[s] && row->error == 0; k++) {
      row->error = alarm_once(r, p, c, ticks, &lat);
      v[k] = (double)lat;
      row->early += lat < -r->phase_unc ? 1u : 0u;
    }
    const int64_t w1 = bench_clock_ns(CLOCK_MONOTONIC);
    const int64_t cpu1 = irq_cpu_ns();
    if (cpu0 >= 0 && cpu1 >= cpu0 && w1 > w0) {
      row->irq_cpu = 100.0 * (double)(cpu1 - cpu0) / (double)(w1 - w0);
    }
    if (row->error == 0) {
      bench_stats(v, r->o->samples[s], &row->st);
      row->measured = true;
    }
  }
  free(v);
}

/* ---- cyclictest ------------------------------------------------------------- */

/* Runs cyclictest with @p args; fills @p v with its latencies (ns), returns the count or -errno. */
static long run_cyclictest(const to_report_t *r, char *const *args, double *v, unsigned long cap,
                           int *status) {
  int fds[2];
  if (pipe(fds) != 0) {
    return -errno;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return -e;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0) {
      dup2(nul, 2);
    }
    close(fds[0]);
    close(fds[1]);
    execv(r->cyclictest, args);
    _exit(127);
  }
  close(fds[1]);
  FILE *in = fdopen(fds[0], "r");
  long n = 0;
  if (in != NULL) {
    char line[256];
    while (fgets(line, sizeof line, in) != NULL) {
      /* -v lines: "<thread>: <cycle>: <latency>", in ns with -N; anything else is skipped. */
      char *end = NULL;
      errno = 0;
      (void)strtoul(line, &end, 10);
      if (end == line || *end != ':') {
        continue;
      }
      const char *p = end + 1;
      (void)strtoul(p, &end, 10);
      if (end == p || *end != ':') {
        continue;
      }
      p = end + 1;
      long long val = strtoll(p, &end, 10);
      if (end != p && errno == 0 && (unsigned long)n < cap) {
        v[n++] = (double)val;
      }
    }
    fclose(in);
  } else {
    close(fds[0]);
  }
  *status = 0;
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  return n;
}

static void run_cyclictests(to_report_t *r) {
  unsigned long nmax = 0;
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    nmax = r->o->samples[s] > nmax ? r->o->samples[s] : nmax;
  }
  double *v = calloc(nmax, sizeof *v);
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    to_row_t *row = &r->ct[s];
    row->irq_cpu = -1.0;
    if (v == NULL) {
      row->error = ENOMEM;
      continue;
    }
    bench_progress("timeout: cyclictest, %lld us x %lu", (long long)sizes_us[s], r->o->samples[s]);
    char interval[32];
    char loops[32];
    char prio[32];
    snprintf(interval, sizeof interval, "-i%lld", (long long)sizes_us[s]);
    snprintf(loops, sizeof loops, "-l%lu", r->o->samples[s]);
    snprintf(prio, sizeof prio, "-p%d", r->irq.priority);
    char *args[16];
    size_t a = 0;
    args[a++] = r->cyclictest;
    args[a++] = "-t1";
    args[a++] = "-d0";
    args[a++] = interval;
    args[a++] = loops;
    if (r->irq.policy == SCHED_FIFO) {
      args[a++] = prio;
    }
    if (r->irq.mlocked) {
      args[a++] = "-m";
    }
    if (!r->pm_qos) {
      args[a++] = "--default-system";
    }
    args[a++] = "-v";
    args[a++] = "-N";
    args[a] = NULL;
    int status = 0;
    long n = run_cyclictest(r, args, v, r->o->samples[s], &status);
    if (n < 0) {
      row->error = (int)-n;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0) {
      row->error = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      row->error = row->error == 0 ? ENODATA : row->error;
    } else {
      bench_stats(v, (size_t)n, &row->st);
      row->measured = true;
    }
  }
  free(v);
}

/* ---- output ----------------------------------------------------------------- */

static const char *policy_name(int policy) {
  return policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER";
}

static void json_row(FILE *f, const to_report_t *r, const char *name, unsigned s,
                     const to_row_t *row) {
  fprintf(f, "\n{\"name\":\"%s\",\"timeout_us\":%lld,\"unit\":\"ns\",", name,
          (long long)sizes_us[s]);
  bench_json_stats(f, &row->st);
  fprintf(f, ",\"measured\":%s,\"error\":%d,\"policy\":\"%s\",\"priority\":%d",
          row->measured ? "true" : "false", row->error, policy_name(r->irq.policy),
          r->irq.priority);
  if (strncmp(name, "native_alarm", 12) == 0) {
    fprintf(f, ",\"early\":%lu,\"irq_cpu_percent\":", row->early);
    bench_json_num(f, row->irq_cpu >= 0.0, row->irq_cpu);
  }
  fputs("}", f);
}

static void print_json(FILE *f, const void *rp) {
  const to_report_t *r = rp;
  fputs("{\"benchmark\":\"timeout\",\"machine\":{", f);
  bench_json_machine_fields(f, &r->m);
  fprintf(f,
          "},\n\"alarm\":{\"instance\":\"NATIVE_ALARM\",\"hz\":%u,\"policy\":\"%s\","
          "\"priority\":%d,\"fifo_error\":%d,\"mlocked\":%s,\"mlock_error\":%d,"
          "\"compare_write_ns\":%llu,\"max_hz\":%u,\"phase_uncertainty_ns\":%lld,"
          "\"pm_qos_zero\":%s,\"spin_ns\":%llu},\n\"cyclictest\":",
          r->hz, policy_name(r->irq.policy), r->irq.priority, r->irq.fifo_error,
          r->irq.mlocked ? "true" : "false", r->irq.mlock_error,
          (unsigned long long)r->irq.compare_write_ns, r->irq.alarm_max_hz, (long long)r->phase_unc,
          r->pm_qos ? "true" : "false", (unsigned long long)r->spin_ns);
  if (r->have_ct) {
    fputs("{\"path\":", f);
    bench_json_string(f, r->cyclictest);
    fputs(",\"args\":", f);
    bench_json_string(f, r->ct_args);
    fputs("}", f);
  } else {
    fputs("null", f);
  }
  fputs(",\n\"notes\":[", f);
  for (size_t i = 0; i < r->nnotes; i++) {
    fputs(i ? "," : "", f);
    bench_json_string(f, r->notes[i]);
  }
  fputs("],\n\"rows\":[", f);
  bool first = true;
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    fputs(first ? "" : ",", f);
    first = false;
    json_row(f, r, alarm_name[0], s, &r->alarm[0][s]);
    fputs(",", f);
    json_row(f, r, alarm_name[1], s, &r->alarm[1][s]);
    if (r->have_ct) {
      fputs(",", f);
      json_row(f, r, "cyclictest", s, &r->ct[s]);
    }
  }
  fputs("\n]}\n", f);
}

static void table_row(FILE *f, const char *tmo, const char *name, const to_row_t *row) {
  if (!row->measured) {
    fprintf(f, "%-9s %-14s not measured (%s)\n", tmo, name,
            row->error > 0 && row->error < 128 ? strerror(row->error) : "killed");
    return;
  }
  fprintf(f, "%-9s %-14s %7zu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f", tmo, name, row->st.n,
          row->st.mean / 1e3, row->st.stddev / 1e3, row->st.median / 1e3, row->st.p99 / 1e3,
          row->st.max / 1e3, row->st.min / 1e3);
  if (row->irq_cpu >= 0.0) {
    fprintf(f, " %8.2f", row->irq_cpu);
  }
  if (row->early != 0u) {
    fprintf(f, "  (%lu EARLY)", row->early);
  }
  fputc('\n', f);
}

static void print_verdict(FILE *f, unsigned s, const to_row_t *a, const to_row_t *c);

static void print_table(FILE *f, const void *rp) {
  const to_report_t *r = rp;
  fprintf(f, "utim-bench timeout: callback latency of the native alarm (L_tout = mean, "
             "J_tout = stddev)\n");
  bench_print_machine(f, &r->m);
  fprintf(f, "  alarm:     NATIVE_ALARM at %g MHz; interrupt thread %s priority %d, memory %s\n",
          r->hz / 1e6, policy_name(r->irq.policy), r->irq.priority,
          r->irq.mlocked ? "locked" : "not locked");
  fprintf(f,
          "  rows:      alarm: the interrupt thread sleeps on the kernel timer until %.0f us "
          "before the event, then spins (board default);\n"
          "             alarm no spin: spin window 0, a pure kernel-timer wake-up like "
          "cyclictest's\n"
          "             irq CPU%%: CPU time of the interrupt thread over the row's wall time "
          "(/proc schedstat)\n",
          (double)r->spin_ns / 1e3);
  fprintf(f,
          "  clock:     latency on CLOCK_MONOTONIC; tick grid phase found within +/- %lld ns; "
          "/dev/cpu_dma_latency %s\n",
          (long long)r->phase_unc, r->pm_qos ? "held at 0 (both)" : "not available (both untuned)");
  if (r->have_ct) {
    fprintf(f, "  cyclictest: %s %s\n", r->cyclictest, r->ct_args);
  } else {
    fprintf(f, "  cyclictest: not run (%s)\n",
            r->o->cyclictest ? "not found in PATH; Debian package rt-tests" : "--no-cyclictest");
  }
  fprintf(f, "\n%-9s %-14s %7s %10s %10s %10s %10s %10s %10s %8s\n", "timeout", "source", "n",
          "mean us", "stddev us", "median us", "p99 us", "max us", "min us", "irq CPU%");
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    char tmo[24];
    if (sizes_us[s] >= 1000000) {
      snprintf(tmo, sizeof tmo, "%lld s", (long long)(sizes_us[s] / 1000000));
    } else if (sizes_us[s] >= 1000) {
      snprintf(tmo, sizeof tmo, "%lld ms", (long long)(sizes_us[s] / 1000));
    } else {
      snprintf(tmo, sizeof tmo, "%lld us", (long long)sizes_us[s]);
    }
    table_row(f, tmo, alarm_label[0], &r->alarm[0][s]);
    table_row(f, "", alarm_label[1], &r->alarm[1][s]);
    if (r->have_ct) {
      table_row(f, "", "cyclictest", &r->ct[s]);
    }
  }
  for (size_t i = 0; i < r->nnotes; i++) {
    fprintf(f, "note: %s\n", r->notes[i]);
  }
  if (!r->have_ct) {
    return;
  }
  for (unsigned mode = 0; mode < 2u; mode++) {
    fprintf(f,
            "\nfigure of the issue: %s mean and max <= cyclictest's at equal priority "
            "(reported, not asserted):\n",
            alarm_label[mode]);
    for (unsigned s = 0; s < TO_NSIZES; s++) {
      print_verdict(f, s, &r->alarm[mode][s], &r->ct[s]);
    }
  }
}

static void print_verdict(FILE *f, unsigned s, const to_row_t *a, const to_row_t *c) {
  if (!a->measured || !c->measured) {
    return;
  }
  fprintf(f, "  %7lld us: mean %8.2f vs %8.2f us %-8s max %9.2f vs %9.2f us %s\n",
          (long long)sizes_us[s], a->st.mean / 1e3, c->st.mean / 1e3,
          a->st.mean <= c->st.mean ? "met," : "NOT met,", a->st.max / 1e3, c->st.max / 1e3,
          a->st.max <= c->st.max ? "met" : "NOT met");
}

/* ---- the command ------------------------------------------------------------- */

static int setup_alarm(to_report_t *r, const utim_periph_t **out, to_ctx_t *ctx) {
  const utim_periph_t *p = utim_by_name("NATIVE_ALARM");
  if (p == NULL) {
    fprintf(stderr, BENCH_PROG ": timeout: the native board has no NATIVE_ALARM instance\n");
    return -1;
  }
  r->hz = TO_ASK_HZ;
  int e = utim_init(p, r->hz, UTIM_CLOCK_DEFAULT);
  if (e == -ERANGE && r->irq.alarm_max_hz != 0u) {
    add_note(r,
             "1 MHz is not offered on this machine: a compare write (timerfd_settime) costs "
             "%llu ns, more than a 1 us tick, so NATIVE_ALARM runs at %u Hz",
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
  if (find_phase(p, r->tick_ns, &r->phase_ns, &r->phase_unc) != 0) {
    fprintf(stderr,
            BENCH_PROG ": timeout: NATIVE_ALARM's counter is not floor(CLOCK_MONOTONIC / tick) "
                       "+ constant, so the expiry time cannot be known\n");
    return -1;
  }
  *out = p;
  return 0;
}

int bench_cmd_timeout(int argc, char **argv) {
  to_opts_t o;
  int rc = parse(argc, argv, &o);
  if (rc >= 0) {
    return rc;
  }
  bench_progress_init();
  to_report_t *r = calloc(1, sizeof *r);
  to_ctx_t *ctx = calloc(1, sizeof *ctx);
  if (r == NULL || ctx == NULL) {
    fprintf(stderr, BENCH_PROG ": out of memory\n");
    free(r);
    free(ctx);
    return 1;
  }
  r->o = &o;
  bench_progress("probing the machine, starting the interrupt thread");
  bench_machine_probe(&r->m);
  native_board_init();
  r->irq = native_irq_info();
  if (r->irq.policy != SCHED_FIFO) {
    add_note(r,
             "SCHED_FIFO was refused (%s): the interrupt thread runs SCHED_OTHER, and "
             "cyclictest runs without -p to match",
             strerror(r->irq.fifo_error));
  }
  if (!r->irq.mlocked) {
    add_note(r, "mlockall was refused (%s): cyclictest runs without -m to match",
             strerror(r->irq.mlock_error));
  }
  const utim_periph_t *p = NULL;
  if (setup_alarm(r, &p, ctx) != 0) {
    free(r);
    free(ctx);
    return 1;
  }
  /* What cyclictest does by default (keep CPUs out of deep idle states while
   * measuring): held for the alarm's rows too, so both see the same machine. */
  int qos = open("/dev/cpu_dma_latency", O_RDWR);
  if (qos >= 0) {
    const int32_t zero = 0;
    r->pm_qos = write(qos, &zero, sizeof zero) == (ssize_t)sizeof zero;
  }
  if (!r->pm_qos) {
    add_note(r, "/dev/cpu_dma_latency cannot be set: cyclictest runs with --default-system");
  }
  r->spin_ns = r->irq.spin_ns;
  run_alarm(r, p, ctx, 0u);
  run_alarm(r, p, ctx, 1u);
  native_irq_set_spin(r->spin_ns);
  (void)utim_clear(p, 0);
  (void)utim_set_compare_cb(p, NULL, NULL);
  if (qos >= 0) {
    close(qos); /* cyclictest takes its own request */
  }
  if (o.cyclictest && bench_find_program("cyclictest", r->cyclictest, sizeof r->cyclictest)) {
    r->have_ct = true;
    char prio[24] = "";
    if (r->irq.policy == SCHED_FIFO) {
      snprintf(prio, sizeof prio, " -p%d", r->irq.priority);
    }
    snprintf(r->ct_args, sizeof r->ct_args, "-t1 -d0 -i<us> -l<n>%s%s%s -v -N", prio,
             r->irq.mlocked ? " -m" : "", r->pm_qos ? "" : " --default-system");
    run_cyclictests(r);
  }
  bench_progress_done();
  rc = bench_emit(&o.out, print_table, print_json, r);
  for (unsigned s = 0; s < TO_NSIZES; s++) {
    if (!r->alarm[0][s].measured || !r->alarm[1][s].measured) {
      rc = rc != 0 ? rc : 1;
    }
  }
  (void)sem_destroy(&ctx->done);
  free(r);
  free(ctx);
  return rc;
}
