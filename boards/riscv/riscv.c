/*
 * RISC-V reset (C part), trap routing and fault report shared by the boards
 * (the entry and the vector are start.S).
 */
#include "riscv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Symbols of the board's linker script (reserved names by the toolchain's convention). */
// NOLINTBEGIN(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
extern uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
// NOLINTEND(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)

int main(void);

#define RISCV_MCAUSE_IRQ ((uintptr_t)1 << (__riscv_xlen - 1))

volatile uint32_t riscv_trap_depth;

static void riscv_put_hex(uintptr_t v) {
  mcu_console_puts("0x");
  for (int sh = __riscv_xlen - 4; sh >= 0; sh -= 4) {
    mcu_console_putc("0123456789abcdef"[(v >> sh) & 0xfu]);
  }
}

static void riscv_fault(uintptr_t mcause, uintptr_t mepc) __attribute__((noreturn));
static void riscv_fault(uintptr_t mcause, uintptr_t mepc) {
  mcu_console_init();
  /* A TAP "Bail out!" line: test output parsers stop on it; the exit status
   * says the rest. */
  mcu_console_puts("\nBail out! unexpected trap, mcause ");
  riscv_put_hex(mcause);
  mcu_console_puts(" mepc ");
  riscv_put_hex(mepc);
  mcu_console_puts("\n");
  mcu_exit(MCU_EXIT_FAULT);
}

/* The raw handler of one cause (riscv_irq_set_raw()), none by default. */
static void (*volatile g_raw_fn)(void *arg);
static void *volatile g_raw_arg;
static volatile uint32_t g_raw_cause = UINT32_MAX;

void riscv_irq_set_raw(uint32_t cause, void (*fn)(void *arg), void *arg) {
  g_raw_cause = UINT32_MAX;
  g_raw_fn = fn;
  g_raw_arg = arg;
  g_raw_cause = fn != NULL ? cause : UINT32_MAX;
}

void riscv_trap(uintptr_t mcause, uintptr_t mepc) {
  if ((mcause & RISCV_MCAUSE_IRQ) == 0u) {
    riscv_fault(mcause, mepc);
  }
  const uint32_t cause = (uint32_t)(mcause & ~RISCV_MCAUSE_IRQ);
  riscv_trap_depth++;
  if (cause == g_raw_cause) {
    g_raw_fn(g_raw_arg);
  } else {
    bool routed = false;
    for (unsigned i = 0; i < riscv_irq_route_count; i++) {
      const riscv_irq_route_t *r = &riscv_irq_routes[i];
      if (r->cause == cause) {
        r->isr(r->p);
        routed = true;
      }
    }
    if (!routed) {
      riscv_fault(mcause, mepc);
    }
  }
  riscv_trap_depth--;
}

/* Runs before .data and .bss exist: touches nothing but the linker symbols.
 * Their bounds are compared as addresses: C only orders pointers into one
 * object, and the linker's symbols are separate ones. */
void riscv_start(void) {
  if ((uintptr_t)__data_load != (uintptr_t)__data_start) {
    const uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; (uintptr_t)dst < (uintptr_t)__data_end;) {
      *dst++ = *src++;
    }
  }
  for (uint32_t *dst = __bss_start; (uintptr_t)dst < (uintptr_t)__bss_end;) {
    *dst++ = 0u;
  }
  /* mie stays 0 (start.S): the core-local interrupts (MTI, MSI) have no
   * enable but their mie bit, so their drivers own it. */
  __asm__ volatile("csrsi mstatus, %0" ::"i"(RISCV_MSTATUS_MIE) : "memory");
  mcu_exit(main());
}
