/**
 * @file mcycle_mcu.c
 * @brief RV_MCYCLE read against RV_MTIMER across the moment the hart's tick
 *        count passes 2^32 (virtual ns under -icount), the instance
 *        initialised well after boot: its count must advance with the
 *        elapsed time, never back. QEMU 7.2 on RV32 offsets each half of a
 *        written mcycle separately, so a write (even of 0) made that count
 *        jump 2^32 ahead and back. Time is skipped with WFI on the machine
 *        timer's compare, so the run is short.
 */
#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "harness.h"
#include "mcu.h"
#include "utim/port.h"
#include "utim/utim.h"

static const utim_periph_t *g_mt;
static const utim_periph_t *g_mc;
static volatile bool g_fired;

static void on_cmp(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)p;
  (void)ch;
  (void)arg;
  g_fired = true;
}

/* Halt until @p ticks of the machine timer (10 MHz) have passed. */
static void sleep_ticks(uint64_t ticks) {
  g_fired = false;
  (void)utim_set_rel(g_mt, 0u, ticks);
  for (;;) {
    uint32_t key = utim_port_lock();
    if (g_fired) {
      utim_port_unlock(key);
      break;
    }
    __asm__ volatile("wfi" ::: "memory");
    utim_port_unlock(key);
  }
}

static void t_mcycle(void *arg) {
  (void)arg;
  TH_EQ(utim_init(g_mt, RISCV_VIRT_TIMEBASE_HZ, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_compare_cb(g_mt, on_cmp, NULL), 0);
  TH_EQ(utim_start(g_mt), 0);
  sleep_ticks(10000000u); /* 1 s: the hart's tick count is about 10^9 */
  TH_EQ(utim_init(g_mc, RISCV_VIRT_CORE_HZ, UTIM_CLOCK_DEFAULT), 0);
  const uint64_t m0 = utim_read(g_mt);
  const uint64_t c0 = utim_read(g_mc);
  uint64_t prev = 0u;
  /* Past 2^32 ns of virtual time (4.29 s) and on, in 0.5 s steps. */
  for (unsigned i = 0u; i < 10u; i++) {
    sleep_ticks(5000000u);
    const uint64_t c = utim_read(g_mc) - c0;
    const uint64_t want = (utim_read(g_mt) - m0) * 100u; /* 10 MHz -> 1 GHz */
    const uint64_t d = c > want ? c - want : want - c;
    th_note("step %u: mcycle %llu, mtime says %llu", i, (unsigned long long)c,
            (unsigned long long)want);
    TH_CHECKF(d < 100000u, "mcycle %llu, elapsed %llu ns", (unsigned long long)c,
              (unsigned long long)want);
    TH_CHECKF(c >= prev, "mcycle went back from %llu to %llu", (unsigned long long)prev,
              (unsigned long long)c);
    prev = c;
  }
}

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  g_mt = utim_by_name("RV_MTIMER");
  g_mc = utim_by_name("RV_MCYCLE");
  if (g_mt == NULL || g_mc == NULL) {
    th_printf("Bail out! no RV_MTIMER / RV_MCYCLE\n");
    return 1;
  }
  th_run("RV_MCYCLE counts the elapsed ns across 2^32 ns of virtual time", t_mcycle, NULL);
  return th_finish();
}
