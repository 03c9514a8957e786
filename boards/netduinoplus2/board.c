/*
 * netduinoplus2 board (STM32F405RG): the timer instances QEMU 7.2 models
 * (TIM2..TIM5 as counters, SysTick), their interrupt routes, and the
 * exposure table. No precise-sleep hooks: see board.cmake.
 */
#include "board.h"

#include <stddef.h>

#include "cortexm.h"
#include "utim_stm32_gptim.h"
#include "utim_systick.h"

#define STM32_IRQ_TIM2 28
#define STM32_IRQ_TIM3 29
#define STM32_IRQ_TIM4 30
#define STM32_IRQ_TIM5 50

_Static_assert(sizeof(utim_periph_t) <= 12u, "an instance fits in 12 bytes");
_Static_assert(sizeof(utim_driver_t) <= 28u, "a driver is at most seven pointers");

/* What the instances of TIM2..TIM5 offer (see board.h): under QEMU only what
 * QEMU models; on the chip also its compare channels and update interrupt. */
#ifdef NETDUINOPLUS2_SILICON
#define NDP2_TIM_OPTS (UTIM_STM32_GPTIM_OPT_COMPARE | UTIM_STM32_GPTIM_OPT_OVF)
#else
#define NDP2_TIM_OPTS 0u
#endif

/* ---- clock inputs ------------------------------------------------------- */

static const utim_clock_desc_t ndp2_timclk[1] = {
    {.hz = NETDUINOPLUS2_TIMCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_LINEAR,
     .div_lo = 1u,
     .div_hi = UTIM_STM32_GPTIM_DIV_MAX},
};

/* Index UTIM_SYSTICK_CLK_CPU, then UTIM_SYSTICK_CLK_REF. */
static const utim_clock_desc_t ndp2_systick_clk[2] = {
    {.hz = NETDUINOPLUS2_HCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
    {.hz = NETDUINOPLUS2_REFCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
};

/* ---- instances ------------------------------------------------------------ */

/* Each driver's macro fills in channels, direction, capabilities and minimum
 * distance. TIM2 and TIM5 are 32 bits, TIM3 and TIM4 16 bits (RM0090 18.1). */
UTIM_STM32_GPTIM_DEFINE(ndp2_tim2, "STM32_TIM2", 0x40000000u, 32, NDP2_TIM_OPTS, ndp2_timclk);
UTIM_STM32_GPTIM_DEFINE(ndp2_tim3, "STM32_TIM3", 0x40000400u, 16, NDP2_TIM_OPTS, ndp2_timclk);
UTIM_STM32_GPTIM_DEFINE(ndp2_tim4, "STM32_TIM4", 0x40000800u, 16, NDP2_TIM_OPTS, ndp2_timclk);
UTIM_STM32_GPTIM_DEFINE(ndp2_tim5, "STM32_TIM5", 0x40000C00u, 32, NDP2_TIM_OPTS, ndp2_timclk);
UTIM_SYSTICK_DEFINE(ndp2_systick, "STM32_SYSTICK", ndp2_systick_clk);

static const utim_periph_t *const ndp2_instances[] = {
    [NETDUINOPLUS2_IDX_TIM2] = &ndp2_tim2,       [NETDUINOPLUS2_IDX_TIM3] = &ndp2_tim3,
    [NETDUINOPLUS2_IDX_TIM4] = &ndp2_tim4,       [NETDUINOPLUS2_IDX_TIM5] = &ndp2_tim5,
    [NETDUINOPLUS2_IDX_SYSTICK] = &ndp2_systick,
};

_Static_assert(sizeof ndp2_instances / sizeof ndp2_instances[0] == NETDUINOPLUS2_INSTANCE_COUNT,
               "every index of netduinoplus2_timer_index has an instance");

const utim_board_t utim_board = {
    .name = "netduinoplus2",
    .instances = ndp2_instances,
    .count = NETDUINOPLUS2_INSTANCE_COUNT,
};

/* ---- interrupt routes (one dispatcher per peripheral type) ----------------- */

/* The TIM lines are routed although no event of theirs is enabled under
 * QEMU: a spurious line then reaches the driver, which ignores flags whose
 * interrupt is off, instead of ending the run as an unrouted fault. */
const cortexm_irq_route_t cortexm_irq_routes[] = {
    {CORTEXM_IRQN_SYSTICK, utim_systick_isr, &ndp2_systick},
    {STM32_IRQ_TIM2, utim_stm32_gptim_isr, &ndp2_tim2},
    {STM32_IRQ_TIM3, utim_stm32_gptim_isr, &ndp2_tim3},
    {STM32_IRQ_TIM4, utim_stm32_gptim_isr, &ndp2_tim4},
    {STM32_IRQ_TIM5, utim_stm32_gptim_isr, &ndp2_tim5},
};

const unsigned cortexm_irq_route_count = sizeof cortexm_irq_routes / sizeof cortexm_irq_routes[0];

/* ---- exposure table ("Table 2") ------------------------------------------- */

#define NDP2_GPTIM_NOTE                                                                            \
  "counter, write, stop, PSC 1..65536 of 1 GHz; 0 channels, no overflow: QEMU 7.2 models no "      \
  "compare and mistimes the update IRQ (driver has CC1..4 + UIF from RM0090, not verified under "  \
  "emulation)"

static const mcu_exposure_row_t ndp2_exposure_rows[] = {
    {"TIM1 (16-bit advanced)", 4u, NULL, "not modelled by QEMU 7.2 (0x40010000 unimplemented)"},
    {"TIM2 (32-bit general-purpose)", 4u, &ndp2_tim2, NDP2_GPTIM_NOTE},
    {"TIM3 (16-bit general-purpose)", 4u, &ndp2_tim3, NDP2_GPTIM_NOTE},
    {"TIM4 (16-bit general-purpose)", 4u, &ndp2_tim4, NDP2_GPTIM_NOTE},
    {"TIM5 (32-bit general-purpose)", 4u, &ndp2_tim5, NDP2_GPTIM_NOTE},
    {"TIM6 (16-bit basic)", 0u, NULL, "not modelled by QEMU 7.2 (0x40001000 unimplemented)"},
    {"TIM7 (16-bit basic)", 0u, NULL, "not modelled by QEMU 7.2 (0x40001400 unimplemented)"},
    {"TIM8 (16-bit advanced)", 4u, NULL, "not modelled by QEMU 7.2 (0x40010400 unimplemented)"},
    {"TIM9 (16-bit general-purpose)", 2u, NULL,
     "not modelled by QEMU 7.2 (0x40014000 unimplemented)"},
    {"TIM10 (16-bit general-purpose)", 1u, NULL,
     "not modelled by QEMU 7.2 (0x40014400 unimplemented)"},
    {"TIM11 (16-bit general-purpose)", 1u, NULL,
     "not modelled by QEMU 7.2 (0x40014800 unimplemented)"},
    {"TIM12 (16-bit general-purpose)", 2u, NULL,
     "not modelled by QEMU 7.2 (0x40001800 unimplemented)"},
    {"TIM13 (16-bit general-purpose)", 1u, NULL,
     "not modelled by QEMU 7.2 (0x40001C00 unimplemented)"},
    {"TIM14 (16-bit general-purpose)", 1u, NULL,
     "not modelled by QEMU 7.2 (0x40002000 unimplemented)"},
    {"RTC (wakeup timer, alarms A/B)", 2u, NULL,
     "not modelled by QEMU 7.2 (0x40002800 unimplemented)"},
    {"SysTick (24-bit down, exception at 0)", 0u, &ndp2_systick,
     "overflow; no compare register; 168 MHz or 21 MHz"},
    {"IWDG / WWDG (watchdogs)", 0u, NULL, "watchdogs, and not modelled by QEMU 7.2"},
    {"DWT CYCCNT (32-bit cycle counter)", 0u, NULL,
     "not modelled by QEMU 7.2 (DWT_CTRL and CYCCNT read as 0)"},
};

static const char *const ndp2_exposure_notes[] = {
    "TIM2..TIM5 under QEMU 7.2: CNT counts virtual time at 1 GHz / (PSC+1) and ignores CEN (the "
    "driver stops through a frozen value); CCRx are plain storage (no CCxIF); UIF comes "
    "(ARR-CNT)*(PSC+1) ns plus the absolute arming time late",
    "no chained instance: hardware chaining (TRGO -> ITRx, SMCR) is not modelled, and the "
    "software carry needs an overflow interrupt at the wrap",
};

MCU_EXPOSURE_DEFINE(ndp2_exposure_rows, 38u, ndp2_exposure_notes);
