/**
 * @file cortexm.h
 * @brief Code shared by the Cortex-M boards (mps2-an385, microbit, netduinoplus2): interrupt
 *        routing from the vector table to the drivers' dispatchers, NVIC
 *        access, and (mcu.h) ending a run through ARM semihosting.
 *
 * Interrupts: every external interrupt vector and the SysTick vector point to
 * one handler, cortexm_irq_dispatch(). It reads the active exception number
 * and calls every entry of the board's route table (cortexm_irq_routes[],
 * defined by the board's board.c) whose line matches, in table order. A line
 * shared by several instances (the CMSDK dual timer) has one entry per
 * instance; each driver dispatcher checks its own flags. The reset code
 * enables every routed NVIC line before main(), so drivers only program their
 * peripheral's own interrupt enable bits.
 *
 * Nothing here knows a register of a timer.
 */
#ifndef UTIM_BOARDS_CORTEXM_H
#define UTIM_BOARDS_CORTEXM_H

#include <stdint.h>

#include "mcu.h"
#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Line number of the SysTick exception in cortexm_irq_route_t::irqn. */
#define CORTEXM_IRQN_SYSTICK (-1)

/**
 * @brief A driver's interrupt dispatcher: one per peripheral type, called with
 *        the instance whose interrupt line is active.
 */
typedef void (*cortexm_isr_t)(const utim_periph_t *p);

/** @brief One interrupt line routed to a driver dispatcher for one instance. */
typedef struct cortexm_irq_route {
  int32_t irqn;           /**< NVIC line 0..239, or CORTEXM_IRQN_SYSTICK */
  cortexm_isr_t isr;      /**< the driver's dispatcher */
  const utim_periph_t *p; /**< the instance handed to it */
} cortexm_irq_route_t;

/** @brief The board's routes (defined by boards/<board>/board.c). */
extern const cortexm_irq_route_t cortexm_irq_routes[];
/** @brief Number of entries of cortexm_irq_routes[]. */
extern const unsigned cortexm_irq_route_count;

/**
 * @brief The handler of every routed vector: calls the matching routes; an
 *        exception without a route ends the run as a fault. A raw handler
 *        set with cortexm_irq_set_raw() for the line is called instead.
 */
void cortexm_irq_dispatch(void);

/**
 * @brief Let @p fn(@p arg) take interrupt line @p irqn instead of its routes
 *        (the driver's dispatcher and the core's delivery): a benchmark's
 *        direct ISR path. @p fn must clear the event itself. One line at a
 *        time, a line 0..239; a negative irqn or a NULL fn gives every line
 *        back to its routes.
 */
void cortexm_irq_set_raw(int32_t irqn, void (*fn)(void *arg), void *arg);

/** @brief Handler of unexpected exceptions: reports and exits with MCU_EXIT_FAULT. */
void cortexm_fault(void);

/**
 * @brief The PendSV exception's handler: cortexm_fault() unless a program
 *        links its own (a weak default). The CMSIS-RTOS2 bare-metal binding
 *        (utim/cmsis_os2_cortexm.h) runs its timer context in it.
 */
void cortexm_pendsv(void);

/** @brief Reset entry: copies .data, zeroes .bss, enables routed lines, runs main(). */
void cortexm_reset(void);

/**
 * @brief An entry of the vector table, cortexm_vectors[] (startup.c: the
 *        board's CORTEXM_NUM_IRQ external lines, exceptions by architecture).
 */
typedef void (*cortexm_vector_t)(void);

/** @brief Top of the stack (sections.ld), the first vector table entry. */
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): a linker symbol
extern uint32_t __stack_top[];

/**
 * @name NVIC access
 * The NVIC registers are the same on ARMv6-M and ARMv7-M (set/clear enable
 * and pending, one bit a line, 32 lines a word; ARMv6-M has only the first
 * word, which is all a line below 32 touches).
 * @{
 */
/** @brief NVIC Interrupt Set-Enable Register 0. */
#define CORTEXM_NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
/** @brief NVIC Interrupt Clear-Enable Register 0. */
#define CORTEXM_NVIC_ICER0 (*(volatile uint32_t *)0xE000E180u)
/** @brief NVIC Interrupt Set-Pending Register 0. */
#define CORTEXM_NVIC_ISPR0 (*(volatile uint32_t *)0xE000E200u)
/** @brief NVIC Interrupt Clear-Pending Register 0. */
#define CORTEXM_NVIC_ICPR0 (*(volatile uint32_t *)0xE000E280u)

/** @brief Enable NVIC line @p irqn (0..239; 32 lines a register word). */
static inline void cortexm_nvic_enable(unsigned irqn) {
  (&CORTEXM_NVIC_ISER0)[irqn >> 5] = 1u << (irqn & 31u);
}

/** @brief Disable NVIC line @p irqn (0..239). */
static inline void cortexm_nvic_disable(unsigned irqn) {
  (&CORTEXM_NVIC_ICER0)[irqn >> 5] = 1u << (irqn & 31u);
}

/** @brief Drop a pending request of NVIC line @p irqn (0..239). */
static inline void cortexm_nvic_clear_pending(unsigned irqn) {
  (&CORTEXM_NVIC_ICPR0)[irqn >> 5] = 1u << (irqn & 31u);
}
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARDS_CORTEXM_H */
