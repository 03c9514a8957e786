/*
 * Console of the lm3s6965evb: UART0, an ARM PL011 at 0x4000C000, transmit
 * only, polled. QEMU's PL011 sends each byte written to UARTDR; the line
 * settings do not matter to it, the chip would need its baud rate.
 */
#include <stdint.h>

#include "mcu.h"

#define LM3S_UART0_BASE 0x4000C000u
#define PL011_DR        0x000u                  /* data */
#define PL011_FR        0x018u                  /* flags */
#define PL011_FR_TXFF   (1u << 5)               /* transmit FIFO full */
#define PL011_CTL       0x030u                  /* control */
#define PL011_CTL_EN    ((1u << 0) | (1u << 8)) /* UARTEN, TXE */

static volatile uint32_t *pl011(uint32_t off) {
  return (volatile uint32_t *)(uintptr_t)(LM3S_UART0_BASE + off);
}

void mcu_console_init(void) {
  *pl011(PL011_CTL) = PL011_CTL_EN;
}

void mcu_console_putc(char c) {
  while ((*pl011(PL011_FR) & PL011_FR_TXFF) != 0u) {
  }
  *pl011(PL011_DR) = (uint8_t)c;
}
