/*
 * hAPI driver for the RISC-V cycle counter mcycle (choices in
 * utim_riscv_mcycle.h): 64 bits, no channels, stopped through mcountinhibit.
 */
#include "utim_riscv_mcycle.h"

#include <errno.h>

#include "utim/port.h"

#if __riscv_xlen == 64
static uint64_t mc_get(void) {
  uint64_t v;
  __asm__ volatile("csrr %0, mcycle" : "=r"(v));
  return v;
}

static void mc_set(uint64_t v) {
  __asm__ volatile("csrw mcycle, %0" ::"r"(v));
}
#else
/* High, low, high until the high word held still across the low read. */
static uint64_t mc_get(void) {
  uint32_t hi = 0u;
  uint32_t lo = 0u;
  uint32_t hi2 = 0u;
  do {
    __asm__ volatile("csrr %0, mcycleh" : "=r"(hi));
    __asm__ volatile("csrr %0, mcycle" : "=r"(lo));
    __asm__ volatile("csrr %0, mcycleh" : "=r"(hi2));
    // cppcheck-suppress knownConditionTrueFalse ; both are written by the csrr above
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

/* Low word 0 first: no carry from it reaches the high word mid-write. */
static void mc_set(uint64_t v) {
  __asm__ volatile("csrw mcycle, zero");
  __asm__ volatile("csrw mcycleh, %0" ::"r"((uint32_t)(v >> 32)));
  __asm__ volatile("csrw mcycle, %0" ::"r"((uint32_t)v));
}
#endif

static void mc_run(bool on) {
  if (on) {
    __asm__ volatile("csrc mcountinhibit, %0" ::"r"(UTIM_RISCV_MCOUNTINHIBIT_CY) : "memory");
  } else {
    __asm__ volatile("csrs mcountinhibit, %0" ::"r"(UTIM_RISCV_MCOUNTINHIBIT_CY) : "memory");
  }
}

static bool mc_stoppable(const utim_periph_t *p) {
  return (UTIM_PROPS_CAPS(p->props) & UTIM_CAP_STOP) != 0u;
}

static uint64_t *mc_base(const utim_periph_t *p) {
  return ((const utim_riscv_mcycle_cfg_t *)(const void *)p->dev)->base;
}

static int mc_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  (void)clk; /* the hart's clock, the only input */
  (void)div; /* 1, its only divider */
  uint32_t key = utim_port_lock();
  mc_run(!mc_stoppable(p));
  /* A CSR the board does not let us write may not keep a written value
   * (QEMU 7.2 on RV32): the count restarts from 0 through the base. */
  if ((UTIM_PROPS_CAPS(p->props) & UTIM_CAP_WRITE) != 0u) {
    mc_set(0u);
    *mc_base(p) = 0u;
  } else {
    *mc_base(p) = mc_get();
  }
  utim_port_unlock(key);
  return 0;
}

static int mc_enable(const utim_periph_t *p, bool on) {
  if (!on && !mc_stoppable(p)) {
    return -ENOTSUP;
  }
  mc_run(on);
  return 0;
}

static uint64_t mc_read(const utim_periph_t *p) {
  return mc_get() - *mc_base(p);
}

static int mc_write(const utim_periph_t *p, uint64_t value) {
  (void)p;
  uint32_t key = utim_port_lock();
  mc_set(value);
  utim_port_unlock(key);
  return 0;
}

const utim_driver_t utim_riscv_mcycle_driver = {
    .init = mc_init,
    .enable = mc_enable,
    .read = mc_read,
    .write = mc_write,
    .set_channel = NULL, /* no compare: 0 channels */
    .get_property = NULL,
    .set_property = NULL,
};
