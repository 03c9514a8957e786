/**
 * @file ops_microbit.c
 * @brief `ops` cases of the micro:bit firmware: the nRF51 TIMER0 (32 bits,
 *        3 channels), timed with NRF51_CHAIN32 (TIMER1 + TIMER2 chained by
 *        software carry) at 2 MHz.
 *
 * The board's instances are `static` in board.c, so the compile-time path
 * needs an instance visible here: `nrf_ct` is NRF51_TIMER0 defined again with
 * the driver's macro and the facts boards/microbit/board.c gives it, with its
 * own core state and driver RAM, and bench_mcu_board_setup() compares it with
 * the board's instance field by field. Both drive the same peripheral; the firmware re-initialises
 * both before every run, so their RAM offsets agree. The driver's functions are static in its own
 * file, so even the compile-time and hAPI paths load the function pointer from
 * utim_nrf51_timer_driver: that is the direct call a user of this driver gets.
 *
 * TIMER0 runs at its slowest rate (16 MHz / 2^9 = 31250 Hz) and the firmware
 * arms a quarter of the counter's range ahead, so no compare matches (and no
 * interrupt of it runs) inside a timed loop; the firmware checks it.
 *
 * The stopwatch is the only other instance of the board, the chain, at its
 * fastest rate (2 MHz, 16 MHz / 2^3; see boards/microbit/board.c). Its low
 * half (TIMER1, 16 bits) interrupts at every wrap to carry into TIMER2, so
 * its period is given to the firmware, which measures a run again when a
 * carry may have entered it. That period is 65536 ticks, 32.8 ms of virtual
 * time, over five times the longest timed run (about 6 million instructions
 * at -icount shift=0): the re-run is clean. A tick is 500 instructions, so
 * the figures resolve 0.03 instructions per call.
 */
#include <stddef.h>

#include "bench_mcu.h"
#include "board.h"
#include "harness.h"
#include "utim_nrf51_timer.h"

#define NRF_CT_BASE 0x40008000u

static const utim_clock_desc_t nrf_ct_clocks[1] = {
    {.hz = MICROBIT_HFCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = UTIM_NRF51_TIMER_PRESCALER_MAX},
};
UTIM_NRF51_TIMER_DEFINE(nrf_ct, "NRF51_TIMER0", NRF_CT_BASE, 32, 0u, nrf_ct_clocks);

/* Points at the board's instance after bench_mcu_board_setup(). */
static const utim_periph_t *volatile nrf_rt = &nrf_ct;

BENCH_OPS_DEFINE(nrf51, "nrf51", &nrf_ct, utim_nrf51_timer_driver, nrf_rt);

/* RIOT's periph_timer rows on the board's instance (nrf_rt after the set-up). */
BENCH_RIOT_DEFINE(nrf51, nrf_rt)

const bench_mcu_board_t bench_mcu_board = {
    .cpu = "Cortex-M0 (ARMv6-M)",
    .set = &bench_ops_nrf51,
    .hz = MICROBIT_HFCLK_HZ >> UTIM_NRF51_TIMER_PRESCALER_MAX,
    .what = "NRF51_TIMER0 (nRF51 TIMER, 32-bit, 3 channels) at 31250 Hz",
    .no_channel_note = NULL,
    .stopwatch = "NRF51_CHAIN32",
    .stopwatch_hz = MICROBIT_HFCLK_HZ >> 3,
    .stopwatch_irq_every = 1u << 16, /* TIMER1's wrap, the carry */
    .riot = bench_riot_nrf51_cases,
    .riot_prepare = bench_riot_nrf51_prepare,
};

int bench_mcu_board_setup(char *err, unsigned cap) {
  const utim_periph_t *b = utim_by_name("NRF51_TIMER0");
  if (b == NULL) {
    (void)th_snprintf(err, cap, "the board has no instance named NRF51_TIMER0");
    return -1;
  }
  if (bench_mcu_same_instance(&nrf_ct, b, err, cap) != 0) {
    return -1;
  }
  /* Same driver, so the board's configuration has this type. */
  const utim_nrf51_timer_cfg_t *bc = (const utim_nrf51_timer_cfg_t *)(const void *)b->dev;
  if (bc->regs != nrf_ct_cfg.regs || bc->ovf != nrf_ct_cfg.ovf) {
    (void)th_snprintf(
        err, cap, "NRF51_TIMER0: register base or overflow compare differs from the bench's copy");
    return -1;
  }
  nrf_rt = b;
  return 0;
}
