/**
 * @file nrf51_uart.h
 * @brief Register overlay of the nRF51 UART (nRF51 Series Reference Manual
 *        v3.0, chapter 29), the micro:bit console: the registers it uses.
 */
#ifndef UTIM_BOARDS_MICROBIT_NRF51_UART_H
#define UTIM_BOARDS_MICROBIT_NRF51_UART_H

#include <stddef.h>
#include <stdint.h>

/** @brief nRF51 UART register overlay (the registers the console uses). */
typedef struct nrf51_uart_regs {
  volatile uint32_t tasks_startrx;            /**< 0x000 */
  volatile uint32_t tasks_stoprx;             /**< 0x004 */
  volatile uint32_t tasks_starttx;            /**< 0x008 */
  volatile uint32_t tasks_stoptx;             /**< 0x00C */
  uint32_t reserved0[(0x11Cu - 0x010u) / 4u]; /**< reserved */
  volatile uint32_t events_txdrdy;            /**< 0x11C byte sent, TXD free */
  uint32_t reserved1[(0x500u - 0x120u) / 4u]; /**< reserved */
  volatile uint32_t enable;                   /**< 0x500 4: enabled */
  uint32_t reserved2[(0x50Cu - 0x504u) / 4u]; /**< reserved */
  volatile uint32_t pseltxd;                  /**< 0x50C TX pin */
  uint32_t reserved3[(0x51Cu - 0x510u) / 4u]; /**< reserved */
  volatile uint32_t txd;                      /**< 0x51C byte to send */
  uint32_t reserved4[(0x524u - 0x520u) / 4u]; /**< reserved */
  volatile uint32_t baudrate;                 /**< 0x524 */
} nrf51_uart_regs_t;

_Static_assert(offsetof(nrf51_uart_regs_t, events_txdrdy) == 0x11Cu, "nRF51 UART layout");
_Static_assert(offsetof(nrf51_uart_regs_t, enable) == 0x500u, "nRF51 UART layout");
_Static_assert(offsetof(nrf51_uart_regs_t, txd) == 0x51Cu, "nRF51 UART layout");
_Static_assert(offsetof(nrf51_uart_regs_t, baudrate) == 0x524u, "nRF51 UART layout");

#endif /* UTIM_BOARDS_MICROBIT_NRF51_UART_H */
