/*
 * Coverage-guided fuzz target of the CMSIS-RTOS2 time services
 * (utim/cmsis_os2.h) on the sim board (libFuzzer), against a model of the
 * standard's semantics as the header documents them.
 *
 * An input: a header picks the set-up (instance, counter rate, kernel tick,
 * tickless or ticked manager, its tick), the manager's start time (near the
 * tick count's 32-bit wrap, say) and how many of the pool's blocks other
 * timers hold; then each operation is an opcode byte and its operands
 * (missing bytes read as 0): osTimerNew (pool or the slot's own memory,
 * static or heap, set up again while alive, once / periodic),
 * osTimerStart / Stop / Delete (the deleted block then left, scribbled,
 * zeroed, refilled with its old bytes or freed), osTimerIsRunning /
 * GetName, osDelay, osDelayUntil, virtual time passing with or without the
 * timer context running, the context run for a few expiries or ending
 * (utim_os2_drop_deferred()), what a timer's next callback does (start,
 * stop, delete itself or another, delay, create), calls "from an
 * interrupt" (the binding's in_isr forced, and a manager timer whose
 * callback calls the API in the manager's interrupt), refused calls.
 *
 * The binding: one thread; blocking sets a manager one-shot at the
 * deadline and lets virtual time pass, running the timer context (a queue
 * of QLEN expiries, small so that it fills) at each kernel tick as a timer
 * thread of higher priority would; a callback that blocks blocks the timer
 * context (its expiries wait).
 *
 * Checks (the header's contract):
 * - return codes: osErrorISR from an interrupt before osErrorParameter (an
 *   invalid id, ticks 0), then osErrorResource (a stop of a timer not
 *   running; a delete with expiries waiting once UTIM_OS2_DELETED_WAITING
 *   deleted timers have some), osOK; osTimerNew's NULL cases;
 * - refused calls change nothing: the control block's bytes (caller
 *   memory), running state, next expiry and name;
 * - expiries: each comes at start + k x ticks kernel ticks (tickless: then;
 *   ticked: at most a manager tick before), none for a timer not running,
 *   none missed; a one-shot's once per start;
 * - callbacks: the timer context runs an expiry's callback exactly when its
 *   timer was not started again, stopped, deleted or set up again since
 *   that expiry (each deferred expiry checked against the model), with the
 *   timer's current function and argument; never one of a deleted timer,
 *   and its memory is not read (ASan: freed heap blocks);
 * - osDelay(n): the tick count goes exactly n on; osDelayUntil(t): returns
 *   in tick t, at its start; osKernelGetTickCount() is the manager's time
 *   over the kernel tick, osKernelGetSysTimerCount() its low 32 bits;
 * - osTimerIsRunning() agrees with the model after every operation.
 * - utim_os2_timer_expiry() is the nominal expiry (ticked: a manager tick
 *   less one count), utim_os2_lost_expiries() the queue's refusals.
 * A violation prints what happened and aborts (libFuzzer saves the input).
 * FUZZ_OS2_TRACE=1 in the environment prints each operation and, at the
 * end of each input, what the inputs so far reached.
 *
 * Encoding (tests/fuzz/make_corpus_os2.py writes seeds): header set-up(1,
 * the setups[] index) start(1: bits 0-1 the time at 0 / near 2^32 kernel
 * ticks / near 2^31 / elsewhere, the rest an offset; bits 4-7 virtual
 * time before the manager's set-up) pool-fill(1, blocks held by other
 * timers, mod 13); operations opcode(1, mod 15) slot(1), then: 0 new
 * flags(1: bit 0 pool, 1 periodic, 2 the other function, 3 a name);
 * 1 start ticks(1) action(1) action-argument(2); 2 stop; 3 delete
 * after(1: left, scribbled, its old bytes, freed / zeroed); 4 osDelay
 * ticks(1); 5 osDelayUntil ahead(1, signed); 6 time passes, the context
 * not run (1, quarter kernel ticks); 7 the context runs k(1) expiries;
 * 8 action(1) argument(3); 9 a call with in_isr forced kind(1)
 * argument(3); 10 refused call kind(1) argument(3); 11 the context ends
 * (utim_os2_drop_deferred()); 12 probe: a manager timer calling the API
 * from its interrupt kind(1) argument(3) delay(1); 13 the context runs;
 * 14 utim_os2_init() again kind(1).
 */
#include "fuzz_input.h"
#include "fuzz_os2_model.h"

/* ---- the input ------------------------------------------------------------ */

static fuzz_input_t in;

/* At most 4 bytes: 32 bits. */
static uint32_t take(unsigned bytes) {
  return (uint32_t)fuzz_take(&in, bytes);
}

/* A count of kernel ticks: mostly small, sometimes up to a few hundred. */
static uint32_t take_ticks(void) {
  const uint32_t b = take(1);
  if (b >= 254u) {
    return b == 255u ? 0xFFFFFFFFu : 0x80000000u; /* for starts: delays stay short */
  }
  return b < 200u ? b % 8u : (b - 200u) * 7u;
}

/* ---- checked calls --------------------------------------------------------------- */

/* What a refused call must not change. */
typedef struct snap {
  uint64_t bytes[NT][CB_WORDS];
  uint32_t running[NT];
  uint64_t at[NT];
  const char *name[NT];
} snap_t;

static void take_snap(snap_t *sn) {
  memset(sn, 0, sizeof *sn);
  for (unsigned i = 0; i < NT; i++) {
    if (!slots[i].live) {
      continue;
    }
    if (!slots[i].pool) {
      memcpy(sn->bytes[i], slots[i].id, UTIM_OS2_TIMER_CB_SIZE);
    }
    sn->running[i] = osTimerIsRunning(slots[i].id);
    (void)utim_os2_timer_expiry(slots[i].id, &sn->at[i]);
    sn->name[i] = osTimerGetName(slots[i].id);
  }
}

static void check_unchanged(const snap_t *before) {
  static snap_t after;
  take_snap(&after);
  for (unsigned i = 0; i < NT; i++) {
    CHECK(memcmp(before->bytes[i], after.bytes[i], sizeof after.bytes[i]) == 0,
          "a refused call changed a control block", (int)i);
    CHECK(before->running[i] == after.running[i] && before->at[i] == after.at[i] &&
              before->name[i] == after.name[i],
          "a refused call changed a timer", (int)i);
  }
}

static void cb_common(void *arg, osTimerFunc_t me);
static void cb_a(void *arg) {
  cb_common(arg, cb_a);
}
static void cb_b(void *arg) {
  cb_common(arg, cb_b);
}

static bool in_isr_now(void) {
  return force_isr || utim_port_in_isr();
}

static void do_new(unsigned s, uint32_t flags);
static void do_start(unsigned s, uint32_t ticks);
static void do_stop(unsigned s);
static void do_delete(unsigned s, unsigned after);
static void do_delay(uint32_t n);

static void do_new(unsigned s, uint32_t flags) {
  slot_t *m = &slots[s];
  const bool use_pool = (flags & 1u) != 0u;
  const uint8_t type = (flags & 2u) != 0u ? (uint8_t)osTimerPeriodic : (uint8_t)osTimerOnce;
  const osTimerFunc_t fn = (flags & 4u) != 0u ? cb_b : cb_a;
  const char *name = (flags & 8u) != 0u ? "fuzz" : NULL;
  const bool isr = in_isr_now();
  if (m->live && m->pool) {
    return; /* a pool block is not given back as cb_mem */
  }
  osTimerAttr_t attr = {name, 0u, NULL, 0u};
  void *mem = NULL;
  if (m->live || !use_pool) {
    mem = own_mem(s);
    if (!m->live && m->dirty) {
      memset(mem, 0, UTIM_OS2_TIMER_CB_SIZE); /* zeroed, as the header asks */
      m->dirty = false;
    }
    attr.cb_mem = mem;
    attr.cb_size = UTIM_OS2_TIMER_CB_SIZE;
  }
  snap_t before;
  take_snap(&before);
  osTimerId_t id = osTimerNew(fn, (osTimerType_t)type, &tags[s], &attr);
  bool refuse = isr || (m->live && m->running) || (mem == NULL && pool_live == UTIM_OS2_TIMER_POOL);
  if (refuse) {
    CHECK(id == NULL, "osTimerNew() not refused", (int)s);
    check_unchanged(&before);
    return;
  }
  CHECK(id != NULL, "osTimerNew() refused", (int)s);
  if (mem != NULL) {
    CHECK(id == mem, "osTimerNew(): the id is not cb_mem", (int)s);
  } else {
    CHECK(slot_of(id) < 0, "osTimerNew(): a live timer's block from the pool", (int)s);
    pool_live++;
  }
  if (!m->live) {
    m->deferred_unrun = 0;
    m->pool = mem == NULL;
  }
  m->live = true;
  m->freed = false;
  m->id = id;
  m->type = type;
  m->func = fn;
  m->name = name;
  m->running = false;
  m->setting++;
  m->calls = 0;
}

static void do_start(unsigned s, uint32_t ticks) {
  slot_t *m = &slots[s];
  const bool isr = in_isr_now();
  snap_t before;
  take_snap(&before);
  const osStatus_t st = osTimerStart(id_for(s), ticks);
  const osStatus_t want = isr ? osErrorISR : (!m->live || ticks == 0u) ? osErrorParameter : osOK;
  if (st != want) {
    fprintf(stderr, "osTimerStart(%u): %d, want %d\n", ticks, (int)st, (int)want);
    fail("osTimerStart() status", (int)s);
  }
  if (want != osOK) {
    check_unchanged(&before);
    return;
  }
  m->setting++;
  m->running = true;
  m->next_at = now_m() + (uint64_t)ticks * ratio;
  m->period = m->type == (uint8_t)osTimerPeriodic ? (uint64_t)ticks * ratio : 0u;
}

static void do_stop(unsigned s) {
  slot_t *m = &slots[s];
  const bool isr = in_isr_now();
  snap_t before;
  take_snap(&before);
  const osStatus_t st = osTimerStop(id_for(s));
  const osStatus_t want = isr          ? osErrorISR
                          : !m->live   ? osErrorParameter
                          : m->running ? osOK
                                       : osErrorResource;
  if (st != want) {
    fprintf(stderr, "osTimerStop(): %d, want %d\n", (int)st, (int)want);
    fail("osTimerStop() status", (int)s);
  }
  if (isr || !m->live) {
    check_unchanged(&before);
    return;
  }
  m->setting++; /* a stop drops a deferred callback also when not running */
  m->running = false;
}

/* Whether the block of @p s has expiries waiting in the queue (the layer's
 * count: since its last set-up in fresh memory). */
static bool waits(unsigned s) {
  return slots[s].deferred_unrun != 0u;
}

static void do_delete(unsigned s, unsigned after) {
  slot_t *m = &slots[s];
  const bool isr = in_isr_now();
  snap_t before;
  take_snap(&before);
  const osStatus_t st = osTimerDelete(id_for(s));
  bool known = false;
  for (unsigned i = 0; i < n_gone; i++) {
    known = known || gone_id[i] == m->id;
  }
  const osStatus_t want = isr        ? osErrorISR
                          : !m->live ? osErrorParameter
                          : waits(s) && !known && n_gone == UTIM_OS2_DELETED_WAITING
                              ? osErrorResource
                              : osOK;
  if (st != want) {
    fprintf(stderr, "osTimerDelete(): %d, want %d (gone %u)\n", (int)st, (int)want, n_gone);
    fail("osTimerDelete() status", (int)s);
  }
  if (want != osOK) {
    stats.refused_delete += want == osErrorResource ? 1u : 0u;
    check_unchanged(&before);
    return;
  }
  if (waits(s) && !known) {
    gone_id[n_gone++] = m->id;
    stats.gone++;
  }
  /* Its queued expiries are now the deleted block's. */
  for (unsigned i = qh; i != qt; i++) {
    if (q[i % QLEN].slot == (int)s) {
      q[i % QLEN].slot = -1;
    }
  }
  m->live = false;
  m->running = false;
  m->setting++;
  if (m->pool) {
    pool_live--;
    return;
  }
  void *mem = m->id;
  switch (after % 5u) {
  case 1:
    memset(mem, 0xA5, UTIM_OS2_TIMER_CB_SIZE);
    break;
  case 2:
    memcpy(mem, before.bytes[s], UTIM_OS2_TIMER_CB_SIZE); /* its bytes while alive */
    break;
  case 3:
    if (s % 2u == 1u) {
      stats.freed += waits(s) ? 1u : 0u;
      free(hmem[s / 2u]);
      hmem[s / 2u] = NULL;
      m->freed = true;
    } else {
      memset(mem, 0, UTIM_OS2_TIMER_CB_SIZE);
    }
    break;
  default:
    break;
  }
  /* Memory that is neither zeroed nor an earlier timer's block is zeroed
   * before its next osTimerNew() (as the header asks). */
  m->dirty = after % 5u == 1u || after % 5u == 2u;
}

static void check_ticks(void) {
  const uint64_t now = now_m();
  CHECK(osKernelGetTickCount() == (uint32_t)(now / ratio), "osKernelGetTickCount() off the time",
        -1);
  CHECK(osKernelGetSysTimerCount() == (uint32_t)now, "osKernelGetSysTimerCount() off the time", -1);
}

static void do_delay(uint32_t n) {
  const bool isr = in_isr_now();
  const uint32_t k0 = osKernelGetTickCount();
  const uint64_t t0 = now_m();
  const unsigned nested0 = n_nested;
  const osStatus_t st = osDelay(n);
  const osStatus_t want = isr ? osErrorISR : n == 0u ? osErrorParameter : osOK;
  CHECK(st == want, "osDelay() status", -1);
  if (want != osOK) {
    CHECK(now_m() == t0, "a refused osDelay() let time pass", -1);
    return;
  }
  const uint32_t k1 = osKernelGetTickCount();
  const uint64_t t1 = now_m();
  const bool held = n_nested != nested0 && block_depth == 0u;
  if ((held ? k1 - k0 < n : k1 - k0 != n) || t1 - t0 + early < (uint64_t)n * ratio) {
    fprintf(stderr, "osDelay(%u) from %llu (tick %u): to %llu (tick %u)\n", n,
            (unsigned long long)t0, k0, (unsigned long long)t1, k1);
    fail("osDelay() did not span its ticks", -1);
  }
}

static void do_delay_until(int32_t rel) {
  const bool isr = in_isr_now();
  const uint32_t k0 = osKernelGetTickCount();
  const uint32_t target = k0 + (uint32_t)rel;
  const uint64_t t0 = now_m();
  const unsigned nested0 = n_nested;
  const osStatus_t st = osDelayUntil(target);
  const osStatus_t want = isr ? osErrorISR : (rel <= 0) ? osErrorParameter : osOK;
  if (st != want) {
    fprintf(stderr, "osDelayUntil(%u) at tick %u: %d, want %d\n", target, k0, (int)st, (int)want);
    fail("osDelayUntil() status", -1);
  }
  if (want != osOK) {
    CHECK(now_m() == t0, "a refused osDelayUntil() let time pass", -1);
    return;
  }
  const uint64_t t1 = now_m();
  if (n_nested != nested0 && block_depth == 0u) {
    CHECK((int32_t)(osKernelGetTickCount() - target) >= 0, "osDelayUntil() returned early", -1);
    return;
  }
  if (osKernelGetTickCount() != target || t1 % ratio > late) {
    fprintf(stderr, "osDelayUntil(%u) from %llu: at %llu\n", target, (unsigned long long)t0,
            (unsigned long long)t1);
    fail("osDelayUntil() not at the start of its tick", -1);
  }
}

/* The action a callback takes, or a call from the manager's interrupt. */
static void act(unsigned action, uint32_t arg, unsigned self) {
  const unsigned other = (arg >> 8) % NT;
  const unsigned who = (arg & 1u) != 0u ? self : other;
  switch (action) {
  case ACT_START:
    do_start(who, (arg >> 1) % 6u);
    break;
  case ACT_STOP:
    do_stop(who);
    break;
  case ACT_DELETE:
    do_delete(who, (arg >> 12) % 5u);
    break;
  case ACT_DELAY:
    do_delay((arg >> 1) % 4u);
    break;
  case ACT_NEW:
    do_new(who, arg >> 12);
    break;
  default:
    break;
  }
}

static unsigned m_action_of(int s) {
  return slots[s].action;
}

static void cb_common(void *arg, osTimerFunc_t me) {
  const int s = (int)((int *)arg - tags);
  CHECK(s >= 0 && s < (int)NT, "a callback with a foreign argument", s);
  CHECK(!utim_port_in_isr() && ctx_depth != 0u, "a callback outside the timer context", s);
  CHECK(s == expect_cb && !cb_ran, "an unexpected callback", s);
  CHECK(slots[s].func == me, "a callback of the timer's earlier function", s);
  cb_ran = true;
  n_cb++;
  stats.cb++;
  stats.act += m_action_of(s) != ACT_NONE ? 1u : 0u;
  stats.nested_delay += m_action_of(s) == ACT_DELAY ? 1u : 0u;
  slot_t *m = &slots[s];
  m->calls++;
  const unsigned a = m->action;
  m->action = ACT_NONE;
  if (n_cb < MAX_CB) {
    act(a, m->act_arg, (unsigned)s);
  }
}

/* A manager timer whose callback calls the API from the interrupt. */
static utim_tm_timer_t probe_t;
static unsigned probe_action;
static uint32_t probe_arg;

static void on_probe(utim_tm_t *t, utim_tm_timer_t *w, void *a) {
  (void)t;
  (void)w;
  (void)a;
  const unsigned s = probe_arg % NT;
  CHECK(utim_port_in_isr(), "the probe outside the interrupt", -1);
  check_ticks();
  if (slots[s].live) {
    CHECK(osTimerGetName(slots[s].id) == slots[s].name, "osTimerGetName() from an interrupt",
          (int)s);
  }
  CHECK(osTimerIsRunning(slots[s].live ? slots[s].id : NULL) == 0u,
        "osTimerIsRunning() from an interrupt", (int)s);
  if (probe_action % 6u == 0u) {
    do_delay_until((int32_t)(probe_arg >> 8) % 100);
  } else {
    act(probe_action % 6u, probe_arg, s);
  }
}

/* The model's checks after each operation. */
static void check_all(void) {
  check_ticks();
  CHECK(utim_os2_lost_expiries() == n_lost, "utim_os2_lost_expiries() disagrees", -1);
  const uint64_t now = now_m();
  for (unsigned i = 0; i < NT; i++) {
    const slot_t *m = &slots[i];
    if (!m->live) {
      continue;
    }
    CHECK(osTimerIsRunning(m->id) == (m->running ? 1u : 0u), "osTimerIsRunning() disagrees",
          (int)i);
    CHECK(osTimerGetName(m->id) == m->name, "osTimerGetName() disagrees", (int)i);
    /* The manager's expiry: the nominal one (ticked: the span asked for
     * ends a manager tick less one count before it). */
    uint64_t at = 0;
    const int rc = utim_os2_timer_expiry(m->id, &at);
    if (m->running ? rc != 0 || at != m->next_at - early : rc != -ENOENT) {
      fprintf(stderr, "utim_os2_timer_expiry(): %d, %llu; nominal %llu\n", rc,
              (unsigned long long)at, (unsigned long long)m->next_at);
      fail("utim_os2_timer_expiry() disagrees", (int)i);
    }
    if (m->running && (int64_t)(now - (m->next_at + late)) > 0) {
      fprintf(stderr, "now %llu, nominal %llu\n", (unsigned long long)now,
              (unsigned long long)m->next_at);
      fail("an expiry missed", (int)i);
    }
  }
}

/* Invalid ids: every thread-only call refuses them with osErrorParameter
 * (osErrorISR first) and changes nothing. */
static void do_refused(uint32_t kind, uint32_t arg) {
  static uint64_t zeroed[CB_WORDS];
  static uint64_t junk[CB_WORDS];
  memset(junk, (int)(arg & 0xFFu), sizeof junk);
  void *ids[] = {NULL, zeroed, junk, (char *)smem[0] + 1, (char *)zeroed + 4};
  void *id = ids[(arg >> 8) % 5u];
  const bool isr = in_isr_now();
  snap_t before;
  take_snap(&before);
  const osStatus_t want = isr ? osErrorISR : osErrorParameter;
  if (slot_of(id) >= 0) {
    return;
  }
  switch (kind % 8u) {
  case 0:
    CHECK(osTimerStart(id, 1u + (arg >> 16) % 4u) == want, "osTimerStart() of an invalid id", -1);
    break;
  case 1:
    CHECK(osTimerStop(id) == want, "osTimerStop() of an invalid id", -1);
    break;
  case 2:
    CHECK(osTimerDelete(id) == want, "osTimerDelete() of an invalid id", -1);
    break;
  case 3:
    CHECK(osTimerIsRunning(id) == 0u, "osTimerIsRunning() of an invalid id", -1);
    CHECK(osTimerGetName(id) == NULL, "osTimerGetName() of an invalid id", -1);
    break;
  case 4: {
    const osTimerAttr_t small = {NULL, 0u, zeroed, UTIM_OS2_TIMER_CB_SIZE - 1u};
    const osTimerAttr_t mis = {NULL, 0u, (char *)zeroed + 4, UTIM_OS2_TIMER_CB_SIZE};
    const osTimerAttr_t nomem = {NULL, 0u, NULL, UTIM_OS2_TIMER_CB_SIZE};
    const osTimerAttr_t *attrs[] = {&small, &mis, &nomem};
    CHECK(osTimerNew(cb_a, osTimerOnce, NULL, attrs[(arg >> 8) % 3u]) == NULL,
          "osTimerNew() of bad attributes", -1);
    CHECK(osTimerNew(NULL, osTimerOnce, NULL, NULL) == NULL, "osTimerNew() of no function", -1);
    CHECK(osTimerNew(cb_a, (osTimerType_t)(2u + (arg >> 16) % 100u), NULL, NULL) == NULL,
          "osTimerNew() of a bad type", -1);
    break;
  }
  case 5: {
    /* A slot's running timer's block given again. */
    const unsigned s = (arg >> 8) % NT;
    if (slots[s].live && slots[s].running && !slots[s].pool) {
      const osTimerAttr_t at = {NULL, 0u, slots[s].id, UTIM_OS2_TIMER_CB_SIZE};
      CHECK(osTimerNew(cb_b, osTimerPeriodic, NULL, &at) == NULL,
            "osTimerNew() on a running timer's block", (int)s);
    }
    break;
  }
  case 6:
    /* ticks 0 */
    if (slots[arg % NT].live) {
      CHECK(osTimerStart(slots[arg % NT].id, 0u) == (isr ? osErrorISR : osErrorParameter),
            "osTimerStart(0)", (int)(arg % NT));
    }
    break;
  default: {
    CHECK(osDelay(0u) == want, "osDelay(0)", -1);
    const uint32_t k = osKernelGetTickCount();
    const uint64_t t = now_m();
    CHECK(osDelayUntil(k) == want, "osDelayUntil(now)", -1);
    CHECK(osDelayUntil(k + 0x80000000u + (arg >> 8)) == want, "osDelayUntil() 2^31 ahead", -1);
    CHECK(now_m() == t, "a refused osDelayUntil() let time pass", -1);
    break;
  }
  }
  check_unchanged(&before);
  (void)zeroed;
}

/* ---- one input ------------------------------------------------------------------- */

static bool setup_input(void) {
  const uint32_t h = take(1);
  su = &setups[h % N_SETUPS];
  const uint32_t start = take(1);
  const uint32_t fill = take(1);
  sim_board_init();
  sim_set_access_cost(0u);
  const utim_periph_t *p = utim_by_name(su->inst);
  if (p == NULL || utim_init(p, su->hz, UTIM_CLOCK_DEFAULT) != 0 || utim_start(p) != 0) {
    fail("set-up: the instance", -1);
  }
  sim_advance((uint64_t)(start >> 4) * 997u);
  if (utim_tm_init(&tm, p, su->ch, su->mode, su->tick) != 0) {
    fail("set-up: the manager", -1);
  }
  ratio = su->hz / su->tick_hz;
  early = su->mode == UTIM_TM_TICKED ? su->tick - 1u : 0u;
  late = su->mode == UTIM_TM_TICKED ? 2u : 4u;
  if ((start & 3u) != 0u) {
    /* Near the tick count's wrap, on the kernel tick grid. */
    const uint64_t k = (start & 3u) == 1u   ? 0xFFFFFFFFull - (start >> 2)
                       : (start & 3u) == 2u ? 0x7FFFFFFFull - (start >> 2)
                                            : (uint64_t)0x1234567u * (start >> 2);
    /* A ticked manager's time keeps its phase on the tick grid: set off
     * it, the tick points move off the kernel's (the header's caveat). */
    const uint64_t phase = su->mode == UTIM_TM_TICKED ? utim_tm_now(&tm) % su->tick : 0u;
    if (utim_tm_set_time(&tm, k * ratio + phase) != 0) {
      fail("set-up: set_time", -1);
    }
  }
  if (utim_os2_init(&tm, su->hz, su->tick_hz, &binding) != 0) {
    fail("set-up: utim_os2_init", -1);
  }
  memset(slots, 0, sizeof slots);
  memset(smem, 0, sizeof smem);
  qh = qt = 0;
  ctx_depth = 0;
  block_depth = 0;
  force_isr = false;
  expect_cb = -1;
  n_cb = 0;
  n_lost = 0;
  n_gone = 0;
  pool_live = 0;
  n_filler = fill % (POOL_FILLER + 1u);
  for (unsigned i = 0; i < n_filler; i++) {
    filler[i] = osTimerNew(cb_a, osTimerOnce, NULL, NULL);
    CHECK(filler[i] != NULL, "set-up: the pool", -1);
    pool_live++;
  }
  utim_tm_timer_init(&probe_t, on_probe, NULL);
  return true;
}

static void teardown(void) {
  op_name = "teardown";
  (void)utim_tm_stop(&tm, &probe_t);
  run_queue();
  for (unsigned i = 0; i < NT; i++) {
    if (slots[i].live) {
      do_delete(i, 0u);
    }
  }
  for (unsigned i = 0; i < n_filler; i++) {
    CHECK(osTimerDelete(filler[i]) == osOK, "teardown: a filler's delete", -1);
  }
  CHECK(n_gone == 0u, "teardown: deleted timers still noted", -1);
  (void)utim_tm_deinit(&tm);
  if (trace) {
    fprintf(stderr,
            "stats: callbacks %lu dropped %lu lost %lu gone %lu delete-refused %lu freed-waiting "
            "%lu actions %lu delays-in-callback %lu\n",
            stats.cb, stats.dropped, stats.lost, stats.gone, stats.refused_delete, stats.freed,
            stats.act, stats.nested_delay);
  }
  for (unsigned i = 0; i < NT / 2u; i++) {
    free(hmem[i]);
    hmem[i] = NULL;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool once;
  if (!once) {
    once = true;
    const char *e = getenv("FUZZ_OS2_TRACE");
    trace = e != NULL && e[0] == '1';
  }
  in = (fuzz_input_t){data, size, 0u};
  op_no = 0;
  op_name = "setup";
  (void)setup_input();
  uint64_t kticks = 0;
  while (fuzz_more(&in) && op_no < MAX_OPS && kticks < MAX_KTICKS) {
    op_no++;
    const uint32_t op = take(1) % 15u;
    const unsigned s = take(1) % NT;
    const uint64_t t_before = now_m();
    switch (op) {
    case 0:
      op_name = "new";
      do_new(s, take(1));
      break;
    case 1:
      op_name = "start";
      do_start(s, take_ticks());
      /* and what its next callback does (half of them nothing) */
      slots[s].action = take(1) % (2u * ACT_COUNT);
      slots[s].action = slots[s].action < ACT_COUNT ? slots[s].action : ACT_NONE;
      slots[s].act_arg = take(2);
      break;
    case 2:
      op_name = "stop";
      do_stop(s);
      break;
    case 3:
      op_name = "delete";
      do_delete(s, take(1));
      break;
    case 4:
      op_name = "delay";
      do_delay(take_ticks() % 400u);
      break;
    case 5:
      op_name = "delay_until";
      do_delay_until((int32_t)(int8_t)take(1));
      break;
    case 6: {
      op_name = "pass";
      const uint32_t c = take(1);
      sim_advance(ns_of_counts((uint64_t)c * ratio / 4u));
      break;
    }
    case 7: {
      op_name = "context";
      unsigned k = take(1) % 4u;
      while (k-- > 0u && qh != qt) {
        run_one(false);
      }
      break;
    }
    case 8:
      op_name = "action";
      slots[s].action = take(1) % ACT_COUNT;
      slots[s].act_arg = take(3);
      break;
    case 9: {
      op_name = "isr";
      const uint32_t k = take(1);
      force_isr = true;
      act(1u + k % 5u, take(3), s);
      force_isr = false;
      break;
    }
    case 10:
      op_name = "refused";
      do_refused(take(1), take(3));
      break;
    case 11:
      op_name = "context ends";
      while (qh != qt) {
        run_one(true);
      }
      break;
    case 12:
      op_name = "probe";
      probe_action = take(1);
      probe_arg = take(3) & ~0xFF0000u;
      (void)utim_tm_start(&tm, &probe_t, 1u + take(1) * (uint64_t)ratio / 8u, 0u);
      break;
    case 13:
      op_name = "run";
      run_queue();
      break;
    default: {
      /* utim_os2_init() again: refused (changing nothing), or on the same
       * manager with timers running (the lost count starts afresh). */
      op_name = "init";
      const uint32_t k = take(1) % 4u;
      const uint32_t bad_tick = k == 1u ? 0u : k == 2u ? su->hz + 1u : 3u * su->hz;
      const int rc = utim_os2_init(&tm, su->hz, k == 0u ? su->tick_hz : bad_tick, &binding);
      CHECK(rc == (k == 0u ? 0 : -EINVAL), "utim_os2_init() again", -1);
      CHECK(osKernelGetTickFreq() == su->tick_hz && osKernelGetSysTimerFreq() == su->hz,
            "utim_os2_init() refused changed the frequencies", -1);
      n_lost = k == 0u ? 0u : n_lost;
      break;
    }
    }
    if (trace) {
      fprintf(stderr, "op %u %s slot %u: t=%llu q=%u gone=%u\n", op_no, op_name, s,
              (unsigned long long)now_m(), qt - qh, n_gone);
    }
    kticks += (now_m() - t_before) / ratio;
    check_all();
  }
  teardown();
  return 0;
}
