/*
 * Console of the micro:bit: the nRF51 UART at 0x40002000, transmit only,
 * polled (nRF51 Series Reference Manual v3.0, chapter 29). QEMU's model
 * ignores every register until ENABLE is 4 and drops TXD writes until the
 * STARTTX task ran, as the chip does.
 */
#include <stdint.h>

#include "cortexm.h"
#include "nrf51_uart.h"

#define NRF51_UART0_BASE     0x40002000u
#define NRF51_UART_ENABLE_ON 4u
/* micro:bit wiring: UART TX is P0.24 (the interface MCU's USB serial). */
#define MICROBIT_UART_TX_PIN 24u
#define NRF51_BAUD_115200    0x01D7E000u

static nrf51_uart_regs_t *nrf51_uart0(void) {
  return (nrf51_uart_regs_t *)NRF51_UART0_BASE;
}

void mcu_console_init(void) {
  nrf51_uart_regs_t *u = nrf51_uart0();
  u->enable = NRF51_UART_ENABLE_ON;
  u->pseltxd = MICROBIT_UART_TX_PIN;
  u->baudrate = NRF51_BAUD_115200;
  u->tasks_starttx = 1u;
}

/* TXDRDY is cleared before the write and awaited after it, so the next byte
 * never overwrites one still being sent. */
void mcu_console_putc(char c) {
  nrf51_uart_regs_t *u = nrf51_uart0();
  u->events_txdrdy = 0u;
  u->txd = (uint8_t)c;
  while (u->events_txdrdy == 0u) {
  }
}
