/**
 * @file host_util.c
 * @brief Host services of utim-bench: clocks, machine description,
 *        argument helpers, JSON strings, callgrind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_host.h"

#ifndef UTIM_BENCH_BUILD_TYPE
#define UTIM_BENCH_BUILD_TYPE "unknown"
#endif

int bench_usage_error(const char *help_cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(BENCH_PROG ": ", stderr);
  /* va_start is right above: clang-tidy 14's analyzer misreads it here. */
  vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
  va_end(ap);
  fprintf(stderr, "; see '%s --help'\n", help_cmd);
  return BENCH_EXIT_USAGE;
}

bool bench_parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out) {
  if (s == NULL || *s < '0' || *s > '9') {
    return false;
  }
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) {
    return false;
  }
  *out = v;
  return true;
}

int64_t bench_clock_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    return 0;
  }
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t mono_ns(void) {
  return (uint64_t)bench_clock_ns(CLOCK_MONOTONIC);
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

const char *bench_opt_value(int argc, char **argv, int *i, const char *name, bool *matched) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  *matched = false;
  if (strncmp(a, name, n) != 0) {
    return NULL;
  }
  if (a[n] == '=') {
    *matched = true;
    return a + n + 1;
  }
  if (a[n] != '\0') {
    return NULL;
  }
  *matched = true;
  if (*i + 1 >= argc) {
    return NULL;
  }
  *i += 1;
  return argv[*i];
}

void bench_json_num(FILE *f, bool valid, double v) {
  if (valid) {
    fprintf(f, "%.3f", v);
  } else {
    fputs("null", f);
  }
}

static bool progress_on;

void bench_progress_init(void) {
  progress_on = isatty(2) != 0;
}

void bench_progress(const char *fmt, ...) {
  if (progress_on) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): as above
    va_end(ap);
    fflush(stderr);
  }
}

void bench_progress_done(void) {
  if (progress_on) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
  }
}

bool bench_parse_output(int argc, char **argv, int *i, const char *help_cmd, bench_output_t *o,
                        int *rc) {
  const char *a = argv[*i];
  bool m = false;
  const char *v;
  if (strcmp(a, "--json") == 0) {
    o->json = true;
  } else if ((v = bench_opt_value(argc, argv, i, "--json-out", &m)) != NULL || m) {
    if (v == NULL || *v == '\0') {
      *rc = bench_usage_error(help_cmd, "option '--json-out' needs a file name");
    }
    o->json_out = v;
  } else if ((v = bench_opt_value(argc, argv, i, "--output", &m)) != NULL || m ||
             (v = bench_opt_value(argc, argv, i, "-o", &m)) != NULL || m) {
    if (v == NULL || *v == '\0') {
      *rc = bench_usage_error(help_cmd, "option '-o/--output' needs a file name");
    }
    o->out = v;
  } else if (strncmp(a, "-o", 2) == 0 && a[2] != '\0') {
    o->out = a + 2;
  } else {
    return false;
  }
  return true;
}

int bench_emit(const bench_output_t *o, void (*table)(FILE *f, const void *r),
               void (*json)(FILE *f, const void *r), const void *r) {
  FILE *out = stdout;
  if (o->out != NULL && strcmp(o->out, "-") != 0) {
    out = fopen(o->out, "w");
    if (out == NULL) {
      fprintf(stderr, BENCH_PROG ": cannot open '%s' for writing: %s\n", o->out, strerror(errno));
      return 1;
    }
  }
  if (o->json) {
    json(out, r);
  } else {
    table(out, r);
  }
  int rc = 0;
  if (out != stdout) {
    if (fclose(out) != 0) {
      fprintf(stderr, BENCH_PROG ": cannot write '%s': %s\n", o->out, strerror(errno));
      rc = 1;
    }
  } else if (fflush(stdout) != 0) {
    rc = 1;
  }
  if (o->json_out != NULL) {
    FILE *jf = fopen(o->json_out, "w");
    if (jf == NULL) {
      fprintf(stderr, BENCH_PROG ": cannot open '%s': %s\n", o->json_out, strerror(errno));
      return 1;
    }
    json(jf, r);
    if (fclose(jf) != 0) {
      fprintf(stderr, BENCH_PROG ": cannot write '%s': %s\n", o->json_out, strerror(errno));
      return 1;
    }
  }
  return rc;
}

void bench_json_machine_fields(FILE *f, const bench_machine_t *m) {
  fputs("\"cpu\":", f);
  bench_json_string(f, m->cpu);
  fputs(",\"arch\":", f);
  bench_json_string(f, m->arch);
  fputs(",\"compiler\":", f);
  bench_json_string(f, m->compiler);
  fputs(",\"build\":", f);
  bench_json_string(f, m->build);
  fprintf(f, ",\"tsc\":%s,\"tsc_invariant\":%s,\"tsc_hz\":", m->tsc ? "true" : "false",
          m->tsc_invariant ? "true" : "false");
  bench_json_num(f, m->tsc, m->tsc_hz);
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

void bench_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      fprintf(f, "\\%c", *c);
    } else if (*c < 0x20u) {
      fprintf(f, "\\u%04x", *c);
    } else {
      fputc(*c, f);
    }
  }
  fputc('"', f);
}

bool bench_find_program(const char *name, char *path, size_t cap) {
  const char *env = getenv("PATH");
  if (env == NULL) {
    return false;
  }
  const size_t nlen = strlen(name);
  const char *p = env;
  while (*p != '\0') {
    size_t len = strcspn(p, ":");
    if (len > 0u && len + nlen + 2u <= cap) {
      snprintf(path, cap, "%.*s/%s", (int)len, p, name);
      if (access(path, X_OK) == 0) {
        return true;
      }
    }
    p += len;
    if (*p == ':') {
      p++;
    }
  }
  return false;
}

bool bench_find_valgrind(char *path, size_t cap) {
  return bench_find_program("valgrind", path, cap);
}

/* Name of a callgrind "fn=" / "cfn=" value: "(id) name", "(id)" or "name". */
typedef struct name_map {
  char **v;
  size_t n;
} name_map_t;

static const char *map_name(name_map_t *m, const char *s) {
  if (*s != '(') {
    return s;
  }
  char *end = NULL;
  unsigned long id = strtoul(s + 1, &end, 10);
  if (end == NULL || *end != ')') {
    return s;
  }
  const char *name = end + 1;
  while (*name == ' ') {
    name++;
  }
  if (id >= m->n) {
    size_t nn = id + 64u;
    char **nv = realloc(m->v, nn * sizeof *nv);
    if (nv == NULL) {
      return "";
    }
    memset(nv + m->n, 0, (nn - m->n) * sizeof *nv);
    m->v = nv;
    m->n = nn;
  }
  if (*name != '\0' && m->v[id] == NULL) {
    m->v[id] = strdup(name);
  }
  return m->v[id] != NULL ? m->v[id] : "";
}

static bool name_matches(const char *fn, const char *want) {
  size_t n = strlen(want);
  /* Also count compiler clones such as "name.part.0". */
  return strncmp(fn, want, n) == 0 && (fn[n] == '\0' || fn[n] == '.');
}

/*
 * Inclusive cost of a function is the sum of every cost line in its fn=
 * blocks: its own lines plus the line after each calls=, which carries the
 * inclusive cost of that call.
 */
static int parse_callgrind(const char *file, const char *const *names, size_t n, uint64_t *incl,
                           char *err, size_t errcap) {
  FILE *f = fopen(file, "r");
  if (f == NULL) {
    snprintf(err, errcap, "cannot read callgrind output '%s': %s", file, strerror(errno));
    return -1;
  }
  name_map_t map = {NULL, 0};
  unsigned poscols = 1;
  int ir_col = -1;
  long cur = -1; /* index into names of the current fn, or -1 */
  char line[8192];
  for (size_t i = 0; i < n; i++) {
    incl[i] = 0;
  }
  while (fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "positions:", 10) == 0) {
      poscols = 0;
      for (char *t = strtok(line + 10, " "); t != NULL; t = strtok(NULL, " ")) {
        poscols++;
      }
    } else if (strncmp(line, "events:", 7) == 0) {
      int col = 0;
      for (char *t = strtok(line + 7, " "); t != NULL; t = strtok(NULL, " "), col++) {
        if (strcmp(t, "Ir") == 0) {
          ir_col = col;
        }
      }
    } else if (strncmp(line, "fn=", 3) == 0) {
      const char *fn = map_name(&map, line + 3);
      cur = -1;
      for (size_t i = 0; i < n; i++) {
        if (name_matches(fn, names[i])) {
          cur = (long)i;
        }
      }
    } else if (strncmp(line, "cfn=", 4) == 0) {
      (void)map_name(&map, line + 4); /* registers the id for later fn= lines */
    } else if (cur >= 0 && ir_col >= 0 &&
               (line[0] == '+' || line[0] == '-' || line[0] == '*' ||
                (line[0] >= '0' && line[0] <= '9'))) {
      char *save = NULL;
      char *t = strtok_r(line, " ", &save);
      for (unsigned k = 1; k < poscols && t != NULL; k++) {
        t = strtok_r(NULL, " ", &save);
      }
      for (int k = 0; k <= ir_col && t != NULL; k++) {
        t = strtok_r(NULL, " ", &save);
      }
      if (t != NULL) {
        incl[cur] += strtoull(t, NULL, 10);
      }
    }
  }
  for (size_t i = 0; i < map.n; i++) {
    free(map.v[i]);
  }
  free(map.v);
  fclose(f);
  if (ir_col < 0) {
    snprintf(err, errcap, "callgrind output '%s' has no Ir event", file);
    return -1;
  }
  return 0;
}

int bench_callgrind(const char *valgrind, char *const *args, const char *toggle,
                    const char *const *names, size_t n, uint64_t *incl, char *err, size_t errcap) {
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1u);
  if (len <= 0) {
    snprintf(err, errcap, "cannot find this program's path: %s", strerror(errno));
    return -1;
  }
  self[len] = '\0';
  char dir[] = "/tmp/utim-bench-cg-XXXXXX";
  if (mkdtemp(dir) == NULL) {
    snprintf(err, errcap, "cannot create a temporary directory: %s", strerror(errno));
    return -1;
  }
  char out[sizeof dir + 16];
  char log[sizeof dir + 16];
  snprintf(out, sizeof out, "%s/cg.out", dir);
  snprintf(log, sizeof log, "%s/cg.log", dir);
  char opt_out[sizeof out + 32];
  char opt_toggle[256];
  snprintf(opt_out, sizeof opt_out, "--callgrind-out-file=%s", out);
  snprintf(opt_toggle, sizeof opt_toggle, "--toggle-collect=%s", toggle);

  char *argv[32];
  size_t a = 0;
  argv[a++] = (char *)valgrind;
  argv[a++] = "--tool=callgrind";
  argv[a++] = opt_out;
  argv[a++] = opt_toggle;
  argv[a++] = "--compress-strings=no";
  argv[a++] = "--compress-pos=no";
  argv[a++] = self;
  for (size_t i = 0; args[i] != NULL && a < 31u; i++) {
    argv[a++] = args[i];
  }
  argv[a] = NULL;

  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errcap, "fork: %s", strerror(errno));
    rmdir(dir);
    return -1;
  }
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int nul = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
      dup2(fd, 2);
    }
    if (nul >= 0) {
      dup2(nul, 1);
    }
    execv(valgrind, argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(err, errcap, "callgrind run failed (status %d); its log: %s", status, log);
    return -1; /* keep the directory: the log explains the failure */
  }
  rc = parse_callgrind(out, names, n, incl, err, errcap);
  unlink(out);
  unlink(log);
  rmdir(dir);
  return rc;
}
