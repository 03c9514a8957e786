/*
 * CMSIS-RTOS2 time services over the time manager (see utim/cmsis_os2.h):
 * a thin mapping. Kernel ticks are whole multiples of the manager's ticks;
 * delays and timers end on the tick grid; timer callbacks go through the
 * binding's timer context.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>

#include "tm_layer.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"

#define OS2_MAGIC 0x4f533254u /* "OS2T" */
#define OS2_DEAD  0x4f533244u /* "OS2D": deleted, its generation kept */

/* The most manager ticks a kernel tick may span: then any 32-bit count of
 * kernel ticks is within the manager's range, and the start path calls it
 * without its own checks (tm_layer.h). */
#define OS2_MAX_RATIO ((uint32_t)1 << 30)
_Static_assert((uint64_t)UINT32_MAX *OS2_MAX_RATIO <= UTIM_TM__MAX_AHEAD,
               "a 32-bit kernel tick count must convert within the manager's range");

/* The checks and conversions of the start/stop paths, inlined even at -Os:
 * a call each would cost more than their bodies (the layer's overhead is
 * what utim-bench cmsis measures). */
#define OS2_INLINE __attribute__((always_inline)) inline

typedef struct os2_timer {
  utim_tm_timer_t t;
  osTimerFunc_t func;
  void *arg;
  const char *name;
  uint32_t magic;
  /* Bumped by start, stop and delete, so a deferred callback of an
   * earlier setting is dropped (each deferred expiry carries the value of
   * its own). Written in thread context only (a load and a store: relaxed
   * atomics, plain instructions on every target, as the manager's
   * interrupt reads it); two threads calling on one timer at once are
   * their own race, as on any CMSIS kernel object. */
  _Atomic uint32_t gen;
  /* The number of its last expiry handed to the timer context (see
   * seq_out), under the port lock. */
  uint32_t last_seq;
  uint8_t type;
  uint8_t from_pool;
} os2_timer_t;

/* A caller's control block memory need only be pointer-aligned (RTX5 asks
 * for 4 bytes, and code written for it declares uint32_t arrays); the
 * block sits at the first address in it aligned for its 64-bit fields. */
_Static_assert(sizeof(os2_timer_t) + alignof(os2_timer_t) - alignof(void *) <=
                   UTIM_OS2_TIMER_CB_SIZE,
               "UTIM_OS2_TIMER_CB_SIZE too small");

static struct {
  utim_tm_t *tm;
  const utim_os2_binding_t *b;
  /* Manager ticks per kernel tick: 32 bits (sys_hz / tick_hz), so a kernel
   * tick count converts with one 32 x 32 -> 64 multiply. */
  uint32_t ratio;
  uint32_t early; /* span(): a ticked manager's tick - 1 (at most ratio - 1), else 0 */
  /* The last kernel tick found (its index and the manager time it began
   * at), under the port lock: see tick64(). */
  uint64_t base_idx;
  uint64_t base_start;
  uint32_t sys_hz;
  uint32_t tick_hz;
  uint32_t lost;
} g;

/*
 * Expiries handed to the timer context are numbered (modulo 2^32) and run in
 * that order. A timer deleted while some of its expiries wait there leaves
 * its address and the number of its last one in gone[]: the timer context
 * drops them without reading the memory, which is the caller's again once
 * osTimerDelete() returns (freed, reused: RTX5 copies a callback into its
 * queue for the same reason). An entry goes once an expiry numbered at or
 * after it has run (one that a binding discarded goes with the next one).
 * All under the port lock. Waiting means numbered in (seq_run, seq_out]: a
 * window as long as the queue, so the number of a timer that had no expiry
 * for 2^31 or more of the others' is not taken for a waiting one (it was,
 * "after" the last run modulo 2^32: its delete took an entry that dropped
 * the expiries of the next timer set up in its block for 2^31 more).
 */
static uint32_t seq_out; /* the number of the last expiry handed over */
static uint32_t seq_run; /* of the last one run (or dropped) */
static struct {
  const void *timer;
  uint32_t last;
} gone[UTIM_OS2_DELETED_WAITING];
static unsigned gone_n;

/* Whether a is after b, modulo 2^32. */
OS2_INLINE static bool seq_after(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) > 0;
}

/* Whether expiry number @p s was handed over and has not run: in
 * (seq_run, seq_out]. */
static bool seq_waiting(uint32_t s) {
  return s - seq_run - 1u < seq_out - seq_run;
}

/* Note that timer @p c is deleted with expiries waiting (numbered up to
 * c->last_seq): false when gone[] is full. A timer set up in the memory of
 * a deleted one, deleted in turn, extends that one's entry. */
static bool gone_add(const os2_timer_t *c) {
  for (unsigned i = 0; i < gone_n; i++) {
    if (gone[i].timer == c) {
      gone[i].last = c->last_seq;
      return true;
    }
  }
  if (gone_n == UTIM_OS2_DELETED_WAITING) {
    return false;
  }
  gone[gone_n].timer = c;
  gone[gone_n].last = c->last_seq;
  gone_n++;
  return true;
}

/* Whether expiry @p d, now run, is of a deleted timer (its memory is not
 * to be read); the entries it is the last of, or after, go. */
static bool gone_take(utim_os2_deferred_t d) {
  bool dead = false;
  unsigned k = 0;
  for (unsigned i = 0; i < gone_n; i++) {
    if (gone[i].timer == d.timer && gone[i].last - d.seq <= seq_out - d.seq) {
      dead = true;
    }
    if (seq_waiting(gone[i].last)) {
      gone[k++] = gone[i];
    }
  }
  gone_n = k;
  return dead;
}

static os2_timer_t pool[UTIM_OS2_TIMER_POOL];
static bool pool_used[UTIM_OS2_TIMER_POOL];

int utim_os2_init(utim_tm_t *tm, uint32_t sys_hz, uint32_t tick_hz,
                  const utim_os2_binding_t *binding) {
  if (tm == NULL || binding == NULL || binding->in_isr == NULL || binding->block_until == NULL ||
      binding->defer == NULL || sys_hz == 0u || tick_hz == 0u || sys_hz % tick_hz != 0u ||
      sys_hz / tick_hz > OS2_MAX_RATIO || !tm->running ||
      (tm->mode == UTIM_TM_TICKED && (sys_hz / tick_hz) % tm->tick != 0u)) {
    return -EINVAL;
  }
  g.tm = tm;
  g.b = binding;
  g.sys_hz = sys_hz;
  g.tick_hz = tick_hz;
  g.ratio = sys_hz / tick_hz;
  g.early =
      tm->mode == UTIM_TM_TICKED ? (uint32_t)(tm->tick < g.ratio ? tm->tick : g.ratio) - 1u : 0u;
  g.base_idx = 0u;
  g.base_start = 0u;
  g.lost = 0;
  return 0;
}

OS2_INLINE static bool ready(void) {
  return g.tm != NULL;
}

OS2_INLINE static bool in_isr(void) {
  return g.b->in_isr(g.b->ctx);
}

/*
 * The kernel tick count, 64 bits, from the last one found: most calls come
 * in that tick or a few after, where a 32-bit division (one instruction on
 * Cortex-M3/M4, a short routine on M0) finds it; a 64-bit division only
 * after 2^32 counts without a call, or when the manager's time was set
 * back (utim_tm_set_time()).
 */
static uint64_t tick64(void) {
  const uint32_t key = utim_port_lock();
  const uint64_t now = utim_tm_now(g.tm);
  const uint64_t d = now - g.base_start;
  /* Modular, as the manager's time is: its wrap past 2^64 is time going
   * on (the count goes on through it), a difference of 2^63 or more is the
   * time set back. */
  if (d >= (uint64_t)1 << 63) {
    g.base_idx = now / g.ratio;
    g.base_start = g.base_idx * g.ratio;
  } else if (d > 0xFFFFFFFFu) {
    const uint64_t q = d / g.ratio;
    g.base_idx += q;
    g.base_start += q * g.ratio;
  } else if (d >= g.ratio) {
    const uint32_t q = (uint32_t)d / g.ratio;
    g.base_idx += q;
    g.base_start += (uint64_t)q * g.ratio;
  }
  const uint64_t idx = g.base_idx;
  utim_port_unlock(key);
  return idx;
}

uint32_t osKernelGetTickCount(void) {
  return ready() ? (uint32_t)tick64() : 0u;
}

uint32_t osKernelGetTickFreq(void) {
  return g.tick_hz;
}

uint32_t osKernelGetSysTimerCount(void) {
  return ready() ? (uint32_t)utim_tm_now(g.tm) : 0u;
}

uint32_t osKernelGetSysTimerFreq(void) {
  return g.sys_hz;
}

/* @p n kernel ticks in the manager's ticks. Armv6-M has no 32 x 32 -> 64
 * multiply: the library's 64-bit one costs some 45 instructions, so the
 * common case of both factors below 2^16 (tick counts up to 65535, kernel
 * ticks of fewer than 65536 timer counts) takes the 32-bit one. */
OS2_INLINE static uint64_t mticks(uint32_t n) {
#ifdef __ARM_ARCH_6M__
  if (((n | g.ratio) >> 16) == 0u) {
    return n * g.ratio;
  }
#endif
  return (uint64_t)n * g.ratio;
}

/*
 * Manager ticks from now to the end of a delay or timer lasting @p d of
 * them (mticks() of its kernel ticks): all d on a tickless manager
 * (exactly the kernel ticks, and no read of the time beyond the manager's
 * own). A ticked manager serves an expiry at its first tick boundary at or
 * after it: asking for one of its ticks less (plus one count) makes that
 * the boundary at or before now + d, so the span is the kernel ticks less
 * at most one of the manager's, as on RTX ("up to one tick less"), and with
 * the manager's tick the kernel's the expiry falls on a kernel tick
 * boundary.
 */
OS2_INLINE static uint64_t span(uint64_t d) {
  return d - g.early;
}

static osStatus_t wait_until(uint64_t deadline) {
  return g.b->block_until(g.b->ctx, g.tm, deadline) == 0 ? osOK : osError;
}

osStatus_t osDelay(uint32_t ticks) {
  if (!ready()) {
    return osError;
  }
  if (in_isr()) {
    return osErrorISR;
  }
  if (ticks == 0u) {
    return osErrorParameter;
  }
  return wait_until(utim_tm_now(g.tm) + span(mticks(ticks)));
}

osStatus_t osDelayUntil(uint32_t ticks) {
  if (!ready()) {
    return osError;
  }
  if (in_isr()) {
    return osErrorISR;
  }
  const uint64_t now = tick64();
  const uint32_t ahead = ticks - (uint32_t)now;
  if (ahead == 0u || ahead > 0x7FFFFFFFu) {
    return osErrorParameter;
  }
  return wait_until((now + ahead) * g.ratio);
}

/* A timer's generation (see os2_timer_t). */
OS2_INLINE static uint32_t gen_of(const os2_timer_t *c) {
  return atomic_load_explicit(&c->gen, memory_order_relaxed);
}

/* A new generation: no deferred callback of the ones before runs. */
OS2_INLINE static void gen_bump(os2_timer_t *c) {
  atomic_store_explicit(&c->gen, gen_of(c) + 1u, memory_order_relaxed);
}

/* The manager's interrupt: hand the callback to the timer context. (A
 * one-shot that expired is no longer pending in the manager: that is its
 * "not running".) */
// cppcheck-suppress constParameterCallback ; the signature is utim_tm_cb_t
static void on_expiry(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)tm;
  (void)t;
  os2_timer_t *c = arg;
  const utim_os2_deferred_t d = {c, gen_of(c), seq_out + 1u};
  if (g.b->defer(g.b->ctx, d) != 0) {
    g.lost++;
    return;
  }
  seq_out = d.seq;
  c->last_seq = d.seq;
}

/* Expiry @p d leaves the timer context's queue, run or dropped (under the
 * port lock): whether it is of a deleted timer, whose memory is not to be
 * read. */
static bool consume(utim_os2_deferred_t d) {
  if (seq_after(d.seq, seq_run)) {
    seq_run = d.seq;
  }
  return gone_n != 0u && gone_take(d);
}

void utim_os2_run_deferred(utim_os2_deferred_t d) {
  os2_timer_t *c = d.timer;
  const uint32_t key = utim_port_lock();
  const bool live = !consume(d) && c != NULL && c->magic == OS2_MAGIC && d.gen == gen_of(c);
  const osTimerFunc_t fn = live ? c->func : NULL;
  void *arg = live ? c->arg : NULL;
  utim_port_unlock(key);
  if (fn != NULL) {
    fn(arg);
  }
}

void utim_os2_drop_deferred(utim_os2_deferred_t d) {
  const uint32_t key = utim_port_lock();
  (void)consume(d);
  utim_port_unlock(key);
}

uint32_t utim_os2_lost_expiries(void) {
  return g.lost;
}

/* The control block in the memory @p mem (pointer-aligned) begins at: the
 * next address aligned for it (a negation, a mask and an add where its
 * alignment is above a pointer's, as on 32-bit targets; @p mem itself on
 * 64-bit ones). */
OS2_INLINE static os2_timer_t *block_of(void *mem) {
  if (alignof(os2_timer_t) <= alignof(void *)) {
    return mem;
  }
  const uintptr_t pad = (0u - (uintptr_t)mem) & (alignof(os2_timer_t) - 1u);
  return (os2_timer_t *)(void *)((char *)mem + pad);
}

/* A timer's id is its memory (cb_mem, or the pool's block). */
OS2_INLINE static bool pointer_aligned(const void *p) {
  return p != NULL && (uintptr_t)p % alignof(void *) == 0u;
}

/* A valid id's control block, or NULL. */
OS2_INLINE static os2_timer_t *timer_of(osTimerId_t id) {
  if (!pointer_aligned(id)) {
    return NULL;
  }
  os2_timer_t *c = block_of(id);
  return c->magic == OS2_MAGIC ? c : NULL;
}

osTimerId_t osTimerNew(osTimerFunc_t func, osTimerType_t type, void *argument,
                       const osTimerAttr_t *attr) {
  if (!ready() || in_isr() || func == NULL || (type != osTimerOnce && type != osTimerPeriodic)) {
    return NULL;
  }
  os2_timer_t *c = NULL;
  void *id = NULL;
  bool from_pool = false;
  if (attr != NULL && attr->cb_mem != NULL) {
    if (attr->cb_size < UTIM_OS2_TIMER_CB_SIZE || !pointer_aligned(attr->cb_mem)) {
      return NULL;
    }
    id = attr->cb_mem;
    c = block_of(id);
    /* The memory of a timer still running (created there and not deleted):
     * setting it up again would reset the links by which the manager's
     * wheel holds it, and the wheel would be corrupt. */
    if (c->magic == OS2_MAGIC && utim_tm_pending(&c->t)) {
      return NULL;
    }
  } else if (attr != NULL && attr->cb_size != 0u) {
    return NULL;
  } else {
    const uint32_t key = utim_port_lock();
    for (unsigned i = 0; i < UTIM_OS2_TIMER_POOL && c == NULL; i++) {
      if (!pool_used[i]) {
        pool_used[i] = true;
        c = &pool[i];
      }
    }
    utim_port_unlock(key);
    if (c == NULL) {
      return NULL;
    }
    id = c;
    from_pool = true;
  }
  /* Under the lock: expiries of a timer set up here before may still wait
   * for the timer context, which reads the block under it. */
  const uint32_t key = utim_port_lock();
  c->func = func;
  c->arg = argument;
  c->name = attr != NULL ? attr->name : NULL;
  c->type = (uint8_t)type;
  c->from_pool = from_pool ? 1u : 0u;
  /* A timer set up again without a delete (not running) keeps counting its
   * generations and its expiries, so one of its last setting still waiting
   * is dropped, and its delete knows of it. Those of a deleted timer wait
   * in gone[]; other memory holds no timer the timer context knows of. */
  const bool again = c->magic == OS2_MAGIC;
  atomic_store_explicit(&c->gen, (again ? gen_of(c) : 0u) + 1u, memory_order_relaxed);
  c->last_seq = again ? c->last_seq : seq_run;
  utim_tm_timer_init(&c->t, on_expiry, c);
  c->magic = OS2_MAGIC;
  utim_port_unlock(key);
  return id;
}

const char *osTimerGetName(osTimerId_t timer_id) {
  const os2_timer_t *c = timer_of(timer_id);
  return c != NULL ? c->name : NULL;
}

/* The checks of a thread-only timer call: no kernel (osError), an interrupt
 * (osErrorISR), an invalid id (osErrorParameter), in that order; *c is the
 * timer on osOK. A valid id was made by osTimerNew(), after utim_os2_init():
 * the kernel is asked for on the error path only. */
OS2_INLINE static osStatus_t thread_call(osTimerId_t timer_id, os2_timer_t **c) {
  *c = timer_of(timer_id);
  if (*c == NULL) {
    return !ready() ? osError : (in_isr() ? osErrorISR : osErrorParameter);
  }
  return in_isr() ? osErrorISR : osOK;
}

osStatus_t osTimerStart(osTimerId_t timer_id, uint32_t ticks) {
  os2_timer_t *c = NULL;
  const osStatus_t st = thread_call(timer_id, &c);
  if (st != osOK) {
    return st;
  }
  if (ticks == 0u) {
    return osErrorParameter;
  }
  const uint64_t d = mticks(ticks); /* one multiply serves both */
  const uint64_t period = c->type == (uint8_t)osTimerPeriodic ? d : 0u;
  /* The new generation and the start under the manager's one lock: an
   * expiry of the setting replaced that comes before carries the old
   * generation and is dropped, none can come between (it used to, and was
   * taken for the new setting's), and every one after is the new one's.
   * A valid id is a timer osTimerNew() set up with its callback on the
   * kernel's running manager, and d within its range (OS2_MAX_RATIO): the
   * manager's own checks would find nothing, so they are not made again. */
  utim_tm__start_seq(g.tm, &c->t, span(d), period, &c->gen);
  return osOK;
}

osStatus_t osTimerStop(osTimerId_t timer_id) {
  os2_timer_t *c = NULL;
  const osStatus_t st = thread_call(timer_id, &c);
  if (st != osOK) {
    return st;
  }
  /* Running is pending in the manager (a one-shot that expired is not),
   * which its stop tells atomically. The new generation comes after it: no
   * expiry of the timer can come in between. */
  const bool was = utim_tm__stop(g.tm, &c->t);
  gen_bump(c);
  return was ? osOK : osErrorResource;
}

uint32_t osTimerIsRunning(osTimerId_t timer_id) {
  if (!ready() || in_isr()) {
    return 0u;
  }
  const os2_timer_t *c = timer_of(timer_id);
  uint64_t at = 0;
  return c != NULL && utim_tm_expiry(g.tm, &c->t, &at) == 0 ? 1u : 0u;
}

osStatus_t osTimerDelete(osTimerId_t timer_id) {
  os2_timer_t *c = NULL;
  const osStatus_t st = thread_call(timer_id, &c);
  if (st != osOK) {
    return st;
  }
  const uint32_t key = utim_port_lock();
  /* Expiries of it waiting for the timer context (numbered after the last
   * run) are noted in gone[], or the timer stays as it is. */
  if (seq_waiting(c->last_seq) && !gone_add(c)) {
    utim_port_unlock(key);
    return osErrorResource;
  }
  (void)utim_tm_stop(g.tm, &c->t);
  c->magic = OS2_DEAD;
  gen_bump(c);
  if (c->from_pool != 0u) {
    pool_used[c - pool] = false;
  }
  utim_port_unlock(key);
  return osOK;
}

int utim_os2_timer_expiry(osTimerId_t timer_id, uint64_t *at) {
  const os2_timer_t *c = ready() ? timer_of(timer_id) : NULL;
  if (c == NULL || at == NULL) {
    return -EINVAL;
  }
  return utim_tm_expiry(g.tm, &c->t, at);
}
