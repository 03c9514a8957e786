/*
 * The CMSIS-RTOS2 fuzz target's set-ups, model and binding
 * (fuzz_os2_model.c), shared with the target itself (fuzz_os2.c).
 */
#ifndef UTIM_FUZZ_OS2_MODEL_H
#define UTIM_FUZZ_OS2_MODEL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim.h"
#include "sim.h"
#include "utim/cmsis_os2.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/utim.h"

#define NT          12u   /* the model's timers (slots) */
#define QLEN        12u   /* the timer context's queue */
#define MAX_OPS     200u  /* operations of one input */
#define MAX_KTICKS  4000u /* virtual time of one input, in kernel ticks */
#define MAX_CB      3000u /* callbacks of one input */
#define CB_WORDS    (UTIM_OS2_TIMER_CB_SIZE / 8u)
#define POOL_FILLER 12u

typedef struct setup {
  const char *inst;
  uint32_t hz;
  uint32_t tick_hz;
  unsigned ch;
  utim_tm_mode_t mode;
  uint64_t tick;
} setup_t;

#define N_SETUPS n_setups

/* What the inputs reached (FUZZ_OS2_TRACE=1 prints the totals). */
typedef struct fuzz_os2_stats {
  unsigned long cb, dropped, lost, gone, refused_delete, freed, act, nested_delay;
} fuzz_os2_stats_t;

#define CHECK(cond, what, slot)                                                                    \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fail(what, slot);                                                                            \
    }                                                                                              \
  } while (0)

typedef struct slot {
  void *id;
  osTimerFunc_t func;
  const char *name;
  uint64_t next_at; /* running: its next expiry's nominal time (manager ticks) */
  uint64_t period;  /* manager ticks, 0 for a one-shot */
  uint32_t setting; /* bumped by new, start, stop, delete */
  unsigned action;  /* what its next callback does (ACT_*) */
  uint32_t act_arg;
  uint32_t calls;
  uint32_t deferred_unrun; /* expiries of it in the queue */
  bool live;
  bool pool; /* its block is the pool's */
  bool running;
  uint8_t type;
  bool dirty; /* its own memory holds other bytes since its delete */
  bool freed; /* its own memory was freed at its delete */
} slot_t;

enum { ACT_NONE, ACT_START, ACT_STOP, ACT_DELETE, ACT_DELAY, ACT_NEW, ACT_COUNT };

typedef struct qent {
  utim_os2_deferred_t d;
  int slot;
  uint32_t setting;
} qent_t;

/* The set-ups, the model's state and the binding (fuzz_os2_model.c says
 * what each holds). */
extern const setup_t setups[];
extern const size_t n_setups;
extern const setup_t *su;
extern utim_tm_t tm;
extern uint32_t ratio;
extern uint64_t early; /* a ticked manager's tick - 1, else 0 */
extern uint64_t late;  /* how late an expiry may come, manager ticks */
extern bool trace;
extern unsigned op_no;
extern const char *op_name;
extern fuzz_os2_stats_t stats;
void fail(const char *what, int slot);
uint64_t ns_of_counts(uint64_t c);
uint64_t now_m(void);
extern slot_t slots[NT];
extern int tags[NT];                     /* each slot's callback argument */
extern uint64_t smem[NT / 2u][CB_WORDS]; /* even slots' own memory */
extern void *hmem[NT / 2u];              /* odd slots': calloc()ed, maybe freed */
extern void *filler[POOL_FILLER];
extern unsigned n_filler;
extern unsigned pool_live; /* pool blocks held (fillers and slots) */
extern qent_t q[QLEN];
extern unsigned qh;
extern unsigned qt;
extern unsigned ctx_depth; /* in the timer context */
extern bool force_isr;
extern int expect_cb; /* the slot whose callback may run now, or -1 */
extern bool cb_ran;
extern unsigned n_cb;
extern uint32_t n_lost; /* expiries the full queue refused */
extern unsigned n_gone; /* model of the layer's deleted timers with expiries waiting */
extern const void *gone_id[UTIM_OS2_DELETED_WAITING];
void *own_mem(unsigned s);
void *id_for(unsigned s);
int slot_of(const void *id);
bool gone_waits(const void *id);
void gone_prune(void);
bool b_in_isr(void *ctx);
int b_defer(void *ctx, utim_os2_deferred_t d);
void run_one(bool drop);
void run_queue(void);
extern volatile bool woke[4];
extern utim_tm_timer_t wake_t[4];
extern unsigned block_depth;
extern unsigned n_nested;
void on_wake(utim_tm_t *t, utim_tm_timer_t *w, void *a);
int b_block_until(void *ctx, utim_tm_t *mgr, uint64_t deadline);
extern const utim_os2_binding_t binding;

#endif /* UTIM_FUZZ_OS2_MODEL_H */
