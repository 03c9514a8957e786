/*
 * riscv-virt board (QEMU's RISC-V virt machine, RV32 or RV64 as built): the machine timer of
 * hart 0, its interrupt route, the run's end through the test device, the
 * precise-sleep timers and the exposure table.
 */
#include "board.h"

#include <stddef.h>

#include "riscv.h"
#include "sleep_mcu.h"
#include "utim_riscv_mcycle.h"
#include "utim_riscv_mtimer.h"

#if __riscv_xlen == 32
_Static_assert(sizeof(utim_periph_t) <= 12u, "an instance fits in 12 bytes on RV32");
#endif

/* ---- clock input ---------------------------------------------------------- */

static const utim_clock_desc_t virt_timebase[1] = {
    {.hz = RISCV_VIRT_TIMEBASE_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_LINEAR,
     .div_lo = 1u,
     .div_hi = 1u},
};

static const utim_clock_desc_t virt_core_clock[1] = {
    {.hz = RISCV_VIRT_CORE_HZ,
     .cls = UTIM_CLASS_HF,
     .div_kind = UTIM_DIV_LINEAR,
     .div_lo = 1u,
     .div_hi = 1u},
};

/* ---- instances ------------------------------------------------------------ */

UTIM_RISCV_MTIMER_DEFINE(virt_mtimer, "RV_MTIMER", RISCV_VIRT_MTIME, RISCV_VIRT_MTIMECMP0,
                         virt_timebase);
/* No write, no stop: QEMU 7.2 carries no low-word wrap into mcycleh after a
 * write and counts the inhibited time once mcountinhibit is lifted (see
 * utim_riscv_mcycle.h). */
UTIM_RISCV_MCYCLE_DEFINE(virt_mcycle, "RV_MCYCLE", 0u, virt_core_clock);

static const utim_periph_t *const virt_instances[] = {
    [RISCV_VIRT_IDX_MTIMER] = &virt_mtimer,
    [RISCV_VIRT_IDX_MCYCLE] = &virt_mcycle,
};

_Static_assert(sizeof virt_instances / sizeof virt_instances[0] == RISCV_VIRT_INSTANCE_COUNT,
               "every index of riscv_virt_timer_index has an instance");

const utim_board_t utim_board = {
#if __riscv_xlen == 64
    .name = "virt-rv64",
#else
    .name = "virt-rv32",
#endif
    .instances = virt_instances,
    .count = RISCV_VIRT_INSTANCE_COUNT,
};

/* ---- interrupt routes ------------------------------------------------------ */

const riscv_irq_route_t riscv_irq_routes[] = {
    {RISCV_IRQ_MTI, utim_riscv_mtimer_isr, &virt_mtimer},
};

const unsigned riscv_irq_route_count = sizeof riscv_irq_routes / sizeof riscv_irq_routes[0];

/* ---- end of a run ---------------------------------------------------------- */

/* The SiFive test device (hw/misc/sifive_test.c): 0x5555 ends the emulation
 * with status 0, (status << 16) | 0x3333 with that status. */
#define VIRT_TEST_PASS 0x5555u
#define VIRT_TEST_FAIL 0x3333u

void mcu_exit(int status) {
  volatile uint32_t *test = (volatile uint32_t *)(uintptr_t)RISCV_VIRT_TEST;
  *test = status == 0 ? VIRT_TEST_PASS : (((uint32_t)status & 0xffffu) << 16) | VIRT_TEST_FAIL;
  /* Only reached without the device: stop here so the runner's timeout ends
   * the run instead of falling into random code. */
  for (;;) {
    __asm__ volatile("csrci mstatus, 8\n\twfi" ::: "memory");
  }
}

/* ---- timers of the precise sleep (boards/mcu/sleep_mcu.h) ------------------- */

/* The 64-bit mtime is the time line as it is; its compare is the alarm. */
const mcu_sleep_board_t mcu_sleep_board = {
    .clock = &virt_mtimer,
    .hz = RISCV_VIRT_TIMEBASE_HZ,
    .start = 0u,
    .wrap = MCU_SLEEP_WRAP_NONE,
    .wrap_ch = 0u,
    .alarm_ch = 0u,
    .wrap_pending = NULL,
    .alarm = &virt_mtimer,
};

/* ---- exposure table ("Table 2") ------------------------------------------- */

static const mcu_exposure_row_t virt_exposure_rows[] = {
    {"ACLINT MTIMER (64-bit mtime, hart 0 mtimecmp)", 1u, &virt_mtimer,
     "compare, write; no stop, no overflow (64 bits); 10 MHz"},
    {"mcycle (64-bit CSR cycle counter)", 0u, &virt_mcycle,
     "free-running counter, no interrupt; 1 GHz = the -icount rate; write and stop not exposed "
     "(QEMU 7.2: no carry into mcycleh after a write, inhibited time counted on resume)"},
    {"minstret (64-bit CSR instruction counter)", 0u, NULL,
     "counts instructions, not time (under -icount the same count as mcycle)"},
    {"Goldfish RTC (0x101000, alarm via PLIC)", 1u, NULL,
     "counts the host's clock, not the virtual one: not deterministic under -icount"},
};

static const char *const virt_exposure_notes[] = {
    "one hart: one mtimecmp; on a multi-hart machine every hart's mtimecmp compares against the "
    "same mtime (one instance per hart would share the counter)",
};

MCU_EXPOSURE_DEFINE(virt_exposure_rows, 46u, virt_exposure_notes);
