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
/** @brief Its interrupt line. */
#define EXAMPLE_TPL0_IRQ 21u

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

/* TPL32 at EXAMPLE_TPL0_BASE: four channels, counting down. */
UTIM_TEMPLATE_DEFINE(example_tpl0, "EXAMPLE_TPL0", EXAMPLE_TPL0_BASE, 32, EXAMPLE_TPL0_IRQ,
                     tpl0_clocks);

_Static_assert(sizeof(example_tpl0) <= 12u, "an instance fits in 12 bytes");

/** @brief The board's instance table (one entry here). */
const utim_periph_t *const example_instances[] = {&example_tpl0};

/** @brief The board's vector for the example timer's interrupt line. */
void example_tpl0_irq_handler(void);

void example_tpl0_irq_handler(void) {
  utim_template_isr(&example_tpl0);
}
