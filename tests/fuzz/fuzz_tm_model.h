/*
 * The time manager fuzz target's model (fuzz_tm_model.c), shared with the
 * target itself (fuzz_tm.c): the model's timers and state, the time
 * reference, starts through the model, the timers' callbacks and the
 * checks after each operation.
 */
#ifndef UTIM_FUZZ_TM_MODEL_H
#define UTIM_FUZZ_TM_MODEL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim.h"
#include "sim.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/utim.h"

#define HALF           ((uint64_t)1 << 63)
#define MAX_AHEAD      ((uint64_t)1 << 62)
#define NT             8u                  /* timers */
#define MAX_OPS        256u                /* operations of one input */
#define MAX_CALLBACKS  20000u              /* then periodic timers stop themselves */
#define PERIODS_BUDGET 1024u               /* virtual time of one input, in interrupt periods */
#define MAX_VIRTUAL_NS ((uint64_t)1 << 50) /* virtual time of one input */
#define PACE_SAFE_NS   40000u              /* periods and ticks shorter may be paced */
#define SLACK_NS       50000u              /* the interrupt's own work, in the late bound */

typedef struct mt {
  utim_tm_timer_t t; /* first */
  unsigned id;
  bool pending;      /* a setting is pending */
  bool exact;        /* expiry is the manager's, not our read before its read */
  uint64_t expiry;   /* its next expiry, internal time */
  uint64_t due;      /* when its callback is due (the start for a past one) */
  uint64_t start_ns; /* virtual time before its start call (inexact: the slop) */
  uint64_t gen;      /* starts so far */
  uint64_t period;
  uint64_t calls;
  unsigned action; /* what its next callback does (ACT_*) */
  uint64_t act_arg;
} mt_t;

/* What a timer's next callback does. */
enum {
  ACT_NONE,
  ACT_STOP_SELF,
  ACT_STOP_OTHER,
  ACT_RESTART_SELF,
  ACT_START_OTHER,
  ACT_SET_TIME,
  ACT_DEINIT,
  ACT_REINIT,
  ACT_START_AT_PAST_SELF,
  ACT_COUNT
};

/* model_start()'s kinds: relative, absolute ahead, absolute in the past. */
enum { K_REL, K_AT_AHEAD, K_AT_PAST };

/* The model's state (fuzz_tm_model.c says what each holds). */
extern mt_t timers[NT];
extern utim_tm_t tm;
extern utim_tm_t tm2; /* for refused inits */
extern const utim_periph_t *inst;
extern uint32_t hz;
extern unsigned tm_ch;
extern utim_tm_mode_t tm_mode;
extern uint64_t tm_tick;
extern bool running; /* model: the manager runs */
extern bool check_late;
extern uint64_t late_bound; /* ticks */
extern uint64_t crit_max_ns;
extern uint64_t period_ticks; /* the manager's interrupt period (checkpoint or tick) */
extern uint64_t budget_unit;  /* the budget's unit: that, or a carry period of 2^16 */
extern uint64_t periods_used; /* virtual time let pass, in ticks / period_ticks units */
extern uint64_t n_calls;
extern unsigned n_inits; /* utim_tm_init() calls of the input */
extern bool trace;
extern const char *op_name;
extern unsigned op_no;
extern uint64_t ref_n0;
extern uint64_t ref_s0a;
extern uint64_t ref_s0b;
extern uint64_t last_internal;
extern uint64_t stall_k;
extern uint64_t stall_ns;
/* Report a broken guarantee (about timer @p m, or NULL) and abort. */
void fail(const char *what, const mt_t *m);
uint64_t ticks_of_ns(uint64_t ns);
uint64_t ns_of_ticks(uint64_t ticks);
uint64_t internal_raw(void);
uint64_t internal_now(void);
uint64_t check_now(uint64_t sa, uint64_t n, uint64_t sb);
void arm_stall(void);
void end_stall(void);
void model_drop_all(void);
bool short_ticks(uint64_t ticks);
/* The manager's set-up and end, starts, the timers' callback and the checks
 * after each operation, through the model. */
void manager_init(void);
void manager_deinit_model(void);
void model_start(mt_t *m, unsigned kind, uint64_t d, uint64_t period, bool in_cb);
void cb(utim_tm_t *mgr, utim_tm_timer_t *t, void *arg);
void check_all(void);

#endif /* UTIM_FUZZ_TM_MODEL_H */
