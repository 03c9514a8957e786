/*
 * Precise-sleep hooks of the bare-metal boards (Cortex-M and RISC-V) over the timers the board
 * names in mcu_sleep_board (see sleep_mcu.h for the time line, the alarm and the CPU time).
 * Everything is set up on first use, so a firmware that never sleeps or reads the time line keeps
 * every timer for itself.
 */
#include "sleep_mcu.h"

#include <errno.h>
#include <stddef.h>

#include "utim/port.h"
#include "utim/time.h"

/* An alarm is armed at most a quarter of the clock's range ahead: far enough
 * for every sleep to need few re-arms, and short enough for every driver's
 * "passed" rule (half the range) and for a 2^width - n counter write. */
#define MCU_SLEEP_QUARTER(w) (UINT64_C(1) << ((w)-2u))

typedef struct mcu_sleep_state {
  bool ready;
  int init_error;
  unsigned width;
  uint64_t ns_per_tick;       /* 10^9 / hz when exact, else 0 (general conversion) */
  volatile uint32_t wraps;    /* OVERFLOW: wraps delivered */
  volatile uint32_t quarters; /* QUARTER: markers delivered (quarter boundaries passed) */
  volatile bool fired;        /* the current alarm's callback has run */
  volatile uint32_t alarms;
  uint32_t wakeups;
  uint64_t idle_ticks;
  bool sleeper_ready;
  utim_sleeper_t sleeper;
} mcu_sleep_state_t;

static mcu_sleep_state_t g_sl;

/* ---- 64-bit clock ------------------------------------------------------------ */

static uint64_t clock_max(void) {
  return utim_max(mcu_sleep_board.clock);
}

static uint64_t quarter_base(uint32_t q) {
  return (uint64_t)q << (g_sl.width - 2u);
}

static uint64_t ticks_overflow(void) {
  const mcu_sleep_board_t *b = &mcu_sleep_board;
  uint32_t key = utim_port_lock();
  uint32_t w = g_sl.wraps;
  uint64_t c = utim_read(b->clock);
  /* Pending means the wrap came before this check but after the last count:
   * c may be from either side of it, a second read is surely after. */
  if (b->wrap_pending()) {
    c = utim_read(b->clock);
    w++;
  }
  utim_port_unlock(key);
  return ((uint64_t)w << g_sl.width) + c;
}

/* The base read first is never ahead of the counter read after it, and a
 * marker delivered in between only makes the base older: still within one
 * range of the counter, which is all the sum needs. */
static uint64_t ticks_quarter(void) {
  uint64_t base = quarter_base(g_sl.quarters);
  uint64_t c = utim_read(mcu_sleep_board.clock);
  return base + ((c - base) & clock_max());
}

static uint64_t ticks_now(void) {
  switch (mcu_sleep_board.wrap) {
  case MCU_SLEEP_WRAP_QUARTER:
    return ticks_quarter();
  case MCU_SLEEP_WRAP_NONE:
    return utim_read(mcu_sleep_board.clock);
  default:
    return ticks_overflow();
  }
}

static utim_ns_t ticks_to_ns(uint64_t t) {
  uint64_t ns = g_sl.ns_per_tick != 0u && t <= UINT64_MAX / g_sl.ns_per_tick
                    ? t * g_sl.ns_per_tick
                    : utim_ticks_to_ns(t, mcu_sleep_board.hz);
  return ns > (uint64_t)UTIM_NS_MAX ? UTIM_NS_MAX : (utim_ns_t)ns;
}

/* ---- callbacks ------------------------------------------------------------- */

static void on_overflow_clock(const utim_periph_t *p, void *arg) {
  (void)p;
  (void)arg;
  g_sl.wraps++;
}

/* The next marker goes on the next boundary. When that is already too close
 * to arm absolutely (the handler ran very late), a relative arming of the
 * minimum distance still lands after it, so the base never runs ahead. */
static void arm_marker(void) {
  const mcu_sleep_board_t *b = &mcu_sleep_board;
  uint64_t next = quarter_base(g_sl.quarters + 1u) & clock_max();
  if (utim_set_abs(b->clock, b->wrap_ch, next) == -ETIME) {
    (void)utim_set_rel(b->clock, b->wrap_ch, utim_min_distance(b->clock));
  }
}

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)arg;
  const mcu_sleep_board_t *b = &mcu_sleep_board;
  if (b->wrap == MCU_SLEEP_WRAP_QUARTER && ch == b->wrap_ch) {
    g_sl.quarters++;
    if ((g_sl.quarters & 3u) == 0u) {
      g_sl.wraps++;
    }
    arm_marker();
  }
  if (b->alarm == b->clock && ch == b->alarm_ch) {
    g_sl.alarms++;
    g_sl.fired = true;
  }
}

/* A written counter keeps counting after its overflow: stopped here, the
 * alarm fires once. */
static void on_overflow_alarm(const utim_periph_t *p, void *arg) {
  (void)arg;
  (void)utim_stop(p);
  g_sl.alarms++;
  g_sl.fired = true;
}

/* ---- set-up -------------------------------------------------------------- */

static int setup_alarm(const mcu_sleep_board_t *b) {
  if (b->alarm == NULL || b->alarm == b->clock) {
    return 0;
  }
  int rc = utim_claim(b->alarm, &g_sl);
  if (rc == 0) {
    rc = utim_init(b->alarm, b->hz, UTIM_CLOCK_DEFAULT);
  }
  if (rc == 0) {
    rc = utim_set_overflow_cb(b->alarm, on_overflow_alarm, NULL);
  }
  return rc;
}

static int setup(void) {
  const mcu_sleep_board_t *b = &mcu_sleep_board;
  const utim_periph_t *c = b->clock;
  g_sl.width = utim_width(c);
  const bool none = b->wrap == MCU_SLEEP_WRAP_NONE;
  if (g_sl.width < 8u || (none ? g_sl.width != 64u : g_sl.width > 32u) || b->hz == 0u ||
      (b->wrap == MCU_SLEEP_WRAP_OVERFLOW && b->wrap_pending == NULL)) {
    return -EINVAL;
  }
  g_sl.ns_per_tick = (uint64_t)UTIM_NS_PER_S % b->hz == 0u ? (uint64_t)UTIM_NS_PER_S / b->hz : 0u;
  int rc = utim_claim(c, &g_sl);
  if (rc == 0) {
    rc = utim_init(c, b->hz, UTIM_CLOCK_DEFAULT);
  }
  if (rc == 0 && b->start != 0u) {
    rc = utim_write(c, b->start);
  }
  if (rc == 0) {
    rc = utim_set_compare_cb(c, on_compare, NULL);
  }
  if (rc == 0 && b->wrap == MCU_SLEEP_WRAP_OVERFLOW) {
    rc = utim_set_overflow_cb(c, on_overflow_clock, NULL);
  } else if (rc == 0 && b->wrap == MCU_SLEEP_WRAP_QUARTER) {
    g_sl.quarters = (uint32_t)(b->start >> (g_sl.width - 2u));
    arm_marker();
  }
  if (rc == 0) {
    rc = setup_alarm(b);
  }
  if (rc == 0) {
    rc = utim_start(c);
  }
  return rc;
}

static bool ensure_ready(void) {
  if (!g_sl.ready) {
    /* Marked first: the set-up calls back into nothing of this file, but a
     * failed set-up must not be retried on every read. */
    g_sl.ready = true;
    g_sl.init_error = setup();
  }
  return g_sl.init_error == 0;
}

/* ---- hooks ------------------------------------------------------------------- */

utim_ns_t utim_port_now_ns(void) {
  return ensure_ready() ? ticks_to_ns(ticks_now()) : 0;
}

static int arm_alarm(uint64_t now, uint64_t target) {
  const mcu_sleep_board_t *b = &mcu_sleep_board;
  uint64_t n = target - now;
  uint64_t cap = MCU_SLEEP_QUARTER(g_sl.width);
  n = n > cap ? cap : n;
  uint32_t key = utim_port_lock();
  g_sl.fired = false;
  int rc;
  if (b->alarm_ch == MCU_SLEEP_ALARM_OVERFLOW) {
    /* Its first tick may come any time within one clock tick: one more. */
    uint64_t max = utim_max(b->alarm);
    (void)utim_stop(b->alarm);
    rc = utim_write(b->alarm, (max - n) & max);
    if (rc == 0) {
      rc = utim_start(b->alarm);
    }
  } else {
    rc = utim_set_rel(b->alarm, b->alarm_ch, n);
  }
  utim_port_unlock(key);
  return rc;
}

int utim_port_block_until(utim_ns_t t) {
  if (!ensure_ready()) {
    return -ENOTSUP;
  }
  if (mcu_sleep_board.alarm == NULL) {
    return -ENOTSUP;
  }
  if (t <= 0) {
    return 0;
  }
  uint64_t target = utim_ns_to_ticks_ceil((uint64_t)t, mcu_sleep_board.hz);
  uint64_t now = ticks_now();
  if (target <= now) {
    return 0;
  }
  int rc = arm_alarm(now, target);
  if (rc != 0) {
    return rc;
  }
  /*
   * WFI with interrupts masked: an interrupt pending at the check, or coming
   * after it, still ends the WFI, and its handler runs once the mask is
   * lifted, so the alarm cannot slip in between the check and the halt.
   */
  for (;;) {
    uint32_t key = utim_port_lock();
    if (g_sl.fired) {
      utim_port_unlock(key);
      break;
    }
    uint64_t t0 = ticks_now();
#if defined(__riscv)
    /* Wakes on any interrupt enabled in mie, whatever mstatus.MIE says. */
    __asm__ volatile("wfi" ::: "memory");
#else
    __asm__ volatile("dsb\n\twfi" ::: "memory");
#endif
    g_sl.idle_ticks += ticks_now() - t0;
    g_sl.wakeups++;
    utim_port_unlock(key);
  }
  return ticks_now() >= target ? 0 : -EINTR;
}

int64_t utim_port_cpu_ns(void) {
  if (!ensure_ready()) {
    return -ENOTSUP;
  }
  uint32_t key = utim_port_lock();
  uint64_t busy = ticks_now() - (uint64_t)mcu_sleep_board.start - g_sl.idle_ticks;
  utim_port_unlock(key);
  return ticks_to_ns(busy);
}

/* One sleeper for the main context; it learns the wake-up latency of the
 * alarm + WFI (without an alarm there is nothing to learn). */
utim_sleeper_t *utim_port_sleeper(void) {
  if (!ensure_ready()) {
    return NULL;
  }
  return utim_port_sleeper_setup(&g_sl.sleeper, &g_sl.sleeper_ready);
}

mcu_sleep_info_t mcu_sleep_info(void) {
  mcu_sleep_info_t i = {0};
  bool ok = ensure_ready();
  i.init_error = g_sl.init_error;
  uint32_t key = utim_port_lock();
  i.ticks = ok ? ticks_now() : 0u;
  i.wraps = g_sl.wraps;
  i.wakeups = g_sl.wakeups;
  i.alarms = g_sl.alarms;
  i.idle_ns = (uint64_t)ticks_to_ns(g_sl.idle_ticks);
  utim_port_unlock(key);
  return i;
}
