/*
 * Console of the mps2-an385: CMSDK APB UART0 at 0x40004000, transmit only,
 * polled (ARM DDI0479C, "APB UART"). QEMU's model sends each byte to the
 * serial back end when DATA is written, as long as TX is enabled in CTRL.
 */
#include <stdint.h>

#include "cmsdk_uart.h"
#include "cortexm.h"

#define MPS2_UART0_BASE   0x40004000u
#define CMSDK_UART_TXFULL (1u << 0)
#define CMSDK_UART_TX_EN  (1u << 0)
/* 25 MHz / 217 = 115200 baud; QEMU only needs the divider to be >= 16. */
#define MPS2_UART_BAUDDIV 217u

static cmsdk_uart_regs_t *mps2_uart0(void) {
  return (cmsdk_uart_regs_t *)MPS2_UART0_BASE;
}

void mcu_console_init(void) {
  cmsdk_uart_regs_t *u = mps2_uart0();
  u->bauddiv = MPS2_UART_BAUDDIV;
  u->ctrl = CMSDK_UART_TX_EN;
}

void mcu_console_putc(char c) {
  cmsdk_uart_regs_t *u = mps2_uart0();
  while ((u->state & CMSDK_UART_TXFULL) != 0u) {
  }
  u->data = (uint8_t)c;
}
