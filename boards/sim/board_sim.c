/*
 * The sim board: six public instances over seven simulated timers (the
 * 32-bit chained instance is two hidden 16-bit timers behind the virtual
 * chain driver). See board_sim.h for the shapes.
 *
 * Shape parameters are enum constants, not read back from the const tables,
 * because _Static_assert needs integer constant expressions.
 */
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

/* Channels exposed, compare registers, minimum compare distance. */
enum {
  TIMER16_CH = 4,
  TIMER16_NCC = 4,
  TIMER16_MD = 1,
  SYSTICK24_CH = 1,
  SYSTICK24_NCC = 1,
  SYSTICK24_MD = 2,
  NRF32_CH = 4,
  NRF32_NCC = 5,
  NRF32_CAP_CC = 4,
  NRF32_MD = 2,
  MTIME64_CH = 1,
  MTIME64_NCC = 1,
  MTIME64_MD = 1,
  TIMER8_CH = 2,
  TIMER8_NCC = 2,
  TIMER8_MD = 3,
  CHAIN_CH = 2,
  CHAIN_NCC = 2,
  CHAIN_MD = 1,
  SOFT_CH = 2,
  SOFT_NCC = 2,
  SOFT_MD = 2,
};

/* First interrupt line of each timer; a per-channel shape uses ncc + 1 lines
 * (the last for the overflow), a shared one uses one. */
enum {
  TIMER16_IRQ = 0,
  SYSTICK24_IRQ = TIMER16_IRQ + TIMER16_NCC + 1,
  NRF32_IRQ = SYSTICK24_IRQ + 1,
  MTIME64_IRQ = NRF32_IRQ + 1,
  TIMER8_IRQ = MTIME64_IRQ + MTIME64_NCC + 1,
  CHAIN_LO_IRQ = TIMER8_IRQ + TIMER8_NCC + 1,
  CHAIN_HI_IRQ = CHAIN_LO_IRQ + CHAIN_NCC + 1,
  SOFT_LO_IRQ = CHAIN_HI_IRQ + CHAIN_NCC + 1,
  SOFT_HI_IRQ = SOFT_LO_IRQ + SOFT_NCC + 1,
  IRQ_END = SOFT_HI_IRQ + SOFT_NCC + 1,
};

_Static_assert(IRQ_END <= SIM_IRQ_LINES, "interrupt lines exceed the controller");
_Static_assert(TIMER16_CH <= TIMER16_NCC && SYSTICK24_CH <= SYSTICK24_NCC &&
                   MTIME64_CH <= MTIME64_NCC && TIMER8_CH <= TIMER8_NCC && CHAIN_CH <= CHAIN_NCC,
               "an instance exposes more channels than its compare registers");
_Static_assert(NRF32_CH < NRF32_NCC && NRF32_CAP_CC >= NRF32_CH && NRF32_CAP_CC < NRF32_NCC,
               "the capture register must be a compare register no channel uses");
_Static_assert(TIMER16_NCC <= SIM_MAX_CC && NRF32_NCC <= SIM_MAX_CC && CHAIN_NCC <= SIM_MAX_CC,
               "too many compare registers");
_Static_assert(TIMER16_CH <= UTIM_MAX_CHANNELS && NRF32_CH <= UTIM_MAX_CHANNELS,
               "too many channels");

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
static const utim_clock_desc_t mtime64_clocks[] = {
    {1000000u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 1},
};
static const utim_clock_desc_t timer8_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 1024},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 1024},
};
static const utim_clock_desc_t chain_lo_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 256},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 256},
};
/* The high half's only input is the low half's overflow. */
static const utim_clock_desc_t chain_hi_clocks[] = {
    {0u, UTIM_CLASS_CHAIN, UTIM_DIV_LINEAR, 0, 1, 1},
};

/* The software-carry chain: a 16-bit low half with any divider, and a
 * 16-bit high half that never runs (the carry register). */
static const utim_clock_desc_t soft_clocks[] = {
    {HF_HZ, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0, 1, 256},
    {LP_HZ, UTIM_CLASS_LP, UTIM_DIV_LINEAR, 0, 1, 256},
};

#define CHAIN_HI_CLK 0u
_Static_assert(CHAIN_HI_CLK < ARRAY_LEN(chain_hi_clocks), "chain input out of range");

static const sim_shape_t shapes[] = {
    [T_TIMER16] = {.width = 16,
                   .down = 0,
                   .ncc = TIMER16_NCC,
                   .shared_irq = 0,
                   .ovf_irq = 1,
                   .writable = 1,
                   .capture_read = 0,
                   .stoppable = 1,
                   .min_distance = TIMER16_MD,
                   .chain_from = -1,
                   .irq = TIMER16_IRQ,
                   .nclocks = ARRAY_LEN(timer16_clocks),
                   .clocks = timer16_clocks},
    [T_SYSTICK24] = {.width = 24,
                     .down = 1,
                     .ncc = SYSTICK24_NCC,
                     .shared_irq = 1,
                     .ovf_irq = 1,
                     .writable = 0,
                     .capture_read = 0,
                     .stoppable = 1,
                     .min_distance = SYSTICK24_MD,
                     .chain_from = -1,
                     .irq = SYSTICK24_IRQ,
                     .nclocks = ARRAY_LEN(systick24_clocks),
                     .clocks = systick24_clocks},
    [T_NRF32] = {.width = 32,
                 .down = 0,
                 .ncc = NRF32_NCC,
                 .shared_irq = 1,
                 .ovf_irq = 0,
                 .writable = 0,
                 .capture_read = 1,
                 .stoppable = 1,
                 .min_distance = NRF32_MD,
                 .chain_from = -1,
                 .irq = NRF32_IRQ,
                 .nclocks = ARRAY_LEN(nrf32_clocks),
                 .clocks = nrf32_clocks},
    [T_MTIME64] = {.width = 64,
                   .down = 0,
                   .ncc = MTIME64_NCC,
                   .shared_irq = 0,
                   .ovf_irq = 0,
                   .writable = 1,
                   .capture_read = 0,
                   .stoppable = 0,
                   .min_distance = MTIME64_MD,
                   .chain_from = -1,
                   .irq = MTIME64_IRQ,
                   .nclocks = ARRAY_LEN(mtime64_clocks),
                   .clocks = mtime64_clocks},
    [T_TIMER8] = {.width = 8,
                  .down = 1,
                  .ncc = TIMER8_NCC,
                  .shared_irq = 0,
                  .ovf_irq = 1,
                  .writable = 1,
                  .capture_read = 0,
                  .stoppable = 1,
                  .min_distance = TIMER8_MD,
                  .chain_from = -1,
                  .irq = TIMER8_IRQ,
                  .nclocks = ARRAY_LEN(timer8_clocks),
                  .clocks = timer8_clocks},
    [T_CHAIN_LO] = {.width = 16,
                    .down = 0,
                    .ncc = CHAIN_NCC,
                    .shared_irq = 0,
                    .ovf_irq = 1,
                    .writable = 1,
                    .capture_read = 0,
                    .stoppable = 1,
                    .min_distance = CHAIN_MD,
                    .chain_from = -1,
                    .irq = CHAIN_LO_IRQ,
                    .nclocks = ARRAY_LEN(chain_lo_clocks),
                    .clocks = chain_lo_clocks},
    [T_CHAIN_HI] = {.width = 16,
                    .down = 0,
                    .ncc = CHAIN_NCC,
                    .shared_irq = 0,
                    .ovf_irq = 1,
                    .writable = 1,
                    .capture_read = 0,
                    .stoppable = 1,
                    .min_distance = CHAIN_MD,
                    .chain_from = T_CHAIN_LO,
                    .irq = CHAIN_HI_IRQ,
                    .nclocks = ARRAY_LEN(chain_hi_clocks),
                    .clocks = chain_hi_clocks},
    [T_SOFT_LO] = {.width = 16,
                   .down = 1,
                   .ncc = SOFT_NCC,
                   .shared_irq = 1,
                   .ovf_irq = 1,
                   .writable = 1,
                   .capture_read = 0,
                   .stoppable = 1,
                   .min_distance = SOFT_MD,
                   .chain_from = -1,
                   .irq = SOFT_LO_IRQ,
                   .nclocks = ARRAY_LEN(soft_clocks),
                   .clocks = soft_clocks},
    [T_SOFT_HI] = {.width = 16,
                   .down = 0,
                   .ncc = SOFT_NCC,
                   .shared_irq = 1,
                   .ovf_irq = 1,
                   .writable = 1,
                   .capture_read = 0,
                   .stoppable = 1,
                   .min_distance = SOFT_MD,
                   .chain_from = -1,
                   .irq = SOFT_HI_IRQ,
                   .nclocks = ARRAY_LEN(soft_clocks),
                   .clocks = soft_clocks},
};
_Static_assert(ARRAY_LEN(shapes) == T_COUNT, "one shape per simulated timer");

#define SIM_DEV(st, nm, clk, md)                                                                   \
  { .state = &(st), .name = (nm), .clocks = (clk), .nclocks = ARRAY_LEN(clk), .min_distance = (md) }

UTIM_STATE_DEFINE(timer16_state, TIMER16_CH);
UTIM_STATE_DEFINE(systick24_state, SYSTICK24_CH);
UTIM_STATE_DEFINE(nrf32_state, NRF32_CH);
UTIM_STATE_DEFINE(mtime64_state, MTIME64_CH);
UTIM_STATE_DEFINE(timer8_state, TIMER8_CH);
UTIM_STATE_DEFINE(chain_lo_state, CHAIN_CH);
UTIM_STATE_DEFINE(chain_hi_state, CHAIN_CH);
UTIM_STATE_DEFINE(chain32_state, CHAIN_CH);
UTIM_STATE_DEFINE(soft_lo_state, SOFT_CH);
UTIM_STATE_DEFINE(soft_hi_state, SOFT_CH);
UTIM_STATE_DEFINE(soft32_state, SOFT_CH);

static const utim_sim_cfg_t timer16_cfg = {
    .common = SIM_DEV(timer16_state, "SIM_TIMER16", timer16_clocks, TIMER16_MD),
    .timer = T_TIMER16};
static const utim_sim_cfg_t systick24_cfg = {
    .common = SIM_DEV(systick24_state, "SIM_SYSTICK24", systick24_clocks, SYSTICK24_MD),
    .timer = T_SYSTICK24};
static const utim_sim_cfg_t nrf32_cfg = {
    .common = SIM_DEV(nrf32_state, "SIM_NRF32", nrf32_clocks, NRF32_MD),
    .timer = T_NRF32,
    .cap_cc = NRF32_CAP_CC};
static const utim_sim_cfg_t mtime64_cfg = {
    .common = SIM_DEV(mtime64_state, "SIM_MTIME64", mtime64_clocks, MTIME64_MD),
    .timer = T_MTIME64};
static const utim_sim_cfg_t timer8_cfg = {
    .common = SIM_DEV(timer8_state, "SIM_TIMER8", timer8_clocks, TIMER8_MD), .timer = T_TIMER8};
static const utim_sim_cfg_t chain_lo_cfg = {
    .common = SIM_DEV(chain_lo_state, "SIM_CHAIN32_LO", chain_lo_clocks, CHAIN_MD),
    .timer = T_CHAIN_LO};
static const utim_sim_cfg_t chain_hi_cfg = {
    .common = SIM_DEV(chain_hi_state, "SIM_CHAIN32_HI", chain_hi_clocks, CHAIN_MD),
    .timer = T_CHAIN_HI};

static const utim_sim_cfg_t soft_lo_cfg = {
    .common = SIM_DEV(soft_lo_state, "SIM_SOFT32_LO", soft_clocks, SOFT_MD), .timer = T_SOFT_LO};
static const utim_sim_cfg_t soft_hi_cfg = {
    .common = SIM_DEV(soft_hi_state, "SIM_SOFT32_HI", soft_clocks, SOFT_MD), .timer = T_SOFT_HI};

#define CAPS_GP (UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE | UTIM_CAP_STOP)

static const utim_periph_t timer16 = {&utim_sim_driver, &timer16_cfg.common,
                                      UTIM_PROPS(16, TIMER16_CH, 0, CAPS_GP)};
static const utim_periph_t systick24 = {
    &utim_sim_driver, &systick24_cfg.common,
    UTIM_PROPS(24, SYSTICK24_CH, 1, UTIM_CAP_OVERFLOW | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ)};
static const utim_periph_t nrf32 = {
    &utim_sim_driver, &nrf32_cfg.common,
    UTIM_PROPS(32, NRF32_CH, 0, UTIM_CAP_CAPTURE_READ | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ)};
static const utim_periph_t mtime64 = {&utim_sim_driver, &mtime64_cfg.common,
                                      UTIM_PROPS(64, MTIME64_CH, 0, UTIM_CAP_WRITE)};
static const utim_periph_t timer8 = {&utim_sim_driver, &timer8_cfg.common,
                                     UTIM_PROPS(8, TIMER8_CH, 1, CAPS_GP)};
static const utim_periph_t chain_lo = {&utim_sim_driver, &chain_lo_cfg.common,
                                       UTIM_PROPS(16, CHAIN_CH, 0, CAPS_GP)};
static const utim_periph_t chain_hi = {&utim_sim_driver, &chain_hi_cfg.common,
                                       UTIM_PROPS(16, CHAIN_CH, 0, CAPS_GP)};

static utim_chain_ch_t chain32_ch[CHAIN_CH];
static const utim_chain_cfg_t chain32_cfg = {
    .common = SIM_DEV(chain32_state, "SIM_CHAIN32", chain_lo_clocks, CHAIN_MD),
    .lo = &chain_lo,
    .hi = &chain_hi,
    .ch = chain32_ch,
    .hi_clk = CHAIN_HI_CLK};
static const utim_periph_t chain32 = {&utim_chain_driver, &chain32_cfg.common,
                                      UTIM_PROPS(32, CHAIN_CH, 0,
                                                 UTIM_CAP_CHAINED | UTIM_CAP_VIRTUAL |
                                                     UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE |
                                                     UTIM_CAP_STOP)};

static const utim_periph_t soft_lo = {&utim_sim_driver, &soft_lo_cfg.common,
                                      UTIM_PROPS(16, SOFT_CH, 1, CAPS_GP | UTIM_CAP_SHARED_IRQ)};
static const utim_periph_t soft_hi = {&utim_sim_driver, &soft_hi_cfg.common,
                                      UTIM_PROPS(16, SOFT_CH, 0, CAPS_GP | UTIM_CAP_SHARED_IRQ)};

static utim_chain_ch_t soft32_ch[SOFT_CH];
static const utim_chain_cfg_t soft32_cfg = {
    .common = SIM_DEV(soft32_state, "SIM_SOFT32", soft_clocks, SOFT_MD),
    .lo = &soft_lo,
    .hi = &soft_hi,
    .ch = soft32_ch,
    .hi_clk = UTIM_CHAIN_SOFTWARE};
static const utim_periph_t soft32 = {&utim_chain_driver, &soft32_cfg.common,
                                     UTIM_PROPS(32, SOFT_CH, 0,
                                                UTIM_CAP_CHAINED | UTIM_CAP_VIRTUAL |
                                                    UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE |
                                                    UTIM_CAP_STOP)};

/* The instance each simulated timer's interrupt lines report to. */
static const utim_periph_t *const line_owner[] = {
    [T_TIMER16] = &timer16,   [T_SYSTICK24] = &systick24, [T_NRF32] = &nrf32,
    [T_MTIME64] = &mtime64,   [T_TIMER8] = &timer8,       [T_CHAIN_LO] = &chain_lo,
    [T_CHAIN_HI] = &chain_hi, [T_SOFT_LO] = &soft_lo,     [T_SOFT_HI] = &soft_hi,
};
_Static_assert(ARRAY_LEN(line_owner) == T_COUNT, "one owner per simulated timer");

#define SIM_INSTANCES 7u

static const utim_periph_t *const instances[] = {&timer16, &systick24, &nrf32, &mtime64,
                                                 &timer8,  &chain32,   &soft32};
_Static_assert(ARRAY_LEN(instances) == SIM_INSTANCES, "board_sim.h lists seven instances");

const utim_board_t utim_board = {.name = "sim", .instances = instances, .count = SIM_INSTANCES};

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
