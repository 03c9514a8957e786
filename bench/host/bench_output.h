/**
 * @file bench_output.h
 * @brief The one result writer of utim-bench: where a run's table or JSON
 *        goes (stdout, -o FILE, --json-out FILE), the JSON writer and the
 *        column table the subcommands fill with their fields and rows.
 */
#ifndef UTIM_BENCH_OUTPUT_H
#define UTIM_BENCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/**
 * @brief Where the results of one command go: the table or JSON on stdout
 *        (or -o FILE), and optionally also the JSON in --json-out FILE.
 *
 * The options are filled by bench_cli_parse(), which also opens the files
 * (bench_output_open()) before anything is measured.
 */
typedef struct bench_output {
  bool json;            /**< --json: the JSON document instead of the table */
  const char *out;      /**< -o/--output FILE; NULL or "-" for stdout */
  const char *json_out; /**< --json-out FILE, NULL for none */
  FILE *out_f;          /**< open: stdout or the -o file */
  FILE *json_f;         /**< open: the --json-out file, or NULL */
  bool out_new;         /**< the -o file did not exist before this run */
  bool json_new;        /**< the --json-out file did not exist before this run */
} bench_output_t;

/**
 * @brief Open the output files of @p o for writing, without truncating
 *        them yet (an earlier result survives a run that fails).
 * @param o the options (json, out, json_out); out_f and json_f are set
 * @retval 0 both are open (out_f is stdout without -o or with "-o -")
 * @retval 1 a file cannot be opened, or -o and --json-out are one file:
 *           after a message naming the file and its option; nothing is
 *           left open and no file this run created is left behind
 */
int bench_output_open(bench_output_t *o);

/**
 * @brief The run failed before its result: close the files, removing those
 *        this run created (an existing file is left as it was).
 * @param o outputs opened by bench_output_open()
 */
void bench_output_discard(bench_output_t *o);

/**
 * @brief Where reports made during the run go (stress's --report-every): the
 *        table's stream, or NULL with --json (the document is the result).
 *
 * Reports written into an -o file that existed before this run overwrite the
 * earlier result, which cannot survive the run then: the first call cuts the
 * file to 0 and makes it this run's, so that it never holds a mix of the two
 * and is removed as a file this run created when the run fails or a signal
 * ends it. Call it only when a report is about to be written.
 * @param o outputs opened by bench_output_open()
 * @return the stream, or NULL (no live reports, or the file cannot be cut)
 */
FILE *bench_output_live(bench_output_t *o);

/** @brief Deepest nesting of a result document (deeper levels are not tracked). */
#define BENCH_JW_MAX_DEPTH 8u

/** @brief JSON writer: commas, quoting, nesting and line breaks are its job. */
typedef struct bench_jw {
  FILE *f;                        /**< where the document goes */
  unsigned depth;                 /**< open objects and arrays (the document is depth 1) */
  bool items[BENCH_JW_MAX_DEPTH]; /**< per depth: something was written already */
  bool array[BENCH_JW_MAX_DEPTH]; /**< per depth: an array (else an object) */
} bench_jw_t;

/**
 * @brief Open an object: member @p key of the enclosing object, or an
 *        element of the enclosing array (or the document) when @p key is NULL.
 * @param w   the writer
 * @param key member name, or NULL
 */
void bench_jw_object(bench_jw_t *w, const char *key);

/**
 * @brief Open an array.
 * @param w   the writer
 * @param key member name, or NULL (as for bench_jw_object())
 */
void bench_jw_array(bench_jw_t *w, const char *key);

/**
 * @brief Close the innermost open object or array.
 * @param w the writer
 */
void bench_jw_end(bench_jw_t *w);

/**
 * @brief A string value, escaped.
 * @param w   the writer
 * @param key member name, or NULL for an array element
 * @param v   the string (NULL is written as "")
 */
void bench_jw_str(bench_jw_t *w, const char *key, const char *v);

/**
 * @brief A number with 3 decimals, or null.
 * @param w     the writer
 * @param key   member name, or NULL for an array element
 * @param valid false: null (not measured)
 * @param v     the number
 */
void bench_jw_num(bench_jw_t *w, const char *key, bool valid, double v);

/**
 * @brief A signed integer.
 * @param w   the writer
 * @param key member name, or NULL for an array element
 * @param v   the value
 */
void bench_jw_int(bench_jw_t *w, const char *key, long long v);

/**
 * @brief An unsigned integer.
 * @param w   the writer
 * @param key member name, or NULL for an array element
 * @param v   the value
 */
void bench_jw_uint(bench_jw_t *w, const char *key, unsigned long long v);

/**
 * @brief true or false.
 * @param w   the writer
 * @param key member name, or NULL for an array element
 * @param v   the value
 */
void bench_jw_bool(bench_jw_t *w, const char *key, bool v);

/**
 * @brief null.
 * @param w   the writer
 * @param key member name, or NULL for an array element
 */
void bench_jw_null(bench_jw_t *w, const char *key);

/** @brief A column of a result table. */
typedef struct bench_col {
  const char *title; /**< heading */
  int width;         /**< printf field width: > 0 right-aligned, < 0 left-aligned */
  int prec;          /**< digits after the point of number cells */
} bench_col_t;

/** @brief A cell of a table row: text, or a number (blank when not valid). */
typedef struct bench_cell {
  const char *text; /**< the text, or NULL for a number */
  double v;         /**< the number */
  bool valid;       /**< the number was measured */
} bench_cell_t;

/** @brief A text cell. */
#define BENCH_TEXT(s) ((bench_cell_t){.text = (s), .v = 0.0, .valid = false})
/** @brief A number cell, blank when @p ok is false. */
#define BENCH_NUM_IF(ok, x) ((bench_cell_t){.text = NULL, .v = (x), .valid = (ok)})
/** @brief A number cell. */
#define BENCH_NUM(x) BENCH_NUM_IF(true, (x))

/**
 * @brief Print the headings of @p cols, one space apart, and a newline.
 * @param f     where to print
 * @param cols  the columns
 * @param ncols how many
 */
void bench_table_head(FILE *f, const bench_col_t *cols, size_t ncols);

/**
 * @brief Print one row: @p ncells cells (at most @p ncols) in the columns
 *        of @p cols, then @p tail (when not NULL) and a newline.
 * @param f      where to print
 * @param cols   the columns
 * @param ncols  how many
 * @param cells  the cells, from the first column on
 * @param ncells how many (fewer than @p ncols leaves the last columns out)
 * @param tail   text after the last cell, or NULL
 */
void bench_table_row(FILE *f, const bench_col_t *cols, size_t ncols, const bench_cell_t *cells,
                     size_t ncells, const char *tail);

struct bench_machine;

/**
 * @brief How a command's result is printed. The writer frames both forms:
 *        the table opens with "utim-bench NAME: TITLE" and the machine
 *        lines; the JSON document is {"benchmark":NAME,"machine":{the
 *        machine fields, then json_machine's},then json's members}.
 */
typedef struct bench_writer {
  const char *name;                                   /**< the benchmark's name */
  const char *title;                                  /**< first line of the table */
  void (*table)(FILE *f, const void *r);              /**< the table after the machine lines */
  void (*json_machine)(bench_jw_t *w, const void *r); /**< more "machine" members, or NULL */
  void (*json)(bench_jw_t *w, const void *r);         /**< the members after "machine" */
} bench_writer_t;

/**
 * @brief Write the result @p r of a run on machine @p m: the table, or the
 *        JSON with --json, to stdout or -o FILE, and the JSON to --json-out
 *        FILE as well; then close the files.
 * @param o  outputs opened by bench_output_open()
 * @param wr how the command prints its result
 * @param m  the machine measured on
 * @param r  the command's result, handed to @p wr's functions
 * @retval 0 written
 * @retval 1 a file cannot be written, after a message naming it
 */
int bench_output_write(bench_output_t *o, const bench_writer_t *wr, const struct bench_machine *m,
                       const void *r);

#endif /* UTIM_BENCH_OUTPUT_H */
