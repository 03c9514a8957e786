/*
 * The vector table of every Cortex-M board. Boards differ only in their
 * number of external interrupt lines, CORTEXM_NUM_IRQ, which the build
 * takes from UTIM_BOARD_NUM_IRQ in boards/<board>/board.cmake. The system
 * exceptions follow the architecture the compiler targets. Every external
 * line and SysTick go to the shared dispatcher, which finds the driver in the
 * board's route table; a line without a route ends the run as a fault, so
 * unused lines need no entries of their own.
 */
#include <stdint.h>

#include "cortexm.h"

#ifndef CORTEXM_NUM_IRQ
#error "CORTEXM_NUM_IRQ (external interrupt lines) comes from UTIM_BOARD_NUM_IRQ in board.cmake"
#endif

/* ARMv7-M adds MemManage, BusFault, UsageFault and DebugMonitor to the
 * exceptions of ARMv6-M; their slots are reserved (0) on ARMv6-M. */
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
#define CORTEXM_ARMV7M 1
#elif defined(__ARM_ARCH_6M__)
#define CORTEXM_ARMV7M 0
#else
#error "boards/cortexm/startup.c knows the exceptions of ARMv6-M and ARMv7-M only"
#endif

/* ARMv6-M's NVIC has at most 32 lines, ARMv7-M's 496 (CORTEXM_IRQ_N covers
 * up to 255, more than any board here needs). */
_Static_assert(CORTEXM_NUM_IRQ >= 1 && CORTEXM_NUM_IRQ <= (CORTEXM_ARMV7M ? 255 : 32),
               "CORTEXM_NUM_IRQ out of the architecture's range");

/* Runs of 2^k dispatcher entries, so the table is written out from the bits
 * of CORTEXM_NUM_IRQ without GNU range designators. */
#define CORTEXM_IRQ_1   cortexm_irq_dispatch
#define CORTEXM_IRQ_2   CORTEXM_IRQ_1, CORTEXM_IRQ_1
#define CORTEXM_IRQ_4   CORTEXM_IRQ_2, CORTEXM_IRQ_2
#define CORTEXM_IRQ_8   CORTEXM_IRQ_4, CORTEXM_IRQ_4
#define CORTEXM_IRQ_16  CORTEXM_IRQ_8, CORTEXM_IRQ_8
#define CORTEXM_IRQ_32  CORTEXM_IRQ_16, CORTEXM_IRQ_16
#define CORTEXM_IRQ_64  CORTEXM_IRQ_32, CORTEXM_IRQ_32
#define CORTEXM_IRQ_128 CORTEXM_IRQ_64, CORTEXM_IRQ_64

/* Referenced by sections.ld (KEEP, EXTERN) so --gc-sections keeps it and the
 * archive member is linked. */
extern const cortexm_vector_t cortexm_vectors[16 + CORTEXM_NUM_IRQ];

__attribute__((section(".vectors"), used))
const cortexm_vector_t cortexm_vectors[16 + CORTEXM_NUM_IRQ] = {
    [0] = (cortexm_vector_t)(uintptr_t)__stack_top,
    [1] = cortexm_reset,
    [2] = cortexm_fault, /* NMI */
    [3] = cortexm_fault, /* HardFault */
#if CORTEXM_ARMV7M
    [4] = cortexm_fault,  /* MemManage */
    [5] = cortexm_fault,  /* BusFault */
    [6] = cortexm_fault,  /* UsageFault */
    [12] = cortexm_fault, /* DebugMonitor */
#endif
    [11] = cortexm_fault,        /* SVCall */
    [14] = cortexm_pendsv,       /* PendSV (weak: a fault unless linked) */
    [15] = cortexm_irq_dispatch, /* SysTick (a core without one never raises it) */
    /* External lines 0 .. CORTEXM_NUM_IRQ - 1: one run per bit of the count,
     * each continuing where the one before ended. */
    [16] =
#if CORTEXM_NUM_IRQ & 1
        CORTEXM_IRQ_1,
#endif
#if CORTEXM_NUM_IRQ & 2
    CORTEXM_IRQ_2,
#endif
#if CORTEXM_NUM_IRQ & 4
    CORTEXM_IRQ_4,
#endif
#if CORTEXM_NUM_IRQ & 8
    CORTEXM_IRQ_8,
#endif
#if CORTEXM_NUM_IRQ & 16
    CORTEXM_IRQ_16,
#endif
#if CORTEXM_NUM_IRQ & 32
    CORTEXM_IRQ_32,
#endif
#if CORTEXM_NUM_IRQ & 64
    CORTEXM_IRQ_64,
#endif
#if CORTEXM_NUM_IRQ & 128
    CORTEXM_IRQ_128,
#endif
};
