/*
 * micro:bit board (nRF51822): the timer instances QEMU 7.2 models, their
 * interrupt routes, and the exposure table.
 */
#include "board.h"

#include <stddef.h>

#include "cortexm.h"
#include "harness.h"
#include "sleep_mcu.h"
#include "utim_nrf51_timer.h"

#define NRF51_TIMER0_BASE 0x40008000u
#define NRF51_TIMER1_BASE 0x40009000u
#define NRF51_TIMER2_BASE 0x4000A000u
#define NRF51_IRQ_TIMER0  8
#define NRF51_IRQ_TIMER1  9
#define NRF51_IRQ_TIMER2  10

_Static_assert(sizeof(utim_periph_t) <= 12u, "an instance fits in 12 bytes");
_Static_assert(sizeof(utim_driver_t) <= 28u, "a driver is at most seven pointers");

static const utim_clock_desc_t microbit_hfclk[1] = {
    {.hz = MICROBIT_HFCLK_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_POW2,
     .div_lo = 0u,
     .div_hi = UTIM_NRF51_TIMER_PRESCALER_MAX},
};

#define MICROBIT_CAPS (UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_CAPTURE_READ | UTIM_CAP_SHARED_IRQ)

UTIM_STATE_DEFINE(microbit_timer0_state, UTIM_NRF51_TIMER_CHANNELS);
UTIM_STATE_DEFINE(microbit_timer1_state, UTIM_NRF51_TIMER_CHANNELS);
UTIM_STATE_DEFINE(microbit_timer2_state, UTIM_NRF51_TIMER_CHANNELS);
static utim_nrf51_timer_ram_t microbit_timer_ram[MICROBIT_INSTANCE_COUNT];

static const utim_nrf51_timer_cfg_t microbit_timer0_cfg = {
    .common = {.state = &microbit_timer0_state,
               .name = "NRF51_TIMER0",
               .clocks = microbit_hfclk,
               .nclocks = 1u,
               .min_distance = UTIM_NRF51_TIMER_MIN_DISTANCE},
    .regs = (utim_nrf51_timer_regs_t *)NRF51_TIMER0_BASE,
    .ram = &microbit_timer_ram[MICROBIT_IDX_TIMER0],
};

static const utim_nrf51_timer_cfg_t microbit_timer1_cfg = {
    .common = {.state = &microbit_timer1_state,
               .name = "NRF51_TIMER1",
               .clocks = microbit_hfclk,
               .nclocks = 1u,
               .min_distance = UTIM_NRF51_TIMER_MIN_DISTANCE},
    .regs = (utim_nrf51_timer_regs_t *)NRF51_TIMER1_BASE,
    .ram = &microbit_timer_ram[MICROBIT_IDX_TIMER1],
};

static const utim_nrf51_timer_cfg_t microbit_timer2_cfg = {
    .common = {.state = &microbit_timer2_state,
               .name = "NRF51_TIMER2",
               .clocks = microbit_hfclk,
               .nclocks = 1u,
               .min_distance = UTIM_NRF51_TIMER_MIN_DISTANCE},
    .regs = (utim_nrf51_timer_regs_t *)NRF51_TIMER2_BASE,
    .ram = &microbit_timer_ram[MICROBIT_IDX_TIMER2],
};

/* TIMER1 and TIMER2 of the nRF51 support BITMODE 8 and 16 only (QEMU would
 * accept 32): they are exposed at the real chip's 16 bits. */
static const utim_periph_t microbit_timer0 = {
    .drv = &utim_nrf51_timer_driver,
    .dev = &microbit_timer0_cfg.common,
    .props = UTIM_PROPS(32, UTIM_NRF51_TIMER_CHANNELS, 0, MICROBIT_CAPS),
};

static const utim_periph_t microbit_timer1 = {
    .drv = &utim_nrf51_timer_driver,
    .dev = &microbit_timer1_cfg.common,
    .props = UTIM_PROPS(16, UTIM_NRF51_TIMER_CHANNELS, 0, MICROBIT_CAPS),
};

static const utim_periph_t microbit_timer2 = {
    .drv = &utim_nrf51_timer_driver,
    .dev = &microbit_timer2_cfg.common,
    .props = UTIM_PROPS(16, UTIM_NRF51_TIMER_CHANNELS, 0, MICROBIT_CAPS),
};

static const utim_periph_t *const microbit_instances[] = {
    [MICROBIT_IDX_TIMER0] = &microbit_timer0,
    [MICROBIT_IDX_TIMER1] = &microbit_timer1,
    [MICROBIT_IDX_TIMER2] = &microbit_timer2,
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

/* ---- timers of the precise sleep (boards/cortexm/sleep_mcu.h) -------------- */

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

/* One timer of the chip: its compare channels, and what utim makes of it. */
typedef struct microbit_exposure {
  const char *timer;   /* the chip's timer */
  unsigned chip_ch;    /* its compare channels */
  unsigned exposed;    /* utim instance index, or MICROBIT_INSTANCE_COUNT when not exposed */
  const char *comment; /* why not exposed, or what the instance offers */
} microbit_exposure_t;

static const microbit_exposure_t microbit_exposure[] = {
    {"TIMER0 (8/16/24/32-bit up, 16 MHz / 2^0..9)", 4u, MICROBIT_IDX_TIMER0,
     "CC[3] reserved for counter reads (capture task)"},
    {"TIMER1 (8/16-bit up)", 4u, MICROBIT_IDX_TIMER1,
     "CC[3] reserved for counter reads; 16 bits (chip limit)"},
    {"TIMER2 (8/16-bit up)", 4u, MICROBIT_IDX_TIMER2,
     "CC[3] reserved for counter reads; 16 bits (chip limit)"},
    {"RTC0 (24-bit up, LFCLK 32768 Hz)", 3u, MICROBIT_INSTANCE_COUNT,
     "not modelled by QEMU 7.2 (0x4000B000 is unimplemented I/O)"},
    {"RTC1 (24-bit up, LFCLK 32768 Hz)", 4u, MICROBIT_INSTANCE_COUNT,
     "not modelled by QEMU 7.2 (0x40011000 is unimplemented I/O)"},
    {"WDT (watchdog)", 0u, MICROBIT_INSTANCE_COUNT,
     "a watchdog, and not modelled by QEMU 7.2 (0x40010000)"},
};

/* th_printf() pads numbers only: columns are padded here. */
static void microbit_put_col(const char *s, unsigned width) {
  unsigned n = 0u;
  for (; s[n] != '\0'; n++) {
  }
  th_printf("%s", s);
  for (; n < width; n++) {
    th_printf(" ");
  }
}

static void microbit_put_row(const char *timer, const char *chip_ch, const char *inst,
                             const char *inst_ch, const char *note) {
  th_printf("# ");
  microbit_put_col(timer, 46u);
  microbit_put_col(chip_ch, 4u);
  microbit_put_col(inst, 14u);
  microbit_put_col(inst_ch, 4u);
  th_printf("%s\n", note);
}

void board_print_exposure(void) {
  unsigned chip_t = 0u;
  unsigned chip_c = 0u;
  unsigned exp_t = 0u;
  unsigned exp_c = 0u;
  const unsigned n = sizeof microbit_exposure / sizeof microbit_exposure[0];
  char a[8];
  char b[8];

  th_printf("# Table 2, board %s: timers (channels) on the chip vs exposed by utim\n",
            utim_board.name);
  microbit_put_row("chip timer", "ch", "utim instance", "ch", "note");
  for (unsigned i = 0u; i < n; i++) {
    const microbit_exposure_t *e = &microbit_exposure[i];
    const utim_periph_t *p =
        e->exposed < MICROBIT_INSTANCE_COUNT ? microbit_instances[e->exposed] : NULL;
    chip_t++;
    chip_c += e->chip_ch;
    (void)th_snprintf(a, sizeof a, "%u", e->chip_ch);
    if (p != NULL) {
      exp_t++;
      exp_c += utim_channels(p);
      (void)th_snprintf(b, sizeof b, "%u", utim_channels(p));
      microbit_put_row(e->timer, a, utim_name(p), b, e->comment);
    } else {
      microbit_put_row(e->timer, a, "-", "-", e->comment);
    }
  }
  th_printf("# total: %u timers (%u channels) on the chip, %u timers (%u channels) exposed\n",
            chip_t, chip_c, exp_t, exp_c);
  th_printf("# not on the chip: SysTick (the nRF51's Cortex-M0 is built without it; QEMU 7.2 maps "
            "one anyway, not exposed)\n");
  th_printf("# chained instance: none; hardware chaining needs PPI (TIMERn COMPARE -> TIMERm "
            "COUNT), not modelled by QEMU 7.2 (0x4001F000 is unimplemented I/O)\n");
}
