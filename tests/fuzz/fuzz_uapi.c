/*
 * Coverage-guided fuzz target of the uAPI on the sim board (libFuzzer).
 *
 * An input is a program for one instance: a header picks the instance, its
 * frequency and the cost of a register access, then each operation is an
 * opcode byte followed by its operands (missing bytes read as 0). The
 * operations are the uAPI calls, virtual time passing, critical sections
 * (interrupts held off), stalls injected before a register access of the
 * next call, invalid calls, and actions the compare callback takes (clearing
 * or re-arming channels from inside a callback). See fuzz_ops.h for the
 * encoding; tests/fuzz/make_corpus.py writes inputs from readable programs.
 *
 * No reference model: the checks are invariants every correct run keeps.
 * - No compare callback before its target: the ticks the counter ran since
 *   the channel was armed (from virtual time, bounded above) must reach the
 *   distance it was armed for; for a periodic channel, the grid point its
 *   callback stands for.
 * - No callback for a setting that was cleared, replaced, or dropped by
 *   utim_init(); none for a masked channel.
 * - At most one callback per one-shot setting, and exactly one once its
 *   target has passed with interrupts let in (checked at the end of the
 *   input, after unmasking and running the counter long enough).
 * - A call that returns an error returns a documented one and changes no
 *   state (the instance's core state and a stopped counter compared before
 *   and after, with register accesses made free so no time passes).
 * Critical sections and stalls stay below one low period of the software
 * carry (chain.h: the documented interrupt-off tolerance). After
 * FUZZ_MAX_CALLBACKS compare callbacks in one input, a periodic channel's
 * next callback clears it (as FUZZ_ACT_CLEAR_SELF does): a period of a few
 * ticks over 256 advances of 16 ms would otherwise be tens of millions of
 * simulated interrupts, and libFuzzer would report the slow input as a hang.
 * A masked periodic channel, which runs no callback to count against that
 * budget, gets a period of at least FUZZ_MASKED_MIN_NS: a faster one is
 * cleared when masked, and one set while masked is slowed to it. (Two
 * masked channels at the minimum period once kept the simulated CPU in
 * their interrupts for good, a defect of the core fixed in periodic.c and
 * checked by the conformance case "every channel masked"; the input that
 * found it is in the corpus.)
 *
 * A violation aborts (so libFuzzer saves the input) after printing what
 * happened.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim.h"
#include "fuzz_input.h"
#include "fuzz_ops.h"
#include "sim.h"
#include "utim/port.h"
#include "utim/utim.h"

/* ---- the input ------------------------------------------------------------ */

static fuzz_input_t in;

static uint64_t take(unsigned bytes) {
  return fuzz_take(&in, bytes);
}

/* ---- what the harness knows of each channel --------------------------------- */

enum { SET_NONE, SET_ONESHOT, SET_PERIODIC };

typedef struct chan {
  int kind;
  uint64_t dist;    /* one-shot: ticks from arming; periodic: the period */
  uint64_t run0;    /* running time (ns, run_lo()) before the arming call */
  uint64_t run1;    /* running time (ns, run_hi()) when it returned */
  uint64_t calls;   /* callbacks of this setting */
  uint64_t credit;  /* periodic: grid points accounted (1 + overrun per callback) */
  bool timed;       /* false once the counter was written: no timing checks */
  unsigned action;  /* FUZZ_ACT_* the callback takes once */
  uint64_t act_arg; /* its operand */
} chan_t;

static const utim_periph_t *inst;
static uint32_t hz;
static unsigned nch;
static chan_t chans[UTIM_MAX_CHANNELS];
static uint32_t masked;
static bool ovf_on;
static uint64_t n_calls; /* compare callbacks of this input */

/*
 * Running time of the counter, bounded both ways: a start or stop takes
 * effect somewhere inside its call, so run_hi() counts from the beginning of
 * a start call to the end of a stop call, run_lo() from the end of a start
 * call to the beginning of a stop call. The counter ran at most
 * run_hi(b) - run_lo(a) and at least run_lo(b) - run_hi(a) between a and b.
 */
static bool running;
static uint64_t acc_hi;
static uint64_t acc_lo;
static uint64_t since_hi;
static uint64_t since_lo;

static uint64_t run_hi(void) {
  return acc_hi + (running ? sim_now() - since_hi : 0u);
}

static uint64_t run_lo(void) {
  return acc_lo + (running ? sim_now() - since_lo : 0u);
}

/* Most ticks a counter at `hz` can count in `ns` of running time (the
 * prescaler's phase is unknown: one more, and one for the read). */
static uint64_t ticks_in(uint64_t ns) {
  return (uint64_t)(((unsigned __int128)ns * hz) / 1000000000u) + 2u;
}

static const char *op_name = "setup";

static void fail(const char *what, unsigned ch) {
  fprintf(stderr, "fuzz_uapi: %s: %s ch %u (operation %s, t=%llu ns, counter 0x%llx)\n", what,
          utim_name(inst), ch, op_name, (unsigned long long)sim_now(),
          (unsigned long long)utim_read(inst));
  abort();
}

static void forget_all(void) {
  for (unsigned ch = 0; ch < UTIM_MAX_CHANNELS; ch++) {
    chans[ch].kind = SET_NONE;
    chans[ch].action = FUZZ_ACT_NONE;
  }
}

static void arm_model(unsigned ch, int kind, uint64_t dist, uint64_t run0) {
  chan_t *c = &chans[ch];
  c->kind = kind;
  c->dist = dist;
  c->run0 = run0;
  c->run1 = run0;
  c->calls = 0;
  c->credit = 0;
  c->timed = true;
}

/* ---- callbacks ------------------------------------------------------------- */

static void cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)arg;
  if (p != inst || ch >= nch) {
    fail("callback of a channel that does not exist", ch);
  }
  chan_t *c = &chans[ch];
  if (c->kind == SET_NONE) {
    fail("callback of a channel that is cleared, replaced or re-initialised", ch);
  }
  if ((masked & UTIM_EVT_CH(ch)) != 0u) {
    fail("callback of a masked channel", ch);
  }
  c->calls++;
  const uint64_t ran = ticks_in(run_hi() - c->run0);
  if (c->kind == SET_ONESHOT) {
    if (c->calls > 1u) {
      fail("second callback of a one-shot", ch);
    }
    if (c->timed && ran < c->dist) {
      fail("one-shot callback before its target", ch);
    }
  } else {
    /* Its own grid point is the first one not yet accounted for. */
    const uint64_t own = c->credit + 1u;
    if (c->timed && ran / c->dist < own) {
      fail("periodic callback before its grid point", ch);
    }
    int ov = utim_overrun(p, ch);
    if (ov < 0) {
      fail("utim_overrun() failed in the callback", ch);
    }
    c->credit += 1u + (uint64_t)ov;
  }
  unsigned act = c->action;
  c->action = FUZZ_ACT_NONE;
  /* Past the input's callback budget a periodic channel stops itself, so a
   * fast one over long advances stays a bounded amount of work. */
  if (++n_calls >= FUZZ_MAX_CALLBACKS && c->kind == SET_PERIODIC) {
    act = FUZZ_ACT_CLEAR_SELF;
  }
  if (act == FUZZ_ACT_CLEAR_SELF) {
    if (utim_clear(p, ch) != 0) {
      fail("utim_clear() from the callback failed", ch);
    }
    c->kind = SET_NONE;
  } else if (act == FUZZ_ACT_REARM_SELF) {
    const uint64_t d = c->act_arg & utim_max(p);
    const uint64_t r0 = run_lo();
    /* A callback of the new setting can only come after this frame. */
    arm_model(ch, SET_ONESHOT, d, r0);
    if (utim_set_rel(p, ch, d) != 0) {
      fail("utim_set_rel() from the callback failed", ch);
    }
    c->run1 = run_hi();
  } else if (act == FUZZ_ACT_CLEAR_OTHER && nch > 1u) {
    const unsigned o = (ch + 1u) % nch;
    if (utim_clear(p, o) != 0) {
      fail("utim_clear() of another channel from the callback failed", o);
    }
    chans[o].kind = SET_NONE;
  }
}

static void ovf_cb(const utim_periph_t *p, void *arg) {
  (void)arg;
  if (p != inst || !ovf_on) {
    fail("overflow callback while switched off", 0);
  }
  if ((masked & UTIM_EVT_OVF) != 0u) {
    fail("overflow callback while masked", 0);
  }
}

/* ---- errors change nothing --------------------------------------------------- */

typedef struct snap {
  utim_state_t st;
  utim_chan_state_t ch[UTIM_MAX_CHANNELS];
  uint64_t count;
} snap_t;

static void take_snap(snap_t *s) {
  memset(s, 0, sizeof *s);
  s->st = *inst->dev->state;
  for (unsigned ch = 0; ch < nch; ch++) {
    s->ch[ch] = inst->dev->state->ch[ch];
  }
  s->count = running ? 0u : utim_read(inst);
}

static bool same_snap(const snap_t *a, const snap_t *b) {
  const utim_state_t *x = &a->st;
  const utim_state_t *y = &b->st;
  if (x->cmp_cb != y->cmp_cb || x->cmp_arg != y->cmp_arg || x->ovf_cb != y->ovf_cb ||
      x->ovf_arg != y->ovf_arg || x->owner != y->owner || x->hz != y->hz || x->mask != y->mask ||
      x->pending != y->pending || x->periodic != y->periodic || x->armed != y->armed ||
      x->clk != y->clk || x->rearm != y->rearm || a->count != b->count) {
    return false;
  }
  return memcmp(a->ch, b->ch, sizeof a->ch) == 0;
}

/* Check a call made between snap_begin() and snap_end(): 0, or a documented
 * error that left everything as it was. */
static uint32_t saved_cost;
static bool stall_pending;

static void snap_begin(snap_t *s) {
  /* No time passes (no stall, free accesses), so no interrupt can change
   * state during the call. */
  sim_inject(0u, 0u);
  stall_pending = false;
  saved_cost = sim_access_cost();
  sim_set_access_cost(0u);
  take_snap(s);
}

static void snap_end(const snap_t *before, int rc, bool may_succeed) {
  snap_t after;
  take_snap(&after);
  sim_set_access_cost(saved_cost);
  if (rc == 0) {
    if (!may_succeed) {
      fail("an invalid call succeeded", 0);
    }
    return;
  }
  if (rc != -EINVAL && rc != -ERANGE && rc != -ETIME && rc != -ENOTSUP) {
    fail("an undocumented error code", 0);
  }
  if (!same_snap(before, &after)) {
    fail("an error changed the instance's state", 0);
  }
}

/* ---- operations --------------------------------------------------------------- */

static unsigned pick_ch(void) {
  return (unsigned)take(1) % (nch > 0u ? nch : 1u);
}

/* The shortest period a masked periodic channel gets (FUZZ_MASKED_MIN_NS, at
 * least the minimum distance): a bound on the input's work, as
 * FUZZ_MAX_CALLBACKS is for unmasked ones (a masked channel at a few ticks
 * over 256 advances of 16 ms would be millions of simulated interrupts). */
static uint64_t masked_min_period(void) {
  const uint64_t t = (uint64_t)(((unsigned __int128)FUZZ_MASKED_MIN_NS * hz) / 1000000000u);
  const uint64_t md = utim_min_distance(inst);
  const uint64_t p = t > md ? t : md;
  return p < utim_max(inst) ? p : utim_max(inst);
}

static void do_start(void) {
  const uint64_t t = sim_now();
  if (utim_start(inst) == 0 && !running) {
    running = true;
    since_hi = t;
    since_lo = sim_now();
  }
}

static void do_stop(void) {
  const uint64_t t = sim_now();
  if (utim_stop(inst) == 0 && running) {
    acc_hi += sim_now() - since_hi;
    acc_lo += t > since_lo ? t - since_lo : 0u;
    running = false;
  }
}

/* Frequency number `sel` of the instance: input (sel >> 4) % inputs, and
 * the (sel & 15)-th of its achievable frequencies (mod their number). */
static uint32_t choose_freq(unsigned sel) {
  uint32_t f[16];
  unsigned nclk = inst->dev->nclocks;
  for (unsigned tries = 0; tries < nclk; tries++) {
    unsigned clk = ((sel >> 4) + tries) % nclk;
    int n = utim_freqs(inst, clk, f, 16u);
    if (n > 0) {
      unsigned k = (sel & 15u) % (unsigned)(n < 16 ? n : 16);
      return f[k];
    }
  }
  return 0u;
}

/* utim_init() stops the counter where it can be stopped; one that cannot
 * (no UTIM_CAP_STOP) runs on from 0 once started. */
static bool do_init(unsigned sel) {
  uint32_t f = choose_freq(sel);
  const uint64_t t = sim_now();
  if (f == 0u || utim_init(inst, f, UTIM_CLOCK_DEFAULT) != 0) {
    return false;
  }
  hz = f;
  forget_all();
  masked = 0u;
  running = running && (utim_caps(inst) & UTIM_CAP_STOP) == 0u;
  acc_hi = 0;
  acc_lo = 0;
  since_hi = t;
  since_lo = sim_now();
  return true;
}

static void op_invalid(unsigned kind) {
  snap_t s;
  const uint64_t max = utim_max(inst);
  const unsigned md = utim_min_distance(inst);
  int rc = 0;
  bool may = false;
  snap_begin(&s);
  switch (kind % 12u) {
  case 0:
    rc = utim_set_abs(inst, nch, 1u);
    break;
  case 1:
    rc = max == UINT64_MAX ? -ERANGE : utim_set_abs(inst, nch > 0u ? 0u : nch, max + 1u);
    break;
  case 2: /* the counter's own value: passed */
    rc = nch > 0u ? utim_set_abs(inst, 0, utim_read(inst)) : -EINVAL;
    break;
  case 3:
    rc = max == UINT64_MAX ? -ERANGE : utim_set_rel(inst, 0, max + 1u);
    break;
  case 4:
    rc = utim_set_periodic(inst, 0, 0u);
    break;
  case 5:
    rc = md > 1u ? utim_set_periodic(inst, 0, md - 1u) : utim_set_periodic(inst, nch, 5u);
    break;
  case 6:
    rc = utim_clear(inst, nch);
    break;
  case 7:
    rc = utim_mask(inst, UTIM_EVT_CH(nch < 31u ? nch : 30u));
    break;
  case 8:
    rc = utim_init(inst, 0u, UTIM_CLOCK_DEFAULT);
    break;
  case 9:
    rc = utim_init(inst, 7u, UTIM_CLOCK_PLATFORM(inst->dev->nclocks));
    break;
  case 10:
    rc = max == UINT64_MAX ? -ERANGE : utim_write(inst, max + 1u);
    break;
  default:
    rc = utim_set_property(inst, UTIM_PROP_WIDTH, 3u);
    break;
  }
  snap_end(&s, rc, may);
}

/*
 * utim_set_abs() fails (-ETIME) when the value is passed or too close, as
 * the core sees the counter inside the call. Where our own read cannot tell
 * for sure (the counter moves meanwhile, or a stall is pending), the call is
 * made with free register accesses and no stall, so the core reads what we
 * read: a failure then must change nothing, a success is this setting's.
 */

static void op_set_abs(unsigned ch, uint64_t delta) {
  const uint64_t max = utim_max(inst);
  const uint64_t md = utim_min_distance(inst);
  const uint64_t margin = 256u; /* ticks the counter may move before the core reads */
  const uint64_t r0 = run_lo();
  const uint64_t seen = utim_read(inst);
  const uint64_t ahead_seen = (((seen + delta) & max) - seen) & max;
  const bool ok_sure = ahead_seen >= md + margin && ahead_seen <= (max >> 1) - margin;
  if (!ok_sure || stall_pending) {
    snap_t s;
    snap_begin(&s);
    /* Read again with time frozen: the core reads the same value. */
    const uint64_t now = utim_read(inst);
    const uint64_t value = (now + delta) & max;
    const uint64_t ahead = (value - now) & max;
    const bool valid = ahead >= md && ahead <= (max >> 1);
    chan_t keep = chans[ch];
    if (valid) {
      arm_model(ch, SET_ONESHOT, ahead, r0);
    }
    int rc = utim_set_abs(inst, ch, value);
    chans[ch].run1 = run_hi();
    if (valid != (rc == 0)) {
      fail(valid ? "utim_set_abs() of a valid value failed" : "utim_set_abs() of a passed value",
           ch);
    }
    if (rc != 0) {
      chans[ch] = keep;
      snap_end(&s, rc, false);
    } else {
      sim_set_access_cost(saved_cost);
    }
    return;
  }
  const uint64_t value = (seen + delta) & max;
  arm_model(ch, SET_ONESHOT, ahead_seen, r0);
  if (utim_set_abs(inst, ch, value) != 0) {
    fail("utim_set_abs() of a value well ahead failed", ch);
  }
  chans[ch].run1 = run_hi();
}

static void run_op(unsigned code) {
  const uint64_t max = utim_max(inst);
  switch (code % FUZZ_OPS) {
  case FUZZ_SET_ABS: {
    op_name = "set_abs";
    unsigned ch = pick_ch();
    uint64_t delta = take(4);
    if (nch > 0u) {
      op_set_abs(ch, delta);
    }
    break;
  }
  case FUZZ_SET_REL: {
    op_name = "set_rel";
    unsigned ch = pick_ch();
    uint64_t ticks = take(4) & max;
    if (nch == 0u) {
      break;
    }
    /* The model first: a callback due at once runs inside the call, and it
     * is this setting's (the old one's event is dropped by the arming). */
    arm_model(ch, SET_ONESHOT, ticks, run_lo());
    if (utim_set_rel(inst, ch, ticks) != 0) {
      fail("utim_set_rel() of a valid distance failed", ch);
    }
    chans[ch].run1 = run_hi();
    break;
  }
  case FUZZ_SET_PERIODIC: {
    op_name = "set_periodic";
    unsigned ch = pick_ch();
    uint64_t period = take(2);
    if (nch == 0u) {
      break;
    }
    if (period < utim_min_distance(inst)) {
      period = utim_min_distance(inst);
    }
    if ((masked & UTIM_EVT_CH(ch)) != 0u && period < masked_min_period()) {
      period = masked_min_period();
    }
    if (period > utim_max_period(inst)) {
      period = utim_max_period(inst);
    }
    arm_model(ch, SET_PERIODIC, period, run_lo());
    if (utim_set_periodic(inst, ch, period) != 0) {
      fail("utim_set_periodic() of a valid period failed", ch);
    }
    break;
  }
  case FUZZ_CLEAR: {
    op_name = "clear";
    unsigned ch = pick_ch();
    if (nch > 0u) {
      if (utim_clear(inst, ch) != 0) {
        fail("utim_clear() failed", ch);
      }
      chans[ch].kind = SET_NONE;
    }
    break;
  }
  case FUZZ_ADVANCE:
    op_name = "advance";
    sim_advance(take(3));
    break;
  case FUZZ_CRITICAL: {
    op_name = "critical section";
    uint32_t key = utim_port_lock();
    sim_advance(take(2) * FUZZ_CRITICAL_NS_UNIT);
    utim_port_unlock(key);
    break;
  }
  case FUZZ_STOP:
    op_name = "stop";
    do_stop();
    break;
  case FUZZ_START:
    op_name = "start";
    do_start();
    break;
  case FUZZ_WRITE: {
    op_name = "write";
    uint64_t v = take(4) & max;
    /* From the write on (callbacks may run inside it: a written counter can
     * land on a compare), targets no longer follow from the running time. */
    bool timed[UTIM_MAX_CHANNELS] = {false};
    for (unsigned ch = 0; ch < nch; ch++) {
      timed[ch] = chans[ch].timed;
      chans[ch].timed = false;
    }
    if (utim_write(inst, v) != 0) {
      for (unsigned ch = 0; ch < nch; ch++) {
        chans[ch].timed = timed[ch];
      }
    }
    break;
  }
  case FUZZ_MASK:
  case FUZZ_UNMASK: {
    const bool mask = code % FUZZ_OPS == FUZZ_MASK;
    op_name = mask ? "mask" : "unmask";
    uint32_t b = (uint32_t)take(1);
    uint32_t ev = (b & 0x7fu) & (nch >= 7u ? 0x7fu : ((1u << nch) - 1u));
    if ((b & 0x80u) != 0u && (utim_caps(inst) & UTIM_CAP_OVERFLOW) != 0u) {
      ev |= UTIM_EVT_OVF;
    }
    if (mask) {
      /* A periodic channel faster than masked_min_period() is cleared
       * rather than masked. */
      for (unsigned ch = 0; ch < nch; ch++) {
        if ((ev & UTIM_EVT_CH(ch)) != 0u && chans[ch].kind == SET_PERIODIC &&
            chans[ch].dist < masked_min_period()) {
          if (utim_clear(inst, ch) != 0) {
            fail("utim_clear() failed", ch);
          }
          chans[ch].kind = SET_NONE;
        }
      }
      masked |= ev;
      if (utim_mask(inst, ev) != 0) {
        fail("utim_mask() of valid events failed", 0);
      }
    } else {
      masked &= ~ev;
      if (utim_unmask(inst, ev) != 0) {
        fail("utim_unmask() of valid events failed", 0);
      }
    }
    break;
  }
  case FUZZ_STALL: {
    op_name = "stall";
    uint64_t k = take(1);
    sim_inject(k, take(2) * FUZZ_STALL_NS_UNIT);
    /* For the next operation's register accesses. */
    stall_pending = true;
    return;
  }
  case FUZZ_OVF_CB: {
    op_name = "overflow callback";
    bool on = (take(1) & 1u) != 0u;
    /* Switching on, the callback may come before the call returns: a wrap
     * during the call (after the driver dropped the flag of an earlier one)
     * is the callback's, delivered at the call's unlock. Switching off, none
     * comes after the call. */
    const bool was_on = ovf_on;
    ovf_on = ovf_on || on;
    int rc = utim_set_overflow_cb(inst, on ? ovf_cb : NULL, NULL);
    if (rc == 0) {
      ovf_on = on;
    } else {
      ovf_on = was_on;
      if (rc != -ENOTSUP) {
        fail("utim_set_overflow_cb() failed", 0);
      }
    }
    break;
  }
  case FUZZ_INVALID:
    op_name = "invalid call";
    op_invalid((unsigned)take(1));
    break;
  case FUZZ_CB_ACTION: {
    op_name = "callback action";
    unsigned ch = pick_ch();
    unsigned act = (unsigned)take(1) % FUZZ_ACTS;
    uint64_t arg = take(2);
    if (nch > 0u) {
      chans[ch].action = act;
      chans[ch].act_arg = arg;
    }
    break;
  }
  default: /* FUZZ_REINIT: on failure the previous frequency stays */
    op_name = "init";
    (void)do_init((unsigned)take(1));
    break;
  }
  sim_inject(0u, 0u);
  stall_pending = false;
}

/* ---- the end of an input: every due one-shot has run, exactly once ----------- */

static void end_phase(void) {
  op_name = "end";
  sim_inject(0u, 0u);
  sim_set_access_cost(10u);
  if ((utim_caps(inst) & UTIM_CAP_OVERFLOW) != 0u && ovf_on) {
    (void)utim_set_overflow_cb(inst, NULL, NULL);
    ovf_on = false;
  }
  masked = 0u;
  uint32_t all = nch >= 31u ? 0x7fffffffu : ((1u << nch) - 1u);
  if ((utim_caps(inst) & UTIM_CAP_OVERFLOW) != 0u) {
    all |= UTIM_EVT_OVF;
  }
  if (utim_unmask(inst, all) != 0) {
    fail("utim_unmask() of every event failed", 0);
  }
  /* Periodic channels have been checked at each callback; a fast one would
   * only make the wait below slow. */
  for (unsigned ch = 0; ch < nch; ch++) {
    if (chans[ch].kind == SET_PERIODIC) {
      if (utim_clear(inst, ch) != 0) {
        fail("utim_clear() failed", ch);
      }
      chans[ch].kind = SET_NONE;
    }
  }
  do_start();
  /* Run until each timed one-shot's target has surely passed, when that is
   * within FUZZ_END_MAX_NS of running time. */
  uint64_t need = 0u;
  for (unsigned ch = 0; ch < nch; ch++) {
    const chan_t *c = &chans[ch];
    if (c->kind == SET_ONESHOT && c->timed && c->calls == 0u) {
      uint64_t ns = (uint64_t)(((unsigned __int128)(c->dist + 4u) * 1000000000u) / hz) + 1u;
      uint64_t ran = run_lo() > c->run1 ? run_lo() - c->run1 : 0u;
      uint64_t left = ns > ran ? ns - ran : 0u;
      if (left <= FUZZ_END_MAX_NS && left > need) {
        need = left;
      }
    }
  }
  if (!running) {
    return; /* could not be started (it stays stopped): nothing is due */
  }
  sim_advance(need + FUZZ_END_SLACK_NS);
  for (unsigned ch = 0; ch < nch; ch++) {
    const chan_t *c = &chans[ch];
    if (c->kind != SET_ONESHOT || !c->timed || c->calls != 0u) {
      continue;
    }
    uint64_t ns = (uint64_t)(((unsigned __int128)(c->dist + 4u) * 1000000000u) / hz) + 1u;
    if (run_lo() >= c->run1 + ns + FUZZ_END_SLACK_NS / 2u) {
      fail("one-shot never called back although its target passed", ch);
    }
  }
}

/* ---- libFuzzer entry ------------------------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool ready;
  if (!ready) {
    sim_board_init();
    ready = true;
  }
  in = (fuzz_input_t){data, size, 0u};
  stall_pending = false;
  op_name = "setup";
  n_calls = 0;
  sim_reset();
  running = false;
  inst = utim_by_index((unsigned)take(1) % utim_count());
  nch = utim_channels(inst);
  if (!do_init((unsigned)take(1))) {
    return 0;
  }
  sim_set_access_cost((uint32_t)(take(1) % FUZZ_MAX_ACCESS_NS));
  (void)utim_set_compare_cb(inst, cmp_cb, NULL);
  ovf_on = false;
  if ((utim_caps(inst) & UTIM_CAP_OVERFLOW) != 0u) {
    (void)utim_set_overflow_cb(inst, NULL, NULL);
  }
  do_start();
  for (unsigned n = 0; fuzz_more(&in) && n < FUZZ_MAX_OPS; n++) {
    run_op((unsigned)take(1));
  }
  end_phase();
  /* Leave the instance quiet for the next input (sim_reset() is next). */
  for (unsigned ch = 0; ch < nch; ch++) {
    (void)utim_clear(inst, ch);
  }
  return 0;
}
