/**
 * @file template_instance.c
 * @brief The board-side example of drivers/template/README.md, compiled for
 *        Cortex-M4 by the template_compiles check (never linked).
 *
 * Keep it identical to the README's example: it proves that the example
 * compiles and that an instance of the template driver fits the size limits.
 */
#include "utim_template.h"

/** @brief Register base of the example TPL timer (a made-up address). */
#define EXAMPLE_TPL0_BASE 0x40010000u

static const utim_clock_desc_t tpl0_clocks[UTIM_TEMPLATE_CLOCKS] = {
    {.hz = 48000000u,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_LINEAR,
     .div_lo = 1u,
     .div_hi = UTIM_TEMPLATE_DIV_MAX},
    {.hz = 32768u,
     .cls = UTIM_CLASS_LP,
     .div_kind = UTIM_DIV_LINEAR,
     .div_lo = 1u,
     .div_hi = UTIM_TEMPLATE_DIV_MAX},
};

UTIM_STATE_DEFINE(tpl0_state, UTIM_TEMPLATE_CHANNELS);

static const utim_template_cfg_t tpl0_cfg = {
    .common = {.state = &tpl0_state,
               .name = "EXAMPLE_TPL0",
               .clocks = tpl0_clocks,
               .nclocks = UTIM_TEMPLATE_CLOCKS,
               .min_distance = UTIM_TEMPLATE_MIN_DISTANCE},
    .regs = (utim_template_regs_t *)EXAMPLE_TPL0_BASE,
    .irq = 21u,
};

/** @brief The example instance: TPL32, four channels, counting down. */
const utim_periph_t example_tpl0 = {
    .drv = &utim_template_driver,
    .dev = &tpl0_cfg.common,
    .props = UTIM_PROPS(32, UTIM_TEMPLATE_CHANNELS, 1,
                        UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ),
};

_Static_assert(sizeof(example_tpl0) <= 12u, "an instance fits in 12 bytes");

/** @brief The board's vector for the example timer's interrupt line. */
void example_tpl0_irq_handler(void);

void example_tpl0_irq_handler(void) {
  utim_template_isr(&example_tpl0);
}
