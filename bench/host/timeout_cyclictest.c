/**
 * @file timeout_cyclictest.c
 * @brief `utim-bench timeout`: cyclictest (rt-tests) run with the alarm's
 *        interval, count, priority and memory locking, its per-wake-up
 *        latencies read from its -v output.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeout.h"

/* Runs cyclictest with @p args; fills @p v with its latencies (ns), returns the count or -errno. */
static long run_cyclictest(const bench_to_report_t *r, char *const *args, double *v,
                           unsigned long cap, int *status) {
  int fds[2];
  if (pipe(fds) != 0) {
    return -errno;
  }
  bench_child_guard_t guard;
  bench_child_guard(&guard);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    bench_child_unguard(&guard);
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
  (void)bench_child_wait(pid, status);
  bench_child_unguard(&guard); /* a signal that arrived ends the program here */
  return n;
}

static void run_cyclictests(bench_to_report_t *r) {
  double *v = bench_sample_buffer(r->o->samples, BENCH_TO_NSIZES);
  for (unsigned s = 0; s < BENCH_TO_NSIZES; s++) {
    bench_to_row_t *row = &r->ct[s];
    row->irq_cpu = -1.0;
    if (v == NULL) {
      row->error = ENOMEM;
      continue;
    }
    bench_progress("timeout: cyclictest, %lld us x %lu", (long long)bench_to_sizes_us[s],
                   r->o->samples[s]);
    char interval[32];
    char loops[32];
    char prio[32];
    snprintf(interval, sizeof interval, "-i%lld", (long long)bench_to_sizes_us[s]);
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
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      /* An exit status, not an errno: kept apart so that it is not printed as one. */
      row->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else if (n == 0) {
      row->error = ENODATA;
    } else if (r->o->histogram != 0u &&
               bench_hist_fill(&row->hist, v, (size_t)n, (unsigned)r->o->histogram) != 0) {
      row->error = ENOMEM;
    } else {
      bench_stats(v, (size_t)n, &row->st); /* sorts v: the histogram first */
      row->measured = true;
    }
  }
  free(v);
}

void bench_to_cyclictest(bench_to_report_t *r) {
  char prio[24] = "";
  if (r->irq.policy == SCHED_FIFO) {
    snprintf(prio, sizeof prio, " -p%d", r->irq.priority);
  }
  snprintf(r->ct_args, sizeof r->ct_args, "-t1 -d0 -i<us> -l<n>%s%s%s -v -N", prio,
           r->irq.mlocked ? " -m" : "", r->pm_qos ? "" : " --default-system");
  run_cyclictests(r);
}
