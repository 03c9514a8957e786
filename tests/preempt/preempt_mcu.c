/*
 * A compare channel re-armed from an interrupt of a higher priority that
 * preempts the channel's own handler while it services the previous match
 * (microbit: nRF51 TIMER0, TIMER2's line taken raw at the highest priority
 * re-arming it; the TIMER1 + TIMER2 chain, TIMER0's line taken raw). The
 * handler read the enabled flags, then cleared the enable and reported the
 * match without the port lock (the chain's service, in TIMER1's callback,
 * released it before its report): a re-arm in between was taken for the
 * old match, so its callback ran about 20000 ticks early and its target
 * never fired. Every handler of compare channels now holds the lock from
 * its read of the flags to the report (utim_core_event_unlock(),
 * driver.h). A sweep of delays moves the moment of the preemption across
 * the whole handler.
 *
 * Then a table of scenarios run the same way (t_scen): on TIMER0, a clear,
 * a periodic setting, another channel's arming, mask/unmask, counter writes
 * and stop/start from the higher-priority interrupt while a one-shot or a
 * periodic channel is serviced; on the chain, a read, a write or a
 * relative arming while the low timer's wrap is being delivered (the
 * software carry was invisible between the core taking the wrap off its
 * pending events and the chain counting it: a read went back 65536 ticks,
 * an arming fired 65536 ticks early; utim_state_t::in_dispatch now tells
 * that window), and the chain's own wrap; the time manager's stop and
 * start from the higher-priority interrupt. A callback the delivery loop
 * had committed to when the interrupt came (lock released, on its way to
 * the call) runs as if preempted at its first instruction: committed()
 * recognises it from the preempted PC and return address.
 */
#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "board_test.h"
#include "cortexm.h"
#include "harness.h"
#include "mcu.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/utim.h"
#include "utim_nrf51_timer.h"

#define IRQ_TIMER0 8
#define IRQ_TIMER2 10
/* NVIC priority bytes of lines 8..11 (TIMER0, TIMER1, TIMER2, ...). */
#define NVIC_IPR2 (*(volatile uint32_t *)0xE000E408u)
#define FAR       20000u /* the re-armed setting, ticks ahead */
#define NEAR      100u   /* the setting whose match the handler services */
#define SWEEP     60u    /* preemption delays tried */

/* One victim: an instance whose channel 0 is re-armed by a raw timer's
 * interrupt at the highest priority, its own lines at the lowest. */
typedef struct victim {
  unsigned index;                   /* in the board's table */
  utim_nrf51_timer_regs_t *preempt; /* the raw timer */
  int32_t preempt_irq;
  uint32_t ipr2; /* NVIC_IPR2's bytes for lines 8..10 */
} victim_t;

static const utim_periph_t *g_p;
static utim_nrf51_timer_regs_t *g_pre;
static volatile unsigned g_calls;
static volatile uint64_t g_cb_at;
static volatile uint64_t g_rearm_at;
static volatile unsigned g_rearmed;

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)ch;
  (void)arg;
  g_cb_at = utim_read(p);
  g_calls = g_calls + 1u;
}

/* The interrupt of a higher priority: stop the raw timer, re-arm the
 * victim's channel 0 far ahead (replacing its setting). */
static void preempt_isr(void *arg) {
  (void)arg;
  g_pre->intenclr = UTIM_NRF51_TIMER_INT_COMPARE(0);
  g_pre->events_compare[0] = 0u;
  g_pre->tasks_stop = 1u;
  g_rearm_at = utim_read(g_p);
  (void)utim_set_rel(g_p, 0, FAR);
  g_rearmed = 1u;
}

static void t_preempt(void *arg) {
  const victim_t *v = arg;
  g_p = utim_by_index(v->index);
  g_pre = v->preempt;
  /* The fastest the instance runs at, the raw timer at the same rate (the
   * nRF51 prescaler divides HFCLK by 2^k). */
  uint32_t hz = 0u;
  TH_EQ(utim_closest_freq(g_p, MICROBIT_HFCLK_HZ, UTIM_CLOCK_DEFAULT, &hz), 0);
  uint32_t shift = 0u;
  while (shift < 9u && (MICROBIT_HFCLK_HZ >> shift) > hz) {
    shift++;
  }
  if (!TH_CHECKF((MICROBIT_HFCLK_HZ >> shift) == hz, "%lu Hz is no prescaled HFCLK",
                 (unsigned long)hz) ||
      !TH_EQ(utim_init(g_p, hz, UTIM_CLOCK_DEFAULT), 0)) {
    return;
  }
  TH_EQ(utim_set_compare_cb(g_p, on_compare, NULL), 0);
  TH_EQ(utim_start(g_p), 0);
  cortexm_irq_set_raw(v->preempt_irq, preempt_isr, NULL);
  const uint32_t ipr = NVIC_IPR2;
  NVIC_IPR2 = (ipr & ~0x00FFFFFFu) | v->ipr2;
  unsigned early = 0u;
  unsigned lost = 0u;
  unsigned hits = 0u;
  for (unsigned j = 0u; j < SWEEP; j++) {
    g_calls = 0u;
    g_rearmed = 0u;
    /* The raw timer matches a few ticks after the victim's channel: j
     * delays the unmasking, so the victim's handler is preempted at a
     * different point. */
    g_pre->tasks_stop = 1u;
    g_pre->bitmode = UTIM_NRF51_TIMER_BITMODE_16;
    g_pre->prescaler = shift;
    g_pre->tasks_clear = 1u;
    g_pre->events_compare[0] = 0u;
    g_pre->cc[0] = NEAR + 3u;
    g_pre->intenset = UTIM_NRF51_TIMER_INT_COMPARE(0);
    const uint32_t key = utim_port_lock();
    g_pre->tasks_start = 1u;
    const uint64_t s = utim_read(g_p);
    (void)utim_set_rel(g_p, 0, NEAR);
    while (utim_read(g_p) - s < NEAR + 1u) {
    }
    for (volatile unsigned k = 0u; k < j; k++) {
    }
    utim_port_unlock(key);
    tb_wait_ticks(g_p, 2u * NEAR);
    if (g_rearmed == 0u) {
      th_note("delay %u: the raw timer did not preempt", j);
      continue;
    }
    hits++;
    const uint64_t target = g_rearm_at + FAR;
    const unsigned before = g_calls;
    const uint64_t at_before = g_cb_at;
    tb_wait_ticks(g_p, FAR + 500u);
    if (before != 0u && g_calls == before) {
      early++; /* the old match was taken for the new setting */
      th_note("delay %u: callback at %llu, %llu ticks before the re-armed target", j,
              (unsigned long long)at_before, (unsigned long long)(target - at_before));
    }
    if (g_calls == before) {
      lost++;
      th_note("delay %u: no callback at the re-armed target %llu", j, (unsigned long long)target);
    }
    (void)utim_clear(g_p, 0);
  }
  cortexm_irq_set_raw(v->preempt_irq, NULL, NULL);
  NVIC_IPR2 = ipr;
  g_pre->tasks_stop = 1u;
  th_note("%u preemptions: %u early callbacks, %u re-armed settings lost", hits, early, lost);
  TH_CHECKF(hits >= SWEEP / 2u, "only %u of %u delays preempted the handler", hits, SWEEP);
  TH_CHECKF(early == 0u, "%u callbacks ran before their re-armed target", early);
  TH_CHECKF(lost == 0u, "%u re-armed settings never fired", lost);
}

/* ==== more scenarios: one generic sweep ====================================
 *
 * The thread arms an event of the victim with the port lock held and waits
 * until the hardware has flagged it, starts the raw timer (16 MHz, its match
 * raw_cc ticks later), busy-waits j iterations and unlocks: the victim's
 * handler starts at the unlock and the raw timer's interrupt (the highest
 * priority) preempts it about raw_cc * 62.5 - 7 * j instructions in. The
 * scenario's action runs in the raw interrupt; its check afterwards. */

#define RAW_T0 ((utim_nrf51_timer_regs_t *)0x40008000u)
#define RAW_T2 ((utim_nrf51_timer_regs_t *)0x4000A000u)
#define MAXLOG 8u

typedef struct scen {
  const char *name;
  unsigned index;      /* victim */
  uint32_t hz;         /* its frequency */
  unsigned first;      /* first delay */
  unsigned sweep;      /* delays first .. sweep - 1 */
  unsigned raw_cc;     /* 16 MHz ticks from the raw start to its match */
  void (*setup)(void); /* once, after init and start */
  void (*arm)(void);   /* lock held: arm the victim's event, return once flagged */
  void (*action)(void);
  void (*check)(unsigned j); /* g_bad++ and a note on a violation */
  void (*teardown)(void);    /* after each point */
  void (*fini)(void);        /* once */
} scen_t;

static const scen_t *g_sc;
static volatile unsigned g_fired;
static volatile uint32_t g_pc;
static volatile unsigned g_bad;
static volatile unsigned g_in_raw;
/* callback log: channel, counter at entry, whether the action had completed */
static volatile unsigned g_n;
static volatile unsigned g_nch[4];
static volatile uint64_t g_at[MAXLOG];
static volatile unsigned g_ch[MAXLOG];
static volatile unsigned g_after[MAXLOG];
static volatile int g_ovr[MAXLOG];
static volatile uint32_t g_ra[MAXLOG]; /* the callback's return address */
static volatile uint32_t g_lr;         /* the preempted code's LR */
static volatile unsigned g_done;       /* the action has returned */
static volatile uint64_t g_act_at;     /* counter read at the action's start */
static volatile uint64_t g_s;          /* counter read when arming */
static volatile uint64_t g_v;          /* a value the action read */
static volatile unsigned g_novf;
static volatile uint64_t g_t_wrap; /* chain counter read by the thread after the wrap */
static unsigned g_trace = 0u;

/* The PC the raw interrupt preempted: the frame above the dispatcher's
 * saved EXC_RETURN. */
static uint32_t stacked_pc(void) {
  const uint32_t *sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (unsigned i = 0u; i < 64u; i++) {
    uint32_t w = sp[i];
    if (w == 0xFFFFFFF1u || w == 0xFFFFFFF9u || w == 0xFFFFFFFDu) {
      g_lr = sp[i + 1u + 5u] & ~1u;
      return sp[i + 1u + 6u];
    }
  }
  return 0u;
}

/* Whether callback i had been committed to when the raw interrupt came: the
 * delivery loop had released the lock for it and was on its way to the call
 * (preempted at most a few instructions before the call, or inside the
 * unlock called from there, or in the callback's first instructions). Such a callback is already
 * running in all but name: no API can hold it back without running callbacks under the lock. */
static bool committed(unsigned i) {
  if (i != 0u) {
    return false; /* one event per point: only the first callback can be it */
  }
  const uint32_t ra = g_ra[i];
  const uint32_t unlock = (uint32_t)(uintptr_t)&utim_port_unlock & ~1u;
  const bool near_call = g_pc < ra && g_pc + 16u >= ra;
  const bool in_unlock = g_pc >= unlock && g_pc < unlock + 8u && g_lr < ra && g_lr + 16u >= ra;
  const bool in_prologue = g_lr == ra; /* the callback's first instructions */
  return near_call || in_unlock || in_prologue;
}

static void log_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  (void)arg;
  const unsigned after = g_done;
  unsigned n = g_n;
  if (n < MAXLOG) {
    g_at[n] = utim_read(p);
    g_ch[n] = ch;
    g_after[n] = after;
    g_ovr[n] = utim_overrun(p, ch);
    g_ra[n] = (uint32_t)(uintptr_t)__builtin_return_address(0) & ~1u;
  }
  g_n = n + 1u;
  if (ch < 4u) {
    g_nch[ch] = g_nch[ch] + 1u;
  }
}

static void log_ovf(const utim_periph_t *p, void *arg) {
  (void)p;
  (void)arg;
  g_novf = g_novf + 1u;
}

static void gen_isr(void *arg) {
  (void)arg;
  g_pc = stacked_pc();
  g_pre->intenclr = UTIM_NRF51_TIMER_INT_COMPARE(0);
  g_pre->events_compare[0] = 0u;
  g_pre->tasks_stop = 1u;
  g_in_raw = 1u;
  g_act_at = utim_read(g_p);
  g_sc->action();
  g_in_raw = 0u;
  g_done = 1u;
  g_fired = 1u;
}

static void bad(unsigned j, const char *what) {
  g_bad++;
  th_note("delay %u (preempted pc 0x%08lx lr 0x%08lx): %s; %u callbacks", j, (unsigned long)g_pc,
          (unsigned long)g_lr, what, g_n);
  for (unsigned i = 0u; i < g_n && i < MAXLOG; i++) {
    th_note(
        "   cb %u: ch %u at %llu (action at %llu, armed at %llu) after=%u overrun=%d ra 0x%08lx", i,
        g_ch[i], (unsigned long long)g_at[i], (unsigned long long)g_act_at, (unsigned long long)g_s,
        g_after[i], g_ovr[i], (unsigned long)g_ra[i]);
  }
}

static void t_scen(void *arg) {
  const scen_t *sc = arg;
  g_sc = sc;
  g_p = utim_by_index(sc->index);
  if (!TH_EQ(utim_init(g_p, sc->hz, UTIM_CLOCK_DEFAULT), 0)) {
    return;
  }
  g_pre = sc->index == MICROBIT_IDX_TIMER0 ? RAW_T2 : RAW_T0;
  const int32_t irq = sc->index == MICROBIT_IDX_TIMER0 ? IRQ_TIMER2 : IRQ_TIMER0;
  const uint32_t prio = sc->index == MICROBIT_IDX_TIMER0 ? 0x0000C0u : 0xC0C000u;
  TH_EQ(utim_set_compare_cb(g_p, log_cb, NULL), 0);
  TH_EQ(utim_start(g_p), 0);
  if (sc->setup != NULL) {
    sc->setup();
  }
  cortexm_irq_set_raw(irq, gen_isr, NULL);
  const uint32_t ipr = NVIC_IPR2;
  NVIC_IPR2 = (ipr & ~0x00FFFFFFu) | prio;
  g_bad = 0u;
  unsigned hits = 0u;
  for (unsigned j = sc->first; j < sc->sweep; j++) {
    g_fired = 0u;
    g_done = 0u;
    g_n = 0u;
    g_novf = 0u;
    for (unsigned c = 0u; c < 4u; c++) {
      g_nch[c] = 0u;
    }
    g_pre->tasks_stop = 1u;
    g_pre->bitmode = UTIM_NRF51_TIMER_BITMODE_16;
    g_pre->prescaler = 0u;
    g_pre->tasks_clear = 1u;
    g_pre->events_compare[0] = 0u;
    g_pre->cc[0] = sc->raw_cc;
    g_pre->intenset = UTIM_NRF51_TIMER_INT_COMPARE(0);
    const uint32_t key = utim_port_lock();
    sc->arm();
    g_pre->tasks_start = 1u;
    for (volatile unsigned k = 0u; k < j; k++) {
    }
    utim_port_unlock(key);
    for (unsigned w = 0u; w < 1000u && g_fired == 0u; w++) {
      tb_wait_ticks(g_p, 2u);
    }
    if (g_fired == 0u) {
      th_note("delay %u: the raw timer did not fire (%u callbacks)", j, g_n);
      continue;
    }
    hits++;
    if (g_trace) {
      th_note("trace %u pc 0x%08lx lr 0x%08lx", j, (unsigned long)g_pc, (unsigned long)g_lr);
    }
    sc->check(j);
    if (sc->teardown != NULL) {
      sc->teardown();
    }
  }
  cortexm_irq_set_raw(irq, NULL, NULL);
  NVIC_IPR2 = ipr;
  g_pre->tasks_stop = 1u;
  if (sc->fini != NULL) {
    sc->fini();
  }
  th_note("%u preemptions, %u violations", hits, g_bad);
  TH_CHECKF(hits == sc->sweep - sc->first, "only %u of %u points preempted", hits,
            sc->sweep - sc->first);
  TH_CHECKF(g_bad == 0u, "%u violations (see the notes)", g_bad);
}

/* ---- TIMER0 ---------------------------------------------------------------- */

#define T0_NEAR 64u
#define T0_FAR  3000u
#define T0_PER  2000u

/* Channel 0 one-shot at T0_NEAR, return once it matched. */
static void arm_t0_ch0(void) {
  g_s = utim_read(g_p);
  (void)utim_set_rel(g_p, 0, T0_NEAR);
  while (utim_read(g_p) - g_s < T0_NEAR + 1u) {
  }
}

/* ...and channel 1 at an absolute value T0_FAR ahead. */
static void arm_t0_ch0_ch1(void) {
  g_s = utim_read(g_p);
  (void)utim_set_abs(g_p, 1, (g_s + T0_FAR) & 0xFFFFFFFFu);
  (void)utim_set_rel(g_p, 0, T0_NEAR);
  while (utim_read(g_p) - g_s < T0_NEAR + 1u) {
  }
}

static void arm_t0_periodic(void) {
  g_s = utim_read(g_p);
  (void)utim_set_periodic(g_p, 0, T0_NEAR);
  while (utim_read(g_p) - g_s < T0_NEAR + 1u) {
  }
}

static void clear_all_t0(void) {
  (void)utim_clear(g_p, 0);
  (void)utim_clear(g_p, 1);
  (void)utim_unmask(g_p, UTIM_EVT_CH(0) | UTIM_EVT_CH(1));
}

/* Callbacks of channel ch that began after the action returned, and that
 * the delivery loop had not yet committed to when it came. */
static unsigned after_count(unsigned ch) {
  unsigned n = 0u;
  for (unsigned i = 0u; i < g_n && i < MAXLOG; i++) {
    if (g_ch[i] == ch && g_after[i] != 0u && !committed(i)) {
      n++;
    }
  }
  return n;
}

/* clear of the channel being serviced */
static void act_clear0(void) {
  (void)utim_clear(g_p, 0);
}
static void chk_clear0(unsigned j) {
  tb_wait_ticks(g_p, 2u * T0_NEAR);
  if (after_count(0) != 0u || g_nch[0] > 1u) {
    bad(j, "channel 0's callback ran after utim_clear() returned");
  }
}

/* the one-shot being serviced replaced by a periodic setting */
static void act_periodic0(void) {
  (void)utim_set_periodic(g_p, 0, T0_PER);
}
static void chk_grid(unsigned j, uint64_t per, unsigned want) {
  tb_wait_ticks(g_p, per * want + per / 2u);
  (void)utim_clear(g_p, 0);
  /* callbacks that began before the action (or were committed to) are the
   * old setting's; the others must be on the new grid */
  unsigned old = 0u;
  unsigned k = 0u;
  for (unsigned i = 0u; i < g_n && i < MAXLOG; i++) {
    if (g_after[i] == 0u || committed(i)) {
      old++;
      continue;
    }
    uint64_t since = (g_at[i] - g_act_at) & 0xFFFFFFFFu;
    k++;
    if (since < k * per) {
      bad(j, "a callback after the new setting, before its grid point");
      return;
    }
    if (g_ovr[i] != 0) {
      bad(j, "an overrun reported at a sustainable period");
      return;
    }
  }
  if (old > 1u) {
    bad(j, "the old setting's callback ran twice");
  } else if (k != want) {
    bad(j, "the new setting's grid did not get its callbacks");
  }
}
static void chk_periodic0(unsigned j) {
  chk_grid(j, T0_PER, 4u);
}

/* another channel re-armed */
static void act_rel1(void) {
  (void)utim_set_rel(g_p, 1, T0_FAR);
}
static void chk_rel1(unsigned j) {
  tb_wait_ticks(g_p, T0_FAR + 500u);
  if (g_nch[0] != 1u) {
    bad(j, "channel 0 not delivered exactly once");
  } else if (g_nch[1] != 1u) {
    bad(j, "channel 1 not delivered exactly once");
  } else {
    for (unsigned i = 0u; i < g_n && i < MAXLOG; i++) {
      if (g_ch[i] == 1u && ((g_at[i] - g_act_at) & 0xFFFFFFFFu) < T0_FAR) {
        bad(j, "channel 1 early");
      }
    }
  }
}

/* mask during the handler, unmask afterwards */
static void act_mask0(void) {
  (void)utim_mask(g_p, UTIM_EVT_CH(0));
}
static void chk_mask0(unsigned j) {
  tb_wait_ticks(g_p, 2u * T0_NEAR);
  const unsigned masked_after = after_count(0);
  (void)utim_unmask(g_p, UTIM_EVT_CH(0));
  tb_wait_ticks(g_p, 2u * T0_NEAR);
  if (masked_after != 0u) {
    bad(j, "a callback began while masked");
  } else if (g_nch[0] != 1u) {
    bad(j, "channel 0 not delivered exactly once after the unmask");
  }
}

/* masked before, unmasked during the handler */
static void arm_t0_ch0_masked(void) {
  (void)utim_mask(g_p, UTIM_EVT_CH(0));
  arm_t0_ch0();
}
static void act_unmask0(void) {
  (void)utim_unmask(g_p, UTIM_EVT_CH(0));
}
static void chk_unmask0(unsigned j) {
  tb_wait_ticks(g_p, 2u * T0_NEAR);
  if (g_nch[0] != 1u) {
    bad(j, "channel 0 not delivered exactly once");
  }
}

/* counter written during the handler: channel 1 keeps its absolute value */
static void act_write_fwd(void) {
  (void)utim_write(g_p, (utim_read(g_p) + 1000u) & 0xFFFFFFFFu);
}
static void act_write_back(void) {
  (void)utim_write(g_p, (utim_read(g_p) - 1000u) & 0xFFFFFFFFu);
}
static void act_stop_start(void) {
  (void)utim_stop(g_p);
  for (volatile unsigned k = 0u; k < 200u; k++) {
  }
  (void)utim_start(g_p);
}
static void chk_abs1(unsigned j) {
  tb_wait_ticks(g_p, 2u * T0_FAR);
  if (g_nch[0] != 1u) {
    bad(j, "channel 0 not delivered exactly once");
    return;
  }
  if (g_nch[1] != 1u) {
    bad(j, "channel 1 not delivered exactly once");
    return;
  }
  const uint64_t a = (g_s + T0_FAR) & 0xFFFFFFFFu;
  for (unsigned i = 0u; i < g_n && i < MAXLOG; i++) {
    if (g_ch[i] == 1u && ((g_at[i] - a) & 0xFFFFFFFFu) > 0x7FFFFFFFu) {
      bad(j, "channel 1 before its absolute value");
    }
  }
}

/* a periodic channel serviced; cleared / re-armed / re-periodic */
static void chk_pclear(unsigned j) {
  tb_wait_ticks(g_p, 4u * T0_NEAR);
  if (after_count(0) != 0u) {
    bad(j, "periodic channel's callback ran after utim_clear() returned");
  }
}
static void act_prel(void) {
  (void)utim_set_rel(g_p, 0, T0_FAR);
}
static void chk_prel(unsigned j) {
  tb_wait_ticks(g_p, T0_FAR + 2000u);
  unsigned n_new = 0u;
  for (unsigned i = 0u; i < g_n && i < MAXLOG; i++) {
    if (g_after[i] != 0u && !committed(i)) {
      if (((g_at[i] - g_act_at) & 0xFFFFFFFFu) < T0_FAR) {
        bad(j, "a callback after the re-arm, before its target");
        return;
      }
      n_new++;
    }
  }
  if (n_new != 1u) {
    bad(j, "the one-shot that replaced the periodic setting not delivered exactly once");
  }
}
static void chk_pper(unsigned j) {
  chk_grid(j, T0_PER, 4u);
}

/* ---- the chain: the low timer's wrap (software carry) ------------------------ */

#define CH_NEAR 40u

/* Write the chain so that its low half wraps CH_NEAR ticks on (the high half
 * at 0x0123, or at its maximum for the chain's own wrap), return once the low
 * timer flagged the wrap. */
static uint32_t g_hi = 0x0123u;
static void arm_lo_wrap(void) {
  (void)utim_write(g_p, ((uint64_t)g_hi << 16) | (0x10000u - CH_NEAR));
  g_s = utim_read(g_p);
  while (((utim_read(g_p) - g_s) & 0xFFFFFFFFu) < CH_NEAR + 1u) {
  }
  g_t_wrap = utim_read(g_p);
}

static void act_read(void) {
  g_v = utim_read(g_p);
}
static void chk_read(unsigned j) {
  if (((g_v - g_t_wrap) & 0xFFFFFFFFu) > 0x7FFFFFFFu) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): read 0x%08lx from the interrupt after 0x%08lx", j,
            (unsigned long)g_pc, (unsigned long)g_v, (unsigned long)g_t_wrap);
  }
}

#define W_VALUE 0x00500000u
static void act_write(void) {
  (void)utim_write(g_p, W_VALUE);
  g_v = utim_read(g_p);
}
static void chk_write(unsigned j) {
  tb_wait_ticks(g_p, 200u);
  const uint64_t now = utim_read(g_p);
  const uint64_t d = (now - W_VALUE) & 0xFFFFFFFFu;
  if (d > 2000u) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): wrote 0x%08lx, read 0x%08lx in the interrupt, 0x%08lx after "
            "(%lu on)",
            j, (unsigned long)g_pc, (unsigned long)W_VALUE, (unsigned long)g_v, (unsigned long)now,
            (unsigned long)d);
  }
}

#define CH_FAR (0x10000u + 1000u)
static void act_chain_rel(void) {
  (void)utim_set_rel(g_p, 0, CH_FAR);
}
static void chk_chain_rel(unsigned j) {
  /* Due CH_FAR after the action: nothing may come within 3000 ticks. */
  tb_wait_ticks(g_p, 3000u);
  (void)utim_clear(g_p, 0);
  if (g_nch[0] != 0u) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): set_rel(%u) at 0x%08lx fired at 0x%08lx", j,
            (unsigned long)g_pc, CH_FAR, (unsigned long)g_act_at, (unsigned long)g_at[0]);
  }
}

/* the chain's own wrap: the overflow callback once */
static void setup_ovf(void) {
  g_hi = 0xFFFFu;
  (void)utim_set_overflow_cb(g_p, log_ovf, NULL);
}
static void fini_ovf(void) {
  g_hi = 0x0123u;
  (void)utim_set_overflow_cb(g_p, NULL, NULL);
}
static void act_ovf_abs(void) {
  (void)utim_set_abs(g_p, 0, (utim_read(g_p) + 1000u) & 0xFFFFFFFFu);
}
static void chk_ovf_abs(unsigned j) {
  tb_wait_ticks(g_p, 1500u);
  (void)utim_clear(g_p, 0);
  if (g_novf != 1u) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): %u overflow callbacks for one wrap", j, (unsigned long)g_pc,
            g_novf);
  } else if (g_nch[0] != 1u || ((g_at[0] - g_act_at) & 0xFFFFFFFFu) < 1000u) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): %u compare callbacks, first at 0x%08lx (action at 0x%08lx)", j,
            (unsigned long)g_pc, g_nch[0], (unsigned long)g_at[0], (unsigned long)g_act_at);
  }
}
static void act_ovf_write(void) {
  (void)utim_write(g_p, 0x00001000u);
}
static void chk_ovf_write(unsigned j) {
  tb_wait_ticks(g_p, 500u);
  const uint64_t now = utim_read(g_p);
  /* the wrap happened before the write: one callback; the write itself is no wrap */
  if (g_novf > 1u || ((now - 0x1000u) & 0xFFFFFFFFu) > 2000u) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): %u overflow callbacks, counter 0x%08lx after writing 0x1000", j,
            (unsigned long)g_pc, g_novf, (unsigned long)now);
  }
}

/* ---- the time manager on TIMER0 (tickless, channel 0) --------------------- */

static utim_tm_t g_tm;
static utim_tm_timer_t g_tA, g_tB, g_tC;
static volatile unsigned g_tn[3];
static volatile unsigned g_tafter[3];
static volatile uint64_t g_tat[3];
static volatile uint64_t g_tstart; /* utim_tm_now() when C was started */

static void tm_cb(utim_tm_t *tm, utim_tm_timer_t *t, void *arg) {
  (void)t;
  const unsigned i = (unsigned)(uintptr_t)arg;
  g_tn[i] = g_tn[i] + 1u;
  g_tafter[i] = g_done;
  g_tat[i] = utim_tm_now(tm);
}
static void setup_tm(void) {
  (void)utim_tm_init(&g_tm, g_p, 0, UTIM_TM_TICKLESS, 0u);
  utim_tm_timer_init(&g_tA, tm_cb, (void *)0);
  utim_tm_timer_init(&g_tB, tm_cb, (void *)1);
  utim_tm_timer_init(&g_tC, tm_cb, (void *)2);
}
static void fini_tm(void) {
  (void)utim_tm_deinit(&g_tm);
}
/* A and B due together T0_NEAR on; return once the channel matched. */
static void arm_tm(void) {
  for (unsigned i = 0u; i < 3u; i++) {
    g_tn[i] = 0u;
    g_tafter[i] = 0u;
  }
  g_s = utim_read(g_p);
  (void)utim_tm_start(&g_tm, &g_tA, T0_NEAR, 0u);
  (void)utim_tm_start_at(&g_tm, &g_tB, g_tA.node.expiry + g_tm.offset, 0u);
  while (utim_read(g_p) - g_s < T0_NEAR + 2u) {
  }
}
static volatile int g_stop_rc;
static void act_tm(void) {
  g_stop_rc = utim_tm_stop(&g_tm, &g_tB);
  g_tstart = utim_tm_now(&g_tm);
  (void)utim_tm_start(&g_tm, &g_tC, 500u, 0u);
}
static void chk_tm(unsigned j) {
  tb_wait_ticks(g_p, 1500u);
  (void)utim_tm_stop(&g_tm, &g_tA);
  (void)utim_tm_stop(&g_tm, &g_tB);
  (void)utim_tm_stop(&g_tm, &g_tC);
  if (g_tn[0] != 1u || g_tn[2] != 1u || g_tn[1] > 1u || (g_tn[1] == 1u && g_tafter[1] != 0u) ||
      (g_tn[1] == 0u && g_stop_rc != 1) || g_tat[2] - g_tstart < 500u) {
    g_bad++;
    th_note("delay %u (pc 0x%08lx): A %u, B %u (after stop %u, stop %d), C %u at +%ld", j,
            (unsigned long)g_pc, g_tn[0], g_tn[1], g_tafter[1], g_stop_rc, g_tn[2],
            (long)(g_tat[2] - g_tstart));
  }
}

static const scen_t scens[] = {
    {"TIMER0: clear of the channel being serviced", MICROBIT_IDX_TIMER0, 16000000u, 0u, 300u, 32u,
     NULL, arm_t0_ch0, act_clear0, chk_clear0, clear_all_t0, NULL},
    {"TIMER0: set_periodic replacing the one-shot being serviced", MICROBIT_IDX_TIMER0, 16000000u,
     0u, 300u, 32u, NULL, arm_t0_ch0, act_periodic0, chk_periodic0, clear_all_t0, NULL},
    {"TIMER0: another channel re-armed during the handler", MICROBIT_IDX_TIMER0, 16000000u, 0u,
     300u, 32u, NULL, arm_t0_ch0, act_rel1, chk_rel1, clear_all_t0, NULL},
    {"TIMER0: mask during the handler, unmask after", MICROBIT_IDX_TIMER0, 16000000u, 0u, 300u, 32u,
     NULL, arm_t0_ch0, act_mask0, chk_mask0, clear_all_t0, NULL},
    {"TIMER0: masked event, unmask during the handler", MICROBIT_IDX_TIMER0, 16000000u, 0u, 300u,
     32u, NULL, arm_t0_ch0_masked, act_unmask0, chk_unmask0, clear_all_t0, NULL},
    {"TIMER0: counter written forward during the handler", MICROBIT_IDX_TIMER0, 16000000u, 0u, 300u,
     32u, NULL, arm_t0_ch0_ch1, act_write_fwd, chk_abs1, clear_all_t0, NULL},
    {"TIMER0: counter written back during the handler", MICROBIT_IDX_TIMER0, 16000000u, 0u, 300u,
     32u, NULL, arm_t0_ch0_ch1, act_write_back, chk_abs1, clear_all_t0, NULL},
    {"TIMER0: stop/start during the handler", MICROBIT_IDX_TIMER0, 16000000u, 0u, 300u, 32u, NULL,
     arm_t0_ch0_ch1, act_stop_start, chk_abs1, clear_all_t0, NULL},
    {"TIMER0: periodic channel cleared during its handler", MICROBIT_IDX_TIMER0, 16000000u, 0u,
     300u, 32u, NULL, arm_t0_periodic, act_clear0, chk_pclear, clear_all_t0, NULL},
    {"TIMER0: periodic channel re-armed one-shot during its handler", MICROBIT_IDX_TIMER0,
     16000000u, 0u, 300u, 32u, NULL, arm_t0_periodic, act_prel, chk_prel, clear_all_t0, NULL},
    {"TIMER0: periodic channel given a new period during its handler", MICROBIT_IDX_TIMER0,
     16000000u, 0u, 300u, 32u, NULL, arm_t0_periodic, act_periodic0, chk_pper, clear_all_t0, NULL},
    {"chain: counter read from a higher-priority interrupt during the low wrap's handler",
     MICROBIT_IDX_CHAIN32, 2000000u, 460u, 900u, 64u, NULL, arm_lo_wrap, act_read, chk_read, NULL,
     NULL},
    {"chain: counter written from a higher-priority interrupt during the low wrap's handler",
     MICROBIT_IDX_CHAIN32, 2000000u, 460u, 900u, 64u, NULL, arm_lo_wrap, act_write, chk_write, NULL,
     NULL},
    {"chain: set_rel beyond a low period during the low wrap's handler", MICROBIT_IDX_CHAIN32,
     2000000u, 460u, 900u, 64u, NULL, arm_lo_wrap, act_chain_rel, chk_chain_rel, NULL, NULL},
    {"chain: its own wrap, set_abs from a higher-priority interrupt", MICROBIT_IDX_CHAIN32,
     2000000u, 460u, 900u, 64u, setup_ovf, arm_lo_wrap, act_ovf_abs, chk_ovf_abs, NULL, fini_ovf},
    {"chain: its own wrap, counter written from a higher-priority interrupt", MICROBIT_IDX_CHAIN32,
     2000000u, 460u, 900u, 64u, setup_ovf, arm_lo_wrap, act_ovf_write, chk_ovf_write, NULL,
     fini_ovf},
    {"time manager on TIMER0: utim_tm_stop/utim_tm_start from a higher-priority interrupt",
     MICROBIT_IDX_TIMER0, 16000000u, 0u, 400u, 32u, setup_tm, arm_tm, act_tm, chk_tm, NULL,
     fini_tm},
};

int main(void) {
  mcu_console_init();
  th_set_putc(mcu_console_putc);
  tb_setup();
  /* TIMER0 at the lowest priority, TIMER2 taken raw at the highest. */
  static const victim_t timer0 = {MICROBIT_IDX_TIMER0, (utim_nrf51_timer_regs_t *)0x4000A000u,
                                  IRQ_TIMER2, 0x0000C0u};
  /* The chain (TIMER1 counting, TIMER2 by software carry: both lowest; its
   * service reports from TIMER1's callback), TIMER0 taken raw at the highest. */
  static const victim_t chain = {MICROBIT_IDX_CHAIN32, (utim_nrf51_timer_regs_t *)0x40008000u,
                                 IRQ_TIMER0, 0xC0C000u};
  th_run("nRF51 TIMER0: compare re-armed from a higher-priority interrupt during its handler",
         t_preempt, (void *)&timer0);
  th_run("TIMER1 + TIMER2 chain: compare re-armed from a higher-priority interrupt during its "
         "service",
         t_preempt, (void *)&chain);
  for (unsigned i = 0u; i < sizeof(scens) / sizeof(scens[0]); i++) {
    th_run(scens[i].name, t_scen, (void *)&scens[i]);
  }
  return th_finish();
}
