/**
 * @file cmsdk_uart.h
 * @brief Register overlay of the ARM CMSDK APB UART (ARM DDI0479C), the
 *        mps2-an385 console.
 */
#ifndef UTIM_BOARDS_MPS2_CMSDK_UART_H
#define UTIM_BOARDS_MPS2_CMSDK_UART_H

#include <stddef.h>
#include <stdint.h>

/** @brief CMSDK APB UART register overlay. */
typedef struct cmsdk_uart_regs {
  volatile uint32_t data;      /**< 0x00 transmit / receive byte */
  volatile uint32_t state;     /**< 0x04 bit 0: TX buffer full */
  volatile uint32_t ctrl;      /**< 0x08 bit 0: TX enable */
  volatile uint32_t intstatus; /**< 0x0C interrupt status / clear */
  volatile uint32_t bauddiv;   /**< 0x10 baud divider, >= 16 */
} cmsdk_uart_regs_t;

_Static_assert(offsetof(cmsdk_uart_regs_t, bauddiv) == 0x10u, "CMSDK UART register layout");

#endif /* UTIM_BOARDS_MPS2_CMSDK_UART_H */
