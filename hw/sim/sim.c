/*
 * The simulated machine: timer peripherals, their bus, the interrupt
 * controller and the CPU's interrupt mask, in virtual time (see sim.h and
 * sim_regs.h).
 *
 * Counting model. A running counter is described by an anchor: the time t0 it
 * was last (re)started, re-clocked or written, its value c0 then, and running
 * totals of ticks and overflows since sim_reset(). The ticks after the anchor
 * follow in closed form, floor((t - t0) * hz / (1e9 * div)), so the counter
 * is exact at any time without stepping it; the time of the k-th tick is the
 * inverse, t0 + ceil(k * 1e9 * div / hz). A chained timer's ticks are the
 * overflows of its source timer, whose overflow total is a continuous function
 * of time across the source's own re-anchoring, so the same closed form holds.
 * Tick and overflow counts use unsigned __int128: a 64-bit counter's period
 * (2^64) does not fit in 64 bits.
 *
 * Event loop. Advancing time searches for the earliest event (compare match or
 * overflow) whose flag is still clear, jumps there, sets every flag due at that
 * instant and delivers interrupts. Events whose flag is already set change
 * nothing and are skipped, so a free-running counter nobody services costs a
 * handful of steps however far time moves.
 *
 * Resetting the counter on shapes without a writable COUNT: like SysTick
 * (whose current-value register clears on any write) or the nRF TIMER (TASKS_
 * CLEAR), real non-writable timers still have a way to restart from zero. The
 * model's way: writing CLKSEL or DIV while the counter is stopped loads the
 * counter with its start value, 0 for an up-counter and its maximum for a
 * down-counter (the up-counting view's 0). Writable shapes keep their value.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "sim_regs.h"

__extension__ typedef unsigned __int128 u128;

/** Most simulated timers one machine holds. */
#define SIM_MAX_TIMERS 16u
#define NEVER          UINT64_MAX
#define NS_PER_S       1000000000u
#define U128_MAX       (~(u128)0)

typedef struct sim_timer {
  u128 tot0;               /* ticks since sim_reset(), at the anchor */
  u128 ovf0;               /* overflows since sim_reset(), at the anchor */
  u128 src_base;           /* chained: source's overflow total at the anchor */
  u128 cc_tot[SIM_MAX_CC]; /* tick total when CC[n] was last written */
  uint64_t cc[SIM_MAX_CC];
  uint64_t t0; /* anchor time */
  uint64_t c0; /* counter at the anchor, hardware direction */
  uint32_t clksel;
  uint32_t div;
  uint32_t inten;
  uint32_t events;
  bool running;
} sim_timer_t;

/* A timer's earliest event whose flag is clear, while valid. */
typedef struct sim_next {
  uint64_t t;    /* its time, NEVER when none comes */
  uint32_t bits; /* the events due then */
  bool valid;    /* false once the timer's state (or its source's) changed */
} sim_next_t;

typedef struct sim_line {
  sim_isr_t fn;
  const void *arg;
} sim_line_t;

static const sim_shape_t *g_shapes;
static unsigned g_ntimers;
static int g_src[SIM_MAX_TIMERS]; /* validated chain source, -1 for none */
static sim_timer_t g_tm[SIM_MAX_TIMERS];
static sim_next_t g_next[SIM_MAX_TIMERS]; /* run_to()'s cache, see changed() */
static sim_line_t g_lines[SIM_IRQ_LINES];
/* Bit x: timer x has an event flagged whose interrupt is enabled (events &
 * inten), kept by note_active() wherever either changes, so that the check
 * for a pending interrupt at each unmask (every utim_port_unlock()) looks at
 * those timers only instead of every timer's registers. */
static uint32_t g_active;
_Static_assert(SIM_MAX_TIMERS <= 32u, "g_active has a bit per timer");

/* Devices beside the timers (sim_device_attach()). */
static const sim_device_t *g_dev[SIM_MAX_DEVICES];
static void *g_dev_ctx[SIM_MAX_DEVICES];
static unsigned g_ndev;

static uint64_t g_now;
static uint64_t g_accesses;
static uint32_t g_irq_depth; /* the CPU's interrupt mask: nesting depth */
static uint64_t g_busy_ns;   /* access costs and relax steps: time the CPU was busy */
static uint32_t g_access_cost;
static uint32_t g_relax_step;
static bool g_in_isr;
static bool g_inj_pending;
static uint64_t g_inj_at;
static uint64_t g_inj_ns;

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > NEVER - b ? NEVER : a + b;
}

static unsigned shape_width(const sim_shape_t *s) {
  if (s->width < 1u) {
    return 1u;
  }
  return s->width > 64u ? 64u : s->width;
}

static uint64_t shape_max(const sim_shape_t *s) {
  return UINT64_MAX >> (64u - shape_width(s));
}

static u128 shape_period(const sim_shape_t *s) {
  return (u128)1 << shape_width(s);
}

static unsigned shape_ncc(const sim_shape_t *s) {
  return s->ncc > SIM_MAX_CC ? SIM_MAX_CC : s->ncc;
}

/* Interrupt-enable and event bits that exist on this shape. */
static uint32_t shape_bits(const sim_shape_t *s) {
  unsigned ncc = shape_ncc(s);
  uint32_t bits = ncc >= 32u ? 0x7fffffffu : ((1u << ncc) - 1u);
  return bits | SIM_EVT_OVF;
}

static uint32_t shape_inten_bits(const sim_shape_t *s) {
  uint32_t bits = shape_bits(s);
  return s->ovf_irq ? bits : (bits & ~SIM_EVT_OVF);
}

/* The counter's value after a reset of its phase: 0 up, maximum down. */
static uint64_t start_value(const sim_shape_t *s) {
  return s->down ? shape_max(s) : 0u;
}

static const utim_clock_desc_t *clock_of(unsigned x) {
  const sim_shape_t *s = &g_shapes[x];
  if (s->clocks == NULL || g_tm[x].clksel >= s->nclocks) {
    return NULL;
  }
  return &s->clocks[g_tm[x].clksel];
}

static bool clocked_by_chain(const utim_clock_desc_t *clk) {
  return clk->cls == (uint8_t)UTIM_CLASS_CHAIN;
}

static u128 ovf_total(unsigned x, uint64_t t);

/* Ticks counted since the anchor, at time t >= anchor. */
static u128 ticks(unsigned x, uint64_t t) {
  const sim_timer_t *tm = &g_tm[x];
  const utim_clock_desc_t *clk;
  if (!tm->running || tm->div == 0u || (clk = clock_of(x)) == NULL) {
    return 0;
  }
  if (clocked_by_chain(clk)) {
    if (g_src[x] < 0) {
      return 0;
    }
    return (ovf_total((unsigned)g_src[x], t) - tm->src_base) / tm->div;
  }
  if (clk->hz == 0u || t <= tm->t0) {
    return 0;
  }
  return ((u128)(t - tm->t0) * clk->hz) / ((u128)NS_PER_S * tm->div);
}

/* Index (since the anchor, from 1) of the first tick that overflows. */
static u128 first_ovf_tick(unsigned x) {
  const sim_shape_t *s = &g_shapes[x];
  u128 period = shape_period(s);
  uint64_t c0 = g_tm[x].c0;
  u128 r = s->down ? ((u128)c0 + 1u) % period : (period - c0) % period;
  return r == 0 ? period : r;
}

/* Overflows among the ticks 1..n after the anchor. */
static u128 ovf_since(unsigned x, u128 n) {
  u128 k1 = first_ovf_tick(x);
  return n < k1 ? 0 : (n - k1) / shape_period(&g_shapes[x]) + 1u;
}

static u128 ovf_total(unsigned x, uint64_t t) {
  return g_tm[x].ovf0 + ovf_since(x, ticks(x, t));
}

static uint64_t count_after(unsigned x, u128 n) {
  const sim_shape_t *s = &g_shapes[x];
  uint64_t c0 = g_tm[x].c0;
  uint64_t v = s->down ? c0 - (uint64_t)n : c0 + (uint64_t)n;
  return v & shape_max(s);
}

static uint64_t count_at(unsigned x, uint64_t t) {
  return count_after(x, ticks(x, t));
}

static uint64_t ovf_time(unsigned x, u128 m);

/* Virtual time of tick number k (k >= 1) after the anchor, NEVER if it does not come. */
static uint64_t tick_time(unsigned x, u128 k) {
  const sim_timer_t *tm = &g_tm[x];
  const utim_clock_desc_t *clk;
  if (!tm->running || tm->div == 0u || (clk = clock_of(x)) == NULL) {
    return NEVER;
  }
  if (clocked_by_chain(clk)) {
    if (g_src[x] < 0 || k > (U128_MAX - tm->src_base) / tm->div) {
      return NEVER;
    }
    return ovf_time((unsigned)g_src[x], tm->src_base + k * tm->div);
  }
  if (clk->hz == 0u) {
    return NEVER;
  }
  u128 mult = (u128)NS_PER_S * tm->div;
  if (k > (U128_MAX - clk->hz) / mult) {
    return NEVER;
  }
  u128 dt = (k * mult + clk->hz - 1u) / clk->hz;
  if (dt >= (u128)(NEVER - tm->t0)) {
    return NEVER;
  }
  return tm->t0 + (uint64_t)dt;
}

/* Virtual time at which the overflow total of timer x reaches m. */
static uint64_t ovf_time(unsigned x, u128 m) {
  const sim_timer_t *tm = &g_tm[x];
  if (m <= tm->ovf0) {
    return tm->t0;
  }
  u128 j = m - tm->ovf0;
  u128 k1 = first_ovf_tick(x);
  u128 period = shape_period(&g_shapes[x]);
  if (j - 1u > (U128_MAX - k1) / period) {
    return NEVER;
  }
  return tick_time(x, k1 + (j - 1u) * period);
}

/* Smallest k > after with k congruent to r modulo period (r < period). */
static u128 next_congruent(u128 after, u128 r, u128 period) {
  u128 k = after + 1u;
  return k + (r + period - k % period) % period;
}

static uint64_t next_compare(unsigned x, unsigned n, u128 n_now) {
  const sim_shape_t *s = &g_shapes[x];
  const sim_timer_t *tm = &g_tm[x];
  uint64_t mask = shape_max(s);
  uint64_t r = (s->down ? tm->c0 - tm->cc[n] : tm->cc[n] - tm->c0) & mask;
  u128 k = next_congruent(n_now, r, shape_period(s));
  /* The compare is not armed yet that close to its CC write: the match is
   * missed and the next one comes a full wrap later. */
  if (tm->tot0 + k - tm->cc_tot[n] < s->min_distance) {
    k += shape_period(s);
  }
  return tick_time(x, k);
}

static uint64_t next_overflow(unsigned x, u128 n_now) {
  const sim_shape_t *s = &g_shapes[x];
  u128 period = shape_period(s);
  return tick_time(x, next_congruent(n_now, first_ovf_tick(x) % period, period));
}

/* Fold the ticks since the anchor into the totals and re-anchor at now; this
 * is also the prescaler phase reset. */
static void reanchor(unsigned x) {
  sim_timer_t *tm = &g_tm[x];
  u128 n = ticks(x, g_now);
  u128 ovf = ovf_since(x, n);
  tm->c0 = count_after(x, n);
  tm->tot0 += n;
  tm->ovf0 += ovf;
  tm->t0 = g_now;
  tm->src_base = g_src[x] >= 0 ? ovf_total((unsigned)g_src[x], g_now) : 0;
}

static unsigned line_of(const sim_shape_t *s, uint32_t bit_index) {
  if (s->shared_irq) {
    return s->irq;
  }
  return bit_index == 31u ? s->irq + shape_ncc(s) : s->irq + bit_index;
}

/* Timer x's events or interrupt enables changed: its bit in g_active. */
static void note_active(unsigned x) {
  const uint32_t bit = (uint32_t)1 << x;
  g_active = (g_tm[x].events & g_tm[x].inten) != 0u ? g_active | bit : g_active & ~bit;
}

/* Lowest asserted line that has a handler, or SIM_IRQ_LINES. */
static unsigned lowest_line(void) {
  unsigned best = SIM_IRQ_LINES;
  for (unsigned d = 0; d < g_ndev; d++) {
    const unsigned line = g_dev[d]->line;
    if (line < best && g_lines[line].fn != NULL && g_dev[d]->irq(g_dev_ctx[d])) {
      best = line;
    }
  }
  for (uint32_t m = g_active; m != 0u; m &= m - 1u) {
    const unsigned x = (unsigned)__builtin_ctz(m);
    uint32_t act = g_tm[x].events & g_tm[x].inten;
    for (uint32_t b = 0; act != 0u; b++, act >>= 1) {
      if ((act & 1u) == 0u) {
        continue;
      }
      unsigned line = line_of(&g_shapes[x], b);
      if (line < best && g_lines[line].fn != NULL) {
        best = line;
      }
    }
  }
  return best;
}

static void deliver(void) {
  while (g_irq_depth == 0u && !g_in_isr) {
    unsigned line = lowest_line();
    if (line >= SIM_IRQ_LINES) {
      return;
    }
    g_in_isr = true;
    g_lines[line].fn(g_lines[line].arg);
    g_in_isr = false;
  }
}

/* Timer x's state changed: forget its earliest event and that of every timer
 * it clocks, directly or through others (chain links are acyclic). */
static void changed(unsigned x) {
  for (unsigned y = 0; y < g_ntimers; y++) {
    for (int at = (int)y; at >= 0; at = g_src[at]) {
      if ((unsigned)at == x) {
        g_next[y].valid = false;
        break;
      }
    }
  }
}

/* Timer x's earliest event whose flag is clear (time and the events due
 * then), computed from its state and that of its chain sources. */
static sim_next_t earliest(unsigned x) {
  const sim_timer_t *tm = &g_tm[x];
  sim_next_t e = {.t = NEVER, .bits = 0u, .valid = true};
  if (!tm->running) {
    return e;
  }
  u128 n_now = ticks(x, g_now);
  unsigned ncc = shape_ncc(&g_shapes[x]);
  for (unsigned b = 0; b <= ncc; b++) {
    uint32_t bit = b == ncc ? SIM_EVT_OVF : (1u << b);
    if ((tm->events & bit) != 0u) {
      continue;
    }
    uint64_t t = b == ncc ? next_overflow(x, n_now) : next_compare(x, b, n_now);
    if (t == NEVER || t > e.t) {
      continue;
    }
    e.bits = t < e.t ? bit : (e.bits | bit);
    e.t = t;
  }
  return e;
}

/* Move time to target, stopping at each event whose flag is clear. Handlers
 * run from deliver() may move time past target; time never goes back. A
 * timer's earliest event is kept until its state changes (changed()): it
 * depends on the time only through "the first one after now", and time never
 * passes an event without stopping at it. */
static void run_to(uint64_t target) {
  for (;;) {
    uint64_t best = NEVER;
    for (unsigned x = 0; x < g_ntimers; x++) {
      if (!g_next[x].valid) {
        g_next[x] = earliest(x);
      }
      if (g_next[x].t < best) {
        best = g_next[x].t;
      }
    }
    for (unsigned d = 0; d < g_ndev; d++) {
      const uint64_t t = g_dev[d]->next(g_dev_ctx[d], g_now);
      best = t < best ? t : best;
    }
    if (best == NEVER || best > target) {
      break;
    }
    if (best > g_now) {
      g_now = best;
    }
    for (unsigned d = 0; d < g_ndev; d++) {
      g_dev[d]->advance(g_dev_ctx[d], g_now);
    }
    uint32_t hit[SIM_MAX_TIMERS] = {0};
    for (unsigned x = 0; x < g_ntimers; x++) {
      hit[x] = g_next[x].t == best ? g_next[x].bits : 0u;
    }
    for (unsigned x = 0; x < g_ntimers; x++) {
      if (hit[x] != 0u) {
        g_tm[x].events |= hit[x];
        note_active(x);
        changed(x);
      }
    }
    deliver();
  }
  if (g_now < target) {
    g_now = target;
  }
  for (unsigned d = 0; d < g_ndev; d++) {
    g_dev[d]->advance(g_dev_ctx[d], g_now);
  }
}

static uint64_t reg_read(unsigned x, unsigned reg) {
  const sim_shape_t *s = &g_shapes[x];
  const sim_timer_t *tm = &g_tm[x];
  switch (reg) {
  case SIM_REG_CTRL:
    return tm->running ? SIM_CTRL_EN : 0u;
  case SIM_REG_CLKSEL:
    return tm->clksel;
  case SIM_REG_DIV:
    return tm->div;
  case SIM_REG_COUNT:
    return s->capture_read ? 0u : count_at(x, g_now);
  case SIM_REG_INTEN:
  case SIM_REG_INTEN_SET:
  case SIM_REG_INTEN_CLR:
    return tm->inten;
  case SIM_REG_EVENTS:
    return tm->events;
  default:
    if (reg >= SIM_REG_CC0 && reg - SIM_REG_CC0 < shape_ncc(s)) {
      return tm->cc[reg - SIM_REG_CC0];
    }
    return 0u;
  }
}

static void write_cc(unsigned x, unsigned n, uint64_t value) {
  sim_timer_t *tm = &g_tm[x];
  tm->cc[n] = value & shape_max(&g_shapes[x]);
  tm->cc_tot[n] = tm->tot0 + ticks(x, g_now);
}

static void write_clock(unsigned x, unsigned reg, uint64_t value) {
  const sim_shape_t *s = &g_shapes[x];
  sim_timer_t *tm = &g_tm[x];
  reanchor(x);
  if (reg == SIM_REG_CLKSEL) {
    tm->clksel = (uint32_t)value;
  } else {
    tm->div = (uint32_t)value;
  }
  if (!s->writable && !tm->running) {
    tm->c0 = start_value(s);
  }
}

static void reg_write(unsigned x, unsigned reg, uint64_t value) {
  const sim_shape_t *s = &g_shapes[x];
  sim_timer_t *tm = &g_tm[x];
  /* Interrupt enables do not move events; everything else may. */
  if (reg != SIM_REG_INTEN && reg != SIM_REG_INTEN_SET && reg != SIM_REG_INTEN_CLR &&
      (reg != SIM_REG_EVENTS_CLR || (tm->events & (uint32_t)value) != 0u)) {
    changed(x);
  }
  switch (reg) {
  case SIM_REG_CTRL: {
    bool on = (value & SIM_CTRL_EN) != 0u;
    if (on != tm->running && (on || s->stoppable)) {
      reanchor(x);
      tm->running = on;
    }
    break;
  }
  case SIM_REG_CLKSEL:
  case SIM_REG_DIV:
    write_clock(x, reg, value);
    break;
  case SIM_REG_COUNT:
    if (s->writable) {
      reanchor(x);
      tm->c0 = value & shape_max(s);
    }
    break;
  case SIM_REG_TASK_CAPTURE:
    if (value < shape_ncc(s)) {
      write_cc(x, (unsigned)value, count_at(x, g_now));
    }
    break;
  case SIM_REG_INTEN:
    tm->inten = (uint32_t)value & shape_inten_bits(s);
    note_active(x);
    break;
  case SIM_REG_INTEN_SET:
    tm->inten |= (uint32_t)value & shape_inten_bits(s);
    note_active(x);
    break;
  case SIM_REG_INTEN_CLR:
    tm->inten &= ~(uint32_t)value;
    note_active(x);
    break;
  case SIM_REG_EVENTS_CLR:
    tm->events &= ~(uint32_t)value;
    note_active(x);
    break;
  default:
    if (reg >= SIM_REG_CC0 && reg - SIM_REG_CC0 < shape_ncc(s)) {
      write_cc(x, reg - SIM_REG_CC0, value);
    }
    break;
  }
}

/* Injection first, then the access's own cost; both happen before the access
 * takes effect, and interrupts due meanwhile run in between. */
static void bus_enter(void) {
  if (g_inj_pending && g_accesses == g_inj_at) {
    g_inj_pending = false;
    sim_advance(g_inj_ns);
  }
  g_busy_ns = sat_add(g_busy_ns, g_access_cost);
  run_to(sat_add(g_now, g_access_cost));
}

uint64_t sim_bus_read(unsigned timer, unsigned reg) {
  bus_enter();
  g_accesses++;
  return timer < g_ntimers ? reg_read(timer, reg) : 0u;
}

void sim_bus_write(unsigned timer, unsigned reg, uint64_t value) {
  bus_enter();
  g_accesses++;
  if (timer < g_ntimers) {
    reg_write(timer, reg, value);
    deliver();
  }
}

int sim_device_attach(const sim_device_t *dev, void *ctx) {
  if (dev == NULL || g_ndev >= SIM_MAX_DEVICES || dev->line >= SIM_IRQ_LINES) {
    return -1;
  }
  g_dev[g_ndev] = dev;
  g_dev_ctx[g_ndev] = ctx;
  return (int)g_ndev++;
}

void sim_device_detach_all(void) {
  g_ndev = 0;
}

uint32_t sim_dev_read(unsigned dev, unsigned reg) {
  bus_enter();
  g_accesses++;
  uint32_t v = 0;
  if (dev < g_ndev) {
    g_dev[dev]->advance(g_dev_ctx[dev], g_now);
    v = g_dev[dev]->read(g_dev_ctx[dev], reg);
    deliver();
  }
  return v;
}

void sim_dev_write(unsigned dev, unsigned reg, uint32_t value) {
  bus_enter();
  g_accesses++;
  if (dev < g_ndev) {
    g_dev[dev]->advance(g_dev_ctx[dev], g_now);
    g_dev[dev]->write(g_dev_ctx[dev], reg, value);
    deliver();
  }
}

/* Timer x's chain source from its shape, -1 when none or out of range. */
static int chain_link(unsigned x) {
  int8_t from = g_shapes[x].chain_from;
  if (from < 0 || (uint8_t)from >= g_ntimers) {
    return -1;
  }
  return (int)(uint8_t)from;
}

void sim_configure(const sim_shape_t *shapes, unsigned n) {
  g_shapes = shapes;
  g_ntimers = shapes == NULL ? 0u : (n > SIM_MAX_TIMERS ? SIM_MAX_TIMERS : n);
  for (unsigned x = 0; x < g_ntimers; x++) {
    /* Follow the chain links: a cycle leaves the timer without a chained
     * clock instead of recursing forever. */
    int at = (int)x;
    unsigned hops = 0;
    while (at >= 0 && hops <= g_ntimers) {
      at = chain_link((unsigned)at);
      hops++;
    }
    g_src[x] = at < 0 ? chain_link(x) : -1;
  }
  sim_reset();
}

void sim_irq_attach(unsigned line, sim_isr_t fn, const void *arg) {
  if (line < SIM_IRQ_LINES) {
    g_lines[line].fn = fn;
    g_lines[line].arg = arg;
  }
}

void sim_reset(void) {
  for (unsigned x = 0; x < SIM_MAX_TIMERS; x++) {
    g_tm[x] = (sim_timer_t){.div = 1u};
    g_next[x].valid = false;
  }
  g_active = 0u;
  g_now = 0;
  g_accesses = 0;
  g_busy_ns = 0;
  g_access_cost = 10u;
  g_relax_step = 10u;
  g_irq_depth = 0;
  g_inj_pending = false;
  g_inj_at = 0;
  g_inj_ns = 0;
}

bool sim_in_isr(void) {
  return g_in_isr;
}

uint64_t sim_now(void) {
  return g_now;
}

void sim_advance(uint64_t ns) {
  deliver();
  run_to(sat_add(g_now, ns));
}

void sim_set_access_cost(uint32_t ns) {
  g_access_cost = ns;
}

uint32_t sim_access_cost(void) {
  return g_access_cost;
}

void sim_set_relax_step(uint32_t ns) {
  g_relax_step = ns == 0u ? 1u : ns;
}

void sim_inject(uint64_t offset, uint64_t ns) {
  g_inj_pending = true;
  g_inj_at = sat_add(g_accesses, offset);
  g_inj_ns = ns;
}

bool sim_inject_pending(void) {
  return g_inj_pending;
}

uint64_t sim_accesses(void) {
  return g_accesses;
}

uint64_t sim_busy_ns(void) {
  return g_busy_ns;
}

uint32_t sim_irq_disable(void) {
  return g_irq_depth++;
}

/* The key is the depth before the matching disable, restored as a CPU
 * restores a saved interrupt mask, so an unbalanced pair cannot leave the
 * mask stuck. */
void sim_irq_restore(uint32_t key) {
  g_irq_depth = key;
  /* Only a timer with an enabled event flagged (g_active) or a device can
   * have an interrupt pending: without either, deliver() would find none. */
  if (key == 0u && (g_active != 0u || g_ndev != 0u)) {
    deliver();
  }
}

/* The CPU is busy for the step (it spins), so it counts as busy time. */
void sim_cpu_relax(void) {
  g_busy_ns = sat_add(g_busy_ns, g_relax_step);
  sim_advance(g_relax_step);
}
