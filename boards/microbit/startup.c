/*
 * Vector table of the micro:bit's nRF51822 (Cortex-M0, 32 external interrupt
 * lines). Every external line goes to the shared dispatcher, which finds the
 * driver in the board's route table; a line without a route ends the run as
 * a fault. ARMv6-M has no MemManage, BusFault, UsageFault or DebugMonitor.
 */
#include <stdint.h>

#include "cortexm.h"

#define NRF51_NUM_IRQ 32u

/* Referenced by linker.ld (KEEP, EXTERN) so --gc-sections keeps it and the
 * archive member is linked. */
extern const cortexm_vector_t cortexm_vectors[16u + NRF51_NUM_IRQ];

__attribute__((section(".vectors"), used))
const cortexm_vector_t cortexm_vectors[16u + NRF51_NUM_IRQ] = {
    [0] = (cortexm_vector_t)(uintptr_t)__stack_top,
    [1] = cortexm_reset,
    [2] = cortexm_fault,         /* NMI */
    [3] = cortexm_fault,         /* HardFault */
    [11] = cortexm_fault,        /* SVCall */
    [14] = cortexm_fault,        /* PendSV */
    [15] = cortexm_irq_dispatch, /* SysTick (QEMU models one; the real nRF51 has none) */
    /* External lines: TIMER0 = 8, TIMER1 = 9, TIMER2 = 10 (base >> 12 & 31). */
    [16] = CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
};
