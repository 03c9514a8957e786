/**
 * @file callgrind.c
 * @brief Finding programs in PATH, and counting instructions by running
 *        this program again under valgrind --tool=callgrind.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_host.h"

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

/* The child a signal is passed on to, and the signal that arrived. */
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t child_sig;
static const int child_sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void pass_on(int sig) {
  child_sig = sig;
  const pid_t pid = (pid_t)child_pid;
  if (pid > 0) {
    (void)kill(pid, sig);
  }
}

void bench_child_guard(bench_child_guard_t *g) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = pass_on;
  sa.sa_flags = (int)SA_RESTART; /* the reads of the child's output go on */
  (void)sigemptyset(&sa.sa_mask);
  child_pid = 0;
  child_sig = 0;
  for (size_t i = 0; i < sizeof child_sigs / sizeof child_sigs[0]; i++) {
    g->set[i] = sigaction(child_sigs[i], NULL, &g->old[i]) == 0 &&
                g->old[i].sa_handler != SIG_IGN && sigaction(child_sigs[i], &sa, NULL) == 0;
  }
}

int bench_child_wait(pid_t pid, int *status) {
  child_pid = pid;
  if (child_sig != 0) {
    (void)kill(pid, child_sig); /* it arrived before the child's pid was known */
  }
  *status = 0;
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  child_pid = 0;
  return child_sig;
}

void bench_child_unguard(bench_child_guard_t *g) {
  for (size_t i = 0; i < sizeof child_sigs / sizeof child_sigs[0]; i++) {
    if (g->set[i]) {
      (void)sigaction(child_sigs[i], &g->old[i], NULL);
    }
  }
  const int sig = child_sig;
  child_sig = 0;
  if (sig != 0) {
    (void)raise(sig);
  }
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
  return bench_callgrind_exe(valgrind, NULL, args, toggle, names, n, incl, err, errcap);
}

int bench_callgrind_exe(const char *valgrind, const char *exe, char *const *args,
                        const char *toggle, const char *const *names, size_t n, uint64_t *incl,
                        char *err, size_t errcap) {
  char self[4096];
  if (exe != NULL) {
    snprintf(self, sizeof self, "%s", exe);
  } else {
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1u);
    if (len <= 0) {
      snprintf(err, errcap, "cannot find this program's path: %s", strerror(errno));
      return -1;
    }
    self[len] = '\0';
  }
  /* From here a Ctrl-C or kill ends valgrind too and leaves no directory behind. */
  bench_child_guard_t guard;
  bench_child_guard(&guard);
  char dir[] = "/tmp/utim-bench-cg-XXXXXX";
  if (mkdtemp(dir) == NULL) {
    snprintf(err, errcap, "cannot create a temporary directory: %s", strerror(errno));
    bench_child_unguard(&guard);
    return -1;
  }
  char out[sizeof dir + 16];
  char log[sizeof dir + 16];
  snprintf(out, sizeof out, "%s/cg.out", dir);
  snprintf(log, sizeof log, "%s/cg.log", dir);
  char opt_out[sizeof out + 32];
  /* One --toggle-collect per comma-separated pattern: a function matching a
   * second pattern inside one matching the first toggles collection off for
   * its own span (a model of hardware the measured code calls into). */
  char opt_toggle[4][128];
  size_t ntoggle = 0;
  snprintf(opt_out, sizeof opt_out, "--callgrind-out-file=%s", out);
  for (const char *t = toggle; *t != '\0' && ntoggle < 4u;) {
    const size_t plen = strcspn(t, ",");
    snprintf(opt_toggle[ntoggle++], sizeof opt_toggle[0], "--toggle-collect=%.*s", (int)plen, t);
    t += plen + (t[plen] == ',' ? 1u : 0u);
  }

  char *argv[32];
  size_t a = 0;
  argv[a++] = (char *)valgrind;
  argv[a++] = "--tool=callgrind";
  argv[a++] = opt_out;
  for (size_t i = 0; i < ntoggle; i++) {
    argv[a++] = opt_toggle[i];
  }
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
    bench_child_unguard(&guard);
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
  if (bench_child_wait(pid, &status) != 0) {
    (void)unlink(out);
    (void)unlink(log);
    (void)rmdir(dir);
    bench_child_unguard(&guard); /* ends the program, as the signal would have */
    snprintf(err, errcap, "interrupted by a signal");
    return -1;
  }
  bench_child_unguard(&guard);
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
