/**
 * @file ops_lm3s6965evb.c
 * @brief `ops` cases of the lm3s6965evb firmware: the Stellaris GPTM 0 in
 *        32-bit periodic mode (drivers/stellaris_gptm), timed with SysTick.
 *
 * `gptm_ct` is GPTM 0 defined with the driver's macro, as the board defines
 * it for the chip (LM3S6965_SILICON). Under QEMU the board keeps the GPTMs
 * out of its table (their count cannot be read there), so the run-time path
 * points at this same instance through a volatile pointer: the uAPI then
 * cannot see the instance at compile time, which is what that path measures.
 * Instruction counts do not depend on the values QEMU returns, so read's
 * cost is the driver's even though GPTMTAR reads 0. The GPTM has no compare
 * in 32-bit timer mode (0 channels) and no writable count: set, clear and
 * write are n/a.
 *
 * The stopwatch is SysTick at the system clock (12.5 MHz: 80 instructions a
 * tick under -icount shift=0); its interrupt stays off (hAPI init leaves
 * TICKINT clear) and its 24-bit wrap (1.3 s) is far longer than a timed run.
 */
#include <stddef.h>

#include "bench_mcu.h"
#include "board.h"
#include "harness.h"
#include "utim_stellaris_gptm.h"

static const utim_clock_desc_t gptm_ct_clocks[1] = {LM3S_GPTM_CLOCK_DESC};
UTIM_STELLARIS_GPTM_DEFINE(gptm_ct, "LM3S_GPTM0", LM3S_GPTM_BASE(0), gptm_ct_clocks);

/* The run-time path's instance (the board's, where it has one). */
static const utim_periph_t *volatile gptm_rt = &gptm_ct;

BENCH_OPS_DEFINE(gptm, "gptm", &gptm_ct, utim_stellaris_gptm_driver, gptm_rt);

#ifdef LM3S6965_SILICON
/* RIOT's periph_timer rows (read only: no channel); RIOT names a timer by
 * its device number, which only an instance of the board's table has. */
BENCH_RIOT_DEFINE(gptm, gptm_rt)
#define LM3S_RIOT_CASES   bench_riot_gptm_cases
#define LM3S_RIOT_PREPARE bench_riot_gptm_prepare
#else
#define LM3S_RIOT_CASES   NULL
#define LM3S_RIOT_PREPARE NULL
#endif

const bench_mcu_board_t bench_mcu_board = {
    .cpu = "Cortex-M3 (ARMv7-M)",
    .set = &bench_ops_gptm,
    .hz = LM3S_SYSCLK_HZ,
    .what = "LM3S_GPTM0 (Stellaris GPTM, 32-bit periodic, down) at 12.5 MHz",
    .no_channel_note = "the GPTM has no compare in 32-bit timer mode (0 channels)",
    .stopwatch = "LM3S_SYSTICK",
    .stopwatch_hz = LM3S_SYSCLK_HZ,
    .stopwatch_irq_every = 0u,
    .riot = LM3S_RIOT_CASES,
    .riot_prepare = LM3S_RIOT_PREPARE,
};

int bench_mcu_board_setup(char *err, unsigned cap) {
  const utim_periph_t *b = utim_by_name("LM3S_GPTM0");
  if (b == NULL) {
    return 0; /* under QEMU: not in the table, the bench's own instance serves */
  }
  if (bench_mcu_same_instance(&gptm_ct, b, err, cap) != 0) {
    return -1;
  }
  const utim_stellaris_gptm_cfg_t *bc = (const utim_stellaris_gptm_cfg_t *)(const void *)b->dev;
  if (bc->regs != gptm_ct_cfg.regs) {
    (void)th_snprintf(err, cap, "LM3S_GPTM0: register base differs from the bench's copy");
    return -1;
  }
  gptm_rt = b;
  return 0;
}
