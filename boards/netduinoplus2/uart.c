/*
 * Console of the netduinoplus2: USART1 at 0x40011000 (QEMU's first serial
 * port), transmit only, polled (RM0090, chapter 30). QEMU's model sends each
 * byte to the serial back end when DR is written and keeps TXE set; the
 * firmware still enables the USART and waits for TXE as on the chip.
 */
#include <stdint.h>

#include "cortexm.h"
#include "stm32_usart.h"

#define STM32_USART1_BASE  0x40011000u
#define STM32_USART_SR_TXE (1u << 7)
#define STM32_USART_CR1_UE (1u << 13)
#define STM32_USART_CR1_TE (1u << 3)
/* 115200 baud from the 84 MHz APB2 clock: 84e6 / 115200 = 729.2 -> 0x2D9
 * (mantissa 45, fraction 9/16). QEMU ignores BRR. */
#define STM32_USART_BRR_115200 0x2D9u

static stm32_usart_regs_t *stm32_usart1(void) {
  return (stm32_usart_regs_t *)STM32_USART1_BASE;
}

void mcu_console_init(void) {
  stm32_usart_regs_t *u = stm32_usart1();
  u->brr = STM32_USART_BRR_115200;
  u->cr1 = STM32_USART_CR1_UE | STM32_USART_CR1_TE;
}

void mcu_console_putc(char c) {
  stm32_usart_regs_t *u = stm32_usart1();
  while ((u->sr & STM32_USART_SR_TXE) == 0u) {
  }
  u->dr = (uint8_t)c;
}
