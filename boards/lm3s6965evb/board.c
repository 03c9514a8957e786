/*
 * lm3s6965evb board (Stellaris LM3S6965, Cortex-M3): SysTick as the
 * instance QEMU 7.2 lets utim verify, the GPTMs for the chip (see board.h),
 * interrupt routes and the exposure table.
 */
#include "board.h"

#include <stddef.h>

#include "cortexm.h"
#include "utim_stellaris_gptm.h"
#include "utim_systick.h"

_Static_assert(sizeof(utim_periph_t) <= 12u, "an instance fits in 12 bytes");

/* SysTick's processor clock only: QEMU's model has no reference clock. */
static const utim_clock_desc_t lm3s_systick_clk[1] = {
    {.hz = LM3S_SYSCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
};

UTIM_SYSTICK_DEFINE(lm3s_systick, "LM3S_SYSTICK", lm3s_systick_clk);

#ifdef LM3S6965_SILICON
static const utim_clock_desc_t lm3s_sysclk[1] = {LM3S_GPTM_CLOCK_DESC};
UTIM_STELLARIS_GPTM_DEFINE(lm3s_gptm0, "LM3S_GPTM0", LM3S_GPTM_BASE(0), lm3s_sysclk);
UTIM_STELLARIS_GPTM_DEFINE(lm3s_gptm1, "LM3S_GPTM1", LM3S_GPTM_BASE(1), lm3s_sysclk);
UTIM_STELLARIS_GPTM_DEFINE(lm3s_gptm2, "LM3S_GPTM2", LM3S_GPTM_BASE(2), lm3s_sysclk);
UTIM_STELLARIS_GPTM_DEFINE(lm3s_gptm3, "LM3S_GPTM3", LM3S_GPTM_BASE(3), lm3s_sysclk);
#endif

static const utim_periph_t *const lm3s_instances[] = {
    [LM3S_IDX_SYSTICK] = &lm3s_systick,
#ifdef LM3S6965_SILICON
    [LM3S_IDX_GPTM0] = &lm3s_gptm0,     [LM3S_IDX_GPTM1] = &lm3s_gptm1,
    [LM3S_IDX_GPTM2] = &lm3s_gptm2,     [LM3S_IDX_GPTM3] = &lm3s_gptm3,
#endif
};

_Static_assert(sizeof lm3s_instances / sizeof lm3s_instances[0] == LM3S_INSTANCE_COUNT,
               "every index of lm3s6965evb_timer_index has an instance");

const utim_board_t utim_board = {
    .name = "lm3s6965evb",
    .instances = lm3s_instances,
    .count = LM3S_INSTANCE_COUNT,
};

/* ---- interrupt routes ------------------------------------------------------ */

const cortexm_irq_route_t cortexm_irq_routes[] = {
    {CORTEXM_IRQN_SYSTICK, utim_systick_isr, &lm3s_systick},
#ifdef LM3S6965_SILICON
    {LM3S_IRQ_GPTM0A, utim_stellaris_gptm_isr, &lm3s_gptm0},
    {LM3S_IRQ_GPTM1A, utim_stellaris_gptm_isr, &lm3s_gptm1},
    {LM3S_IRQ_GPTM2A, utim_stellaris_gptm_isr, &lm3s_gptm2},
    {LM3S_IRQ_GPTM3A, utim_stellaris_gptm_isr, &lm3s_gptm3},
#endif
};

const unsigned cortexm_irq_route_count = sizeof cortexm_irq_routes / sizeof cortexm_irq_routes[0];

/* ---- exposure table ("Table 2") ------------------------------------------- */

#ifdef LM3S6965_SILICON
#define LM3S_GPTM_INST(n) (&lm3s_gptm##n)
#define LM3S_GPTM_NOTE    "32-bit periodic: overflow (time-out), top; no stop, no match in 32-bit mode"
#else
#define LM3S_GPTM_INST(n) NULL
#define LM3S_GPTM_NOTE                                                                             \
  "QEMU 7.2 reads GPTMTAR as 0 (no readable count); time-out, top, mask and stop of the driver "   \
  "verified by tests/gptm"
#endif

static const mcu_exposure_row_t lm3s_exposure_rows[] = {
    {"GPTM 0 (2 x 16 / 32-bit)", 2u, LM3S_GPTM_INST(0), LM3S_GPTM_NOTE},
    {"GPTM 1 (2 x 16 / 32-bit)", 2u, LM3S_GPTM_INST(1), LM3S_GPTM_NOTE},
    {"GPTM 2 (2 x 16 / 32-bit)", 2u, LM3S_GPTM_INST(2), LM3S_GPTM_NOTE},
    {"GPTM 3 (2 x 16 / 32-bit)", 2u, LM3S_GPTM_INST(3), LM3S_GPTM_NOTE},
    {"SysTick (24-bit down, exception at 0)", 0u, &lm3s_systick,
     "overflow; no compare register; 12.5 MHz"},
    {"Watchdog (32-bit down)", 0u, NULL, "a watchdog (reset), not a time base"},
    {"Hibernation RTC (32-bit, 1 Hz, match)", 1u, NULL, "not modelled by QEMU 7.2"},
};

static const char *const lm3s_exposure_notes[] = {
    "GPTM modes under QEMU 7.2: 32-bit one-shot and periodic time-outs (period TAILR cycles, one "
    "short of the chip) and 32-bit RTC (1 Hz) are modelled; 16-bit timer, capture and PWM modes, "
    "the prescaler and GPTMTAR reads are not",
    "the GPTMs' channels counted above are the 16-bit modes' capture/PWM/match: none of them is a "
    "compare in 32-bit timer mode on this part",
};

MCU_EXPOSURE_DEFINE(lm3s_exposure_rows, 40u, lm3s_exposure_notes);
