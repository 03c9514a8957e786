/**
 * @file utim_htm.h
 * @brief Driver of the hardware time manager block (hw/htm/htm.v): a system
 *        time and task delays in hardware, after the Xenomai HTM paper
 *        (GetTime, SetTime, TaskDelay, GetTasksToWake, ClearTask).
 *
 * The block counts ticks of its time base; a task's delay of d ticks ends at
 * the d-th tick after it is loaded, sets the task's wake bit and raises the
 * interrupt (when enabled) until the bits are acknowledged. The register map
 * is in hw/htm/htm.v and the README. Registers are reached through an
 * accessor pair, so that the same driver runs on a memory-mapped block
 * (utim_htm_mmio_ops) and on the RTL co-simulated in the sim machine
 * (utim_htm_sim_ops, host builds with the sim board).
 *
 * Not thread-safe by itself: the time manager's backend calls it under the
 * port lock (two-register operations: the 64-bit time and delay).
 */
#ifndef UTIM_HTM_H
#define UTIM_HTM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Word offsets of the block's registers. */
enum utim_htm_reg {
  UTIM_HTM_ID = 0x00,       /**< RO "HTM1" */
  UTIM_HTM_VERSION = 0x01,  /**< RO 0x00010000 */
  UTIM_HTM_CONFIG = 0x02,   /**< RO [7:0] tasks, [15:8] width, [16] architecture */
  UTIM_HTM_CTRL = 0x03,     /**< [0] interrupt enable */
  UTIM_HTM_TIME_LO = 0x04,  /**< RO time[31:0]; latches time[63:32] */
  UTIM_HTM_TIME_HI = 0x05,  /**< RO the latched time[63:32] */
  UTIM_HTM_SET_LO = 0x06,   /**< WO low word of the next time */
  UTIM_HTM_SET_HI = 0x07,   /**< WO sets the time */
  UTIM_HTM_DELAY_LO = 0x08, /**< low word of the next delay */
  UTIM_HTM_DELAY_HI = 0x09, /**< high word of the next delay */
  UTIM_HTM_DELAY_ID = 0x0a, /**< WO loads the delay for a task */
  UTIM_HTM_CLEAR_ID = 0x0b, /**< WO cancels a task's delay and wake bit */
  UTIM_HTM_WAKE0 = 0x0c,    /**< wake bits 0..31, write 1 to acknowledge */
  UTIM_HTM_WAKE1 = 0x0d,    /**< wake bits 32..63 */
  UTIM_HTM_ACTIVE0 = 0x0e,  /**< RO pending delays 0..31 */
  UTIM_HTM_ACTIVE1 = 0x0f,  /**< RO pending delays 32..63 */
};

/** @brief The ID register's value ("HTM1"). */
#define UTIM_HTM_ID_VALUE 0x48544d31u

struct utim_htm;

/** @brief How the block's registers are reached. */
typedef struct utim_htm_ops {
  /** @brief Read the register at word offset @p reg. */
  uint32_t (*read)(const struct utim_htm *h, unsigned reg);
  /** @brief Write the register at word offset @p reg. */
  void (*write)(const struct utim_htm *h, unsigned reg, uint32_t value);
} utim_htm_ops_t;

/** @brief One block: const, in flash on an MCU. */
typedef struct utim_htm {
  const utim_htm_ops_t *ops; /**< register access */
  uintptr_t base;            /**< MMIO base address, or the sim device number */
} utim_htm_t;

/** @brief Register access of a memory-mapped block (32-bit volatile words). */
extern const utim_htm_ops_t utim_htm_mmio_ops;

/** @brief Register access of the block co-simulated on the sim machine (sim_dev_read/write). */
extern const utim_htm_ops_t utim_htm_sim_ops;

/**
 * @brief Check the block and read its size.
 * @param h     the block
 * @param tasks out: its task slots (may be NULL)
 * @param width out: its counter width (may be NULL)
 * @retval 0 an HTM block of version 1
 * @retval -ENODEV no HTM answers there (wrong ID or version)
 * @retval -EINVAL @p h NULL
 */
int utim_htm_probe(const utim_htm_t *h, unsigned *tasks, unsigned *width);

/** @brief The time in ticks, one consistent 64-bit read (low word first). */
uint64_t utim_htm_time(const utim_htm_t *h);

/** @brief Set the time; pending delays keep their remaining ticks. */
void utim_htm_set_time(const utim_htm_t *h, uint64_t t);

/**
 * @brief The longest delay a block of @p tasks slots and @p width bits
 *        takes: 2^width - tasks - 2 ticks.
 */
uint64_t utim_htm_delay_max(unsigned tasks, unsigned width);

/**
 * @brief Delay task @p id for @p ticks (0 counts as 1): its wake bit comes
 *        with the ticks-th tick from now. Replaces a pending delay of @p id
 *        (a wake bit already set stays set: utim_htm_clear() first drops it).
 * @retval 0 loaded
 * @retval -EINVAL @p id beyond the block's tasks (@p tasks from probe), or
 *         @p ticks beyond what the block takes (utim_htm_delay_max())
 */
int utim_htm_delay(const utim_htm_t *h, unsigned tasks, unsigned width, unsigned id,
                   uint64_t ticks);

/** @brief Cancel task @p id's delay and clear its wake bit (an id beyond the tasks: nothing). */
void utim_htm_clear(const utim_htm_t *h, unsigned id);

/**
 * @brief The wake bits (bit n: task n), acknowledged at once: the bits read
 *        are cleared, a wake coming meanwhile stays for the next call.
 * @param h      the block
 * @param tasks  its task slots (WAKE1 is read only beyond 32)
 */
uint64_t utim_htm_take_wakes(const utim_htm_t *h, unsigned tasks);

/** @brief The tasks with a pending delay (bit n: task n). */
uint64_t utim_htm_active(const utim_htm_t *h, unsigned tasks);

/** @brief Enable or disable the block's interrupt (raised while a wake bit is set). */
void utim_htm_irq_enable(const utim_htm_t *h, bool on);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_HTM_H */
