/**
 * @file main_sim.c
 * @brief The time manager's semantics suite on the sim board (virtual time).
 */
#include "board_sim.h"
#include "harness.h"
#include "tm_suite.h"

int main(void) {
  th_set_putc(th_stdio_putc);
  sim_board_init();
  return tm_suite_run();
}
