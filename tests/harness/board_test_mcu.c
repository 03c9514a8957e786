/**
 * @file board_test_mcu.c
 * @brief board_test.h for the bare-metal boards (Cortex-M, RISC-V) run under QEMU.
 *
 * Time passes by busy-waiting a counted number of instructions. QEMU runs
 * with `-icount shift=N,align=off,sleep=off`: every guest instruction is
 * exactly 2^N ns of virtual time, and the timers count virtual time, so
 * "wait T ticks at f Hz" is "execute ceil(T / f / 2^N ns) instructions".
 * The wait never touches the timer under test (it also works on a stopped
 * counter), interrupts are taken meanwhile (they only lengthen the wait), and
 * the runs are deterministic. N is UTIM_QEMU_ICOUNT_SHIFT, set by the build
 * from the same CMake variable that tools/qemu-run.sh gets.
 *
 * Race injection needs a model of the bus (sim): not supported here, so the
 * suite's race loops run once.
 */
#include "board_test.h"

#include "utim/driver.h"

#ifndef UTIM_QEMU_ICOUNT_SHIFT
#error "UTIM_QEMU_ICOUNT_SHIFT must be the -icount shift QEMU runs with"
#endif

#define TB_NS_PER_S    1000000000ull
#define TB_NS_PER_INSN (1ull << (UTIM_QEMU_ICOUNT_SHIFT))

/* Instructions from a timer event to the start of its callback's counter
 * read: exception entry (free under icount), cortexm_irq_dispatch(), the
 * driver's dispatcher, utim_core_event() and its delivery loop, and the
 * callback's utim_read(). Measured on the microbit (Cortex-M0, 64-bit
 * arithmetic as library calls): at most 250 instructions up to the end of
 * that read; a locked section the event may have to wait for, such as
 * utim_set_abs(), is about 500. The budget covers both with a wide margin. */
#define TB_MCU_LATENCY_INSNS 3000ull
#define TB_MCU_IDLE_NS       1000ull
/* Busy-waiting costs host time in proportion to virtual time; this bounds a
 * single wait so the whole suite stays well inside its time budget. */
#define TB_MCU_LONG_WAIT_NS 40000000ull

/* Before utim_init() there is no frequency; 1 MHz keeps waits meaningful. */
static uint64_t tb_hz(const utim_periph_t *p) {
  uint32_t hz = utim_freq(p);
  return hz == 0u ? 1000000u : hz;
}

/* Smallest time in which at least @p ticks ticks happen: ceil(ticks * 1e9 / hz),
 * without overflowing. */
static uint64_t tb_ticks_to_ns(const utim_periph_t *p, uint64_t ticks) {
  uint64_t ns = utim_ticks_to_ns_ceil(ticks, tb_hz(p));
  return ns > UINT64_MAX / 2u ? UINT64_MAX / 2u : ns;
}

/* Two instructions an iteration (Thumb: subs, bne; RISC-V: addi, bnez), so
 * ceil(insns / 2) iterations. */
static void tb_spin_insns(uint64_t insns) {
  uint64_t iters = (insns + 1u) / 2u;
  while (iters > 0u) {
    uint32_t n = iters > 0x40000000u ? 0x40000000u : (uint32_t)iters;
    iters -= n;
#if defined(__riscv)
    __asm__ volatile("1: addi %0, %0, -1\n\t"
                     "bnez %0, 1b"
                     : "+r"(n));
#else
    __asm__ volatile(".syntax unified\n"
                     "1: subs %0, %0, #1\n\t"
                     "bne 1b"
                     : "+l"(n)
                     :
                     : "cc");
#endif
  }
}

static void tb_spin_ns(uint64_t ns) {
  tb_spin_insns((ns + TB_NS_PER_INSN - 1u) / TB_NS_PER_INSN);
}

/* Instructions per tick at the last frequency seen, as 32.32 fixed point.
 * The suite's waits must be precise to a fraction of a tick (it approaches a
 * match one tick ahead): the time spent computing a wait counts as waiting,
 * and 64-bit division is a slow library routine on Cortex-M0, so it runs once
 * per frequency change and each wait is multiplications only. */
static uint32_t tb_k_hz;
static uint32_t tb_k_int;
static uint32_t tb_k_frac;

static void tb_k_update(uint32_t hz) {
  uint64_t div = (uint64_t)hz << UTIM_QEMU_ICOUNT_SHIFT;
  tb_k_int = (uint32_t)(TB_NS_PER_S / div);
  tb_k_frac = (uint32_t)(((TB_NS_PER_S % div) << 32) / div);
  tb_k_hz = hz;
}

/* Short waits at fast clocks are the precise ones: 32-bit multiplications
 * only (Cortex-M0 has no 64-bit multiply either). The fraction is cut to 16
 * bits, which loses less than one instruction for ticks < 2^16; the caller
 * adds one. */
static bool tb_small(uint64_t ticks) {
  return ticks <= 0xffffu && tb_k_int <= 0xffffu;
}

/* At least @p ticks ticks of @p p: ceil(ticks * insns-per-tick) instructions,
 * rounded up once more for the truncated fraction of the factor. */
static void tb_spin_ticks(const utim_periph_t *p, uint64_t ticks) {
  uint32_t hz = (uint32_t)tb_hz(p);
  if (ticks > UINT32_MAX) {
    tb_spin_ns(tb_ticks_to_ns(p, ticks));
    return;
  }
  if (hz != tb_k_hz) {
    tb_k_update(hz);
  }
  if (tb_small(ticks)) {
    uint32_t t = (uint32_t)ticks;
    tb_spin_insns(t * tb_k_int + ((t * (tb_k_frac >> 16)) >> 16) + 2u);
    return;
  }
  tb_spin_insns(ticks * tb_k_int + ((ticks * tb_k_frac) >> 32) + 1u);
}

const char *tb_board_name(void) {
  return utim_board.name;
}

/* A test that failed inside a locked section must not leave interrupts off
 * for the next one (the sim board's reset releases its lock the same way). */
void tb_setup(void) {
#if defined(__riscv)
  __asm__ volatile("csrsi mstatus, 8" ::: "memory");
#else
  __asm__ volatile("cpsie i" ::: "memory");
#endif
}

void tb_idle(void) {
  tb_spin_ns(TB_MCU_IDLE_NS);
}

void tb_wait_ticks(const utim_periph_t *p, uint64_t ticks) {
  tb_spin_ticks(p, ticks);
}

bool tb_wait_until(const utim_periph_t *p, tb_cond_t cond, const void *ctx, uint64_t limit) {
  for (uint64_t i = 0; i < limit; i++) {
    if (cond(ctx)) {
      return true;
    }
    tb_spin_ticks(p, 1u);
  }
  return cond(ctx);
}

uint64_t tb_latency_ticks(const utim_periph_t *p) {
  uint64_t ns = TB_MCU_LATENCY_INSNS * TB_NS_PER_INSN;
  return utim_ns_to_ticks_ceil(ns, tb_hz(p)) + 2u;
}

uint64_t tb_long_wait_ticks(const utim_periph_t *p) {
  return utim_ns_to_ticks(TB_MCU_LONG_WAIT_NS, tb_hz(p));
}

bool tb_race_supported(void) {
  return false;
}

uint64_t tb_race_mark(void) {
  return 0u;
}

unsigned tb_race_count(uint64_t mark) {
  (void)mark;
  return 0u;
}

void tb_race_set(const utim_periph_t *p, unsigned k, uint64_t ticks) {
  (void)p;
  (void)k;
  (void)ticks;
}

void tb_race_cancel(void) {}
