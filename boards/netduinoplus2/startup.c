/*
 * Vector table of the netduinoplus2's STM32F405 (Cortex-M4, 82 external
 * interrupt lines on the chip, 96 in QEMU's NVIC). Every external line goes
 * to the shared dispatcher, which finds the driver in the board's route
 * table; a line without a route ends the run as a fault.
 */
#include <stdint.h>

#include "cortexm.h"

#define STM32F405_NUM_IRQ 96u

/* Referenced by linker.ld (KEEP, EXTERN) so --gc-sections keeps it and the
 * archive member is linked. */
extern const cortexm_vector_t cortexm_vectors[16u + STM32F405_NUM_IRQ];

__attribute__((section(".vectors"), used))
const cortexm_vector_t cortexm_vectors[16u + STM32F405_NUM_IRQ] = {
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
    /* External lines: TIM2 = 28, TIM3 = 29, TIM4 = 30, TIM5 = 50. */
    [16] = CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
    CORTEXM_VECTORS_8(cortexm_irq_dispatch),
};
