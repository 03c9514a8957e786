/**
 * @file bench_opts.h
 * @brief The one command-line parser of utim-bench: each subcommand declares
 *        its options in a table; parsing, error messages and the `--help`
 *        text all come from that table.
 *
 * Every subcommand also has the built-in options `--json`, `-o/--output
 * FILE`, `--json-out FILE` (stored in a bench_output_t) and `-h/--help`.
 * bench_cli_parse() opens the output files before it returns, so a bad file
 * name fails before anything is measured.
 */
#ifndef UTIM_BENCH_OPTS_H
#define UTIM_BENCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_output.h"

/** @brief Program name used in messages. */
#define BENCH_PROG "utim-bench"

/** @brief Exit status of a usage error (bad command line). */
#define BENCH_EXIT_USAGE 2

/** @brief bench_cli_parse(): the command line is good, measure. */
#define BENCH_CLI_RUN (-1)

/** @brief Text of a macro's expansion, e.g. BENCH_STR(21) is "21" (for help texts). */
#define BENCH_STR(...) BENCH_STR_(__VA_ARGS__)
/** @brief Helper of BENCH_STR(). */
#define BENCH_STR_(...) #__VA_ARGS__

/** @brief What an option takes. */
typedef enum bench_opt_kind {
  BENCH_OPT_FLAG, /**< no value; sets a `bool` to true */
  BENCH_OPT_UINT, /**< a decimal number in [lo, hi]; sets an `unsigned long` */
  BENCH_OPT_FILE, /**< a file name; sets a `const char *` */
  BENCH_OPT_WORD, /**< a word, one of `choices` when given; sets a `const char *` */
} bench_opt_kind_t;

/** @brief One option of a subcommand. */
typedef struct bench_opt {
  const char *name;           /**< long name with its dashes: "--runs" */
  const char *arg;            /**< name of the value in the help ("N", "FILE"); NULL for a flag */
  const char *help;           /**< help text, '\n' between lines; NULL: internal, not listed */
  size_t offset;              /**< offsetof() its value in the command's option structure */
  unsigned long lo;           /**< BENCH_OPT_UINT: smallest value */
  unsigned long hi;           /**< BENCH_OPT_UINT: largest value */
  bench_opt_kind_t kind;      /**< what it takes */
  char short_name;            /**< 'o' for "-o", or '\0' */
  bool dash_stdout;           /**< BENCH_OPT_FILE: "-" is accepted and means stdout */
  const char *const *choices; /**< BENCH_OPT_WORD: the words accepted (NULL-terminated), or NULL */
} bench_opt_t;

/** @brief A flag option @p name of member @p member of option structure @p type. */
#define BENCH_FLAG(name_, type, member, help_)                                                     \
  { .name = (name_), .help = (help_), .offset = offsetof(type, member), .kind = BENCH_OPT_FLAG }

/** @brief A number option taking N in [@p lo, @p hi] into `unsigned long` @p member. */
#define BENCH_UINT(name_, type, member, lo_, hi_, help_)                                           \
  {                                                                                                \
    .name = (name_), .arg = "N", .help = (help_), .offset = offsetof(type, member), .lo = (lo_),   \
    .hi = (hi_), .kind = BENCH_OPT_UINT                                                            \
  }

/**
 * @brief An option taking a word into `const char *` @p member: one of
 *        @p choices_ (a NULL-terminated list), or any non-empty word when NULL.
 */
#define BENCH_WORD(name_, arg_, type, member, choices_, help_)                                     \
  {                                                                                                \
    .name = (name_), .arg = (arg_), .help = (help_), .offset = offsetof(type, member),             \
    .kind = BENCH_OPT_WORD, .choices = (choices_)                                                  \
  }

/** @brief A subcommand's command line. */
typedef struct bench_cli {
  const char *cmd;           /**< the command word: "clock" */
  const bench_opt_t *opts;   /**< its own options (the built-in ones are implicit) */
  size_t nopts;              /**< entries in @p opts */
  const char *json_help;     /**< help of --json: the shape of the JSON document */
  void (*describe)(FILE *f); /**< prints what the command measures (--help, after the usage) */
} bench_cli_t;

/**
 * @brief Parse a subcommand's arguments and open its output files.
 *
 * Values go into @p opts at each option's offset; options not given leave
 * their member untouched, so the caller fills in defaults first. A value
 * that looks like an option ("--json-out --json") is refused, as are
 * unknown options, missing or out-of-range values and stray arguments.
 *
 * @param cli  the command's option table
 * @param argc argument count, argv[0] being the command word
 * @param argv the arguments
 * @param opts the command's option structure
 * @param out  receives the built-in output options, and is opened
 *             (bench_output_open()) when everything else is right
 * @retval BENCH_CLI_RUN    the command line is good and the outputs are open: measure
 * @retval 0                --help was printed
 * @retval BENCH_EXIT_USAGE a bad command line, after a message on stderr
 * @retval 1                an output file cannot be opened, after a message on stderr
 */
int bench_cli_parse(const bench_cli_t *cli, int argc, char **argv, void *opts, bench_output_t *out);

/**
 * @brief Flush a help text printed on stdout, and say so when it could not
 *        be written (a full disk; a closed pipe where SIGPIPE is ignored).
 * @retval 0 the help was written
 * @retval 1 it was not, after a message on stderr
 */
int bench_help_written(void);

/**
 * @brief Print "utim-bench: <msg>; see '<help_cmd> --help'" to stderr.
 * @param help_cmd the command whose help to point to ("utim-bench clock")
 * @param fmt      printf format of the message
 * @return BENCH_EXIT_USAGE
 */
int bench_usage_error(const char *help_cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* UTIM_BENCH_OPTS_H */
