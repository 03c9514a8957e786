/**
 * @file diff_shrink.c
 * @brief Shrinking and hangs for differential_sim: a failing sequence is
 *        shrunk by delta debugging and printed as readable operations; a
 *        sequence that does not finish is saved by the SIGALRM handler and
 *        shrunk by a fresh process in replay mode, in child processes a timer kills.
 */
/* fork(), setitimer() and friends; _XOPEN_SOURCE comes from CMake */

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"

static op_t shrink_buf[MAX_SEQ];
static op_t try_buf[MAX_SEQ];

/* Whether ops[0..n) still fails the same way; may lower *n to the failing prefix. */
typedef bool (*fails_fn)(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t *n, unsigned sig);

static bool fails_same(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t *n, unsigned sig) {
  long f = replay(x, h, ops, *n);
  if (f < 0 || x->sig != sig) {
    return false;
  }
  if ((size_t)f < *n) {
    *n = (size_t)f + 1u;
  }
  return true;
}

/* A replay in a child process that the wall-clock alarm kills. */
/* NOLINTNEXTLINE(readability-non-const-parameter): shares fails_fn's signature */
static bool hangs(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t *n, unsigned sig) {
  (void)sig;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    struct itimerval it = {{0, 0}, {0, 300000}};
    signal(SIGALRM, SIG_DFL);
    setitimer(ITIMER_REAL, &it, NULL); /* a replay normally takes well under 1 ms */
    (void)replay(x, h, ops, *n);
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    return false;
  }
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
}

/* Delta debugging: drop chunks, then single operations, while it still fails. */
static size_t shrink(ctx_t *x, const seq_hdr_t *h, size_t n, unsigned *replays, fails_fn fails) {
  const unsigned sig = x->sig;
  size_t chunk = n / 2 ? n / 2 : 1;
  const unsigned budget = fails == hangs ? 2000u : SHRINK_BUDGET;
  while (*replays < budget) {
    bool changed = false;
    for (size_t start = 0; start < n && *replays < budget;) {
      size_t end = start + chunk < n ? start + chunk : n;
      size_t m = 0;
      for (size_t i = 0; i < n; i++) {
        if (i < start || i >= end) {
          try_buf[m++] = shrink_buf[i];
        }
      }
      (*replays)++;
      if (fails(x, h, try_buf, &m, sig)) {
        n = m;
        memcpy(shrink_buf, try_buf, n * sizeof(op_t));
        changed = true;
      } else {
        start = end;
      }
    }
    if (!changed) {
      if (chunk == 1) {
        break;
      }
      chunk /= 2;
    } else if (chunk > n / 2 && n > 1) {
      chunk = n / 2;
    }
  }
  return n;
}

void report_failure(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t fail, uint64_t seed,
                    uint64_t seqno) {
  printf("# FAIL on %s: seed %" PRIu64 ", sequence %" PRIu64 ", operation %zu\n",
         doc_shapes[h->shape].name, seed, seqno, fail);
  printf("# %s", x->msg);
  size_t n = fail + 1u;
  memcpy(shrink_buf, ops, n * sizeof(op_t));
  unsigned replays = 0;
  n = shrink(x, h, n, &replays, fails_same);
  printf("# shortest failing sequence found (%zu operations, %u replays); start: sim_reset(), "
         "access cost 0, relax %u ns, utim_init(%" PRIu32 ", 0x%x), compare cb arg 0x%" PRIxPTR
         ":\n",
         n, replays, RELAX_NS, h->hz, h->clock, h->cmp_arg);
  x->verbose = true;
  long f = replay(x, h, shrink_buf, n);
  x->verbose = false;
  if (f >= 0) {
    printf("# difference:\n# %s", x->msg);
  } else {
    printf("# (the shrunk sequence no longer fails on replay)\n");
  }
}

const char *hang_self;
unsigned hang_tap, hang_passed, hang_failed; /* results so far, for the replay */
ctx_t g_ctx;
seq_hdr_t hang_hdr;
const op_t *hang_ops;
volatile size_t hang_n;
uint64_t hang_seed, hang_seqno;

/* Decimal digits of @p v into @p b (no NUL); async-signal-safe. */
static size_t fmt_u64(char *b, uint64_t v) {
  char t[20];
  size_t n = 0;
  do {
    t[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0u);
  for (size_t k = 0; k < n; k++) {
    b[k] = t[n - 1u - k];
  }
  return n;
}

/*
 * A sequence did not finish: the implementation is stuck inside an operation
 * and nothing in this process can be trusted any more. Save the sequence and
 * start afresh in replay mode, which reports and shrinks it in child
 * processes. Only async-signal-safe calls here (open, write, execv, _exit).
 */
static void on_alarm(int signo) {
  (void)signo;
  static const char prefix[] = "/tmp/utim_diff_hang.";
  char path[64];
  size_t len = sizeof(prefix) - 1u;
  memcpy(path, prefix, len);
  len += fmt_u64(path + len, (uint64_t)getpid());
  path[len] = '\0';
  /* "tap,passed,failed,seed,seqno,op" for the replay's report */
  char info[128];
  const uint64_t vals[] = {hang_tap + 1u, hang_passed, hang_failed,
                           hang_seed,     hang_seqno,  hang_n - 1u};
  size_t il = 0;
  for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
    il += fmt_u64(info + il, vals[k]);
    info[il++] = k + 1u < sizeof(vals) / sizeof(vals[0]) ? ',' : '\0';
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  size_t n = hang_n;
  if (fd < 0 || write(fd, &hang_hdr, sizeof(hang_hdr)) != (ssize_t)sizeof(hang_hdr) ||
      write(fd, &n, sizeof(n)) != (ssize_t)sizeof(n) ||
      write(fd, hang_ops, sizeof(op_t) * n) != (ssize_t)(sizeof(op_t) * n) || close(fd) != 0) {
    _exit(1);
  }
  char *const args[] = {(char *)hang_self, (char *)"--replay-hang", path, info, NULL};
  execv(hang_self, args);
  _exit(1);
}

void hang_install(void) {
  /* Installed here, next to the handler, where the checks can see that it
   * only makes async-signal-safe calls. */
  signal(SIGALRM, on_alarm);
}

/* @p counts: "tap,passed,failed,seed,seqno,op" of the process that saw the hang. */
int replay_hang(const char *path, const char *counts) {
  unsigned tap = 1;
  unsigned passed = 0;
  unsigned failed = 0;
  unsigned long long seed = 0;
  unsigned long long seqno = 0;
  unsigned long long opno = 0;
  unsigned long long v[6] = {1, 0, 0, 0, 0, 0};
  const char *c = counts;
  for (size_t k = 0; k < 6u && *c != '\0'; k++) {
    char *end = NULL;
    v[k] = strtoull(c, &end, 10);
    c = (*end == ',') ? end + 1 : end;
  }
  tap = (unsigned)v[0];
  passed = (unsigned)v[1];
  failed = (unsigned)v[2];
  seed = v[3];
  seqno = v[4];
  opno = v[5];
  seq_hdr_t h;
  size_t n = 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL || fread(&h, sizeof(h), 1, f) != 1 || fread(&n, sizeof(n), 1, f) != 1 ||
      n > MAX_SEQ || fread(shrink_buf, sizeof(op_t), n, f) != n) {
    printf("# cannot read %s\nnot ok %u - hang\n%u passed, %u failed\n", path, tap, passed,
           failed + 1u);
    return 1;
  }
  fclose(f);
  remove(path);
  printf("# HANG on %s: seed %llu, sequence %llu, operation %llu did not return within %u s\n",
         doc_shapes[h.shape].name, seed, seqno, opno, HANG_S);
  unsigned replays = 0;
  g_ctx.sig = 0;
  if (hangs(&g_ctx, &h, shrink_buf, &n, 0)) {
    n = shrink(&g_ctx, &h, n, &replays, hangs);
    printf("# shortest hanging sequence found (%zu operations, %u replays)", n, replays);
  } else {
    printf("# the sequence does not hang when replayed in a fresh process (state kept across "
           "sequences?); it was (%zu operations)",
           n);
  }
  printf("; start: sim_reset(), access cost 0, relax %u ns, utim_init(%" PRIu32 ", 0x%x), compare "
         "cb arg 0x%" PRIxPTR ":\n",
         RELAX_NS, h.hz, h.clock, h.cmp_arg);
  g_ctx.verbose = true;
  if (hangs(&g_ctx, &h, shrink_buf, &n, 0)) {
    printf("# (the last operation does not return)\n");
  }
  printf("not ok %u - %s differential: hangs\n%u passed, %u failed\n", tap,
         doc_shapes[h.shape].name, passed, failed + 1u);
  return 1;
}
