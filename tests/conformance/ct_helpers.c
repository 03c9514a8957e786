/**
 * @file ct_helpers.c
 * @brief Helpers of the conformance cases: set-up, waiting near a match,
 *        wraps, and the checks several case groups share.
 */
#include <stdatomic.h>

#include "ct.h"
#include "utim/port.h"

static unsigned ct_index(const utim_periph_t *p) {
  for (unsigned i = 0; i < utim_count() && i < CT_MAX_INST; i++) {
    if (utim_by_index(i) == p) {
      return i;
    }
  }
  return 0;
}

void *ct_arg(const utim_periph_t *p) {
  return &ct_cookie[ct_index(p)];
}

unsigned ct_popcount(uint32_t v) {
  unsigned n = 0;
  for (; v != 0u; v &= v - 1u) {
    n++;
  }
  return n;
}

bool ct_streq(const char *a, const char *b) {
  for (; *a != '\0' && *a == *b; a++, b++) {
  }
  return *a == *b;
}

uint64_t ct_prop(const utim_periph_t *p, unsigned id) {
  uint64_t v = UINT64_MAX;
  TH_CHECKF(utim_get_property(p, id, &v) == 0, "property %u", id);
  return v;
}

void ct_jitter(const utim_periph_t *p, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    (void)utim_read(p);
  }
}

/*
 * Enter the "in clear" phase and clear, with the timer interrupts held off
 * from just before the phase starts: a match that happens before the call
 * (after the test's last read) then counts as cleared, not as a callback
 * during the call. Returns utim_clear()'s result.
 */
int ct_clear_now(const utim_periph_t *p, unsigned ch) {
  uint32_t key = utim_port_lock();
  ct_set_phase(CT_IN);
  int r = utim_clear(p, ch);
  utim_port_unlock(key);
  return r;
}

/*
 * How many utim_read() calls surely fit between two ticks: the fewest reads
 * seen showing one counter value, over a few ticks (at least 1, at most 37).
 */
unsigned ct_reads_per_tick(const utim_periph_t *p) {
  unsigned best = 37u;
  for (unsigned round = 0; round < 8u; round++) {
    uint64_t c = utim_read(p);
    uint64_t v = c;
    for (unsigned guard = 0; v == c && guard < 1000000u; guard++) {
      v = utim_read(p); /* wait for a tick edge */
    }
    unsigned n = 0;
    for (uint64_t w = v; w == v && n < 1000000u; n++) {
      w = utim_read(p);
    }
    if (n < best) {
      best = n;
    }
  }
  return best > 1u ? best - 1u : 1u;
}

uint64_t ct_approach(const utim_periph_t *p, uint64_t target, unsigned extra) {
  uint64_t half = utim_max(p) / 2u;
  uint64_t c = utim_read(p);
  uint64_t rem = ct_dist(p, c, target);
  /* Wait to two ticks before, then spin on reads: waits may overshoot a little. */
  if (rem >= 3u && rem <= half) {
    tb_wait_ticks(p, rem - 2u);
  }
  c = utim_read(p);
  for (unsigned guard = 0; guard < 1000000u; guard++) {
    rem = ct_dist(p, c, target);
    if (rem <= 1u || rem > half) {
      break;
    }
    c = utim_read(p);
  }
  for (unsigned i = 0; i < extra && ct_dist(p, c, target) == 1u; i++) {
    c = utim_read(p);
  }
  return c;
}

bool ct_init(const utim_periph_t *p, uint32_t hz) {
  if (!TH_CHECKF(hz != 0u, "no usable frequency")) {
    return false;
  }
  int r = utim_init(p, hz, UTIM_CLOCK_DEFAULT);
  return TH_CHECKF(r == 0, "utim_init(%lu Hz) = %d", (unsigned long)hz, r);
}

bool ct_init_start(const utim_periph_t *p, uint32_t hz) {
  return ct_init(p, hz) && TH_EQ(utim_start(p), 0);
}

enum ct_wrap_mode ct_wrap_mode(const utim_periph_t *p) {
  if (utim_width(p) < 64u && utim_max(p) + 1u <= tb_long_wait_ticks(p) / 2u) {
    return CT_WRAP_WAIT;
  }
  return ct_has(p, UTIM_CAP_WRITE) ? CT_WRAP_WRITE : CT_WRAP_NONE;
}

void ct_cause_wrap(const utim_periph_t *p, enum ct_wrap_mode mode) {
  uint64_t m = 40u + 2u * ct_lat(p);
  if (mode == CT_WRAP_WRITE) {
    TH_EQ(utim_write(p, utim_max(p) - m), 0);
    tb_wait_ticks(p, m + 3u);
  } else {
    uint64_t c = utim_read(p);
    tb_wait_ticks(p, ct_dist(p, c, utim_max(p)) + 3u);
  }
}

unsigned ct_check_grid(const utim_periph_t *p, unsigned ch, uint64_t s, uint64_t e, uint64_t period,
                       unsigned want) {
  unsigned k = 0;
  uint64_t slack = ct_dist(p, s, e) + ct_lat(p);
  for (unsigned i = 0; i < ct_count(); i++) {
    ct_ev_t ev = ct_event(i);
    if (ev.ch != (int)ch || ev.phase == CT_BEFORE) {
      continue;
    }
    k++;
    if (k > want) {
      continue;
    }
    uint64_t grid = ct_add(p, s, k * period);
    uint64_t off = ct_dist(p, grid, ev.at);
    TH_CHECKF(off <= slack, "ch %u match %u at 0x%llx, grid point 0x%llx (+%llu allowed)", ch, k,
              (unsigned long long)ev.at, (unsigned long long)grid, (unsigned long long)slack);
  }
  return k;
}

/*
 * One relative arming and its callback. Returns false, without recording a
 * failure, when @p may_retry and the callback was only late: on a board that
 * runs in real time on a shared host (no race injection) the scheduler can
 * stall the interrupt context for milliseconds, which a repeat tells apart
 * from a real delay (a full wrap, a lost event), which repeats. Early or
 * extra callbacks are always failures.
 */
static bool ct_rel_try(const utim_periph_t *p, unsigned ch, uint64_t n, unsigned k, uint64_t adv,
                       bool may_retry) {
  ct_ev_reset();
  uint64_t s = utim_read(p);
  if (adv > 0u) {
    tb_race_set(p, k, adv);
  }
  ct_set_phase(CT_IN);
  int r = utim_set_rel(p, ch, n);
  ct_set_phase(CT_AFTER);
  tb_race_cancel();
  uint64_t e = utim_read(p);
  TH_EQ(r, 0);
  uint64_t bound = ct_max64(n, ct_md(p)) + ct_dist(p, s, e) + ct_lat(p);
  tb_wait_ticks(p, bound + 1u);
  unsigned got = ct_count_from(CT_IN);
  if (got == 1u) {
    uint64_t at = ct_dist(p, s, ct_first_at(CT_IN));
    if (may_retry && at > bound) {
      th_note("set_rel(%llu) fired %llu ticks after the call began (bound %llu): late, "
              "measuring again",
              (unsigned long long)n, (unsigned long long)at, (unsigned long long)bound);
      return false;
    }
    TH_CHECKF(at >= n && at <= bound,
              "set_rel(%llu) fired %llu ticks after the call began (bound %llu, call took %llu)",
              (unsigned long long)n, (unsigned long long)at, (unsigned long long)bound,
              (unsigned long long)ct_dist(p, s, e));
    return true;
  }
  if (got == 0u) {
    /* Find out whether it fires at all, e.g. a full wrap late. */
    uint64_t w = ct_wrap_or(p, tb_long_wait_ticks(p));
    tb_wait_ticks(p, w);
    if (may_retry && ct_count() == 1u) {
      th_note("set_rel(%llu): callback only after %llu ticks: late, measuring again",
              (unsigned long long)n, (unsigned long long)bound);
      return false;
    }
    TH_CHECKF(false, "set_rel(%llu) at 0x%llx: no callback within %llu ticks; %s",
              (unsigned long long)n, (unsigned long long)s, (unsigned long long)bound,
              ct_count() > 0u ? "it fired later (a wrap late?)" : "none even after a wrap");
    if (ct_count() > 0u) {
      th_note("late callback at 0x%llx", (unsigned long long)ct_event(0).at);
    }
    TH_EQ(utim_clear(p, ch), 0);
    return true;
  }
  TH_CHECKF(false, "set_rel(%llu): %u callbacks", (unsigned long long)n, got);
  return true;
}

void ct_rel_once(const utim_periph_t *p, unsigned ch, uint64_t n, unsigned k, uint64_t adv) {
  const unsigned tries = tb_race_supported() ? 1u : 3u;
  for (unsigned t = 0; t < tries; t++) {
    if (ct_rel_try(p, ch, n, k, adv, t + 1u < tries)) {
      return;
    }
  }
}

/* ---- grid tally ----------------------------------------------------------- */

/*
 * The action runs in the interrupt context (native: the interrupt thread).
 * Its inputs are written before ct_set_action() publishes it (release /
 * acquire). Its outputs are written by the callbacks of one channel, which
 * never nest or overlap: 32-bit atomics, stored and loaded, never
 * read-modify-written (ARMv6-M has no instructions for that).
 */
static uint64_t ct_tally_ref;
static uint64_t ct_tally_period;
static uint64_t ct_tally_spin;
static atomic_uint ct_tally_credit;
static atomic_uint ct_tally_early;
static atomic_uint ct_tally_ov_max;

static void ct_act_tally(const utim_periph_t *p, unsigned ch) {
  const unsigned own = atomic_load_explicit(&ct_tally_credit, memory_order_relaxed) + 1u;
  if (ct_dist(p, ct_tally_ref, utim_read(p)) < (uint64_t)own * ct_tally_period) {
    atomic_store_explicit(&ct_tally_early,
                          atomic_load_explicit(&ct_tally_early, memory_order_relaxed) + 1u,
                          memory_order_relaxed);
  }
  const int ov = utim_overrun(p, ch);
  const unsigned ovu = ov > 0 ? (unsigned)ov : 0u;
  atomic_store_explicit(&ct_tally_credit, own + ovu, memory_order_relaxed);
  if (ovu > atomic_load_explicit(&ct_tally_ov_max, memory_order_relaxed)) {
    atomic_store_explicit(&ct_tally_ov_max, ovu, memory_order_relaxed);
  }
  if (ct_tally_spin > 0u) {
    tb_wait_ticks(p, ct_tally_spin);
  }
}

void ct_tally_begin(uint64_t ref, uint64_t period, uint64_t spin) {
  atomic_store_explicit(&ct_tally_credit, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_tally_early, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_tally_ov_max, 0u, memory_order_relaxed);
  ct_tally_ref = ref;
  ct_tally_period = period;
  ct_tally_spin = spin;
  ct_set_action(ct_act_tally);
}

ct_tally_t ct_tally(void) {
  ct_tally_t t = {atomic_load_explicit(&ct_tally_credit, memory_order_relaxed),
                  atomic_load_explicit(&ct_tally_early, memory_order_relaxed),
                  atomic_load_explicit(&ct_tally_ov_max, memory_order_relaxed)};
  return t;
}
