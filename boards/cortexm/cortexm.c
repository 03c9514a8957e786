/*
 * Cortex-M reset, interrupt routing and run exit shared by the boards (the
 * vector table is startup.c).
 */
#include "cortexm.h"

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

/* ARM semihosting operation numbers and the reason code of a normal end
 * (ARM "Semihosting for AArch32 and AArch64", version 2). */
#define SEMI_SYS_EXIT_EXTENDED     0x20u
#define SEMI_APPLICATION_EXIT      0x20026u
#define CORTEXM_EXC_FIRST_EXTERNAL 16

/* Thumb-state semihosting trap: BKPT 0xAB on every M-profile core. */
static uint32_t cortexm_semihost(uint32_t op, const void *arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void mcu_exit(int status) {
  /* SYS_EXIT_EXTENDED carries the status itself; plain SYS_EXIT on AArch32
   * can only say "success" or "failure". */
  const uint32_t block[2] = {SEMI_APPLICATION_EXIT, (uint32_t)status};
  (void)cortexm_semihost(SEMI_SYS_EXIT_EXTENDED, block);
  /* Only reached without semihosting: stop here so a watchdog (the runner's
   * timeout) ends the run instead of falling into random code. */
  for (;;) {
    __asm__ volatile("cpsid i\n\twfi");
  }
}

static void cortexm_put_dec(uint32_t v) {
  char tmp[10];
  unsigned n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0u);
  while (n > 0u) {
    mcu_console_putc(tmp[--n]);
  }
}

static uint32_t cortexm_ipsr(void) {
  uint32_t v;
  __asm__ volatile("mrs %0, ipsr" : "=r"(v));
  return v & 0x1ffu;
}

void cortexm_fault(void) {
  uint32_t exc = cortexm_ipsr();
  __asm__ volatile("cpsid i" ::: "memory");
  mcu_console_init();
  /* A TAP "Bail out!" line: test output parsers stop on it; the exit status
   * says the rest. */
  mcu_console_puts("\nBail out! unexpected exception ");
  cortexm_put_dec(exc);
  mcu_console_puts("\n");
  mcu_exit(MCU_EXIT_FAULT);
}

__attribute__((weak)) void cortexm_pendsv(void) {
  cortexm_fault();
}

/* The raw handler of one line (cortexm_irq_set_raw()), none by default. */
static volatile int32_t g_raw_irqn = -2;
static void (*volatile g_raw_fn)(void *arg);
static void *volatile g_raw_arg;

void cortexm_irq_set_raw(int32_t irqn, void (*fn)(void *arg), void *arg) {
  g_raw_irqn = -2;
  g_raw_fn = fn;
  g_raw_arg = arg;
  g_raw_irqn = fn != NULL && irqn >= 0 ? irqn : -2;
}

void cortexm_irq_dispatch(void) {
  int32_t irqn = (int32_t)cortexm_ipsr() - CORTEXM_EXC_FIRST_EXTERNAL;
  if (irqn == g_raw_irqn) {
    g_raw_fn(g_raw_arg);
    return;
  }
  bool routed = false;
  for (unsigned i = 0; i < cortexm_irq_route_count; i++) {
    const cortexm_irq_route_t *r = &cortexm_irq_routes[i];
    if (r->irqn == irqn) {
      r->isr(r->p);
      routed = true;
    }
  }
  if (!routed) {
    cortexm_fault();
  }
}

/* Runs before .data and .bss exist: touches nothing but the linker symbols.
 * Their bounds are compared as addresses: C only orders pointers into one
 * object, and the linker's symbols are separate ones. */
void cortexm_reset(void) {
  const uint32_t *src = __data_load;
  for (uint32_t *dst = __data_start; (uintptr_t)dst < (uintptr_t)__data_end;) {
    *dst++ = *src++;
  }
  for (uint32_t *dst = __bss_start; (uintptr_t)dst < (uintptr_t)__bss_end;) {
    *dst++ = 0u;
  }
  for (unsigned i = 0; i < cortexm_irq_route_count; i++) {
    int32_t irqn = cortexm_irq_routes[i].irqn;
    if (irqn >= 0) {
      cortexm_nvic_clear_pending((unsigned)irqn);
      cortexm_nvic_enable((unsigned)irqn);
    }
  }
  __asm__ volatile("cpsie i" ::: "memory");
  mcu_exit(main());
}
