/**
 * @file main_mcu.c
 * @brief Conformance firmware of the Cortex-M boards: the board's exposure
 *        table (mcu_board_exposure, printed here so the board stays
 *        free of the harness) and the suite over every instance of the
 *        linked board, output on the board's UART; the start-up code hands
 *        the status back to QEMU through semihosting.
 */
#include <stdbool.h>
#include <stddef.h>

#include "conformance.h"
#include "harness.h"
#include "mcu.h"

/* th_printf() pads numbers only: columns are padded here. */
static void put_col(const char *s, unsigned width) {
  unsigned n = 0u;
  for (; s[n] != '\0'; n++) {
  }
  th_printf("%s", s);
  for (; n < width; n++) {
    th_printf(" ");
  }
}

static void put_row(unsigned timer_col, const char *timer, const char *chip_ch, const char *inst,
                    const char *inst_ch, const char *note) {
  th_printf("# ");
  put_col(timer, timer_col);
  put_col(chip_ch, 4u);
  put_col(inst, 16u);
  put_col(inst_ch, 4u);
  th_printf("%s\n", note);
}

/* TAP diagnostic lines: a header, a row per chip timer, the totals, the
 * board's notes. */
static void print_exposure(const mcu_exposure_t *t) {
  unsigned chip_t = 0u;
  unsigned chip_c = 0u;
  unsigned exp_t = 0u;
  unsigned exp_c = 0u;
  char a[8];
  char b[8];

  th_printf("# Table 2, board %s: timers (channels) on the chip vs exposed by utim\n",
            utim_board.name);
  put_row(t->timer_col, "chip timer", "ch", "utim instance", "ch", "note");
  for (unsigned i = 0u; i < t->nrows; i++) {
    const mcu_exposure_row_t *e = &t->rows[i];
    chip_t++;
    chip_c += e->chip_ch;
    (void)th_snprintf(a, sizeof a, "%u", e->chip_ch);
    if (e->inst == NULL) {
      put_row(t->timer_col, e->timer, a, "-", "-", e->comment);
      continue;
    }
    bool first = true; /* a chain spans two rows; its channels count once */
    for (unsigned j = 0u; j < i; j++) {
      first = first && t->rows[j].inst != e->inst;
    }
    exp_t++;
    exp_c += first ? utim_channels(e->inst) : 0u;
    (void)th_snprintf(b, sizeof b, "%u", utim_channels(e->inst));
    put_row(t->timer_col, e->timer, a, utim_name(e->inst), b, e->comment);
  }
  th_printf("# total: %u timers (%u channels) on the chip, %u timers (%u channels) exposed\n",
            chip_t, chip_c, exp_t, exp_c);
  th_printf("# timers exposed counts chip timers in use; channels count each instance once\n");
  for (unsigned i = 0u; i < t->nnotes; i++) {
    th_printf("# %s\n", t->notes[i]);
  }
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  print_exposure(&mcu_board_exposure);
  return utim_conformance_run();
}
