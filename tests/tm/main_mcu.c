/**
 * @file main_mcu.c
 * @brief The time manager's semantics suite as firmware of a Cortex-M board
 *        (run under QEMU with -icount: deterministic).
 */
#include "harness.h"
#include "mcu.h"
#include "tm_suite.h"

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  return tm_suite_run();
}
