/**
 * @file cmsis_mcu.c
 * @brief `utim-bench cmsis` as firmware of a Cortex-M board under QEMU:
 *        instructions of the CMSIS-RTOS2 layer against the time manager
 *        called directly.
 *
 * @par Method
 * QEMU runs with `-icount shift=N,align=off,sleep=off`: every guest
 * instruction is 2^N ns of virtual time, which the board's timers count
 * (see main.c, "How instructions are counted"). A stopwatch (the board's
 * fastest instance other than the manager's) read around a loop gives the
 * instructions the loop executed.
 * - Calls (LOOP calls each, the empty loop subtracted): osTimerStart(id,
 *   100) vs utim_tm_start() (restarts of a pending timer); osTimerStop()
 *   vs utim_tm_stop() (16 pending timers stopped in a row, the starts
 *   outside the measured span); osDelay(100)'s set-up vs utim_tm_start_at()
 *   of the same one-shot. For these the layer runs on a measuring binding
 *   whose block_until() arms that one-shot and returns (the wait is the
 *   kernel's, not the layer's), as on the host.
 * - Dispatch (the bare-metal binding, utim/cmsis_os2_cortexm.h): from a
 *   kernel-tick boundary of the manager's time, a one-shot of one kernel
 *   tick is started and the callback reads the stopwatch; CMSIS (expiry ->
 *   manager interrupt -> on_expiry -> PendSV -> the callback) against a
 *   manager timer (expiry -> manager interrupt -> the callback). The expiry
 *   lies at the same place for both, so the difference of the means is the
 *   layer's dispatch (only it is printed: both means include the lag of
 *   detecting the boundary). SAMPLES each, started after 0..63 dithering
 *   instructions so the stopwatch's quantisation averages out.
 *
 * @par Checks
 * Every callback comes, none before its expiry's kernel tick; a second run
 * prints the same bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "cortexm.h"
#include "harness.h"
#include "os2_pick.h"
#include "utim/cmsis_os2.h"
#include "utim/cmsis_os2_cortexm.h"
#include "utim/port.h"
#include "utim/utim.h"

#ifndef UTIM_QEMU_ICOUNT_SHIFT
#error "UTIM_QEMU_ICOUNT_SHIFT must be the -icount shift QEMU runs with"
#endif

#define TICK_HZ 1000u
/* The manager's clock: a count lasts 8000 instructions, so a start made
 * right after a count's edge reads that count (the dispatch rows rely on it). */
#define WANT_HZ 125000u
#define TICKS   100u /* kernel ticks of a measured start or delay */
#define LOOP    1024u
#define SAMPLES 32u

static utim_tm_t tm;
static os2_pick_t k;
static uint64_t ratio;
static const utim_periph_t *sw;
static uint32_t sw_hz;

/* ---- the stopwatch ---- */

static bool pick_stopwatch(void) {
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    uint32_t f[16];
    const int n = utim_freqs(p, UTIM_CLOCK_DEFAULT, f, 16u);
    for (int j = 0; p != k.p && j < n && j < 16; j++) {
      if (f[j] > sw_hz && utim_width(p) >= 16u) {
        sw = p;
        sw_hz = f[j];
      }
    }
  }
  return sw != NULL && utim_init(sw, sw_hz, UTIM_CLOCK_DEFAULT) == 0 && utim_start(sw) == 0;
}

static uint32_t sw_read(void) {
  return (uint32_t)utim_read(sw);
}

/* Instructions x 100 in @p ticks of the stopwatch. */
static uint64_t insns100(uint64_t ticks) {
  return ticks * 100u * (1000000000u / sw_hz) / (1u << UTIM_QEMU_ICOUNT_SHIFT);
}

static uint32_t sw_delta(uint32_t a, uint32_t b) {
  return (uint32_t)((b - a) & utim_max(sw));
}

/* ---- part 1: calls, on a measuring binding ---- */

static utim_tm_timer_t wake;
static utim_tm_timer_t direct;
static utim_os2_deferred_t queued;

static bool m_in_isr(void *ctx) {
  (void)ctx;
  return utim_port_in_isr();
}

static int m_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  queued = d;
  return 0;
}

static int m_block_until(void *ctx, utim_tm_t *m, uint64_t deadline) {
  (void)ctx;
  return utim_tm_start_at(m, &wake, deadline, 0u);
}

static const utim_os2_binding_t measuring = {m_in_isr, m_block_until, m_defer, NULL};

static void nop_cb(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
}

static void nop_os2(void *arg) {
  (void)arg;
}

/* Each step a function of its own, called through a pointer: the loops
 * differ in the call only. */
typedef void (*step_t)(osTimerId_t id);

__attribute__((noinline)) static void s_empty(osTimerId_t id) {
  __asm__ volatile("" ::"r"(id) : "memory");
}
__attribute__((noinline)) static void s_os2_start(osTimerId_t id) {
  (void)osTimerStart(id, TICKS);
}
__attribute__((noinline)) static void s_tm_start(osTimerId_t id) {
  (void)id;
  (void)utim_tm_start(&tm, &direct, TICKS * ratio, 0u);
}
/* Stops: NSTOP timers each way, started outside the measured span. */
#define NSTOP UTIM_OS2_TIMER_POOL
static osTimerId_t stop_ids[NSTOP];
static utim_tm_timer_t stop_tms[NSTOP];

__attribute__((noinline)) static void s_empty_n(void) {
  for (unsigned i = 0; i < NSTOP; i++) {
    s_empty(stop_ids[i]);
  }
}
__attribute__((noinline)) static void s_os2_stops(void) {
  for (unsigned i = 0; i < NSTOP; i++) {
    (void)osTimerStop(stop_ids[i]);
  }
}
__attribute__((noinline)) static void s_tm_stops(void) {
  for (unsigned i = 0; i < NSTOP; i++) {
    (void)utim_tm_stop(&tm, &stop_tms[i]);
  }
}
__attribute__((noinline)) static void s_os2_delay(osTimerId_t id) {
  (void)id;
  (void)osDelay(TICKS);
}
__attribute__((noinline)) static void s_tm_delay(osTimerId_t id) {
  (void)id;
  (void)utim_tm_start_at(&tm, &wake, utim_tm_now(&tm) + TICKS * ratio, 0u);
}

/* Instructions x 100 per call of @p s: the smaller of two runs, as a
 * stopwatch with a software carry (NRF51_CHAIN32) takes an interrupt of its
 * own now and then, which one run may contain. */
static uint64_t per_call(step_t s, osTimerId_t id) {
  uint64_t best = UINT64_MAX;
  for (unsigned run = 0; run < 2u; run++) {
    const uint32_t a = sw_read();
    for (unsigned i = 0; i < LOOP; i++) {
      s(id);
    }
    const uint32_t b = sw_read();
    const uint64_t v = insns100(sw_delta(a, b)) / LOOP;
    best = v < best ? v : best;
  }
  return best;
}

/* Instructions x 100 per stop: LOOP / NSTOP rounds of starting the timers
 * (not measured) and stopping them through @p stops, less the same rounds
 * of the empty call. */
static uint64_t per_stop(void (*stops)(void), bool os2) {
  uint64_t ticks[2] = {0u, 0u};
  for (unsigned r = 0; r < LOOP / NSTOP; r++) {
    for (unsigned way = 0; way < 2u; way++) {
      for (unsigned i = 0; i < NSTOP; i++) {
        if (os2) {
          (void)osTimerStart(stop_ids[i], TICKS);
        } else {
          (void)utim_tm_start(&tm, &stop_tms[i], TICKS * ratio, 0u);
        }
      }
      const uint32_t a = sw_read();
      (way == 0u ? stops : s_empty_n)();
      ticks[way] += sw_delta(a, sw_read());
    }
  }
  return (insns100(ticks[0]) - insns100(ticks[1])) / LOOP;
}

enum { C_START, C_STOP, C_DELAY, C_DISPATCH, C_N };
static const char *const c_name[C_N] = {"timer_start", "timer_stop", "delay_setup",
                                        "callback_dispatch"};
static uint64_t res[C_N][2]; /* instructions x 100: [0] CMSIS, [1] direct */

static void t_calls(void *arg) {
  (void)arg;
  if (!TH_EQ(os2_pick_start(&k, &tm, TICK_HZ), 0) ||
      !TH_EQ(utim_os2_init(&tm, k.hz, TICK_HZ, &measuring), 0)) {
    return;
  }
  utim_tm_timer_init(&wake, nop_cb, NULL);
  utim_tm_timer_init(&direct, nop_cb, NULL);
  osTimerId_t id = osTimerNew(nop_os2, osTimerOnce, NULL, NULL);
  if (!TH_CHECK(id != NULL)) {
    return;
  }
  const uint64_t base = per_call(s_empty, id);
  const uint64_t os2_start = per_call(s_os2_start, id) - base;
  const uint64_t tm_start = per_call(s_tm_start, id) - base;
  res[C_START][0] = os2_start;
  res[C_START][1] = tm_start;
  res[C_DELAY][0] = per_call(s_os2_delay, id) - base;
  res[C_DELAY][1] = per_call(s_tm_delay, id) - base;
  (void)osTimerDelete(id);
  /* The stop timers from the layer's pool (no RAM of their own here). */
  for (unsigned i = 0; i < NSTOP; i++) {
    stop_ids[i] = osTimerNew(nop_os2, osTimerOnce, NULL, NULL);
    utim_tm_timer_init(&stop_tms[i], nop_cb, NULL);
    (void)TH_CHECK(stop_ids[i] != NULL);
  }
  res[C_STOP][0] = per_stop(s_os2_stops, true);
  res[C_STOP][1] = per_stop(s_tm_stops, false);
  TH_CHECK(queued.timer == NULL); /* nothing expired meanwhile */
  for (unsigned i = 0; i < NSTOP; i++) {
    (void)osTimerDelete(stop_ids[i]);
  }
  (void)utim_tm_stop(&tm, &wake);
  (void)utim_tm_stop(&tm, &direct);
  TH_EQ(utim_tm_deinit(&tm), 0);
  (void)utim_stop(k.p);
}

/* ---- part 2: dispatch, on the bare-metal binding ---- */

static volatile uint32_t cb_at;
static volatile bool cb_done;

static void cb_os2(void *arg) {
  (void)arg;
  cb_at = sw_read();
  cb_done = true;
}

static void cb_tm(utim_tm_t *m, utim_tm_timer_t *t, void *arg) {
  (void)m;
  (void)t;
  (void)arg;
  cb_at = sw_read();
  cb_done = true;
}

/* Spin to the next kernel-tick boundary of the manager's time, then
 * @p dither more loop iterations; returns the stopwatch then. */
static uint32_t at_boundary(unsigned dither) {
  const uint64_t t0 = utim_tm_now(&tm) / ratio;
  while (utim_tm_now(&tm) / ratio == t0) {
  }
  for (volatile unsigned i = 0; i < dither; i++) {
  }
  return sw_read();
}

static void t_dispatch(void *arg) {
  (void)arg;
  if (!TH_EQ(os2_pick_start(&k, &tm, TICK_HZ), 0) ||
      !TH_EQ(utim_os2_cortexm_start(&tm, k.hz, TICK_HZ), 0)) {
    return;
  }
  osTimerId_t id = osTimerNew(cb_os2, osTimerOnce, NULL, NULL);
  utim_tm_timer_init(&direct, cb_tm, NULL);
  /* One kernel tick from a boundary: the layer's span; directly the same
   * (a ticked manager: its next tick, 1 count on). */
  const uint64_t direct_span = k.ch == UTIM_TM_OVERFLOW ? 1u : ratio;
  uint64_t sum[2] = {0u, 0u};
  unsigned lost = 0;
  for (unsigned s = 0; s < SAMPLES; s++) {
    for (unsigned path = 0; path < 2u; path++) {
      cb_done = false;
      const uint32_t t0 = at_boundary((s * 7u) % 64u);
      const int rc = path == 0u ? (osTimerStart(id, 1u) == osOK ? 0 : -EINVAL)
                                : utim_tm_start(&tm, &direct, direct_span, 0u);
      while (rc == 0 && !cb_done && sw_delta(t0, sw_read()) < 4u * (sw_hz / TICK_HZ)) {
      }
      if (rc != 0 || !cb_done) {
        lost++;
        continue;
      }
      sum[path] += sw_delta(t0, cb_at);
    }
  }
  TH_EQU(lost, 0u);
  /* Less the tick itself: from the expiry (plus the boundary's detection,
   * the same for both). */
  const uint64_t tick100 = (uint64_t)100u * (1000000000u / TICK_HZ) >> UTIM_QEMU_ICOUNT_SHIFT;
  res[C_DISPATCH][0] = insns100(sum[0]) / SAMPLES - tick100;
  res[C_DISPATCH][1] = insns100(sum[1]) / SAMPLES - tick100;
  (void)osTimerDelete(id);
  TH_EQ(utim_tm_deinit(&tm), 0);
  (void)utim_stop(k.p);
}

/* One row: @p first left-aligned in -@p w columns, then three right-aligned
 * in 13 (the harness's printf pads numbers only). */
static const char *pad(char *buf, unsigned cap, const char *first, int w, const char *x,
                       const char *y, const char *z) {
  const char *const col[4] = {first, x, y, z};
  unsigned n = 0;
  for (unsigned i = 0; i < 4u; i++) {
    const unsigned width = i == 0u ? (unsigned)-w : 13u;
    unsigned len = 0;
    while (col[i][len] != '\0') {
      len++;
    }
    const unsigned fill = len < width ? width - len : 0u;
    for (unsigned f = 0; i != 0u && f < fill && n + 1u < cap; f++) {
      buf[n++] = ' ';
    }
    for (unsigned j = 0; j < len && n + 1u < cap; j++) {
      buf[n++] = col[i][j];
    }
    for (unsigned f = 0; i == 0u && f < fill && n + 1u < cap; f++) {
      buf[n++] = ' ';
    }
  }
  buf[n] = '\0';
  return buf;
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  th_printf("TAP version 13\n");
  k = os2_pick(WANT_HZ, TICK_HZ);
  ratio = k.hz / TICK_HZ;
  if (k.p == NULL || !pick_stopwatch()) {
    th_printf("Bail out! no instance for the manager or the stopwatch\n");
    return 1;
  }
  th_note("utim-bench cmsis on %s under QEMU -icount shift=%d: manager on %s at %lu Hz (%s), "
          "stopwatch %s at %lu Hz",
          utim_board.name, UTIM_QEMU_ICOUNT_SHIFT, utim_name(k.p), (unsigned long)k.hz,
          k.ch == UTIM_TM_OVERFLOW ? "ticked on the overflow" : "tickless", utim_name(sw),
          (unsigned long)sw_hz);
  th_run("calls through the layer and direct (measuring binding)", t_calls, NULL);
  th_run("callback dispatch: PendSV timer context vs the manager's callback", t_dispatch, NULL);
  char a[24];
  char b[24];
  char c[24];
  char line[96];
  th_note("%s", pad(line, sizeof line, "operation", -18, "CMSIS instr", "direct instr", "extra"));
  for (unsigned i = 0; i < C_DISPATCH; i++) {
    th_note("%s",
            pad(line, sizeof line, c_name[i], -18, th_fixed(a, sizeof a, (int64_t)res[i][0], 2u),
                th_fixed(b, sizeof b, (int64_t)res[i][1], 2u),
                th_fixed(c, sizeof c, (int64_t)res[i][0] - (int64_t)res[i][1], 2u)));
  }
  th_note("calls: per call, the empty call subtracted; direct: utim_tm_start, utim_tm_stop, "
          "utim_tm_start_at(now + 100 ticks)");
  th_note("%s", pad(line, sizeof line, c_name[C_DISPATCH], -18, "", "",
                    th_fixed(c, sizeof c, (int64_t)res[C_DISPATCH][0] - (int64_t)res[C_DISPATCH][1],
                             2u)));
  th_note("dispatch: expiry -> callback through the layer (on_expiry, PendSV after the manager's "
          "interrupt has finished, utim_os2_run_deferred) less the same from a manager timer's "
          "callback, mean of %u each; only the difference is shown (both include the same "
          "lag of detecting the kernel-tick boundary they start from)",
          SAMPLES);
  th_printf("{\"benchmark\":\"cmsis\",\"board\":\"%s\",\"icount_shift\":%d,\"rows\":[",
            utim_board.name, UTIM_QEMU_ICOUNT_SHIFT);
  for (unsigned i = 0; i < C_DISPATCH; i++) {
    th_printf("%s{\"name\":\"%s\",\"cmsis\":%s,", i != 0u ? "," : "", c_name[i],
              th_fixed(a, sizeof a, (int64_t)res[i][0], 2u));
    th_printf("\"direct\":%s,", th_fixed(b, sizeof b, (int64_t)res[i][1], 2u));
    th_printf("\"extra\":%s}", th_fixed(c, sizeof c, (int64_t)res[i][0] - (int64_t)res[i][1], 2u));
  }
  th_printf(",{\"name\":\"%s\",\"cmsis\":null,\"direct\":null,\"extra\":%s}]}\n",
            c_name[C_DISPATCH],
            th_fixed(c, sizeof c, (int64_t)res[C_DISPATCH][0] - (int64_t)res[C_DISPATCH][1], 2u));
  return th_finish();
}
