/*
 * mps2-an385 board: the timer instances QEMU 7.2 models, their interrupt
 * routes, and the exposure table.
 */
#include "board.h"

#include <stddef.h>

#include "cortexm.h"
#include "sleep_mcu.h"
#include "utim/chain.h"
#include "utim_cmsdk_dualtimer.h"
#include "utim_cmsdk_timer.h"
#include "utim_systick.h"

#define MPS2_DUALTIMER_BASE 0x40002000u
#define MPS2_IRQ_TIMER0     8
#define MPS2_IRQ_TIMER1     9
#define MPS2_IRQ_DUALTIMER  10

_Static_assert(sizeof(utim_periph_t) <= 12u, "an instance fits in 12 bytes");
_Static_assert(sizeof(utim_driver_t) <= 28u, "a driver is at most seven pointers");

/* ---- clock inputs ------------------------------------------------------- */

static const utim_clock_desc_t mps2_pclk[1] = {
    {.hz = MPS2_SYSCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
};

/* TIMCLK through the prescaler: /1 and /16 give integer frequencies, /256
 * (97656.25 Hz) does not and so is no input. */
static const utim_clock_desc_t mps2_timclk[2] = {
    {.hz = MPS2_SYSCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
    {.hz = MPS2_SYSCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 4u,
     .div_hi = 4u},
};

/* Index UTIM_SYSTICK_CLK_CPU, then UTIM_SYSTICK_CLK_REF. */
static const utim_clock_desc_t mps2_systick_clk[2] = {
    {.hz = MPS2_SYSCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
    {.hz = MPS2_REFCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = 0u},
};

/* ---- instances ------------------------------------------------------------ */

/* Each driver's macro fills in width, channels, direction, capabilities and
 * minimum distance; the board names what only it knows. */
UTIM_CMSDK_TIMER_DEFINE(mps2_timer0, "MPS2_TIMER0", 0x40000000u, mps2_pclk);
UTIM_CMSDK_TIMER_DEFINE(mps2_timer1, "MPS2_TIMER1", 0x40001000u, mps2_pclk);
UTIM_CMSDK_DUALTIMER_DEFINE(mps2_dual1, "MPS2_DUALTIMER1", MPS2_DUALTIMER_BASE,
                            UTIM_CMSDK_DUALTIMER_TIMER1, 32, mps2_timclk);
UTIM_CMSDK_DUALTIMER_DEFINE(mps2_dual2, "MPS2_DUALTIMER2", MPS2_DUALTIMER_BASE,
                            UTIM_CMSDK_DUALTIMER_TIMER2, 32, mps2_timclk);
UTIM_SYSTICK_DEFINE(mps2_systick, "MPS2_SYSTICK", mps2_systick_clk);

/* The dual timer's counters as one 64-bit counter: no hardware link between
 * timers on this chip, so the chain counts Timer1's wraps into Timer2. */
UTIM_CHAIN_DEFINE(mps2_chain64, "MPS2_CHAIN64", mps2_dual1, mps2_dual2, UTIM_CHAIN_SOFTWARE,
                  mps2_timclk, UTIM_CAP_WRITE | UTIM_CAP_STOP);

static const utim_periph_t *const mps2_instances[] = {
    [MPS2_IDX_TIMER0] = &mps2_timer0,
    [MPS2_IDX_TIMER1] = &mps2_timer1,
    [MPS2_IDX_CHAIN64] = &mps2_chain64,
    [MPS2_IDX_SYSTICK] = &mps2_systick,
};

_Static_assert(sizeof mps2_instances / sizeof mps2_instances[0] == MPS2_INSTANCE_COUNT,
               "every index of mps2_timer_index has an instance");

const utim_board_t utim_board = {
    .name = "mps2-an385",
    .instances = mps2_instances,
    .count = MPS2_INSTANCE_COUNT,
};

/* ---- interrupt routes (one dispatcher per peripheral type) ----------------- */

const cortexm_irq_route_t cortexm_irq_routes[] = {
    {CORTEXM_IRQN_SYSTICK, utim_systick_isr, &mps2_systick},
    {MPS2_IRQ_TIMER0, utim_cmsdk_timer_isr, &mps2_timer0},
    {MPS2_IRQ_TIMER1, utim_cmsdk_timer_isr, &mps2_timer1},
    /* TIMINTC: both counters on one line, one entry each. */
    {MPS2_IRQ_DUALTIMER, utim_cmsdk_dualtimer_isr, &mps2_dual1},
    {MPS2_IRQ_DUALTIMER, utim_cmsdk_dualtimer_isr, &mps2_dual2},
};

const unsigned cortexm_irq_route_count = sizeof cortexm_irq_routes / sizeof cortexm_irq_routes[0];

/* ---- timers of the precise sleep (boards/mcu/sleep_mcu.h) -------------- */

/* No timer here has a compare register: the time line is TIMER0 with its
 * wraps counted, and the alarm is TIMER1's counter written so that its
 * overflow comes at the deadline. Both count PCLK, so one tick is 40 ns.
 * TIMER0 starts 50 ms before its first wrap, so every run crosses one. */
static bool mps2_sleep_wrap_pending(void) {
  return (CORTEXM_NVIC_ISPR0 & (1u << MPS2_IRQ_TIMER0)) != 0u;
}

const mcu_sleep_board_t mcu_sleep_board = {
    .clock = &mps2_timer0,
    .hz = MPS2_SYSCLK_HZ,
    .start = 0u - MPS2_SYSCLK_HZ / 20u,
    .wrap = MCU_SLEEP_WRAP_OVERFLOW,
    .wrap_ch = 0u,
    .alarm_ch = MCU_SLEEP_ALARM_OVERFLOW,
    .wrap_pending = mps2_sleep_wrap_pending,
    .alarm = &mps2_timer1,
};

/* ---- exposure table ("Table 2") ------------------------------------------- */

static const mcu_exposure_row_t mps2_exposure_rows[] = {
    {"CMSDK APB TIMER0 (32-bit down, IRQ at 0)", 0u, &mps2_timer0, "overflow; no compare register"},
    {"CMSDK APB TIMER1 (32-bit down, IRQ at 0)", 0u, &mps2_timer1, "overflow; no compare register"},
    {"CMSDK dual timer, Timer1 (32/16-bit down)", 0u, &mps2_chain64,
     "low half of the 64-bit chain; no compare register"},
    {"CMSDK dual timer, Timer2 (32/16-bit down)", 0u, &mps2_chain64,
     "high half: counts Timer1's wraps (software carry; no hardware link)"},
    {"SysTick (24-bit down, exception at 0)", 0u, &mps2_systick, "overflow; no compare register"},
    {"CMSDK APB watchdog", 0u, NULL,
     "a watchdog: interrupt on NMI, second timeout resets; not a timer for applications"},
    {"DWT CYCCNT (32-bit cycle counter)", 0u, NULL,
     "not modelled by QEMU 7.2 (DWT_CTRL and CYCCNT read as 0)"},
};

static const char *const mps2_exposure_notes[] = {
    "chained instance: MPS2_CHAIN64 = dual timer Timer1 (low) + Timer2 (high), chain driver with "
    "software carry; the chip has no hardware link between timers",
};

MCU_EXPOSURE_DEFINE(mps2_exposure_rows, 44u, mps2_exposure_notes);
