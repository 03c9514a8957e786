/**
 * @file ops_riscv-virt.c
 * @brief `ops` cases of the riscv-virt firmware (RV32 and RV64): the RISC-V machine timer
 *        RV_MTIMER (64-bit mtime, one compare), timed with the hart's cycle
 *        counter RV_MCYCLE.
 *
 * The board's instances are `static` in board.c, so the compile-time path
 * needs an instance visible here: `mt_ct` is RV_MTIMER defined again with the
 * driver's macro and the facts boards/riscv-virt/board.c gives it, with its own
 * core state and driver RAM, and bench_mcu_board_setup() compares it with the
 * board's instance field by field. Both drive the same registers; the
 * firmware re-initialises both before every run. The driver's functions are
 * static in its own file, so even the compile-time and hAPI paths load the
 * function pointer from utim_riscv_mtimer_driver: the direct call a user of
 * this driver gets.
 *
 * The firmware arms a quarter of the counter's range ahead (2^62 ticks of a
 * 64-bit counter), so no compare matches inside a timed loop.
 *
 * The stopwatch is mcycle: under -icount it counts exactly one per
 * instruction (1 GHz at shift 0) and raises no interrupt, so a tick is one
 * instruction and nothing interrupts a timed run.
 */
#include <stddef.h>

#include "bench_mcu.h"
#include "board.h"
#include "harness.h"
#include "utim_riscv_mtimer.h"

static const utim_clock_desc_t mt_ct_clocks[1] = {
    {.hz = RISCV_VIRT_TIMEBASE_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_LINEAR,
     .div_lo = 1u,
     .div_hi = 1u},
};
UTIM_RISCV_MTIMER_DEFINE(mt_ct, "RV_MTIMER", RISCV_VIRT_MTIME, RISCV_VIRT_MTIMECMP0, mt_ct_clocks);

/* Points at the board's instance after bench_mcu_board_setup(). */
static const utim_periph_t *volatile mt_rt = &mt_ct;

BENCH_OPS_DEFINE(mtimer, "mtimer", &mt_ct, utim_riscv_mtimer_driver, mt_rt);

/* RIOT's periph_timer rows on the board's instance (mt_rt after the set-up). */
BENCH_RIOT_DEFINE(mtimer, mt_rt)

const bench_mcu_board_t bench_mcu_board = {
#if __riscv_xlen == 64
    .cpu = "RV64IMAC (QEMU virt, M-mode)",
#else
    .cpu = "RV32IMAC (QEMU virt, M-mode)",
#endif
    .set = &bench_ops_mtimer,
    .hz = RISCV_VIRT_TIMEBASE_HZ,
    .what = "RV_MTIMER (RISC-V machine timer, 64-bit mtime, 1 channel) at 10 MHz",
    .no_channel_note = NULL,
    .stopwatch = "RV_MCYCLE",
    .stopwatch_hz = RISCV_VIRT_CORE_HZ,
    .stopwatch_irq_every = 0u, /* mcycle raises no interrupt */
    .riot = bench_riot_mtimer_cases,
    .riot_prepare = bench_riot_mtimer_prepare,
};

int bench_mcu_board_setup(char *err, unsigned cap) {
  const utim_periph_t *b = utim_by_name("RV_MTIMER");
  if (b == NULL) {
    (void)th_snprintf(err, cap, "the board has no instance named RV_MTIMER");
    return -1;
  }
  if (bench_mcu_same_instance(&mt_ct, b, err, cap) != 0) {
    return -1;
  }
  /* Same driver, so the board's configuration has this type. */
  const utim_riscv_mtimer_cfg_t *bc = (const utim_riscv_mtimer_cfg_t *)(const void *)b->dev;
  if (bc->mtime != mt_ct_cfg.mtime || bc->mtimecmp != mt_ct_cfg.mtimecmp) {
    (void)th_snprintf(err, cap, "RV_MTIMER: register addresses differ from the bench's copy");
    return -1;
  }
  mt_rt = b;
  return 0;
}
