/**
 * @file opts.c
 * @brief The table-driven option parser of utim-bench and the `--help` text
 *        it prints from the same tables.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_opts.h"

#define HELP_CMD_MAX 64u
#define HELP_WIDTH   80u

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

int bench_help_written(void) {
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout) != 0) {
    fprintf(stderr, BENCH_PROG ": cannot write the help to stdout: %s\n",
            errno != 0 ? strerror(errno) : "write error");
    return 1;
  }
  return 0;
}

/* The options every subcommand has, stored in its bench_output_t. */
static const bench_opt_t builtin[] = {
    {.name = "--json",
     .help = "",
     .offset = offsetof(bench_output_t, json),
     .kind = BENCH_OPT_FLAG},
    {.name = "--output",
     .arg = "FILE",
     .help = "write the result to FILE instead of stdout ('-': stdout)",
     .offset = offsetof(bench_output_t, out),
     .kind = BENCH_OPT_FILE,
     .short_name = 'o',
     .dash_stdout = true},
    {.name = "--json-out",
     .arg = "FILE",
     .help = "also write the JSON document to FILE",
     .offset = offsetof(bench_output_t, json_out),
     .kind = BENCH_OPT_FILE},
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

/* An option's name as the user may write it: "-o/--output" or "--runs". */
static void opt_label(const bench_opt_t *o, char *buf, size_t cap) {
  if (o->short_name != '\0') {
    snprintf(buf, cap, "-%c/%s", o->short_name, o->name);
  } else {
    snprintf(buf, cap, "%s", o->name);
  }
}

/* "-o, --output FILE" as the help lists it. */
static void opt_synopsis(const bench_opt_t *o, char *buf, size_t cap) {
  char sh[8] = "";
  if (o->short_name != '\0') {
    snprintf(sh, sizeof sh, "-%c, ", o->short_name);
  }
  snprintf(buf, cap, "%s%s%s%s", sh, o->name, o->arg != NULL ? " " : "",
           o->arg != NULL ? o->arg : "");
}

/* What a value must be, for messages: "a number from 3 to 10000". */
static void value_what(const bench_opt_t *o, char *buf, size_t cap) {
  if (o->kind == BENCH_OPT_UINT) {
    snprintf(buf, cap, "a number from %lu to %lu", o->lo, o->hi);
  } else if (o->kind == BENCH_OPT_WORD && o->choices != NULL) {
    size_t n = (size_t)snprintf(buf, cap, "one of");
    for (size_t i = 0; o->choices[i] != NULL && n < cap; i++) {
      n += (size_t)snprintf(buf + n, cap - n, "%s %s", i == 0u ? "" : ",", o->choices[i]);
    }
  } else if (o->kind == BENCH_OPT_WORD) {
    snprintf(buf, cap, "a name");
  } else {
    snprintf(buf, cap, "a file name");
  }
}

static void print_opt(FILE *f, const bench_opt_t *o, const char *help, int col) {
  char syn[64];
  opt_synopsis(o, syn, sizeof syn);
  fprintf(f, "  %-*s", col - 2, syn);
  const char *h = help;
  size_t len = strcspn(h, "\n");
  while (h[len] != '\0') {
    fprintf(f, "%.*s\n%*s", (int)len, h, col, "");
    h += len + 1u;
    len = strcspn(h, "\n");
  }
  fprintf(f, "%.*s", (int)len, h);
  if (o->kind == BENCH_OPT_UINT) {
    char range[64];
    int n = snprintf(range, sizeof range, "; N from %lu to %lu", o->lo, o->hi);
    /* On the last line when it fits, else on a line of its own. */
    if ((size_t)col + len + (size_t)n > HELP_WIDTH) {
      fprintf(f, "\n%*s%s", col, "", range + 2);
    } else {
      fputs(range, f);
    }
  }
  fputc('\n', f);
}

/* Adds " [-o FILE]" to the usage line, wrapping under the first option. */
static void usage_item(FILE *f, const bench_opt_t *o, size_t indent, size_t *col) {
  char syn[64];
  char sh[4] = {'-', o->short_name, '\0', '\0'};
  snprintf(syn, sizeof syn, "%s%s%s", o->short_name != '\0' ? sh : o->name,
           o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "");
  size_t len = strlen(syn) + 3u;
  if (*col + len > HELP_WIDTH) {
    fprintf(f, "\n%*s", (int)indent, "");
    *col = indent - 1u;
  }
  fprintf(f, " [%s]", syn);
  *col += len;
}

static void print_help(const bench_cli_t *cli) {
  FILE *f = stdout;
  char syn[64];
  int n = fprintf(f, "usage: " BENCH_PROG " %s", cli->cmd);
  size_t col = n > 0 ? (size_t)n : 0u;
  const size_t indent = col + 1u;
  for (size_t i = 0; i < NBUILTIN + cli->nopts; i++) {
    const bench_opt_t *o = i < NBUILTIN ? &builtin[i] : &cli->opts[i - NBUILTIN];
    if (o->help != NULL) {
      usage_item(f, o, indent, &col);
    }
  }
  fputs("\n\n", f);
  cli->describe(f);
  /* The help texts start in one column, past the longest synopsis. */
  size_t w = strlen("-h, --help");
  for (size_t i = 0; i < NBUILTIN + cli->nopts; i++) {
    const bench_opt_t *o = i < NBUILTIN ? &builtin[i] : &cli->opts[i - NBUILTIN];
    opt_synopsis(o, syn, sizeof syn);
    w = o->help != NULL && strlen(syn) > w ? strlen(syn) : w;
  }
  const int hcol = (int)w + 4;
  fputs("\noptions:\n", f);
  print_opt(f, &builtin[0], cli->json_help, hcol);
  for (size_t i = 0; i < cli->nopts; i++) {
    if (cli->opts[i].help != NULL) {
      print_opt(f, &cli->opts[i], cli->opts[i].help, hcol);
    }
  }
  for (size_t i = 1; i < NBUILTIN; i++) {
    print_opt(f, &builtin[i], builtin[i].help, hcol);
  }
  fprintf(f, "  %-*sshow this help\n", hcol - 2, "-h, --help");
}

/* Finds the option argument @p a names; *base tells which structure it fills. */
static const bench_opt_t *find_opt(const bench_cli_t *cli, const char *a, void *opts,
                                   bench_output_t *out, void **base) {
  const bool is_long = a[1] == '-';
  const size_t n = is_long ? strcspn(a, "=") : 0u;
  for (size_t i = 0; i < NBUILTIN + cli->nopts; i++) {
    const bench_opt_t *o = i < NBUILTIN ? &builtin[i] : &cli->opts[i - NBUILTIN];
    const bool hit = is_long ? strlen(o->name) == n && strncmp(a, o->name, n) == 0
                             : o->short_name != '\0' && a[1] == o->short_name;
    if (hit) {
      *base = i < NBUILTIN ? (void *)out : opts;
      return o;
    }
  }
  return NULL;
}

/* Stores value @p v of option @p o; returns an exit status after a message, or BENCH_CLI_RUN. */
static int store(const bench_opt_t *o, const char *v, void *base, const char *help_cmd) {
  char label[48];
  char what[64];
  opt_label(o, label, sizeof label);
  value_what(o, what, sizeof what);
  uint8_t *dst = (uint8_t *)base + o->offset;
  /* "-" alone is stdout where allowed; "-5" is a (refused) number; any other
   * leading '-' is taken for an option the user meant to give separately. */
  const bool dash = strcmp(v, "-") == 0;
  const bool negative = v[0] == '-' && v[1] >= '0' && v[1] <= '9';
  if (v[0] == '-' && !(dash && o->dash_stdout) && !(negative && o->kind == BENCH_OPT_UINT)) {
    if (o->kind == BENCH_OPT_FILE && !dash) {
      return bench_usage_error(help_cmd,
                               "option '%s' needs a file name, got '%s', which looks like an "
                               "option; for a file whose name starts with '-', write './%s'",
                               label, v, v);
    }
    if (o->kind == BENCH_OPT_FILE) {
      return bench_usage_error(help_cmd,
                               "option '%s' needs a file name, got '-'; use --json to print the "
                               "JSON document on stdout",
                               label);
    }
    return bench_usage_error(help_cmd, "option '%s' needs %s, got '%s', which looks like an option",
                             label, what, v);
  }
  if (o->kind == BENCH_OPT_WORD) {
    bool ok = v[0] != '\0' && o->choices == NULL;
    for (size_t i = 0; o->choices != NULL && o->choices[i] != NULL; i++) {
      ok = ok || strcmp(v, o->choices[i]) == 0;
    }
    if (!ok) {
      return bench_usage_error(help_cmd, "option '%s' needs %s, got '%s'", label, what, v);
    }
    memcpy(dst, &v, sizeof v);
    return BENCH_CLI_RUN;
  }
  if (o->kind == BENCH_OPT_FILE) {
    if (v[0] == '\0') {
      return bench_usage_error(help_cmd, "option '%s' needs a file name, got ''", label);
    }
    memcpy(dst, &v, sizeof v);
    return BENCH_CLI_RUN;
  }
  /* BENCH_OPT_UINT: decimal digits only, so "+3", " 3" and "3x" are refused. */
  char *end = NULL;
  errno = 0;
  unsigned long x = v[0] >= '0' && v[0] <= '9' ? strtoul(v, &end, 10) : 0u;
  if (end == NULL || *end != '\0' || errno != 0 || x < o->lo || x > o->hi) {
    return bench_usage_error(help_cmd, "option '%s' needs %s, got '%s'", label, what, v);
  }
  memcpy(dst, &x, sizeof x);
  return BENCH_CLI_RUN;
}

int bench_cli_parse(const bench_cli_t *cli, int argc, char **argv, void *opts,
                    bench_output_t *out) {
  char help_cmd[HELP_CMD_MAX];
  snprintf(help_cmd, sizeof help_cmd, BENCH_PROG " %s", cli->cmd);
  *out = (bench_output_t){0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      print_help(cli);
      return bench_help_written();
    }
    if (a[0] != '-' || a[1] == '\0') {
      return bench_usage_error(help_cmd, "unexpected argument '%s'", a);
    }
    void *base = NULL;
    const bench_opt_t *o = find_opt(cli, a, opts, out, &base);
    const bool is_long = a[1] == '-';
    if (o == NULL) {
      return bench_usage_error(help_cmd, "unknown option '%.*s'",
                               (int)(is_long ? strcspn(a, "=") : strlen(a)), a);
    }
    /* The value: "--opt=V", "-oV" / "-o=V", or the next argument. */
    const char *inl = is_long ? strchr(a, '=') : (a[2] != '\0' ? a + 2 : NULL);
    if (inl != NULL && *inl == '=') {
      inl++;
    }
    char label[48];
    opt_label(o, label, sizeof label);
    if (o->kind == BENCH_OPT_FLAG) {
      if (inl != NULL) {
        return bench_usage_error(help_cmd, "option '%s' takes no value, got '%s'", label, a);
      }
      const bool yes = true;
      memcpy((uint8_t *)base + o->offset, &yes, sizeof yes);
      continue;
    }
    if (inl == NULL && i + 1 >= argc) {
      char what[64];
      value_what(o, what, sizeof what);
      return bench_usage_error(help_cmd, "option '%s' needs a value: %s", label, what);
    }
    int rc = store(o, inl != NULL ? inl : argv[++i], base, help_cmd);
    if (rc != BENCH_CLI_RUN) {
      return rc;
    }
  }
  return bench_output_open(out) == 0 ? BENCH_CLI_RUN : 1;
}
