/*
 * Coverage-guided fuzz target of the time manager (utim/tm.h) on the sim
 * board (libFuzzer), against a reference model of its timers.
 *
 * An input: a header picks the instance (8 to 64 bits, with and without an
 * overflow interrupt), its frequency, the mode (tickless or ticked on a
 * channel, ticked on the overflow), the channel, the tick and the cost of a
 * register access; then each operation is an opcode byte and its operands
 * (missing bytes read as 0): starts (relative, absolute ahead, absolute in
 * the past, one-shot or periodic), stops, queries, set_time, virtual time
 * passing, critical sections, stalls before a register access of the next
 * call, deinit / init, refused calls, and what a timer's next callback does
 * (stop itself or another, restart itself, start another, set the time,
 * deinit, deinit and init).
 *
 * Checks (the header's guarantees):
 * - never early: a callback runs when the internal time has reached the
 *   expiry the manager reported for the setting;
 * - exactly once per expiry: no callback for a setting that ended (stop,
 *   restart, deinit), none twice for a one-shot; a pending setting whose
 *   expiry passed more than the mode's bound ago is lost;
 * - the bound: a tick (ticked) plus the interrupt-off periods the input
 *   makes plus the interrupt's work; only where no pacing can apply (no
 *   period and no tick shorter than PACE_SAFE_NS);
 * - periodic timers on their grid (the next expiry is the last one plus
 *   (1 + overrun) periods), overrun counting only points passed, and the
 *   next point after the time the interrupt served;
 * - the time never goes back and follows virtual time (a lost wrap shows);
 *   set_time() moves no expiry;
 * - stop()'s return says whether a setting was pending;
 * - refusals return the documented errno and change nothing (the manager
 *   and the instance compared byte for byte, with register accesses free
 *   so no time passes).
 * A violation prints what happened and aborts (libFuzzer saves the input).
 * An interrupt that keeps the CPU for good shows as a libFuzzer timeout (the
 * time advance never returns): corpus_tm/regress_* are two such, fixed.
 * FUZZ_TM_TRACE=1 in the environment prints each operation.
 *
 * Encoding (tests/fuzz/make_corpus_tm.py writes seeds): header instance(1)
 * frequency(1, as fuzz_uapi's) mode(1: tickless, ticked, overflow)
 * channel(1) tick(2: low byte < 32 a short tick from the minimum distance)
 * access-cost(1, ns mod 32); opcodes mod 13: 0-1 start timer(1) kind(1:
 * bits 0-1 relative / absolute ahead / absolute past, bit 2 periodic)
 * magnitude(1) mantissa(5) period(3); 2 stop timer(1); 3 advance(2, up to
 * 16 interrupt periods); 4 long advance(1: 2^(b % 40) ticks); 5 critical
 * section(2); 6 stall k(1) length(2) for the next call; 7 set_time(8);
 * 8 query timer(1); 9 callback action timer(1) action(1) argument(5);
 * 10 deinit / init(1); 11 refused call kind(1) argument(8); 12 now.
 * One input's virtual time is bounded (PERIODS_BUDGET interrupt periods,
 * MAX_VIRTUAL_NS), and so are its callbacks (MAX_CALLBACKS).
 */
#include "fuzz_input.h"
#include "fuzz_tm_model.h"

/* ---- the input ------------------------------------------------------------ */

static fuzz_input_t in;

static uint64_t take(unsigned bytes) {
  return fuzz_take(&in, bytes);
}

/* A distance of any magnitude: 2^(m % 45) at most, from 8 more bytes. */
static uint64_t take_mag(void) {
  const unsigned m = (unsigned)(take(1) % 45u);
  const uint64_t v = take(5);
  if (m == 44u) {
    return MAX_AHEAD; /* the edge: the farthest a start takes */
  }
  return m == 0u ? 0u : v & (((uint64_t)1 << m) - 1u);
}

/* ---- refused calls change nothing ----------------------------------------------- */

typedef struct snap {
  utim_tm_t tm;
  utim_state_t st;
  utim_tm_timer_t t[NT];
  uint64_t now_ns;
} snap_t;

static snap_t snap_a;
static snap_t snap_b;
static uint32_t saved_cost;

static void take_snap(snap_t *s) {
  /* Byte copies, padding included: snap_end() compares the bytes. */
  memcpy(&s->tm, &tm, sizeof tm);
  memcpy(&s->st, inst->dev->state, sizeof s->st);
  for (unsigned i = 0; i < NT; i++) {
    memcpy(&s->t[i], &timers[i].t, sizeof s->t[i]);
  }
  s->now_ns = sim_now();
}

static void snap_begin(void) {
  /* The time extension's read now: with free accesses, the call's own read
   * finds the counter where this one left it. */
  (void)utim_tm_now(&tm);
  take_snap(&snap_a);
}

static void snap_end(int rc, int want, const char *what) {
  take_snap(&snap_b);
  if (rc != want) {
    fprintf(stderr, "fuzz_tm: %s returned %d, want %d\n", what, rc, want);
    fail("a refused call returned the wrong value", NULL);
  }
  /* Every byte a refused call could write, as take_snap() copied them (a
   * padding byte it wrote would be a change too). */
  // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
  if (memcmp(&snap_a.tm, &snap_b.tm, sizeof tm) != 0 ||
      memcmp(&snap_a.st, &snap_b.st, sizeof snap_a.st) != 0 ||
      memcmp(snap_a.t, snap_b.t, sizeof snap_a.t) != 0 || snap_a.now_ns != snap_b.now_ns) {
    fprintf(stderr, "fuzz_tm: %s\n", what);
    fail("a refused call changed state", NULL);
  }
}

static utim_tm_timer_t nocb_timer;

static void op_invalid_in(unsigned kind, uint64_t x, mt_t *m, uint64_t v);

static void op_invalid(unsigned kind, uint64_t x) {
  mt_t *m = &timers[x % NT];
  uint64_t v = 0;
  /* Free register accesses, no stall: no time passes, so no interrupt comes
   * during the call. Anything due comes now, before the snapshot. */
  end_stall();
  saved_cost = sim_access_cost();
  sim_set_access_cost(0u);
  (void)internal_now();
  op_invalid_in(kind, x, m, v);
  sim_set_access_cost(saved_cost);
}

static void op_invalid_in(unsigned kind, uint64_t x, mt_t *m, uint64_t v) {
  if (!running) {
    /* Every call on a manager that is not running. */
    snap_begin();
    switch (kind % 8u) {
    case 0:
      snap_end(utim_tm_start(&tm, &m->t, x & 0xffffu, 0u), -EINVAL, "start, not running");
      break;
    case 1:
      snap_end(utim_tm_start_at(&tm, &m->t, x, 0u), -EINVAL, "start_at, not running");
      break;
    case 2:
      snap_end(utim_tm_stop(&tm, &m->t), -EINVAL, "stop, not running");
      break;
    case 3:
      snap_end(utim_tm_expiry(&tm, &m->t, &v), -EINVAL, "expiry, not running");
      break;
    case 4:
      snap_end(utim_tm_remaining(&tm, &m->t, &v), -EINVAL, "remaining, not running");
      break;
    case 5:
      snap_end(utim_tm_set_time(&tm, x), -EINVAL, "set_time, not running");
      break;
    case 6:
      snap_end(utim_tm_deinit(&tm), -EINVAL, "deinit, not running");
      break;
    default:
      snap_end((int)utim_tm_now(&tm), 0, "now, not running");
      break;
    }
    return;
  }
  const uint64_t above = MAX_AHEAD + 1u + (x & 0xffffffu);
  uint64_t pv = 0;
  const int ovf_rc = (utim_caps(inst) & UTIM_CAP_OVERFLOW) == 0u ||
                             utim_get_property(inst, UTIM_PROP_OVF_PENDING, &pv) != 0
                         ? -ENOTSUP
                         : -EINVAL;
  snap_begin();
  switch (kind % 12u) {
  case 0:
    snap_end(utim_tm_start(&tm, &m->t, above, 0u), -EINVAL, "start beyond 2^62");
    break;
  case 1:
    snap_end(utim_tm_start(&tm, &m->t, x & 0xffffu, above), -EINVAL, "start, period beyond 2^62");
    break;
  case 2: {
    /* Between 2^62 and 2^63 ahead: neither future nor past. */
    const uint64_t ahead = MAX_AHEAD + 1u + (x % (MAX_AHEAD - 2u));
    snap_end(utim_tm_start_at(&tm, &m->t, utim_tm_now(&tm) + ahead, 0u), -EINVAL,
             "start_at between 2^62 and 2^63 ahead");
    break;
  }
  case 3:
    snap_end(utim_tm_start_at(&tm, &m->t, x, above), -EINVAL, "start_at, period beyond 2^62");
    break;
  case 4:
    snap_end(utim_tm_start(&tm, &nocb_timer, x & 0xffffu, 0u), -EINVAL, "start without callback");
    break;
  case 5:
    snap_end(utim_tm_start(&tm, NULL, 5u, 0u), -EINVAL, "start of NULL");
    break;
  case 6:
    snap_end(utim_tm_stop(&tm, NULL), -EINVAL, "stop of NULL");
    break;
  case 7:
    snap_end(utim_tm_expiry(&tm, &m->t, NULL), -EINVAL, "expiry into NULL");
    break;
  case 8:
    /* Another manager on the same instance, a channel it has not. */
    snap_end(utim_tm_init(&tm2, inst, utim_channels(inst), UTIM_TM_TICKLESS, 0u), -EINVAL,
             "init on a channel out of range");
    break;
  case 9:
    snap_end(utim_tm_init(&tm2, inst, 0u, UTIM_TM_TICKED, (utim_max(inst) >> 1) + 1u),
             utim_channels(inst) == 0u ? -ENOTSUP : -EINVAL, "init with a tick above max / 2");
    break;
  case 10:
    snap_end(utim_tm_init(&tm2, inst, UTIM_TM_OVERFLOW, UTIM_TM_TICKLESS, utim_max(inst) + 1u),
             ovf_rc, "init on the overflow, tickless");
    break;
  default:
    if (m->pending) {
      snap_end(0, 0, "none");
    } else {
      snap_end(utim_tm_stop(&tm, &m->t), 0, "stop of a timer not pending");
    }
    break;
  }
}

/* ---- operations ------------------------------------------------------------------ */

/* Let @p ticks pass, within the input's budget of interrupt periods. */
static void advance_ticks(uint64_t ticks) {
  const uint64_t units = ticks / budget_unit + 1u;
  if (periods_used >= PERIODS_BUDGET) {
    return;
  }
  if (units > PERIODS_BUDGET - periods_used) {
    ticks = (PERIODS_BUDGET - periods_used) * budget_unit;
  }
  periods_used += units;
  /* And within 2^50 ns (13 days) of virtual time per input: the 64-bit
   * counter's half range is no budget (virtual time is 64-bit ns). */
  uint64_t ns = ns_of_ticks(ticks);
  const uint64_t room = sim_now() < MAX_VIRTUAL_NS ? MAX_VIRTUAL_NS - sim_now() : 0u;
  ns = ns > room ? room : ns;
  sim_advance(ns);
}

static void op_query(mt_t *m) {
  if (!running) {
    return;
  }
  const uint64_t n0 = internal_now();
  if (!running) {
    return;
  }
  const uint64_t gen0 = m->gen;
  const uint64_t calls0 = m->calls;
  const bool pend0 = m->pending;
  uint64_t e = 0;
  uint64_t r = 0;
  arm_stall();
  const int rc1 = utim_tm_expiry(&tm, &m->t, &e);
  const int rc2 = utim_tm_remaining(&tm, &m->t, &r);
  end_stall();
  if (!running) {
    return;
  }
  const uint64_t n1 = internal_now();
  if (m->gen != gen0 || m->calls != calls0 || m->pending != pend0) {
    return; /* a callback in between (at an unlock) changed its setting */
  }
  if (rc1 != (m->pending ? 0 : -ENOENT) || rc2 != rc1) {
    fail("expiry / remaining: wrong return", m);
  }
  if (!m->pending) {
    return;
  }
  e -= tm.offset;
  if (m->exact && e != m->expiry) {
    fail("expiry differs from the model", m);
  }
  /* remaining: expiry - now at some moment of the call, 0 when due. */
  const uint64_t hi = e - n0 >= HALF ? 0u : e - n0;
  const uint64_t lo = e - n1 >= HALF ? 0u : e - n1;
  if (r > hi || r < lo) {
    fprintf(stderr, "fuzz_tm: remaining %llu, want %llu..%llu\n", (unsigned long long)r,
            (unsigned long long)lo, (unsigned long long)hi);
    fail("remaining is not expiry - now", m);
  }
}

static void op_set_time(uint64_t t) {
  if (!running) {
    return;
  }
  uint64_t e0[NT];
  uint64_t g0[NT];
  const uint64_t calls0 = n_calls;
  for (unsigned i = 0; i < NT; i++) {
    g0[i] = timers[i].gen + timers[i].calls;
    if (timers[i].pending && utim_tm_expiry(&tm, &timers[i].t, &e0[i]) == 0) {
      e0[i] -= tm.offset;
    }
  }
  if (!running) {
    return;
  }
  const uint64_t s0 = sim_now();
  arm_stall();
  const int rc = utim_tm_set_time(&tm, t);
  end_stall();
  const uint64_t rep = utim_tm_now(&tm);
  const uint64_t s1 = sim_now();
  if (rc != 0) {
    fail("set_time failed", NULL);
  }
  if (n_calls != calls0) {
    return; /* a callback in between (at an unlock) may have set the time */
  }
  if (running && rep - t > ticks_of_ns(s1 - s0) + 3u) {
    fprintf(stderr, "fuzz_tm: set %llu, reads %llu\n", (unsigned long long)t,
            (unsigned long long)rep);
    fail("set_time: the time does not read what was set", NULL);
  }
  for (unsigned i = 0; i < NT; i++) {
    uint64_t e = 0;
    if (running && timers[i].pending && g0[i] == timers[i].gen + timers[i].calls &&
        utim_tm_expiry(&tm, &timers[i].t, &e) == 0 && e - tm.offset != e0[i]) {
      fail("set_time moved an expiry", &timers[i]);
    }
  }
}

static void run_op(unsigned code) {
  switch (code % 13u) {
  case 0:
  case 1: { /* start */
    op_name = "start";
    mt_t *m = &timers[take(1) % NT];
    const unsigned kind = (unsigned)take(1);
    const uint64_t d = take_mag();
    const uint64_t pm = take(3);
    uint64_t period = 0;
    if ((kind & 4u) != 0u) {
      const unsigned b = (unsigned)(pm % 24u);
      period = 1u + ((pm >> 5) & (((uint64_t)1 << b) - 1u));
      if ((kind & 8u) != 0u && (kind & 16u) != 0u) {
        period = MAX_AHEAD; /* the edge */
      }
    }
    model_start(m, (kind & 3u) == 3u ? K_REL : kind & 3u, d, period, false);
    break;
  }
  case 2: { /* stop */
    op_name = "stop";
    mt_t *m = &timers[take(1) % NT];
    if (!running) {
      break;
    }
    arm_stall();
    const int rc = utim_tm_stop(&tm, &m->t);
    end_stall();
    if (rc != (m->pending ? 1 : 0)) {
      fprintf(stderr, "fuzz_tm: stop returned %d\n", rc);
      fail("stop: return differs from the model's pending", m);
    }
    m->pending = false;
    break;
  }
  case 3: /* advance, up to 16 interrupt periods */
    op_name = "advance";
    advance_ticks((uint64_t)(((unsigned __int128)take(2) * period_ticks) >> 12));
    break;
  case 4: { /* long advance: 2^(b % 40) ticks */
    op_name = "long advance";
    const unsigned b = (unsigned)(take(1) % 40u);
    advance_ticks((uint64_t)1 << b);
    break;
  }
  case 5: { /* critical section */
    op_name = "critical section";
    const uint64_t ns = (take(2) * crit_max_ns) >> 16;
    const uint32_t key = utim_port_lock();
    sim_advance(ns);
    utim_port_unlock(key);
    break;
  }
  case 6: /* a stall before the k-th register access of the next operation's call */
    op_name = "stall";
    stall_k = take(1) % 40u;
    stall_ns = (take(2) * crit_max_ns) >> 16;
    return; /* kept for the next operation */
  case 7:
    op_name = "set_time";
    op_set_time(take(8));
    break;
  case 8:
    op_name = "query";
    op_query(&timers[take(1) % NT]);
    break;
  case 9: { /* what a timer's next callback does */
    op_name = "callback action";
    mt_t *m = &timers[take(1) % NT];
    m->action = (unsigned)(take(1) % ACT_COUNT);
    m->act_arg = take(5);
    break;
  }
  case 10: { /* deinit / init */
    op_name = "deinit / init";
    const unsigned sub = (unsigned)(take(1) % 3u);
    if (running && sub != 1u) {
      arm_stall();
      const int rc = utim_tm_deinit(&tm);
      end_stall();
      if (rc != 0) {
        fail("deinit of a running manager failed", NULL);
      }
      manager_deinit_model();
    }
    if (!running && sub != 0u) {
      arm_stall();
      manager_init();
      end_stall();
    }
    break;
  }
  case 11:
    op_name = "invalid";
    op_invalid((unsigned)take(1), take(8));
    break;
  default:
    op_name = "now";
    arm_stall();
    (void)internal_now();
    end_stall();
    break;
  }
  end_stall();
}

/* ---- set-up and the end of an input ---------------------------------------------- */

static uint32_t choose_freq(unsigned sel) {
  uint32_t f[16];
  const unsigned nclk = inst->dev->nclocks;
  for (unsigned tries = 0; tries < nclk; tries++) {
    const unsigned clk = ((sel >> 4) + tries) % nclk;
    const int n = utim_freqs(inst, clk, f, 16u);
    if (n > 0) {
      return f[(sel & 15u) % (unsigned)(n < 16 ? n : 16)];
    }
  }
  return 0u;
}

static void end_phase(void) {
  op_name = "end";
  end_stall();
  sim_set_access_cost(10u);
  if (!running) {
    return;
  }
  for (unsigned i = 0; i < NT; i++) {
    timers[i].action = ACT_NONE;
    if (timers[i].period != 0u && timers[i].pending) {
      if (utim_tm_stop(&tm, &timers[i].t) != 1) {
        fail("stop of a pending periodic timer at the end", &timers[i]);
      }
      timers[i].pending = false;
    }
  }
  /* Every one-shot due within the budget comes. */
  const uint64_t now = internal_now();
  uint64_t need = 0;
  for (unsigned i = 0; i < NT; i++) {
    const mt_t *m = &timers[i];
    const uint64_t left = m->due - now >= HALF ? 0u : m->due - now;
    if (m->pending && left > need && left / budget_unit < 512u) {
      need = left;
    }
  }
  periods_used = 0;
  advance_ticks(need + late_bound + 1u);
  if (check_late) {
    const uint64_t n = internal_now();
    for (unsigned i = 0; i < NT; i++) {
      const mt_t *m = &timers[i];
      if (m->pending && n - m->due < HALF && n - m->due > late_bound) {
        fail("lost at the end: no callback although its expiry passed", m);
      }
    }
  }
  check_all();
  if (utim_tm_deinit(&tm) != 0) {
    fail("deinit at the end failed", NULL);
  }
  manager_deinit_model();
  check_all();
  sim_advance(1000000u); /* no callback after deinit */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool ready;
  if (!ready) {
    sim_board_init();
    trace = getenv("FUZZ_TM_TRACE") != NULL;
    ready = true;
  }
  in = (fuzz_input_t){data, size, 0u};
  op_name = "setup";
  op_no = 0;
  n_calls = 0;
  periods_used = 0;
  running = false;
  stall_ns = 0;
  sim_reset();
  inst = utim_by_index((unsigned)take(1) % utim_count());
  hz = choose_freq((unsigned)take(1));
  const unsigned mode_sel = (unsigned)take(1) % 3u;
  const unsigned ch_sel = (unsigned)take(1);
  const uint64_t tick_sel = take(2);
  const uint32_t cost = (uint32_t)(take(1) % 32u);
  if (hz == 0u || utim_init(inst, hz, UTIM_CLOCK_DEFAULT) != 0 || utim_start(inst) != 0) {
    return 0;
  }
  const uint64_t max = utim_max(inst);
  const uint64_t md = utim_min_distance(inst);
  const uint64_t half = max >> 1;
  uint64_t pv = 0;
  const bool ovf_ok = (utim_caps(inst) & UTIM_CAP_OVERFLOW) != 0u &&
                      utim_get_property(inst, UTIM_PROP_OVF_PENDING, &pv) == 0 &&
                      max < ((uint64_t)1 << 32);
  if (mode_sel == 2u && ovf_ok) {
    tm_ch = UTIM_TM_OVERFLOW;
    tm_mode = UTIM_TM_TICKED;
    tm_tick = max + 1u;
  } else if (utim_channels(inst) == 0u) {
    return 0;
  } else {
    tm_ch = ch_sel % utim_channels(inst);
    tm_mode = mode_sel == 1u ? UTIM_TM_TICKED : UTIM_TM_TICKLESS;
    tm_tick = 0u;
    if (tm_mode == UTIM_TM_TICKED) {
      /* Short ticks (the first 32 of 256) from the minimum distance;
       * otherwise at least 50 us, at most half the range. */
      const uint64_t lo = (tick_sel & 0xffu) < 32u ? md : ticks_of_ns(50000u);
      uint64_t span = half > lo ? half - lo : 0u;
      span = span > ((uint64_t)1 << 20) ? ((uint64_t)1 << 20) : span;
      tm_tick = lo + (tick_sel >> 8) * span / 256u;
      tm_tick = tm_tick < md ? md : (tm_tick > half ? half : tm_tick);
    }
  }
  sim_set_access_cost(cost);
  for (unsigned i = 0; i < NT; i++) {
    memset(&timers[i], 0, sizeof timers[i]);
    timers[i].id = i;
    utim_tm_timer_init(&timers[i].t, cb, &timers[i]);
  }
  utim_tm_timer_init(&nocb_timer, NULL, NULL);
  /* Interrupt-off periods (critical sections, stalls): at most a quarter
   * of the counter's range (capped at 1 ms), within the manager's
   * tolerance of half a range (the overflow mode's: a tick, the range). */
  const uint64_t half_ns = ns_of_ticks(half + 1u);
  crit_max_ns = (half_ns > 2000000u ? 2000000u : half_ns) / 2u;
  period_ticks = tm_mode == UTIM_TM_TICKED ? tm_tick : half;
  if (period_ticks == 0u) {
    period_ticks = 1u;
  }
  /* An overflow interrupt (a chain's carry) comes every 2^16 ticks or so. */
  budget_unit =
      (utim_caps(inst) & UTIM_CAP_OVERFLOW) != 0u && period_ticks > 65536u ? 65536u : period_ticks;
  check_late = !(tm_mode == UTIM_TM_TICKED && short_ticks(tm_tick));
  late_bound =
      (tm_mode == UTIM_TM_TICKED ? tm_tick : 0u) + ticks_of_ns(2u * crit_max_ns + SLACK_NS) + 8u;
  manager_init();
  if (trace) {
    fprintf(stderr, "fuzz_tm: %s %u Hz ch %u %s tick %llu cost %u, bound %llu\n", utim_name(inst),
            hz, tm_ch, tm_mode == UTIM_TM_TICKED ? "ticked" : "tickless",
            (unsigned long long)tm_tick, cost, (unsigned long long)late_bound);
  }
  for (op_no = 0; fuzz_more(&in) && op_no < MAX_OPS; op_no++) {
    const size_t at = in.pos;
    const unsigned code = (unsigned)take(1);
    run_op(code);
    if (trace) {
      fprintf(stderr, "fuzz_tm: op %u %s (bytes %zu..%zu) t=%llu ns\n", op_no, op_name, at, in.pos,
              (unsigned long long)sim_now());
    }
    check_all();
  }
  end_phase();
  return 0;
}
