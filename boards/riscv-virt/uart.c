/*
 * Console of riscv-virt: the NS16550A UART at 0x10000000, polled. QEMU's
 * UART accepts a byte whenever the transmit holding register is empty.
 */
#include "board.h"
#include "mcu.h"

#define NS16550_THR      0u    /* transmit holding register (write) */
#define NS16550_LCR      3u    /* line control */
#define NS16550_LSR      5u    /* line status */
#define NS16550_LSR_THRE 0x20u /* transmit holding register empty */
#define NS16550_LCR_8N1  0x03u

static volatile uint8_t *uart(void) {
  return (volatile uint8_t *)(uintptr_t)RISCV_VIRT_UART0;
}

void mcu_console_init(void) {
  uart()[NS16550_LCR] = NS16550_LCR_8N1;
}

void mcu_console_putc(char c) {
  while ((uart()[NS16550_LSR] & NS16550_LSR_THRE) == 0u) {
  }
  uart()[NS16550_THR] = (uint8_t)c;
}
