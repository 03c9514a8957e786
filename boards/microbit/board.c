/*
 * micro:bit board (nRF51822): the timer instances QEMU 7.2 models (TIMER0,
 * and TIMER1 + TIMER2 chained by software carry), their interrupt routes,
 * and the exposure table.
 */
#include "board.h"

#include <stddef.h>

#include "cortexm.h"
#include "sleep_mcu.h"
#include "utim/chain.h"
#include "utim_nrf51_timer.h"

#define NRF51_IRQ_TIMER0 8
#define NRF51_IRQ_TIMER1 9
#define NRF51_IRQ_TIMER2 10

_Static_assert(sizeof(utim_periph_t) <= 12u, "an instance fits in 12 bytes");
_Static_assert(sizeof(utim_driver_t) <= 28u, "a driver is at most seven pointers");

static const utim_clock_desc_t microbit_hfclk[1] = {
    {.hz = MICROBIT_HFCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = UTIM_NRF51_TIMER_PRESCALER_MAX},
};

/*
 * The chained instance: the low TIMER's inputs from prescaler 2^3 (2 MHz)
 * down. The software carry costs interrupts while the counter keeps running:
 * a carry at every low wrap and, for a compare beyond the current low period,
 * an early low match in every period (chain.c), together some 750 to 1500
 * instructions a low period on the Cortex-M0 (measured from the conformance
 * runs: at 2 MHz, 500 instructions a tick under -icount shift=0, one period
 * stretches a wait by less than 3 ticks and two by more). At 16 and 4 MHz a
 * single carry or periodic re-arm is already later than the suite allows
 * (mask and pending, chained). On silicon, with a 16 MHz CPU, a software
 * carry could not follow a 16 MHz clock either.
 */
#define MICROBIT_CHAIN_PRESCALER_MIN 3u

static const utim_clock_desc_t microbit_chain_clk[1] = {
    {.hz = MICROBIT_HFCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = MICROBIT_CHAIN_PRESCALER_MIN,
     .div_hi = UTIM_NRF51_TIMER_PRESCALER_MAX},
};

/* Each driver's macro fills in channels, direction, capabilities and minimum
 * distance. TIMER1 and TIMER2 of the nRF51 support BITMODE 8 and 16 only
 * (QEMU would accept 32): they run at the real chip's 16 bits. They are the
 * halves of NRF51_CHAIN32, not instances of the table; TIMER1, the low half,
 * gives up CC[2] to the overflow compare, whose wrap is the carry. */
UTIM_NRF51_TIMER_DEFINE(microbit_timer0, "NRF51_TIMER0", 0x40008000u, 32, 0u, microbit_hfclk);
UTIM_NRF51_TIMER_DEFINE(microbit_timer1, "NRF51_TIMER1", 0x40009000u, 16, UTIM_NRF51_TIMER_OPT_OVF,
                        microbit_hfclk);
UTIM_NRF51_TIMER_DEFINE(microbit_timer2, "NRF51_TIMER2", 0x4000A000u, 16, 0u, microbit_hfclk);

/* TIMER1 + TIMER2 as one 32-bit counter. The chip would link them through
 * PPI (TIMER1 COMPARE -> TIMER2 COUNT), which QEMU 7.2 does not model, so the
 * chain counts TIMER1's wraps (its overflow compare) into TIMER2 by software
 * carry; TIMER2 stays stopped and is written through its driver's offset. */
UTIM_CHAIN_DEFINE(microbit_chain32, "NRF51_CHAIN32", microbit_timer1, microbit_timer2,
                  UTIM_CHAIN_SOFTWARE, microbit_chain_clk, UTIM_CAP_WRITE | UTIM_CAP_STOP);

static const utim_periph_t *const microbit_instances[] = {
    [MICROBIT_IDX_TIMER0] = &microbit_timer0,
    [MICROBIT_IDX_CHAIN32] = &microbit_chain32,
};

_Static_assert(sizeof microbit_instances / sizeof microbit_instances[0] == MICROBIT_INSTANCE_COUNT,
               "every index of microbit_timer_index has an instance");

const utim_board_t utim_board = {
    .name = "microbit",
    .instances = microbit_instances,
    .count = MICROBIT_INSTANCE_COUNT,
};

/* ---- interrupt routes (one dispatcher for the peripheral type) ------------ */

const cortexm_irq_route_t cortexm_irq_routes[] = {
    {NRF51_IRQ_TIMER0, utim_nrf51_timer_isr, &microbit_timer0},
    {NRF51_IRQ_TIMER1, utim_nrf51_timer_isr, &microbit_timer1},
    {NRF51_IRQ_TIMER2, utim_nrf51_timer_isr, &microbit_timer2},
};

const unsigned cortexm_irq_route_count = sizeof cortexm_irq_routes / sizeof cortexm_irq_routes[0];

/* ---- timers of the precise sleep (boards/mcu/sleep_mcu.h) -------------- */

/* TIMER0 (32 bits) at 1 MHz is the time line, its wraps found by quarter
 * markers on CC[2] (the TIMER has no overflow event), and CC[0] is the
 * alarm. It starts 50 ms before its first wrap, so every run crosses one. */
const mcu_sleep_board_t mcu_sleep_board = {
    .clock = &microbit_timer0,
    .hz = 1000000u,
    .start = 0u - 50000u,
    .wrap = MCU_SLEEP_WRAP_QUARTER,
    .wrap_ch = 2u,
    .alarm_ch = 0u,
    .wrap_pending = NULL,
    .alarm = &microbit_timer0,
};

/* ---- exposure table ("Table 2") ------------------------------------------- */

static const mcu_exposure_row_t microbit_exposure_rows[] = {
    {"TIMER0 (8/16/24/32-bit up, 16 MHz / 2^0..9)", 4u, &microbit_timer0,
     "CC[3] reserved for counter reads (capture task)"},
    {"TIMER1 (8/16-bit up)", 4u, &microbit_chain32,
     "low half of NRF51_CHAIN32, software carry: QEMU 7.2 has no PPI; 16 bits (chip limit), "
     "CC[3] reads, CC[2] = 0 is the wrap"},
    {"TIMER2 (8/16-bit up)", 4u, &microbit_chain32,
     "high half of NRF51_CHAIN32, software carry: QEMU 7.2 has no PPI; stopped, holds the "
     "carries"},
    {"RTC0 (24-bit up, LFCLK 32768 Hz)", 3u, NULL,
     "not modelled by QEMU 7.2 (0x4000B000 is unimplemented I/O)"},
    {"RTC1 (24-bit up, LFCLK 32768 Hz)", 4u, NULL,
     "not modelled by QEMU 7.2 (0x40011000 is unimplemented I/O)"},
    {"WDT (watchdog)", 0u, NULL, "a watchdog, and not modelled by QEMU 7.2 (0x40010000)"},
};

static const char *const microbit_exposure_notes[] = {
    "not on the chip: SysTick (the nRF51's Cortex-M0 is built without it; QEMU 7.2 maps one "
    "anyway, not exposed)",
    "chained instance: NRF51_CHAIN32 = TIMER1 (low) + TIMER2 (high), chain driver with software "
    "carry; hardware chaining needs PPI (TIMERn COMPARE -> TIMERm COUNT), not modelled by QEMU "
    "7.2 (0x4001F000 is unimplemented I/O)",
};

MCU_EXPOSURE_DEFINE(microbit_exposure_rows, 46u, microbit_exposure_notes);
