/*
 * The CMSIS-RTOS2 fuzz target's set-ups, its model of the layer's timers
 * and the timer context's queue, and the binding the layer runs on (see
 * fuzz_os2.c for the input and the checks).
 */
#include "fuzz_os2_model.h"

/* ---- the set-ups ----------------------------------------------------------- */

const setup_t setups[] = {
    {"SIM_MTIME64", 1000000u, 1000u, 0u, UTIM_TM_TICKLESS, 0u},
    {"SIM_MTIME64", 1000000u, 1000u, 0u, UTIM_TM_TICKED, 1000u},
    {"SIM_MTIME64", 1000000u, 1000u, 0u, UTIM_TM_TICKED, 250u},
    {"SIM_TIMER8", 128000u, 500u, UTIM_TM_OVERFLOW, UTIM_TM_TICKED, 256u},
    {"SIM_TIMER8", 128000u, 500u, 0u, UTIM_TM_TICKLESS, 0u},
    {"SIM_TIMER16", 31250u, 1250u, 0u, UTIM_TM_TICKLESS, 0u},
    {"SIM_NRF32", 31250u, 125u, 1u, UTIM_TM_TICKLESS, 0u},
    {"SIM_MTIME64", 32768u, 1024u, 0u, UTIM_TM_TICKLESS, 0u},
    {"SIM_SYSTICK24", 1000000u, 1000u, 0u, UTIM_TM_TICKLESS, 0u},
    {"SIM_MTIME64", 1000000u, 100u, 0u, UTIM_TM_TICKED, 2500u},
};
const size_t n_setups = sizeof setups / sizeof setups[0];

const setup_t *su;
utim_tm_t tm;
uint32_t ratio;
uint64_t early; /* a ticked manager's tick - 1, else 0 */
uint64_t late;  /* how late an expiry may come, manager ticks */
bool trace;
unsigned op_no;
const char *op_name = "setup";

/* What the inputs reached (FUZZ_OS2_TRACE=1 prints the totals). */
fuzz_os2_stats_t stats;

void fail(const char *what, int slot) {
  fprintf(stderr, "fuzz_os2: %s (timer %d; op %u %s; %s %u Hz ch %u %s tick %llu, kernel %u Hz)\n",
          what, slot, op_no, op_name, su->inst, su->hz, su->ch,
          su->mode == UTIM_TM_TICKED ? "ticked" : "tickless", (unsigned long long)su->tick,
          su->tick_hz);
  abort();
}

uint64_t ns_of_counts(uint64_t c) {
  return (uint64_t)(((unsigned __int128)c * 1000000000u + su->hz - 1u) / su->hz);
}

uint64_t now_m(void) {
  return utim_tm_now(&tm);
}

/* ---- the model ------------------------------------------------------------------ */

slot_t slots[NT];
int tags[NT];                     /* each slot's callback argument */
uint64_t smem[NT / 2u][CB_WORDS]; /* even slots' own memory */
void *hmem[NT / 2u];              /* odd slots': calloc()ed, maybe freed */
void *filler[POOL_FILLER];
unsigned n_filler;
unsigned pool_live; /* pool blocks held (fillers and slots) */

/* The timer context's queue, each expiry with what the model expects. */
qent_t q[QLEN];
unsigned qh;
unsigned qt;
unsigned ctx_depth; /* in the timer context */
bool force_isr;
int expect_cb; /* the slot whose callback may run now, or -1 */
bool cb_ran;
unsigned n_cb;
uint32_t n_lost; /* expiries the full queue refused */
unsigned n_gone; /* model of the layer's deleted timers with expiries waiting */
const void *gone_id[UTIM_OS2_DELETED_WAITING];

void *own_mem(unsigned s) {
  if (s % 2u == 0u) {
    return smem[s / 2u];
  }
  if (hmem[s / 2u] == NULL) {
    hmem[s / 2u] = calloc(1u, UTIM_OS2_TIMER_CB_SIZE);
  }
  return hmem[s / 2u];
}

/* The id a call on slot @p s passes: its timer's, or a deleted one's still
 * (osErrorParameter), unless its block was freed, filled with other bytes
 * (a timer's copied ones look alive, as documented) or is another live
 * timer's now; else NULL. */
void *id_for(unsigned s) {
  const slot_t *m = &slots[s];
  if (m->live) {
    return m->id;
  }
  if (m->id == NULL || m->dirty || m->freed || slot_of(m->id) >= 0) {
    return NULL;
  }
  for (unsigned i = 0; i < n_filler; i++) {
    if (filler[i] == m->id) {
      return NULL;
    }
  }
  return m->id;
}

int slot_of(const void *id) {
  for (unsigned i = 0; i < NT; i++) {
    if (slots[i].live && slots[i].id == id) {
      return (int)i;
    }
  }
  return -1;
}

/* Whether expiries of the deleted block @p id wait in the queue. */
bool gone_waits(const void *id) {
  for (unsigned i = qh; i != qt; i++) {
    if (q[i % QLEN].slot < 0 && q[i % QLEN].d.timer == id) {
      return true;
    }
  }
  return false;
}

void gone_prune(void) {
  unsigned k = 0;
  for (unsigned i = 0; i < n_gone; i++) {
    if (gone_waits(gone_id[i])) {
      gone_id[k++] = gone_id[i];
    }
  }
  n_gone = k;
}

/* ---- the binding --------------------------------------------------------------- */

bool b_in_isr(void *ctx) {
  (void)ctx;
  return force_isr || utim_port_in_isr();
}

int b_defer(void *ctx, utim_os2_deferred_t d) {
  (void)ctx;
  CHECK(utim_port_in_isr(), "defer() outside the manager's interrupt", -1);
  const int s = slot_of(d.timer);
  CHECK(s >= 0, "an expiry of no live timer", s);
  slot_t *m = &slots[s];
  CHECK(m->running, "an expiry of a timer not running", s);
  const uint64_t now = now_m();
  if (trace) {
    fprintf(stderr, "  expiry of %d at %llu (nominal %llu)\n", s, (unsigned long long)now,
            (unsigned long long)m->next_at);
  }
  if ((int64_t)(now - (m->next_at - early)) < 0) {
    fprintf(stderr, "now %llu, nominal %llu\n", (unsigned long long)now,
            (unsigned long long)m->next_at);
    fail("an expiry early", s);
  }
  if ((int64_t)(now - (m->next_at + late)) > 0) {
    fprintf(stderr, "now %llu, nominal %llu\n", (unsigned long long)now,
            (unsigned long long)m->next_at);
    fail("an expiry late", s);
  }
  if (m->period != 0u) {
    m->next_at += m->period;
  } else {
    m->running = false;
  }
  if (qt - qh >= QLEN) {
    stats.lost++;
    n_lost++;
    return -ENOSPC;
  }
  q[qt % QLEN] = (qent_t){d, s, m->setting};
  qt++;
  m->deferred_unrun++;
  return 0;
}

/* One expiry from the queue: run (or, @p drop, dropped by a context that ends). */
void run_one(bool drop) {
  const qent_t e = q[qh % QLEN];
  qh++;
  const bool expect = e.slot >= 0 && slots[e.slot].live && slots[e.slot].setting == e.setting;
  if (e.slot >= 0 && slots[e.slot].live) {
    slots[e.slot].deferred_unrun--;
  }
  if (drop) {
    utim_os2_drop_deferred(e.d);
    gone_prune();
    return;
  }
  expect_cb = expect ? e.slot : -1;
  cb_ran = false;
  ctx_depth++;
  utim_os2_run_deferred(e.d);
  ctx_depth--;
  expect_cb = -1;
  gone_prune();
  stats.dropped += expect ? 0u : 1u;
  if (cb_ran != expect) {
    fail(expect ? "an expiry's callback did not run" : "a callback ran for a setting that ended",
         e.slot);
  }
}

void run_queue(void) {
  if (ctx_depth != 0u) {
    return; /* the timer context itself blocks */
  }
  while (qh != qt) {
    run_one(false);
  }
}

volatile bool woke[4];
utim_tm_timer_t wake_t[4];
unsigned block_depth;
/* Blocking calls of callbacks: the timer context, run by the blocked thread
 * here, then keeps it past its own deadline (on a kernel, the thread of
 * lower priority than the timer thread would wait for it too). */
unsigned n_nested;

void on_wake(utim_tm_t *t, utim_tm_timer_t *w, void *a) {
  (void)t;
  (void)w;
  woke[(uintptr_t)a] = true;
  if (trace) {
    fprintf(stderr, "  wake %u at %llu\n", (unsigned)(uintptr_t)a, (unsigned long long)now_m());
  }
}

// cppcheck-suppress constParameter ; the signature is utim_os2_binding_t's block_until
int b_block_until(void *ctx, utim_tm_t *mgr, uint64_t deadline) {
  (void)ctx;
  CHECK(mgr == &tm, "block_until() on another manager", -1);
  CHECK(block_depth < 4u, "blocking nested too deep", -1);
  const unsigned k = block_depth++;
  n_nested += k != 0u ? 1u : 0u;
  woke[k] = false;
  utim_tm_timer_init(&wake_t[k], on_wake, (void *)(uintptr_t)k);
  const int rc = utim_tm_start_at(&tm, &wake_t[k], deadline, 0u);
  if (trace) {
    fprintf(stderr, "  block %u at %llu until %llu\n", k, (unsigned long long)now_m(),
            (unsigned long long)deadline);
  }
  CHECK(rc == 0, "block_until(): the wake-up was refused", -1);
  for (;;) {
    run_queue();
    if (woke[k]) {
      break;
    }
    const uint64_t now = now_m();
    const uint64_t left = (int64_t)(deadline - now) > 0 ? deadline - now : 1u;
    const uint64_t to_tick = ratio - now % ratio;
    sim_advance(ns_of_counts(left < to_tick ? left : to_tick));
  }
  block_depth--;
  return 0;
}

const utim_os2_binding_t binding = {b_in_isr, b_block_until, b_defer, NULL};
