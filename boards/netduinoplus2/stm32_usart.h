/**
 * @file stm32_usart.h
 * @brief Register overlay of the STM32F4 USART (RM0090, chapter 30), the
 *        netduinoplus2 console.
 */
#ifndef UTIM_BOARDS_STM32_USART_H
#define UTIM_BOARDS_STM32_USART_H

#include <stddef.h>
#include <stdint.h>

/** @brief STM32F4 USART register overlay. */
typedef struct stm32_usart_regs {
  volatile uint32_t sr;   /**< 0x00 status: bit 7 TXE, bit 6 TC */
  volatile uint32_t dr;   /**< 0x04 data */
  volatile uint32_t brr;  /**< 0x08 baud rate */
  volatile uint32_t cr1;  /**< 0x0C bit 13 UE, bit 3 TE */
  volatile uint32_t cr2;  /**< 0x10 */
  volatile uint32_t cr3;  /**< 0x14 */
  volatile uint32_t gtpr; /**< 0x18 */
} stm32_usart_regs_t;

_Static_assert(offsetof(stm32_usart_regs_t, cr1) == 0x0Cu, "STM32 USART register layout");

#endif /* UTIM_BOARDS_STM32_USART_H */
