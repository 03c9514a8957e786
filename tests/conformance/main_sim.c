/**
 * @file main_sim.c
 * @brief conformance_sim: the conformance suite on the sim board.
 */
#include "board_sim.h"
#include "conformance.h"
#include "harness.h"

int main(void) {
  th_set_putc(th_stdio_putc);
  sim_board_init();
  return utim_conformance_run();
}
