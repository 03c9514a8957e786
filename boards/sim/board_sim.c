/*
 * The sim board: seven public instances over nine simulated timers (each
 * chained instance is two hidden 16-bit timers behind the chain driver). See
 * board_sim.h for what each instance is.
 *
 * Each timer's hardware facts are named once, in its SHAPE_ macro (the fact
 * list of SIM_SHAPE()): the machine gets them through the shape table, the
 * instance through UTIM_SIM_DEFINE(), which derives width, direction,
 * capabilities and minimum distance from them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "board_sim.h"
#include "sim.h"
#include "sim_regs.h"
#include "utim/chain.h"
#include "utim_sim.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Simulated timer numbers (index into the shape table). */
enum {
  T_TIMER16,
  T_SYSTICK24,
  T_NRF32,
  T_MTIME64,
  T_TIMER8,
  T_CHAIN_LO,
  T_CHAIN_HI,
  T_SOFT_LO,
  T_SOFT_HI,
  T_COUNT
};

/* Compare registers of each timer; the first interrupt line of each (a
 * timer with a line per event uses ncc + 1 lines, the last for the
 * overflow; a shared one uses one). */
enum {
  TIMER16_NCC = 4,
  SYSTICK24_NCC = 1,
  NRF32_NCC = 5,
  MTIME64_NCC = 1,
  TIMER8_NCC = 2,
  CHAIN_NCC = 2,
  SOFT_NCC = 2,
};
enum {
  TIMER16_IRQ = 0,
  SYSTICK24_IRQ = TIMER16_IRQ + TIMER16_NCC + 1,
  NRF32_IRQ = SYSTICK24_IRQ + 1,
  MTIME64_IRQ = NRF32_IRQ + 1,
  TIMER8_IRQ = MTIME64_IRQ + MTIME64_NCC + 1,
  CHAIN_LO_IRQ = TIMER8_IRQ + TIMER8_NCC + 1,
  CHAIN_HI_IRQ = CHAIN_LO_IRQ + CHAIN_NCC + 1,
  SOFT_LO_IRQ = CHAIN_HI_IRQ + CHAIN_NCC + 1,
  SOFT_HI_IRQ = SOFT_LO_IRQ + 1,
  IRQ_END = SOFT_HI_IRQ + 1,
};
_Static_assert(IRQ_END <= SIM_IRQ_LINES, "interrupt lines exceed the controller");

/* The high half of SIM_CHAIN32 counts on input 0, the low half's overflow. */
#define CHAIN_HI_CLK 0u

/*
 * Facts of each timer, in SIM_SHAPE() order: width, down, ncc, shared_irq,
 * ovf_irq, writable, capture_read, stoppable, min_distance, chain_from, irq.
 */
#define SHAPE_TIMER16   16, 0, TIMER16_NCC, 0, 1, 1, 0, 1, 1, -1, TIMER16_IRQ
#define SHAPE_SYSTICK24 24, 1, SYSTICK24_NCC, 1, 1, 0, 0, 1, 2, -1, SYSTICK24_IRQ
#define SHAPE_NRF32     32, 0, NRF32_NCC, 1, 0, 0, 1, 1, 2, -1, NRF32_IRQ
#define SHAPE_MTIME64   64, 0, MTIME64_NCC, 0, 0, 1, 0, 0, 1, -1, MTIME64_IRQ
#define SHAPE_TIMER8    8, 1, TIMER8_NCC, 0, 1, 1, 0, 1, 3, -1, TIMER8_IRQ
#define SHAPE_CHAIN_LO  16, 0, CHAIN_NCC, 0, 1, 1, 0, 1, 1, -1, CHAIN_LO_IRQ
#define SHAPE_CHAIN_HI  16, 0, CHAIN_NCC, 0, 1, 1, 0, 1, 1, T_CHAIN_LO, CHAIN_HI_IRQ
#define SHAPE_SOFT_LO   16, 1, SOFT_NCC, 1, 1, 1, 0, 1, 2, -1, SOFT_LO_IRQ
#define SHAPE_SOFT_HI   16, 0, SOFT_NCC, 1, 1, 1, 0, 1, 2, -1, SOFT_HI_IRQ

#define HF_HZ 16000000u
#define LP_HZ 32768u

/* Fields of utim_clock_desc_t: hz, class, divider kind, reserved, lo, hi. */
static const utim_clock_desc_t timer16_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_POW2, 0, 0, 9},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_POW2, 0, 0, 9},
};
static const utim_clock_desc_t systick24_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1},
    {1000000u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1},
};
static const utim_clock_desc_t nrf32_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_POW2, 0, 0, 9},
};
/* The 10 MHz input with dividers 1..1000 offers the timeout matrix's 10 kHz
 * to 10 MHz on one 64-bit timer (utim-bench timeout --board sim). */
static const utim_clock_desc_t mtime64_clocks[] = {
    {1000000u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 1},
    {10000000u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1000},
};
static const utim_clock_desc_t timer8_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1024},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 1024},
};
/* Both chains' low halves, and the software carry's stopped high half. */
static const utim_clock_desc_t chain_lo_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 256},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 256},
};
/* The hardware chain's high half: its only input is the low half's overflow. */
static const utim_clock_desc_t chain_hi_clocks[] = {
    {0u, UTIM_CLASS_CHAIN, UTIM_DIV_LINEAR, 0, 1, 1},
};
_Static_assert(CHAIN_HI_CLK < ARRAY_LEN(chain_hi_clocks), "chain input out of range");

static const sim_shape_t shapes[] = {
    [T_TIMER16] = SIM_SHAPE(timer16_clocks, SHAPE_TIMER16),
    [T_SYSTICK24] = SIM_SHAPE(systick24_clocks, SHAPE_SYSTICK24),
    [T_NRF32] = SIM_SHAPE(nrf32_clocks, SHAPE_NRF32),
    [T_MTIME64] = SIM_SHAPE(mtime64_clocks, SHAPE_MTIME64),
    [T_TIMER8] = SIM_SHAPE(timer8_clocks, SHAPE_TIMER8),
    [T_CHAIN_LO] = SIM_SHAPE(chain_lo_clocks, SHAPE_CHAIN_LO),
    [T_CHAIN_HI] = SIM_SHAPE(chain_hi_clocks, SHAPE_CHAIN_HI),
    [T_SOFT_LO] = SIM_SHAPE(chain_lo_clocks, SHAPE_SOFT_LO),
    [T_SOFT_HI] = SIM_SHAPE(chain_lo_clocks, SHAPE_SOFT_HI),
};
_Static_assert(ARRAY_LEN(shapes) == T_COUNT, "one shape per simulated timer");

/* name, platform name, timer, channels exposed, capture register, clocks, facts */
UTIM_SIM_DEFINE(timer16, "SIM_TIMER16", T_TIMER16, 4, 0, timer16_clocks, SHAPE_TIMER16);
UTIM_SIM_DEFINE(systick24, "SIM_SYSTICK24", T_SYSTICK24, 1, 0, systick24_clocks, SHAPE_SYSTICK24);
/* The fifth compare register serves the capture read. */
UTIM_SIM_DEFINE(nrf32, "SIM_NRF32", T_NRF32, 4, 4, nrf32_clocks, SHAPE_NRF32);
UTIM_SIM_DEFINE(mtime64, "SIM_MTIME64", T_MTIME64, 1, 0, mtime64_clocks, SHAPE_MTIME64);
UTIM_SIM_DEFINE(timer8, "SIM_TIMER8", T_TIMER8, 2, 0, timer8_clocks, SHAPE_TIMER8);
UTIM_SIM_DEFINE(chain_lo, "SIM_CHAIN32_LO", T_CHAIN_LO, 2, 0, chain_lo_clocks, SHAPE_CHAIN_LO);
UTIM_SIM_DEFINE(chain_hi, "SIM_CHAIN32_HI", T_CHAIN_HI, 2, 0, chain_hi_clocks, SHAPE_CHAIN_HI);
UTIM_SIM_DEFINE(soft_lo, "SIM_SOFT32_LO", T_SOFT_LO, 2, 0, chain_lo_clocks, SHAPE_SOFT_LO);
UTIM_SIM_DEFINE(soft_hi, "SIM_SOFT32_HI", T_SOFT_HI, 2, 0, chain_lo_clocks, SHAPE_SOFT_HI);

/* Two 16-bit timers chained in hardware, and two by software carry (the
 * high one never runs: it is the carry register). */
UTIM_CHAIN_DEFINE(chain32, "SIM_CHAIN32", chain_lo, chain_hi, CHAIN_HI_CLK, chain_lo_clocks,
                  UTIM_CAP_WRITE | UTIM_CAP_STOP);
UTIM_CHAIN_DEFINE(soft32, "SIM_SOFT32", soft_lo, soft_hi, UTIM_CHAIN_SOFTWARE, chain_lo_clocks,
                  UTIM_CAP_WRITE | UTIM_CAP_STOP);

/* The instance each simulated timer's interrupt lines report to. */
static const utim_periph_t *const line_owner[] = {
    [T_TIMER16] = &timer16,   [T_SYSTICK24] = &systick24, [T_NRF32] = &nrf32,
    [T_MTIME64] = &mtime64,   [T_TIMER8] = &timer8,       [T_CHAIN_LO] = &chain_lo,
    [T_CHAIN_HI] = &chain_hi, [T_SOFT_LO] = &soft_lo,     [T_SOFT_HI] = &soft_hi,
};
_Static_assert(ARRAY_LEN(line_owner) == T_COUNT, "one owner per simulated timer");

static const utim_periph_t *const instances[] = {&timer16, &systick24, &nrf32, &mtime64,
                                                 &timer8,  &chain32,   &soft32};
_Static_assert(ARRAY_LEN(instances) == 7u, "board_sim.h lists seven instances");

const utim_board_t utim_board = {.name = "sim", .instances = instances, .count = 7u};

int sim_board_irq_line(const utim_periph_t *p, unsigned ch) {
  for (unsigned x = 0; x < T_COUNT; x++) {
    if (line_owner[x] == p && ch < shapes[x].ncc) {
      return (int)(shapes[x].irq + (shapes[x].shared_irq ? 0u : ch));
    }
  }
  return -EINVAL;
}

void sim_board_init(void) {
  sim_configure(shapes, T_COUNT);
  for (unsigned x = 0; x < T_COUNT; x++) {
    const sim_shape_t *s = &shapes[x];
    unsigned lines = s->shared_irq ? 1u : s->ncc + 1u;
    for (unsigned l = 0; l < lines; l++) {
      sim_irq_attach(s->irq + l, utim_sim_isr, line_owner[x]);
    }
  }
  sim_reset();
}
