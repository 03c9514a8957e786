/**
 * @file riscv.h
 * @brief Code shared by the RISC-V boards (riscv-virt, RV32 and RV64): M-mode start-up, the
 *        trap vector, interrupt routing from mcause to the drivers'
 *        dispatchers, and the CSR accesses they need.
 *
 * Everything runs in machine mode on hart 0 (other harts, if the machine has
 * any, park in WFI at reset). The trap vector (start.S, direct mode) saves
 * the caller-saved registers and calls riscv_trap(): an interrupt goes to
 * every entry of the board's route table (riscv_irq_routes[], board.c) with
 * its cause, in table order; an exception, or an interrupt without a route,
 * ends the run as a fault (TAP "Bail out!", exit status MCU_EXIT_FAULT).
 * Traps do not nest: the hardware clears mstatus.MIE on entry and mret
 * restores it.
 *
 * Nothing here knows a register of a timer.
 */
#ifndef UTIM_BOARDS_RISCV_H
#define UTIM_BOARDS_RISCV_H

#include <stdint.h>

#include "mcu.h"
#include "utim/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief mcause of the machine timer interrupt (without the interrupt bit). */
#define RISCV_IRQ_MTI 7u
/** @brief mcause of the machine software interrupt. */
#define RISCV_IRQ_MSI 3u
/** @brief mcause of the machine external interrupt (the PLIC). */
#define RISCV_IRQ_MEI 11u
/** @brief mstatus.MIE: machine interrupts enabled. */
#define RISCV_MSTATUS_MIE (1u << 3)

/** @brief A driver's interrupt dispatcher, called with the instance of the cause. */
typedef void (*riscv_isr_t)(const utim_periph_t *p);

/** @brief One interrupt cause routed to a driver dispatcher for one instance. */
typedef struct riscv_irq_route {
  uint32_t cause;         /**< interrupt number of mcause (e.g. RISCV_IRQ_MTI) */
  riscv_isr_t isr;        /**< the driver's dispatcher */
  const utim_periph_t *p; /**< the instance handed to it */
} riscv_irq_route_t;

/** @brief The board's routes (defined by boards/<board>/board.c). */
extern const riscv_irq_route_t riscv_irq_routes[];
/** @brief Number of entries of riscv_irq_routes[]. */
extern const unsigned riscv_irq_route_count;

/**
 * @brief The C side of the trap vector: routes an interrupt, reports an
 *        exception as a fault. Called by start.S with mcause and mepc.
 */
void riscv_trap(uintptr_t mcause, uintptr_t mepc);

/**
 * @brief Let @p fn(@p arg) take interrupt cause @p cause instead of its
 *        routes (a benchmark's direct ISR path; @p fn clears the event
 *        itself). NULL @p fn gives the cause back to its routes.
 */
void riscv_irq_set_raw(uint32_t cause, void (*fn)(void *arg), void *arg);

/**
 * @brief Reset entry in C (start.S set the stack, gp and mtvec, and mie to
 *        0): zeroes .bss, copies .data when it has a load image elsewhere,
 *        sets mstatus.MIE, runs main() and exits with its status. The
 *        drivers of core-local interrupts own their mie bits (their only
 *        enables).
 */
void riscv_start(void) __attribute__((noreturn));

/** @brief Whether a trap handler is running (utim_port_in_isr()). */
extern volatile uint32_t riscv_trap_depth;

#ifdef __cplusplus
}
#endif

#endif /* UTIM_BOARDS_RISCV_H */
