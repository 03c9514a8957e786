/*
 * A one-shot timeout on the ARM MPS2 AN385 (Cortex-M3): its timers have no
 * compare register, so the timeout runs on the time manager, ticked on a
 * CMSDK timer's overflow (1 ms tick); the callback comes 250 ms after the
 * start, never before. Ends the QEMU run (semihosting).
 */
#include <stdint.h>

#include "mcu.h"
#include "utim/tm.h"

static utim_tm_t tm;
static utim_tm_timer_t timeout;
static volatile uint64_t fired_at;
static volatile int fired;

static void puts_uart(const char *s) {
  while (*s != '\0') {
    mcu_console_putc(*s++);
  }
}

static void on_timeout(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)t;
  (void)arg;
  fired_at = utim_tm_now(m);
  fired = 1;
}

int main(void) {
  mcu_console_init();
  const utim_periph_t *p = utim_by_name("MPS2_TIMER1");
  uint32_t hz = 0;
  /* Claimed first: the manager is the instance's owner from here on. */
  if (p == NULL || utim_claim(p, &tm) != 0 ||
      utim_closest_freq(p, 25000000u, UTIM_CLOCK_DEFAULT, &hz) != 0 ||
      utim_init(p, hz, UTIM_CLOCK_DEFAULT) != 0 || utim_start(p) != 0 ||
      utim_tm_init(&tm, p, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, hz / 1000u) != 0) {
    puts_uart("oneshot: cannot start the time manager\n");
    mcu_exit(1);
  }
  utim_tm_timer_init(&timeout, on_timeout, NULL);
  const uint64_t start = utim_tm_now(&tm);
  const uint64_t ticks = (uint64_t)hz / 4u; /* 250 ms */
  if (utim_tm_start(&tm, &timeout, ticks, 0u) != 0) {
    puts_uart("oneshot: cannot start the timeout\n");
    mcu_exit(1);
  }
  while (!fired) {
    __asm__ volatile("wfi");
  }
  const int ok = fired_at >= start + ticks;
  puts_uart(ok ? "oneshot: fired after 250 ms, not before\n" : "oneshot: fired EARLY\n");
  (void)utim_tm_deinit(&tm);
  (void)utim_release(p, &tm);
  mcu_exit(ok ? 0 : 1);
}
