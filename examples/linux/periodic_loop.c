/*
 * A precise periodic loop on Linux: wake every period (default 1 ms) with
 * utim's precise sleep, on an absolute grid (no drift), and report how late
 * each wake-up was. Copy it as the skeleton of a control loop.
 *
 *   periodic_loop [iterations [period_us]]
 *
 * Exits 1 if a wake-up ever came before its deadline (it must not).
 */
#include <stdio.h>
#include <stdlib.h>

#include "utim/port.h" /* utim_port_now_ns(): utim_now() on Linux */
#include "utim/time.h" /* utim_sleep_until() */

int main(int argc, char **argv) {
  const long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  const long period_us = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
  if (n <= 0 || period_us <= 0) {
    fprintf(stderr, "usage: periodic_loop [iterations > 0 [period_us > 0]]\n");
    return 2;
  }
  const utim_ns_t period = (utim_ns_t)period_us * 1000;
  utim_ns_t next = utim_port_now_ns() + period;
  utim_ns_t worst = 0;
  utim_ns_t sum = 0;
  long early = 0;
  for (long i = 0; i < n; i++) {
    /* ... the loop's work goes here ... */
    if (utim_sleep_until(next) != 0) {
      fprintf(stderr, "periodic_loop: no precise sleep on this port\n");
      return 1;
    }
    const utim_ns_t late = utim_port_now_ns() - next;
    early += late < 0;
    worst = late > worst ? late : worst;
    sum += late;
    next += period; /* the grid, not "now + period": no drift */
  }
  printf("periodic_loop: %ld wake-ups every %ld us: mean %.1f us late, worst %.1f us, %ld early\n",
         n, period_us, (double)sum / (double)n / 1000.0, (double)worst / 1000.0, early);
  return early == 0 ? 0 : 1;
}
