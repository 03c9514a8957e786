/**
 * @file utim_htm_sim.c
 * @brief Register access of the HTM block co-simulated on the sim machine:
 *        each access a bus access of the machine (cost, race injection,
 *        interrupts), through sim_dev_read()/sim_dev_write().
 */
#include "sim_regs.h"
#include "utim_htm.h"

static uint32_t sim_read(const utim_htm_t *h, unsigned reg) {
  return sim_dev_read((unsigned)h->base, reg);
}

static void sim_write(const utim_htm_t *h, unsigned reg, uint32_t value) {
  sim_dev_write((unsigned)h->base, reg, value);
}

const utim_htm_ops_t utim_htm_sim_ops = {sim_read, sim_write};
