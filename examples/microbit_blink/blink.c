/*
 * A periodic, LED-style callback on the BBC micro:bit: TIMER0's channel 0
 * fires every 100 ms (utim_set_periodic(): on a fixed grid, no drift) and
 * the callback toggles the LED state. QEMU does not model the LED matrix,
 * so the state goes to the UART; on the board, write the row/column GPIOs
 * there instead. After 6 toggles the firmware sleeps no more and ends the
 * QEMU run (semihosting).
 */
#include <stdbool.h>

#include "mcu.h" /* the board's console and exit */
#include "utim/utim.h"

#define TOGGLES 6u

static volatile unsigned toggles;
static bool led;

static void puts_uart(const char *s) {
  while (*s != '\0') {
    mcu_console_putc(*s++);
  }
}

static void on_period(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  led = !led;
  puts_uart(led ? "LED on\n" : "LED off\n");
  toggles++;
}

int main(void) {
  mcu_console_init();
  const utim_periph_t *t = utim_by_name("NRF51_TIMER0");
  if (t == NULL || utim_init(t, 1000000u, UTIM_CLOCK_DEFAULT) != 0 ||
      utim_set_compare_cb(t, on_period, NULL) != 0 || utim_start(t) != 0 ||
      utim_set_periodic(t, 0u, 100000u) != 0) {
    puts_uart("blink: cannot start TIMER0\n");
    mcu_exit(1);
  }
  while (toggles < TOGGLES) {
    __asm__ volatile("wfi");
  }
  (void)utim_clear(t, 0u);
  puts_uart("blink: done\n");
  mcu_exit(0);
}
