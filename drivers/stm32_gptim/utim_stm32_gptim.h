/**
 * @file utim_stm32_gptim.h
 * @brief hAPI driver for the STM32 general-purpose timers TIM2 to TIM5
 *        (RM0090 rev 19, STM32F405/415/407/417/427/437/429/439, chapter 18
 *        "General-purpose timers (TIM2 to TIM5)").
 *
 * @par Hardware
 * An up/down counter (CNT) of 32 bits (TIM2, TIM5) or 16 bits (TIM3, TIM4),
 * clocked by the timer clock CK_INT through a 16-bit prescaler (the counter
 * steps every PSC + 1 clocks; PSC is preloaded and takes effect at the next
 * update event). In up-counting mode the counter goes from 0 to the
 * auto-reload value ARR, then restarts from 0 with an update event: flag
 * SR.UIF, interrupt with DIER.UIE. Four capture/compare channels: in output
 * compare mode, flag SR.CCxIF rises when CNT equals CCRx, interrupt with
 * DIER.CCxIE. SR flags are rc_w0 (write 0 to clear, 1 leaves them). All
 * events share one interrupt line per timer. On the STM32F405 running at
 * 168 MHz with APB1 = HCLK / 4, CK_INT is 2 x PCLK1 = 84 MHz.
 *
 * @par What this driver implements
 * - Up-counting (CR1.DIR = 0, CMS = 0), ARR = the width's maximum: a
 *   free-running counter of 2^width ticks whose update event is the
 *   overflow. CR1.URS = 1, so only the overflow (not the UG bit that init
 *   uses to load the prescaler) raises UIF.
 * - Clock input: CK_INT, dividers PSC + 1 = 1 .. 65536, UTIM_DIV_LINEAR.
 * - **Stop through a frozen value in RAM** (utim_stm32_gptim_ram_t, 12
 *   bytes). stop clears CEN and keeps the count it read; read returns that
 *   count while stopped; start writes it back to CNT and sets CEN. On the
 *   chip CEN alone freezes CNT and the extra write is harmless; QEMU 7.2
 *   ignores CEN for the counter (below), and with the frozen value the view
 *   is exact on both.
 * - Write: CNT = value (and the frozen value when stopped).
 * - Overflow: UTIM_HPROP_OVF_IRQ sets or clears DIER.UIE (enabling drops a
 *   stale UIF), UTIM_HPROP_OVF_PENDING reads SR.UIF, the interrupt handler
 *   reports UTIM_EVT_OVF.
 * - Compare channels 0..3 = CC1..CC4 in output compare "frozen" mode
 *   (CCMRx OCxM = 000, CCER outputs off): set_channel disables CCxIE, writes
 *   CCRx, clears CCxIF, enables CCxIE (the driver.h order); the interrupt
 *   handler disables a matched channel (one-shot) and reports it.
 * - Which of these an instance offers is the board's choice, through the
 *   options of UTIM_STM32_GPTIM_DEFINE(): UTIM_STM32_GPTIM_OPT_COMPARE gives
 *   the 4 channels, UTIM_STM32_GPTIM_OPT_OVF the overflow (UTIM_CAP_OVERFLOW);
 *   without them the instance is a counter that reads, writes, stops and
 *   divides. A board leaves out what its chip (or emulator) does not do.
 * - min_distance: 1 tick (a compare written ahead of CNT matches when CNT
 *   steps onto it; RM0090 states no synchronisation delay for CCRx writes
 *   with preload off).
 * - UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ (every event of a
 *   timer on its one line), plus UTIM_CAP_OVERFLOW with the option.
 *
 * @par Instance (board side)
 * A board defines each timer with UTIM_STM32_GPTIM_DEFINE(), naming its
 * platform name, register base, width (32 for TIM2 and TIM5, 16 for TIM3 and
 * TIM4), options and clock-input table; the macro fills in the rest (above)
 * and the driver RAM. The board routes the timer's interrupt line to
 * utim_stm32_gptim_isr().
 *
 * @par Under emulation (QEMU 7.2, hw/timer/stm32f2xx_timer.c)
 * Measured with a probe firmware on `-M netduinoplus2`, and read in the
 * model:
 * - CNT is (virtual time x clock-frequency / 10^9) / (PSC + 1) minus an
 *   offset set by writes of CNT, PSC and EGR.UG; clock-frequency is 1 GHz
 *   (hw/arm/stm32f405_soc.c sets 1000000000 on every timer), not 84 MHz.
 *   CNT never wraps at ARR: it is the low 32 bits of that count on every
 *   timer, so TIM3 and TIM4 read values above 0xFFFF (the driver masks to
 *   the width, which gives the chip's wrap for ARR = max).
 * - CR1.CEN does not stop CNT; it only gates the update interrupt.
 * - Compare is not modelled: CCRx, CCMRx, CCER are plain storage and no
 *   CCxIF flag is ever set.
 * - The update interrupt is modelled but not at the overflow: the model
 *   arms its alarm at (ARR - CNT) x (PSC + 1) ns **plus the absolute virtual
 *   time of the arming** (timer_mod(now + hit_time) with an absolute
 *   hit_time), and re-arms from there; with ARR = 0xFFFF and PSC = 0 the
 *   probe saw UIF every 92607 ns while CNT wrapped every 65536. So the
 *   overflow interrupt cannot be verified either.
 * What the conformance suite verifies on the netduinoplus2 board: reads,
 * the width's wrap of the view, write, stop/start (the frozen value),
 * prescalers (every divider of 10^9 up to 65536), init, invalid input.
 *
 * @par Not verified under emulation
 * - The compare channels CC1..CC4 (CCRx, CCxIF, CCxIE, one-shot disable).
 * - The update (overflow) interrupt: UIE, UIF, UTIM_HPROP_OVF_*, its timing.
 * - CEN stopping CNT, the PSC preload taking effect through EGR.UG, URS.
 * - The 84 MHz CK_INT of the chip (QEMU counts 1 GHz), min_distance.
 */
#ifndef UTIM_STM32_GPTIM_H
#define UTIM_STM32_GPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Register overlay of one STM32 general-purpose timer (TIM2..TIM5). */
typedef struct utim_stm32_gptim_regs {
  volatile uint32_t cr1;    /**< 0x00 CR1 */
  volatile uint32_t cr2;    /**< 0x04 CR2 */
  volatile uint32_t smcr;   /**< 0x08 SMCR */
  volatile uint32_t dier;   /**< 0x0C DIER */
  volatile uint32_t sr;     /**< 0x10 SR (rc_w0) */
  volatile uint32_t egr;    /**< 0x14 EGR (write only) */
  volatile uint32_t ccmr1;  /**< 0x18 CCMR1 */
  volatile uint32_t ccmr2;  /**< 0x1C CCMR2 */
  volatile uint32_t ccer;   /**< 0x20 CCER */
  volatile uint32_t cnt;    /**< 0x24 CNT */
  volatile uint32_t psc;    /**< 0x28 PSC: divider - 1 */
  volatile uint32_t arr;    /**< 0x2C ARR */
  volatile uint32_t rcr;    /**< 0x30 reserved on TIM2..TIM5 */
  volatile uint32_t ccr[4]; /**< 0x34 CCR1..CCR4 */
  volatile uint32_t bdtr;   /**< 0x44 reserved on TIM2..TIM5 */
  volatile uint32_t dcr;    /**< 0x48 DCR */
  volatile uint32_t dmar;   /**< 0x4C DMAR */
  volatile uint32_t or_;    /**< 0x50 OR (TIM2, TIM5 only) */
} utim_stm32_gptim_regs_t;

_Static_assert(offsetof(utim_stm32_gptim_regs_t, sr) == 0x10u, "STM32 TIM: SR at 0x10");
_Static_assert(offsetof(utim_stm32_gptim_regs_t, cnt) == 0x24u, "STM32 TIM: CNT at 0x24");
_Static_assert(offsetof(utim_stm32_gptim_regs_t, arr) == 0x2Cu, "STM32 TIM: ARR at 0x2C");
_Static_assert(offsetof(utim_stm32_gptim_regs_t, ccr) == 0x34u, "STM32 TIM: CCR1 at 0x34");
_Static_assert(offsetof(utim_stm32_gptim_regs_t, or_) == 0x50u, "STM32 TIM: OR at 0x50");

/** @brief CR1: counter enable. */
#define UTIM_STM32_GPTIM_CR1_CEN (1u << 0)
/** @brief CR1: only overflow/underflow raises the update interrupt. */
#define UTIM_STM32_GPTIM_CR1_URS (1u << 2)
/** @brief DIER / SR: update (overflow). */
#define UTIM_STM32_GPTIM_UIF (1u << 0)
/** @brief DIER / SR: capture/compare channel @p n (0..3 for CC1..CC4). */
#define UTIM_STM32_GPTIM_CCIF(n) (1u << (1u + (n)))
/** @brief DIER / SR: every compare channel. */
#define UTIM_STM32_GPTIM_CCIF_ALL (0xfu << 1)
/** @brief EGR: update generation (reloads the prescaler, clears CNT). */
#define UTIM_STM32_GPTIM_EGR_UG (1u << 0)
/** @brief Compare channels of the hardware (CC1..CC4). */
#define UTIM_STM32_GPTIM_CHANNELS 4u
/** @brief Largest prescaler divider (PSC is 16 bits). */
#define UTIM_STM32_GPTIM_DIV_MAX 65536u
/** @brief Smallest compare distance, ticks. */
#define UTIM_STM32_GPTIM_MIN_DISTANCE 1u
/** @brief Clock inputs of a timer: CK_INT alone (the divider is PSC + 1). */
#define UTIM_STM32_GPTIM_CLOCKS 1u
/** @brief Option of UTIM_STM32_GPTIM_DEFINE(): CC1..CC4 as compare channels 0..3. */
#define UTIM_STM32_GPTIM_OPT_COMPARE 1u
/** @brief Option of UTIM_STM32_GPTIM_DEFINE(): the update event as overflow interrupt. */
#define UTIM_STM32_GPTIM_OPT_OVF 2u
/** @brief Capability bits of every instance (UTIM_CAP_OVERFLOW comes with the option). */
#define UTIM_STM32_GPTIM_CAPS (UTIM_CAP_WRITE | UTIM_CAP_STOP | UTIM_CAP_SHARED_IRQ)

/**
 * @brief Driver RAM of one instance (12 bytes), zero-initialised: the
 *        counter's value while stopped, and a change count for lock-free
 *        reads. UTIM_STM32_GPTIM_DEFINE() defines it.
 */
typedef struct utim_stm32_gptim_ram {
  volatile uint32_t frozen; /**< the view while stopped */
  volatile uint32_t seq;    /**< bumped by every stop, start, write and init */
  volatile uint8_t running; /**< 1 between enable(true) and enable(false) */
  uint8_t pad[3];           /**< zero */
} utim_stm32_gptim_ram_t;

/** @brief Device configuration of one TIM2..TIM5 instance (const, in flash). */
typedef struct utim_stm32_gptim_cfg {
  utim_dev_t common;             /**< common head; must be first */
  utim_stm32_gptim_regs_t *regs; /**< register base */
  utim_stm32_gptim_ram_t *ram;   /**< driver RAM of this instance */
} utim_stm32_gptim_cfg_t;

/** @brief The STM32 TIM2..TIM5 driver. */
extern const utim_driver_t utim_stm32_gptim_driver;

/**
 * @brief Define instance @p n_ (`static const utim_periph_t`) of a TIM2..TIM5
 *        timer, with its RAM state, driver RAM and configuration. Also
 *        defines `n_##_WIDTH`, `n_##_CHANNELS` and `n_##_MIN_DISTANCE`.
 * @param n_      identifier of the instance
 * @param pname_  platform name, e.g. "STM32_TIM2"
 * @param base_   register base address
 * @param width_  32 (TIM2, TIM5) or 16 (TIM3, TIM4)
 * @param opts_   UTIM_STM32_GPTIM_OPT_COMPARE and/or UTIM_STM32_GPTIM_OPT_OVF, or 0
 * @param clocks_ its clock-input table: one input, CK_INT, with UTIM_DIV_LINEAR
 *                dividers within 1 .. UTIM_STM32_GPTIM_DIV_MAX
 *
 * The parameters end in _ so that they cannot replace the field names of
 * the designated initializers.
 */
#define UTIM_STM32_GPTIM_DEFINE(n_, pname_, base_, width_, opts_, clocks_)                         \
  _Static_assert((width_) == 16 || (width_) == 32, pname_ ": TIM2..TIM5 are 16 or 32 bits wide");  \
  _Static_assert(((opts_) & ~(UTIM_STM32_GPTIM_OPT_COMPARE | UTIM_STM32_GPTIM_OPT_OVF)) == 0u,     \
                 pname_ ": unknown option");                                                       \
  _Static_assert(sizeof(clocks_) / sizeof((clocks_)[0]) == UTIM_STM32_GPTIM_CLOCKS,                \
                 pname_ ": a timer has one clock input, CK_INT");                                  \
  enum {                                                                                           \
    n_##_WIDTH = (width_),                                                                         \
    n_##_CHANNELS = ((opts_)&UTIM_STM32_GPTIM_OPT_COMPARE) != 0u ? UTIM_STM32_GPTIM_CHANNELS : 0,  \
    n_##_MIN_DISTANCE = UTIM_STM32_GPTIM_MIN_DISTANCE                                              \
  };                                                                                               \
  UTIM_STATE_DEFINE(n_##_state, n_##_CHANNELS);                                                    \
  static utim_stm32_gptim_ram_t n_##_ram;                                                          \
  static const utim_stm32_gptim_cfg_t n_##_cfg = {                                                 \
      .common = {.state = &n_##_state,                                                             \
                 .name = (pname_),                                                                 \
                 .clocks = (clocks_),                                                              \
                 .nclocks = UTIM_STM32_GPTIM_CLOCKS,                                               \
                 .min_distance = UTIM_STM32_GPTIM_MIN_DISTANCE},                                   \
      .regs = (utim_stm32_gptim_regs_t *)(base_),                                                  \
      .ram = &n_##_ram};                                                                           \
  static const utim_periph_t n_ = {                                                                \
      .drv = &utim_stm32_gptim_driver,                                                             \
      .dev = &n_##_cfg.common,                                                                     \
      .props =                                                                                     \
          UTIM_PROPS(width_, n_##_CHANNELS, 0,                                                     \
                     UTIM_STM32_GPTIM_CAPS |                                                       \
                         (((opts_)&UTIM_STM32_GPTIM_OPT_OVF) != 0u ? UTIM_CAP_OVERFLOW : 0u))}

/**
 * @brief Dispatcher of a TIM2..TIM5 interrupt line.
 * @param p the instance on that line
 */
void utim_stm32_gptim_isr(const utim_periph_t *p);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_STM32_GPTIM_H */
