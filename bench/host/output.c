/**
 * @file output.c
 * @brief Where a run's result goes: the output files, opened before the
 *        measurement and written after it, and the frame every result
 *        shares (table title and machine lines; JSON "benchmark", "machine").
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_host.h"

/* Opens @p path for writing: created (*created) or existing, never truncated here. */
static FILE *open_out(const char *path, bool *created) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  *created = fd >= 0;
  if (fd < 0 && errno == EEXIST) {
    fd = open(path, O_WRONLY | O_CLOEXEC);
  }
  if (fd < 0) {
    return NULL;
  }
  FILE *f = fdopen(fd, "w");
  if (f == NULL) {
    int e = errno;
    close(fd);
    if (*created) {
      (void)unlink(path);
    }
    errno = e;
  }
  return f;
}

/* The files this run created and has not yet written: removed when a signal
 * ends the run (Ctrl-C, kill), as a failed run removes them, so that no
 * empty result is left behind for tools/report.py to read. */
static const char *volatile unfinished[2];

static void on_fatal_signal(int sig) {
  for (size_t i = 0; i < sizeof unfinished / sizeof unfinished[0]; i++) {
    if (unfinished[i] != NULL) {
      (void)unlink(unfinished[i]);
    }
  }
  (void)raise(sig); /* SA_RESETHAND: the default action, the usual exit status */
}

static void watch_unfinished(const bench_output_t *o) {
  unfinished[0] = o->out_f != NULL && o->out_f != stdout && o->out_new ? o->out : NULL;
  unfinished[1] = o->json_f != NULL && o->json_new ? o->json_out : NULL;
  if (unfinished[0] == NULL && unfinished[1] == NULL) {
    return;
  }
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = (int)SA_RESETHAND;
  (void)sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old;
    /* A signal the caller ignores (nohup, a background job) stays ignored. */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
      (void)sigaction(sigs[i], &sa, NULL);
    }
  }
}

static void forget_unfinished(void) {
  unfinished[0] = NULL;
  unfinished[1] = NULL;
}

/* Closes @p f, removing @p path when this run created it. */
static void drop(FILE **f, const char *path, bool created) {
  if (*f != NULL && *f != stdout) {
    (void)fclose(*f);
    if (created) {
      (void)unlink(path);
    }
  }
  *f = NULL;
}

static bool regular(FILE *f, struct stat *st) {
  return fstat(fileno(f), st) == 0 && S_ISREG(st->st_mode);
}

/* open_out() with the error said: what @p what is, which @p option named @p path. */
static FILE *open_named(const char *path, bool *created, const char *what, const char *option) {
  FILE *f = open_out(path, created);
  if (f == NULL) {
    fprintf(stderr,
            BENCH_PROG ": cannot write %s to '%s' (option %s): %s; name a file in a directory "
                       "that exists and that you may write to (nothing was measured)\n",
            what, path, option, strerror(errno));
  }
  return f;
}

int bench_output_open(bench_output_t *o) {
  o->out_f = stdout;
  o->json_f = NULL;
  if (o->out != NULL && strcmp(o->out, "-") != 0) {
    o->out_f = open_named(o->out, &o->out_new, "the result", "-o/--output");
    if (o->out_f == NULL) {
      return 1;
    }
  }
  if (o->json_out != NULL) {
    o->json_f = open_named(o->json_out, &o->json_new, "the JSON document", "--json-out");
    if (o->json_f == NULL) {
      bench_output_discard(o);
      return 1;
    }
    /* Both outputs in one file would overwrite each other. */
    struct stat a;
    struct stat b;
    if (regular(o->out_f, &a) && regular(o->json_f, &b) && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
      fprintf(stderr,
              BENCH_PROG ": the result (%s) and --json-out '%s' are the same file; name two "
                         "different files, or drop --json-out and use --json (nothing was "
                         "measured)\n",
              o->out_f == stdout ? "stdout" : "-o", o->json_out);
      bench_output_discard(o);
      return 1;
    }
  }
  watch_unfinished(o);
  return 0;
}

void bench_output_discard(bench_output_t *o) {
  forget_unfinished();
  drop(&o->out_f, o->out, o->out_new);
  drop(&o->json_f, o->json_out, o->json_new);
}

FILE *bench_output_live(bench_output_t *o) {
  struct stat st;
  if (o->json || o->out_f == NULL) {
    return NULL;
  }
  if (o->out_f != stdout && !o->out_new && regular(o->out_f, &st)) {
    /* Nothing was written yet: the stream is at 0, where the cut leaves it. */
    if (fflush(o->out_f) != 0 || ftruncate(fileno(o->out_f), 0) != 0) {
      return NULL;
    }
    o->out_new = true;
    watch_unfinished(o);
  }
  return o->out_f;
}

static void write_json(FILE *f, const bench_writer_t *wr, const bench_machine_t *m, const void *r) {
  bench_jw_t w = {.f = f};
  bench_jw_object(&w, NULL);
  bench_jw_str(&w, "benchmark", wr->name);
  bench_jw_object(&w, "machine");
  bench_jw_machine(&w, m);
  if (wr->json_machine != NULL) {
    wr->json_machine(&w, r);
  }
  bench_jw_end(&w);
  wr->json(&w, r);
  bench_jw_end(&w);
  fputc('\n', f);
}

/* Writes one output from its start; returns 0, or 1 after a message. */
static int write_one(FILE *f, const char *path, const char *what, bool json,
                     const bench_writer_t *wr, const bench_machine_t *m, const void *r) {
  struct stat st;
  /* The file was opened without truncation, so that a failed run leaves it alone.
   * Cut it where this run's own output ends (stress's live reports went
   * before the result): truncating to 0 would leave the stream's position
   * past the end, and the result would follow that many NUL bytes. */
  off_t keep = (fflush(f) == 0) ? ftello(f) : -1;
  if (f != stdout && regular(f, &st) && (keep < 0 || ftruncate(fileno(f), keep) != 0)) {
    fprintf(stderr, BENCH_PROG ": cannot truncate '%s' (%s): %s\n", path, what, strerror(errno));
    return 1;
  }
  errno = 0;
  if (json) {
    write_json(f, wr, m, r);
  } else {
    fprintf(f, BENCH_PROG " %s: %s\n", wr->name, wr->title);
    bench_print_machine(f, m);
    wr->table(f, r);
  }
  const bool bad = ferror(f) != 0;
  const int closed = f == stdout ? fflush(f) : fclose(f);
  if (bad || closed != 0) {
    fprintf(stderr, BENCH_PROG ": cannot write '%s' (%s): %s\n", path, what,
            errno != 0 ? strerror(errno) : "write error");
    return 1;
  }
  return 0;
}

int bench_output_write(bench_output_t *o, const bench_writer_t *wr, const bench_machine_t *m,
                       const void *r) {
  int rc =
      write_one(o->out_f, o->out_f == stdout ? "stdout" : o->out, "-o/--output", o->json, wr, m, r);
  if (o->json_f != NULL && write_one(o->json_f, o->json_out, "--json-out", true, wr, m, r) != 0) {
    rc = 1;
  }
  forget_unfinished();
  o->out_f = NULL;
  o->json_f = NULL;
  return rc;
}
