/**
 * @file main_mcu.c
 * @brief Conformance firmware of the Cortex-M boards: the board's exposure
 *        table and the suite over every instance of the linked board, output
 *        on the board's UART; the start-up code hands the status back to QEMU
 *        through semihosting.
 */
#include "board.h"
#include "conformance.h"
#include "cortexm.h"
#include "harness.h"

int main(void) {
  cortexm_console_init();
  th_set_putc(cortexm_console_putc);
  board_print_exposure();
  return utim_conformance_run();
}
