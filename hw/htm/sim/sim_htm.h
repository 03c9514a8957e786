/**
 * @file sim_htm.h
 * @brief The hardware time manager's RTL (hw/htm/htm.v, compiled by
 *        Verilator: 16 task slots x 64 bits, both architectures) as a
 *        device of the sim machine, stepped in its virtual time.
 *
 * The block's time base ticks at @p tick_hz from the moment of
 * sim_htm_attach(); between two ticks it is clocked @p cycles_per_tick
 * times (at least 17, so that ARCH 1 looks at every task between ticks and
 * every wake is exact). A register access through sim_dev_read() /
 * sim_dev_write() is one more clock cycle of the block at the moment of the
 * access, with the access on its bus (the block sees the same sequence of
 * bus cycles and ticks whatever the clock between them). Its interrupt
 * output drives line @p line.
 */
#ifndef UTIM_SIM_HTM_H
#define UTIM_SIM_HTM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Task slots of the co-simulated block. */
#define SIM_HTM_TASKS 16u
/** @brief Counter width of the co-simulated block. */
#define SIM_HTM_WIDTH 64u

/**
 * @brief Put the RTL on the sim machine (after sim_board_init() or
 *        sim_reset(): virtual time then is the block's time 0 of its
 *        ticks), in reset state.
 * @param arch            0: a counter per task, 1: deadlines and a shared comparator
 * @param tick_hz         rate of the time base; 1e9 / tick_hz must be a whole
 *                        number of ns divisible by @p cycles_per_tick
 * @param cycles_per_tick clock cycles per tick, at least SIM_HTM_TASKS + 1
 * @param line            its interrupt line
 * @return the device number for sim_dev_read()/sim_dev_write(), or -1
 *         (bad parameters, or the machine's devices are full)
 */
int sim_htm_attach(unsigned arch, uint32_t tick_hz, unsigned cycles_per_tick, unsigned line);

/** @brief Take every device off the machine and free the models. */
void sim_htm_detach_all(void);

/**
 * @brief One clock cycle of a model (internal; every model step goes
 *        through it and sim_htm_model_irq(), so a profiler can leave the
 *        hardware model's own instructions out: callgrind
 *        --toggle-collect=sim_htm_model_*).
 */
uint32_t sim_htm_model_cycle(void *model, bool tick, bool sel, bool we, unsigned addr,
                             uint32_t wdata);

/** @brief Grid edges @p from + 1 .. @p to of a model, ticking every @p per_tick-th (internal). */
void sim_htm_model_run(void *model, uint64_t from, uint64_t to, unsigned per_tick);

/** @brief The interrupt output of a model (internal, as sim_htm_model_cycle()). */
bool sim_htm_model_irq(void *model);

/** @brief Clock cycles the model has run (ticks' and bus accesses'). */
uint64_t sim_htm_cycles(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_SIM_HTM_H */
