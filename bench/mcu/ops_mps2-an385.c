/**
 * @file ops_mps2-an385.c
 * @brief `ops` cases of the mps2-an385 firmware: the CMSDK APB timer
 *        MPS2_TIMER0, timed with the other CMSDK timer, MPS2_TIMER1.
 *
 * The board's instances are `static` in board.c, so the compile-time path
 * needs an instance visible here: `cmsdk_ct` is MPS2_TIMER0 defined again
 * with the driver's macro and the facts boards/mps2-an385/board.c gives it,
 * with its own core state, and bench_mcu_board_setup() compares it with the
 * board's instance field by field. The driver's functions are static in its own file, so even the
 * compile-time and hAPI paths load the function pointer from
 * utim_cmsdk_timer_driver: that is the direct call a user of this driver gets.
 *
 * The CMSDK timer has no compare register (0 channels): BENCH_OPS_DEFINE()
 * still generates the set and clear loops (one macro for every driver), but
 * the firmware never runs them and prints their rows as n/a.
 */
#include <stddef.h>

#include "bench_mcu.h"
#include "board.h"
#include "harness.h"
#include "utim_cmsdk_timer.h"

#define CMSDK_CT_BASE 0x40000000u

static const utim_clock_desc_t cmsdk_ct_clocks[1] = {
    {.hz = MPS2_SYSCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
};
UTIM_CMSDK_TIMER_DEFINE(cmsdk_ct, "MPS2_TIMER0", CMSDK_CT_BASE, cmsdk_ct_clocks);

/* Points at the board's instance after bench_mcu_board_setup(). */
static const utim_periph_t *volatile cmsdk_rt = &cmsdk_ct;

BENCH_OPS_DEFINE(cmsdk, "cmsdk", &cmsdk_ct, utim_cmsdk_timer_driver, cmsdk_rt);

/* RIOT's periph_timer rows on the board's instance (read only: no channel). */
BENCH_RIOT_DEFINE(cmsdk, cmsdk_rt)

const bench_mcu_board_t bench_mcu_board = {
    .cpu = "Cortex-M3 (ARMv7-M)",
    .set = &bench_ops_cmsdk,
    .hz = MPS2_SYSCLK_HZ,
    .what = "MPS2_TIMER0 (CMSDK APB timer, 32-bit down-counter) at 25 MHz",
    .no_channel_note = "the CMSDK APB timer has no compare register (0 channels)",
    .stopwatch = "MPS2_TIMER1",
    .stopwatch_hz = MPS2_SYSCLK_HZ,
    .riot = bench_riot_cmsdk_cases,
    .riot_prepare = bench_riot_cmsdk_prepare,
};

int bench_mcu_board_setup(char *err, unsigned cap) {
  const utim_periph_t *b = utim_by_name("MPS2_TIMER0");
  if (b == NULL) {
    (void)th_snprintf(err, cap, "the board has no instance named MPS2_TIMER0");
    return -1;
  }
  if (bench_mcu_same_instance(&cmsdk_ct, b, err, cap) != 0) {
    return -1;
  }
  /* Same driver, so the board's configuration has this type. */
  const utim_cmsdk_timer_cfg_t *bc = (const utim_cmsdk_timer_cfg_t *)(const void *)b->dev;
  if (bc->regs != cmsdk_ct_cfg.regs) {
    (void)th_snprintf(err, cap, "MPS2_TIMER0: register base differs from the bench's copy");
    return -1;
  }
  cmsdk_rt = b;
  return 0;
}
