/*
 * hAPI driver for the RISC-V machine timer (register map and choices in
 * utim_riscv_mtimer.h): 64-bit mtime, one hart's mtimecmp as the one channel.
 */
#include "utim_riscv_mtimer.h"

#include <errno.h>

#include "utim/port.h"

static const utim_riscv_mtimer_cfg_t *mt_cfg(const utim_periph_t *p) {
  return (const utim_riscv_mtimer_cfg_t *)(const void *)p->dev;
}

#if __riscv_xlen == 64
static uint64_t mt_get(const volatile uint32_t *r) {
  return *(const volatile uint64_t *)(uintptr_t)r;
}

static void mt_set_cmp(volatile uint32_t *r, uint64_t v) {
  *(volatile uint64_t *)(uintptr_t)r = v;
}

static void mt_set_time(volatile uint32_t *r, uint64_t v) {
  *(volatile uint64_t *)(uintptr_t)r = v;
}
#else
/* High, low, high until the high word held still across the low read. */
static uint64_t mt_get(const volatile uint32_t *r) {
  uint32_t hi;
  uint32_t lo;
  do {
    hi = r[1];
    lo = r[0];
  } while (r[1] != hi);
  return ((uint64_t)hi << 32) | lo;
}

/* Low word all ones first: every intermediate value is >= the target's high
 * word followed by ones, never below the target, so no spurious match. */
static void mt_set_cmp(volatile uint32_t *r, uint64_t v) {
  r[0] = UINT32_MAX;
  r[1] = (uint32_t)(v >> 32);
  r[0] = (uint32_t)v;
}

/* Low word 0 first: no carry from it reaches the high word mid-write. */
static void mt_set_time(volatile uint32_t *r, uint64_t v) {
  r[0] = 0u;
  r[1] = (uint32_t)(v >> 32);
  r[0] = (uint32_t)v;
}
#endif

/* mie.MTIE: the machine timer interrupt's only enable, so the channel's. */
#define MT_MIE_MTIE 0x80u

static void mt_mtie(bool on) {
  if (on) {
    __asm__ volatile("csrs mie, %0" ::"r"(MT_MIE_MTIE) : "memory");
  } else {
    __asm__ volatile("csrc mie, %0" ::"r"(MT_MIE_MTIE) : "memory");
  }
}

static bool mt_mtie_on(void) {
  uintptr_t mie;
  __asm__ volatile("csrr %0, mie" : "=r"(mie));
  return (mie & MT_MIE_MTIE) != 0u;
}

/* Off: interrupt disabled, and MTIP low unless mtime itself is at the
 * maximum (only after a write there). */
static void mt_off(const utim_riscv_mtimer_cfg_t *c) {
  mt_mtie(false);
  c->ram->wrap = 0u;
  mt_set_cmp(c->mtimecmp, UTIM_RISCV_MTIMER_OFF);
}

/* Arm for ram->target, with interrupts locked. A target numerically below
 * mtime is either beyond the wrap (the first step then waits for the last
 * value before it, see utim_riscv_mtimer.h) or already passed. set_channel()
 * is given targets up to 2^64 - 1 ticks ahead (utim_set_rel() accepts any
 * distance up to utim_max()), and the core itself delivers a target the
 * counter reached during the call (driver.h), so from there (@p passed_due
 * false) every such target lies beyond the wrap. A re-arm after a write
 * (@p passed_due true) takes a target less than half the range behind as
 * due: MTIP pends at once, late but never lost. */
static void mt_arm(const utim_riscv_mtimer_cfg_t *c, bool passed_due) {
  mt_mtie(false);
  const uint64_t target = c->ram->target;
  const uint64_t now = mt_get(c->mtime);
  const bool beyond_wrap = target < now && (!passed_due || now - target >= (UINT64_C(1) << 63));
  c->ram->wrap = beyond_wrap ? 1u : 0u;
  mt_set_cmp(c->mtimecmp, beyond_wrap ? UTIM_RISCV_MTIMER_OFF : target);
  mt_mtie(true);
}

static int mt_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  const utim_riscv_mtimer_cfg_t *c = mt_cfg(p);
  (void)clk; /* the timebase, the only input */
  (void)div; /* 1, its only divider */
  uint32_t key = utim_port_lock();
  mt_off(c);
  mt_set_time(c->mtime, 0u);
  utim_port_unlock(key);
  return 0;
}

/* mtime always runs: it can be started (it is), never stopped. */
static int mt_enable(const utim_periph_t *p, bool on) {
  (void)p;
  return on ? 0 : -ENOTSUP;
}

static uint64_t mt_read(const utim_periph_t *p) {
  return mt_get(mt_cfg(p)->mtime);
}

/* An armed channel keeps its absolute target: re-armed against the new count. */
static int mt_write(const utim_periph_t *p, uint64_t value) {
  const utim_riscv_mtimer_cfg_t *c = mt_cfg(p);
  uint32_t key = utim_port_lock();
  const bool armed = mt_mtie_on();
  mt_mtie(false);
  mt_set_time(c->mtime, value);
  if (armed) {
    mt_arm(c, true);
  }
  utim_port_unlock(key);
  return 0;
}

static void mt_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                           uint64_t value) {
  const utim_riscv_mtimer_cfg_t *c = mt_cfg(p);
  (void)ch; /* 0, the only channel */
  uint32_t key = utim_port_lock();
  if (mode == UTIM_CH_ONESHOT) {
    c->ram->target = value;
    mt_arm(c, false);
  } else {
    mt_off(c);
  }
  utim_port_unlock(key);
}

const utim_driver_t utim_riscv_mtimer_driver = {
    .init = mt_init,
    .enable = mt_enable,
    .read = mt_read,
    .write = mt_write,
    .set_channel = mt_set_channel,
    .get_property = NULL, /* no overflow, no top */
    .set_property = NULL,
};

void utim_riscv_mtimer_isr(const utim_periph_t *p) {
  const utim_riscv_mtimer_cfg_t *c = mt_cfg(p);
  /* Off: nothing of ours is armed (MTIP may be high after a write of the
   * maximum, but then MTIE is off and this does not run for it). */
  if (!mt_mtie_on()) {
    return;
  }
  /* Under the port lock until the report, as driver.h asks (this core's
   * trap entry masks interrupts anyway; a handler that re-enabled them
   * must not let an arming fall between the check and the report). */
  const uint32_t key = utim_port_lock();
  if (c->ram->wrap != 0u) {
    /* The last value before the wrap: one tick on, the real target is ahead
     * of the count and can be written (if it is already due, MTIP pends
     * again at once). */
    while (mt_get(c->mtime) == UINT64_MAX) {
    }
    c->ram->wrap = 0u;
    mt_set_cmp(c->mtimecmp, c->ram->target);
    utim_port_unlock(key);
    return;
  }
  if (mt_get(c->mtime) < mt_get(c->mtimecmp)) {
    utim_port_unlock(key);
    return; /* re-armed further out since MTIP was taken */
  }
  /* One-shot: disarm first, which also lowers MTIP, then report. */
  mt_off(c);
  utim_core_event_unlock(p, UTIM_EVT_CH(0), key);
}
