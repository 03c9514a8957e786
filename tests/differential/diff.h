/**
 * @file diff.h
 * @brief Internals of differential_sim, shared by its files: configuration,
 *        the reference model (diff_model.c), running operations on the
 *        implementation and the model (diff_run.c), generating them
 *        (diff_gen.c), shrinking failures and catching hangs (diff_shrink.c);
 *        main and options in differential_sim.c.
 */
#ifndef UTIM_TEST_DIFF_H
#define UTIM_TEST_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utim/utim.h"

/* ---- configuration ------------------------------------------------------ */

#define DEFAULT_SEED  0x75746d31ull /* fixed so CI runs are reproducible */
#define DEFAULT_OPS   1200000ull
#define MAX_SEQ       400u  /* operations per sequence, at most */
#define EVENT_CAP     48u   /* callbacks one advance may produce, at most */
#define MAX_RECS      1024u /* callback records per operation */
#define MAX_FREQS     2048u /* achievable frequencies per instance */
#define RELAX_NS      25u   /* below the shortest tick period (62.5 ns) */
#define SHRINK_BUDGET 20000u
#define NS_PER_S      1000000000ull
#ifndef HANG_S
#define HANG_S 10u /* a sequence taking this long (wall clock) is reported as a hang */
#endif

typedef unsigned __int128 u128;

/* ---- documented shapes (boards/sim/board_sim.h) ------------------------- */

typedef struct doc_shape {
  const char *name;
  unsigned width, channels, down;
  bool ovf, write, stop;
  unsigned min_distance; /* 0: not documented */
  /* Ticks between the interrupts a software-carry chain takes on its own
   * (one per low wrap); 0 for the others. Long steps are capped to a number
   * of these so that one step stays quick. */
  uint64_t carry_period;
} doc_shape_t;

/* Number of documented shapes: the sim board's instances, in index order. */
#define NSHAPES 7u

/* The documented shapes (diff_model.c). */
extern const doc_shape_t doc_shapes[NSHAPES];

/* ---- callback records ---------------------------------------------------- */

#define SRC_OVF (-1)

typedef struct rec {
  int inst;
  int src; /* channel, or SRC_OVF */
  uintptr_t arg;
  uint64_t count;
  uint64_t time;
} rec_t;

/* ---- the reference model -------------------------------------------------- */

typedef struct model {
  int inst;
  unsigned width, nch, md;
  uint64_t max;
  uint32_t caps;
  uint32_t hz;
  unsigned clock_sel; /* clock argument of the last successful init */
  bool running;
  uint64_t base; /* counter value at t0 */
  uint64_t t0;   /* virtual time counting (re)started from base */
  uint64_t now;  /* model's virtual time */
  bool armed[UTIM_MAX_CHANNELS];
  uint64_t target[UTIM_MAX_CHANNELS];
  uint64_t period[UTIM_MAX_CHANNELS]; /* 0: one-shot */
  bool ovf_on;
  uintptr_t ovf_arg, cmp_arg;
  uint32_t mask, pending;
} model_t;

/* ---- operations ------------------------------------------------------------ */

enum op_kind {
  OP_INIT,
  OP_START,
  OP_STOP,
  OP_READ,
  OP_WRITE,
  OP_SET_ABS,
  OP_SET_REL,
  OP_SET_PER,
  OP_CLEAR,
  OP_MASK,
  OP_UNMASK,
  OP_PENDING,
  OP_SET_OVF,
  OP_ADVANCE,
  OP_GETPROP,
  OP_KINDS
};

/* How OP_WRITE / OP_SET_ABS interpret their value. */
enum val_mode { V_ABS, V_COUNTER, V_TARGET };

typedef struct op {
  uint8_t kind;
  uint8_t mode; /* enum val_mode; OP_GETPROP: 1 passes a NULL value */
  unsigned ch;
  uint64_t a; /* value, ticks, period, events, ns, hz, arg or property id */
  uint64_t b; /* OP_INIT: clock selector */
} op_t;

typedef struct seq_hdr {
  unsigned shape;
  uint32_t hz;
  unsigned clock;
  uintptr_t cmp_arg;
} seq_hdr_t;

typedef struct ctx {
  const utim_periph_t *p;
  model_t m;
  char msg[4096];
  size_t msg_len;
  bool verbose;
  uint64_t callbacks;
  unsigned sig; /* kind of the failing operation and of the first difference */
} ctx_t;

enum diff_kind { D_TIME = 1, D_RET, D_VALUE, D_CALLBACKS, D_READ, D_PENDING, D_SETUP };

typedef struct freqset {
  uint32_t hz[MAX_FREQS];
  unsigned n;
} freqset_t;

/* ---- the reference model (diff_model.c) ----------------------------------- */

/* Callbacks the model expects from the current operation. */
extern rec_t m_want[MAX_RECS];
extern unsigned m_nwant;

/* The model's counter value at its current virtual time. */
uint64_t m_count(const model_t *m);
/* Events utim_mask()/utim_unmask() accept on this instance. */
uint32_t m_valid_events(const model_t *m);
/*
 * Let time run to t1, delivering events in order. Stops early after the tick
 * on which the @p limit-th event happened (the whole tick is delivered).
 * Returns the number of events.
 */
unsigned m_advance(model_t *m, uint64_t t1, unsigned limit, bool out);
/* Deferred events become deliverable: channel-ascending, the overflow last. */
void m_deliver(model_t *m);
/* Nanoseconds of @p ticks at the model's frequency, rounded up (capped at 2^50). */
uint64_t ticks_to_ns(const model_t *m, u128 ticks);
/* Whether input @p c reaches @p hz exactly; its divider into *div_out (may be NULL). */
bool clock_reaches(const utim_clock_desc_t *c, uint32_t hz, uint32_t *div_out);
/* Whether clock selector @p sel may pick input @p c (index @p idx). */
bool class_ok(const utim_clock_desc_t *c, unsigned sel, unsigned idx);
/* Whether the instance has an input of class @p cls. */
bool has_class(const utim_periph_t *p, unsigned cls);
/* utim_init()'s documented result for @p hz and selector @p sel. */
int expect_init(const utim_periph_t *p, uint32_t hz, unsigned sel);

/* ---- running operations (diff_run.c) ------------------------------------- */

/* Run one operation on the implementation and on the model and compare; true when they agree. */
bool exec_op(ctx_t *x, const op_t *op);
/* Reset the machine and the model to the start of a sequence. */
bool seq_begin(ctx_t *x, const seq_hdr_t *h);
/* Replay ops[0..n) from reset; the index of the first failing op, or -1 (n on setup failure). */
long replay(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t n);

/* ---- generating operations (diff_gen.c) ---------------------------------- */

/* Achievable frequencies of each shape, filled by check_static(). */
extern freqset_t freqs[NSHAPES];

/* Restart the random number generator from @p state. */
void rng_seed(uint64_t state);
/* Uniform in [0, n); n == 0 means the full 64-bit range. */
uint64_t rnd_below(uint64_t n);
/* A random operation for the instance of shape @p shape in the state of the model. */
op_t gen_op(const ctx_t *x, unsigned shape);
/*
 * Check the static properties and frequency lists of shape @p shape against
 * the documentation and fill its frequency set; on a difference, false and
 * the reason in @p why.
 */
bool check_static(unsigned shape, char *why, size_t n);

/* ---- shrinking and hangs (diff_shrink.c) ---------------------------------- */

/* Shrink the failing sequence ops[0..fail] and print it with the difference. */
void report_failure(ctx_t *x, const seq_hdr_t *h, const op_t *ops, size_t fail, uint64_t seed,
                    uint64_t seqno);

/*
 * The running state main shares with the hang detector, which saves it when
 * a sequence does not finish within HANG_S seconds.
 */
extern const char *hang_self;
extern unsigned hang_tap, hang_passed, hang_failed; /* results so far, for the replay */
extern ctx_t g_ctx;
extern seq_hdr_t hang_hdr;
extern const op_t *hang_ops;
extern volatile size_t hang_n;
extern uint64_t hang_seed, hang_seqno;

/*
 * Install the SIGALRM handler that saves the running sequence and executes
 * this program again in replay mode (alarm(HANG_S) arms it).
 */
void hang_install(void);
/* The replay mode (--replay-hang @p path @p counts): report and shrink a hang. */
int replay_hang(const char *path, const char *counts);

#endif /* UTIM_TEST_DIFF_H */
