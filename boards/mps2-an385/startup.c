/*
 * Vector table of the mps2-an385 (Cortex-M3, 32 external interrupt lines in
 * QEMU's model). Every line that a timer can use goes to the shared
 * dispatcher, which finds the driver in the board's route table; the others
 * are unexpected and end the run as a fault.
 */
#include <stdint.h>

#include "cortexm.h"

#define MPS2_NUM_IRQ 32u

/* Referenced by linker.ld (KEEP, EXTERN) so --gc-sections keeps it and the
 * archive member is linked. */
extern const cortexm_vector_t cortexm_vectors[16u + MPS2_NUM_IRQ];

__attribute__((section(".vectors"), used))
const cortexm_vector_t cortexm_vectors[16u + MPS2_NUM_IRQ] = {
    [0] = (cortexm_vector_t)(uintptr_t)__stack_top,
    [1] = cortexm_reset,
    [2] = cortexm_fault,         /* NMI */
    [3] = cortexm_fault,         /* HardFault */
    [4] = cortexm_fault,         /* MemManage */
    [5] = cortexm_fault,         /* BusFault */
    [6] = cortexm_fault,         /* UsageFault */
    [11] = cortexm_fault,        /* SVCall */
    [12] = cortexm_fault,        /* DebugMonitor */
    [14] = cortexm_fault,        /* PendSV */
    [15] = cortexm_irq_dispatch, /* SysTick */
    /* External lines: CMSDK TIMER0 = 8, TIMER1 = 9, DUALTIMER = 10; the
     * dispatcher faults on a line without a route, so all can point to it. */
    [16] = CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
};
