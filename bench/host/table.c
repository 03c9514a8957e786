/**
 * @file table.c
 * @brief The column tables of utim-bench results.
 */
#include "bench_output.h"

void bench_table_head(FILE *f, const bench_col_t *cols, size_t ncols) {
  for (size_t i = 0; i < ncols; i++) {
    fprintf(f, "%s%*s", i ? " " : "", cols[i].width, cols[i].title);
  }
  fputc('\n', f);
}

void bench_table_row(FILE *f, const bench_col_t *cols, size_t ncols, const bench_cell_t *cells,
                     size_t ncells, const char *tail) {
  for (size_t i = 0; i < ncells && i < ncols; i++) {
    const bench_cell_t *c = &cells[i];
    fputs(i ? " " : "", f);
    if (c->text != NULL) {
      fprintf(f, "%*s", cols[i].width, c->text);
    } else if (c->valid) {
      fprintf(f, "%*.*f", cols[i].width, cols[i].prec, c->v);
    } else {
      fprintf(f, "%*s", cols[i].width, "");
    }
  }
  if (tail != NULL) {
    fputs(tail, f);
  }
  fputc('\n', f);
}
