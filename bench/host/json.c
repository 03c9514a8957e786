/**
 * @file json.c
 * @brief The JSON writer of utim-bench results.
 *
 * Layout: the document's members each start a line, as do the elements of
 * its arrays ("rows", "notes"); everything deeper stays on one line, so a
 * row is one line a person can read and grep.
 */
#include "bench_output.h"

static void jw_string(FILE *f, const char *s) {
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

/* Starts a value: the comma, the line break, and the key inside an object. */
static void jw_item(bench_jw_t *w, const char *key) {
  if (w->depth == 0u) {
    return;
  }
  const unsigned d = w->depth - 1u;
  if (w->items[d]) {
    fputc(',', w->f);
  }
  if ((w->depth == 1u && w->items[d]) || (w->depth == 2u && w->array[d])) {
    fputc('\n', w->f);
  }
  w->items[d] = true;
  if (!w->array[d] && key != NULL) {
    jw_string(w->f, key);
    fputc(':', w->f);
  }
}

static void jw_open(bench_jw_t *w, const char *key, bool array) {
  jw_item(w, key);
  fputc(array ? '[' : '{', w->f);
  if (w->depth < BENCH_JW_MAX_DEPTH) {
    w->items[w->depth] = false;
    w->array[w->depth] = array;
    w->depth++;
  }
}

void bench_jw_object(bench_jw_t *w, const char *key) {
  jw_open(w, key, false);
}

void bench_jw_array(bench_jw_t *w, const char *key) {
  jw_open(w, key, true);
}

void bench_jw_end(bench_jw_t *w) {
  if (w->depth == 0u) {
    return;
  }
  w->depth--;
  const bool array = w->array[w->depth];
  if (array && w->depth == 1u && w->items[w->depth]) {
    fputc('\n', w->f);
  }
  fputc(array ? ']' : '}', w->f);
}

void bench_jw_str(bench_jw_t *w, const char *key, const char *v) {
  jw_item(w, key);
  jw_string(w->f, v != NULL ? v : "");
}

void bench_jw_num(bench_jw_t *w, const char *key, bool valid, double v) {
  jw_item(w, key);
  if (valid) {
    fprintf(w->f, "%.3f", v);
  } else {
    fputs("null", w->f);
  }
}

void bench_jw_int(bench_jw_t *w, const char *key, long long v) {
  jw_item(w, key);
  fprintf(w->f, "%lld", v);
}

void bench_jw_uint(bench_jw_t *w, const char *key, unsigned long long v) {
  jw_item(w, key);
  fprintf(w->f, "%llu", v);
}

void bench_jw_bool(bench_jw_t *w, const char *key, bool v) {
  jw_item(w, key);
  fputs(v ? "true" : "false", w->f);
}

void bench_jw_null(bench_jw_t *w, const char *key) {
  jw_item(w, key);
  fputs("null", w->f);
}
