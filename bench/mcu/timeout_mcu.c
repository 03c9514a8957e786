/**
 * @file timeout_mcu.c
 * @brief `utim-bench timeout` as firmware of the micro:bit under QEMU: the
 *        uTimer paper's timeout matrix, latency in instructions of virtual
 *        time, through the uAPI callback path and a direct hAPI/ISR path.
 *
 * @par What is measured
 * NRF51_TIMER0 at 8 MHz, 1 MHz (the matrix's one decade point this timer
 * offers) and 31.25 kHz (its slowest), timeouts 10 us to 1 s (rounded to
 * whole ticks; below one tick not measured). Not 16 MHz: QEMU 7.2's nRF51
 * TIMER model keeps its time in whole ns, and a 62.5 ns tick loses half a
 * ns on every read that ends on an odd count, so that clock drifts against
 * virtual time by up to 0.8 % (hw/timer/nrf51_timer.c, ticks_to_ns()); the
 * periods of 8 MHz and below are whole ns. uAPI: utim_set_abs() and the
 * compare callback (the board's vector handler, the driver's dispatcher,
 * the core's delivery). hAPI: the driver's set_channel() and a handler
 * attached straight to the interrupt line (cortexm_irq_set_raw(), before
 * the board's routes), which disarms through the hAPI. The CPU waits in WFI
 * (interrupts masked around the check), so the figure is the latency from
 * sleep, as on a chip waiting for its timeout.
 *
 * @par How
 * Under `-icount shift=0,sleep=off` one instruction is 1 ns of virtual time
 * and both the timer under test and a stopwatch count it (see main.c). The
 * stopwatch is TIMER2 programmed directly at 8 MHz, 32 bits (QEMU accepts
 * BITMODE 32 on it; the chip's TIMER2 has 16 bits, and NRF51_CHAIN32, whose
 * high half it is, is not used here). Per frequency one tick edge of the
 * timer under test is located on the stopwatch (to the polling loop); the
 * match of a sample armed at count c + n is then at a known stopwatch time,
 * and latency = stopwatch at the first instruction of the callback or
 * handler - that time, x 125 instructions: to +/- 63 instructions (half a
 * stopwatch tick; the two timers' tick grids keep one phase).
 *
 * Each sample is armed right after a tick edge of the timer under test
 * (polled): QEMU 7.2's nRF51 TIMER schedules a compare event at the arming
 * moment plus the remaining ticks (hw/timer/nrf51_timer.c, rearm_timer()),
 * not from the tick edge, so a compare armed in mid-tick fires up to one
 * tick late there (up to 32,000 instructions at 31.25 kHz), which a chip
 * does not do; armed at the edge that artefact stays within the polling
 * loop, and the figure is the code path's. Early: the callback saw the
 * timer's own count below the armed value (exact). Deterministic: a second
 * run must print the same bytes. Speed is printed, never asserted.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cortexm.h"
#include "harness.h"
#include "utim/driver.h"
#include "utim/utim.h"
#include "utim_nrf51_timer.h"

#ifndef UTIM_QEMU_ICOUNT_SHIFT
#error "UTIM_QEMU_ICOUNT_SHIFT must be the -icount shift QEMU runs with"
#endif

#define SW_HZ      8000000u
#define SW_BASE    0x4000A000u /* TIMER2 */
#define NFREQ      3u
#define NSIZE      6u
#define NPATH      2u
#define SAMPLES    16u
#define LOST_TICKS 0x40000000u /* sw ticks after the match: lost */

static const uint32_t freqs[NFREQ] = {8000000u, 1000000u, 31250u};
static const uint32_t sizes_us[NSIZE] = {10u, 100u, 1000u, 10000u, 100000u, 1000000u};
static const char *const path_name[NPATH] = {"uapi", "hapi"};

typedef struct cell {
  uint32_t ticks;
  unsigned n;
  unsigned early;
  unsigned lost;
  int64_t lat_milli[SAMPLES]; /* instructions x 1000 */
} cell_t;

static cell_t cells[NPATH][NFREQ][NSIZE];
static const utim_periph_t *tut;
static volatile uint32_t cb_sw;
static volatile bool cb_fired;
static volatile bool cb_early;
static volatile uint64_t cb_target;

static utim_nrf51_timer_regs_t *sw_regs(void) {
  return (utim_nrf51_timer_regs_t *)SW_BASE;
}

static uint32_t sw_read(void) {
  utim_nrf51_timer_regs_t *r = sw_regs();
  r->tasks_capture[3] = 1u;
  return r->cc[3];
}

static void sw_start(void) {
  utim_nrf51_timer_regs_t *r = sw_regs();
  r->tasks_stop = 1u;
  r->intenclr = ~0u;
  r->mode = 0u;
  r->bitmode = 3u;   /* 32 bits */
  r->prescaler = 1u; /* 8 MHz: a whole 125 ns a tick in QEMU's model (see the file comment) */
  r->tasks_clear = 1u;
  r->tasks_start = 1u;
}

static void record(void) {
  cb_sw = sw_read(); /* first: the callback's start is what is measured */
  cb_early = utim_read(tut) < cb_target;
  cb_fired = true;
}

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  record();
}

static void raw_isr(void *arg) {
  (void)arg;
  record();
  tut->drv->set_channel(tut, 0u, UTIM_CH_OFF, 0u); /* clears the event and its line */
}

static int32_t line_of(const utim_periph_t *p) {
  for (unsigned i = 0; i < cortexm_irq_route_count; i++) {
    if (cortexm_irq_routes[i].p == p) {
      return cortexm_irq_routes[i].irqn;
    }
  }
  return -1;
}

/* Wait in WFI, interrupts masked around the check. */
static bool wait_fired(uint32_t sw_match) {
  for (;;) {
    __asm__ volatile("cpsid i" ::: "memory");
    if (cb_fired) {
      __asm__ volatile("cpsie i" ::: "memory");
      return true;
    }
    if (sw_read() - sw_match > LOST_TICKS && sw_read() - sw_match < 0x80000000u) {
      __asm__ volatile("cpsie i" ::: "memory");
      return false;
    }
    __asm__ volatile("dsb\n\twfi" ::: "memory");
    __asm__ volatile("cpsie i" ::: "memory");
  }
}

static void t_freq(void *arg) {
  const unsigned idx = (unsigned)(uintptr_t)arg;
  const unsigned path = idx / NFREQ;
  const unsigned fi = idx % NFREQ;
  const uint32_t hz = freqs[fi];
  const uint32_t ratio = SW_HZ / hz; /* stopwatch ticks per tick */
  th_context("%s at %lu Hz", path_name[path], (unsigned long)hz);
  if (!TH_EQ(utim_init(tut, hz, UTIM_CLOCK_DEFAULT), 0) || !TH_EQ(utim_start(tut), 0)) {
    return;
  }
  if (path == 0u) {
    (void)TH_EQ(utim_set_compare_cb(tut, on_compare, NULL), 0);
  } else {
    cortexm_irq_set_raw(line_of(tut), raw_isr, NULL);
  }
  /* A tick edge on the stopwatch: between the reads around the count's change. */
  uint32_t s_prev = sw_read();
  const uint64_t c0 = utim_read(tut);
  uint64_t c = c0;
  uint32_t s_now = s_prev;
  while (c == c0) {
    s_prev = s_now;
    c = utim_read(tut);
    s_now = sw_read();
  }
  const uint32_t s_edge = s_prev + (s_now - s_prev) / 2u;
  const uint64_t c_edge = c;
  for (unsigned si = 0; si < NSIZE; si++) {
    cell_t *cell = &cells[path][fi][si];
    cell->ticks = (uint32_t)(((uint64_t)sizes_us[si] * hz + 500000u) / 1000000u);
    if (cell->ticks == 0u) {
      continue;
    }
    for (unsigned k = 0; k < SAMPLES; k++) {
      /* Armed right after a tick edge: QEMU's model would otherwise fire up to a
       * tick late (see the file comment). */
      const uint64_t before = utim_read(tut);
      uint64_t now = before;
      while (now == before) {
        now = utim_read(tut);
      }
      const uint64_t target = now + cell->ticks;
      const uint32_t sw_match = s_edge + (uint32_t)(target - c_edge) * ratio;
      cb_target = target;
      cb_fired = false;
      if (path == 0u) {
        if (!TH_EQ(utim_set_abs(tut, 0u, target), 0)) {
          break;
        }
      } else {
        tut->drv->set_channel(tut, 0u, UTIM_CH_ONESHOT, target);
      }
      if (!wait_fired(sw_match)) {
        cell->lost++;
        (void)utim_clear(tut, 0u);
        continue;
      }
      cell->early += cb_early ? 1u : 0u;
      /* 125 ns per stopwatch tick; 2^shift ns per instruction. */
      cell->lat_milli[cell->n++] =
          (int64_t)(int32_t)(cb_sw - sw_match) * 125000 / (1 << UTIM_QEMU_ICOUNT_SHIFT);
    }
    TH_CHECKF(cell->n == SAMPLES && cell->early == 0u && cell->lost == 0u,
              "%lu us: %u measured, %u early, %u lost", (unsigned long)sizes_us[si], cell->n,
              cell->early, cell->lost);
  }
  cortexm_irq_set_raw(-1, NULL, NULL);
  (void)utim_set_compare_cb(tut, NULL, NULL);
  (void)utim_stop(tut);
}

/* Mean, standard deviation, min, max, median of a cell, instructions x 1000. */
typedef struct summary {
  int64_t mean, stddev, min, max, median;
} summary_t;

static uint64_t isqrt(uint64_t v) {
  uint64_t r = 0;
  for (uint64_t bit = (uint64_t)1 << 62; bit != 0u; bit >>= 2) {
    if (v >= r + bit) {
      v -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
  }
  return r;
}

static summary_t summarize(cell_t *c) {
  summary_t s = {0, 0, 0, 0, 0};
  if (c->n == 0u) {
    return s;
  }
  int64_t sum = 0;
  for (unsigned i = 1; i < c->n; i++) { /* insertion sort, for the median */
    const int64_t v = c->lat_milli[i];
    unsigned j = i;
    for (; j > 0u && c->lat_milli[j - 1u] > v; j--) {
      c->lat_milli[j] = c->lat_milli[j - 1u];
    }
    c->lat_milli[j] = v;
  }
  for (unsigned i = 0; i < c->n; i++) {
    sum += c->lat_milli[i];
  }
  s.mean = sum / (int64_t)c->n;
  uint64_t var = 0;
  for (unsigned i = 0; i < c->n; i++) {
    const int64_t d = c->lat_milli[i] - s.mean;
    var += (uint64_t)(d * d) / c->n;
  }
  s.stddev = (int64_t)isqrt(var);
  s.min = c->lat_milli[0];
  s.max = c->lat_milli[c->n - 1u];
  s.median = c->n % 2u != 0u ? c->lat_milli[c->n / 2u]
                             : (c->lat_milli[c->n / 2u - 1u] + c->lat_milli[c->n / 2u]) / 2;
  return s;
}

static void report(void) {
  static summary_t sum[NPATH][NFREQ][NSIZE];
  char a[24];
  char b[24];
  char c[24];
  char d[24];
  char e[24];
  th_printf("\ntimeout matrix on %s under QEMU -icount shift=%d: NRF51_TIMER0, latency in "
            "instructions from the match to the callback's (handler's) first instruction, "
            "waiting in WFI; %u samples per cell, stopwatch TIMER2 at 8 MHz\n",
            utim_board.name, UTIM_QEMU_ICOUNT_SHIFT, SAMPLES);
  th_printf("path        hz  timeout_us    ticks     L_tout     J_tout        min        max\n");
  for (unsigned p = 0; p < NPATH; p++) {
    for (unsigned f = 0; f < NFREQ; f++) {
      for (unsigned s = 0; s < NSIZE; s++) {
        cell_t *cl = &cells[p][f][s];
        sum[p][f][s] = summarize(cl);
        const summary_t *m = &sum[p][f][s];
        if (cl->ticks == 0u || cl->n == 0u) {
          th_printf("%-4s %9lu %11lu %8lu   (below one tick)\n", path_name[p],
                    (unsigned long)freqs[f], (unsigned long)sizes_us[s], (unsigned long)cl->ticks);
          continue;
        }
        th_printf("%-4s %9lu %11lu %8lu %10s %10s %10s %10s\n", path_name[p],
                  (unsigned long)freqs[f], (unsigned long)sizes_us[s], (unsigned long)cl->ticks,
                  th_fixed(a, sizeof a, m->mean, 3u), th_fixed(b, sizeof b, m->stddev, 3u),
                  th_fixed(c, sizeof c, m->min, 3u), th_fixed(d, sizeof d, m->max, 3u));
      }
    }
  }
  const summary_t *u = &sum[0][1][2];
  const summary_t *h = &sum[1][1][2];
  th_printf("Table 1 (1 ms at 1 MHz): uAPI L_tout %s J_tout %s, hAPI L_tout %s J_tout %s, "
            "the uAPI's cost on latency %s instructions\n",
            th_fixed(a, sizeof a, u->mean, 3u), th_fixed(b, sizeof b, u->stddev, 3u),
            th_fixed(c, sizeof c, h->mean, 3u), th_fixed(d, sizeof d, h->stddev, 3u),
            th_fixed(e, sizeof e, u->mean - h->mean, 3u));
  th_printf("{\"benchmark\":\"timeout\",\"machine\":{\"board\":\"%s\",\"qemu\":true,"
            "\"icount_shift\":%d,\"stopwatch\":\"TIMER2 at 8 MHz\"},\"instance\":\"%s\","
            "\"matrix\":[",
            utim_board.name, UTIM_QEMU_ICOUNT_SHIFT, utim_name(tut));
  bool comma = false;
  for (unsigned p = 0; p < NPATH; p++) {
    for (unsigned f = 0; f < NFREQ; f++) {
      for (unsigned s = 0; s < NSIZE; s++) {
        const cell_t *cl = &cells[p][f][s];
        const summary_t *m = &sum[p][f][s];
        th_printf("%s{\"board\":\"%s\",\"path\":\"%s\",\"hz\":%lu,\"timeout_us\":%lu,"
                  "\"ticks\":%lu,\"unit\":\"instructions\",\"n\":%u,\"early\":%u",
                  comma ? "," : "", utim_board.name, path_name[p], (unsigned long)freqs[f],
                  (unsigned long)sizes_us[s], (unsigned long)cl->ticks, cl->n, cl->early);
        if (cl->n != 0u) {
          th_printf(",\"mean\":%s,\"stddev\":%s,\"median\":%s,\"min\":%s,\"max\":%s}",
                    th_fixed(a, sizeof a, m->mean, 3u), th_fixed(b, sizeof b, m->stddev, 3u),
                    th_fixed(c, sizeof c, m->median, 3u), th_fixed(d, sizeof d, m->min, 3u),
                    th_fixed(e, sizeof e, m->max, 3u));
        } else {
          th_printf(",\"mean\":null,\"stddev\":null,\"median\":null,\"min\":null,\"max\":null}");
        }
        comma = true;
      }
    }
  }
  th_printf("]}\n");
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  th_printf("TAP version 13\n");
  tut = utim_by_name("NRF51_TIMER0");
  sw_start();
  static char names[NPATH * NFREQ][64];
  for (unsigned i = 0; i < NPATH * NFREQ; i++) {
    (void)th_snprintf(names[i], sizeof names[i], "%s path at %lu Hz: every timeout, never early",
                      path_name[i / NFREQ], (unsigned long)freqs[i % NFREQ]);
    th_run(names[i], t_freq, (void *)(uintptr_t)i);
  }
  report();
  return th_finish();
}
