/**
 * @file tm_bench.h
 * @brief Internal interfaces of `utim-bench tm` (cmd_tm.c, part 1: cost per
 *        start, stop and expiry against libuv and a delta list, the latter
 *        in tm_dlist.c, its floors in tm_floor.c), its paper figures
 *        (tm_paper.c, parts 2 and 3: Fig. 3 and Fig. 4) and its report
 *        (tm_output.c).
 */
#ifndef UTIM_BENCH_TM_BENCH_H
#define UTIM_BENCH_TM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_host.h"
#include "utim/tm.h"

/** @brief Part 1's workloads: timeouts of 1 ms to 10 s; network-style; half periodic. */
enum { W_UNIFORM, W_NETWORK, W_PERIODIC, W_COUNT };

/** @brief Part 1's structures: the manager, libuv's heap, the delta-list baseline. */
enum { S_TM, S_UV, S_DL, S_COUNT };

/** @brief How many numbers of pending timers part 1 measures at most. */
#define TM_NS_COUNT 5u

/** @brief The workloads' names (tm_output.c). */
extern const char *const tm_w_name[W_COUNT];

/** @brief The structures' names (tm_output.c). */
extern const char *const tm_s_name[S_COUNT];

/** @brief The numbers of pending timers, 10 to 10^6 (tm_output.c). */
extern const size_t tm_n_list[TM_NS_COUNT];

/**
 * @brief Start manager @p m on sim instance @p p at 1 MHz with virtual time
 *        frozen (the sim machine reset first).
 * @return utim_tm_init()'s result, or -1 when @p p cannot run at 1 MHz
 */
int tm_bench_begin(utim_tm_t *m, const utim_periph_t *p, utim_tm_mode_t mode, uint64_t tick);

/** @brief A node of the delta-list baseline (tm_dlist.c). */
typedef struct dl_node {
  struct dl_node *next; /**< later node, or the list's head */
  struct dl_node *prev; /**< earlier node, or the list's head */
  uint64_t delta;       /**< ticks after its predecessor (the head: after the list's time) */
  uint64_t period;      /**< 0: one-shot; else re-inserted this far ahead when it expires */
  bool linked;          /**< on the list */
} dl_node_t;

/** @brief Take @p n off the list (nothing when it is not on it). */
void dl_remove(dl_node_t *n);

/** @brief (Re)insert @p n @p ticks after the list's time, walking from the head. */
void dl_insert(dl_node_t *n, uint64_t ticks);

/**
 * @brief Advance the list's time by @p ticks, expiring what comes due
 *        (periodic nodes go back on).
 * @return the nodes expired
 */
uint64_t dl_advance(uint64_t ticks);

/**
 * @brief The list afresh from @p n (expiry, index into @p nodes) pairs at
 *        once, sorted (it sorts @p pairs).
 */
void dl_build(dl_node_t *nodes, uint64_t (*pairs)[2], size_t n);

/** @brief Part 1's memory floors at one N, ns per operation (tm_floor.c). */
typedef struct tm_floors {
  double read_ns;      /**< one read of the operation's timer: the memory floor */
  double dependent_ns; /**< the same reads made dependent: a miss's latency */
  double unlink_ns;    /**< a bare unlink of the timer: a stop's list accesses */
  double remove_ns;    /**< the wheel's remove: the unlink and its bookkeeping */
} tm_floors_t;

/** @brief The batches the floors run on: the manager's pending timers. */
typedef struct tm_floor_batch {
  utim_tm_wheel_t *wheel;  /**< the manager's wheel, which holds them */
  utim_tm_timer_t *timers; /**< all N timers */
  const size_t *idx;       /**< the batch: indices into timers, k of them */
  size_t k;                /**< the batch's size */
  void (*pick)(void *ctx); /**< a fresh batch into idx (random distinct timers) */
  void *ctx;               /**< pick()'s argument */
} tm_floor_batch_t;

/**
 * @brief The four floors, each the median ns per operation over @p rounds
 *        fresh batches (@p scratch: @p rounds doubles). Every timer is
 *        back on its list, at its expiry, afterwards.
 */
void tm_floors_measure(const tm_floor_batch_t *b, unsigned rounds, double *scratch,
                       tm_floors_t *out);

/** @brief The floors' lines of the table, at the @p nn sizes @p n. */
void tm_floors_table(FILE *f, const size_t *n, const tm_floors_t *fl, size_t nn);

/** @brief The JSON member "memory_floor", at the @p nn sizes @p n. */
void tm_floors_json(bench_jw_t *w, const size_t *n, const tm_floors_t *fl, size_t nn);

/** @brief The results of Fig. 3 and Fig. 4. */
typedef struct tm_paper {
  /* Fig. 3: modes tickless, ticked, hardware (the HTM, up to its slots) */
  unsigned f3_tasks[8];  /**< task counts */
  size_t f3_n;           /**< how many */
  double f3_instr[3][8]; /**< instructions [mode][count] */
  bool f3_valid[3][8];   /**< measured [mode][count] */
  bool f3_have;          /**< callgrind ran */
  /* Fig. 4: host ns (software modes) and instructions (all three) */
  unsigned f4_tasks[4];       /**< task counts */
  unsigned f4_period_ms[3];   /**< periods */
  size_t f4_nt, f4_np;        /**< how many of each */
  double f4_ns[2][4][3];      /**< host ns per simulated second [mode][tasks][period] */
  uint64_t f4_wakes[2][4][3]; /**< wake-ups in that second */
  double f4_instr[3][4][3];   /**< instructions per simulated second */
  bool f4_valid[3][4][3];     /**< measured */
  bool f4_have;               /**< callgrind ran */
} tm_paper_t;

/** @brief The instance the figures' managers run on (SIM_MTIME64). */
void tm_paper_use(const utim_periph_t *p);

/** @brief The task counts and periods of a full or a quick run. */
void tm_paper_plan(tm_paper_t *f, bool quick);

/** @brief Fig. 4 in host ns, software modes: the median of @p rounds (at most 32). */
void tm_paper_measure(tm_paper_t *f, unsigned long rounds);

/**
 * @brief The callgrind child's part: every Fig. 3 delivery and Fig. 4 second once.
 * @return 0, or 1 after a message
 */
int tm_paper_child(bool quick);

/**
 * @brief Fig. 3 and Fig. 4 in instructions: the child run under callgrind.
 * @return 0, or -1 with the reason in @p err
 */
int tm_paper_count(tm_paper_t *f, const char *valgrind, bool quick, char *err, size_t cap);

/** @brief The figures' part of the table. */
void tm_paper_table(FILE *f, const tm_paper_t *r);

/** @brief The figures' members of the JSON document ("fig3", "fig4"). */
void tm_paper_json(bench_jw_t *w, const tm_paper_t *r);

/** @brief Part 1's figures for one workload, structure and N. */
typedef struct cost {
  double start_ns;     /**< median ns per start */
  double stop_ns;      /**< median ns per stop */
  double expiry_ns;    /**< median ns per expiry */
  double start_instr;  /**< instructions per start (callgrind) */
  double stop_instr;   /**< instructions per stop (callgrind) */
  double expiry_instr; /**< instructions per expiry (callgrind) */
  bool measured;       /**< the ns figures are */
  bool have_instr;     /**< the instruction figures are */
  size_t ops;          /**< operations per timed batch */
} cost_t;

/** @brief Everything `utim-bench tm` reports (cmd_tm.c fills it, tm_output.c writes it). */
typedef struct tm_report {
  unsigned long rounds;                       /**< timed rounds per figure */
  unsigned long seed;                         /**< seed of the random timeouts */
  const char *inst;                           /**< the instance of the expiries */
  const char *inst_ops;                       /**< the instance of the starts and stops */
  cost_t cost[W_COUNT][S_COUNT][TM_NS_COUNT]; /**< part 1 */
  size_t nn;                                  /**< how many of tm_n_list were measured */
  char cg_note[320];                          /**< how the instructions were counted */
  double uv_idle_ns;                          /**< an empty uv_run(UV_RUN_NOWAIT), subtracted */
  tm_floors_t floor[TM_NS_COUNT];             /**< the memory floors (tm_floor.c) */
  tm_paper_t paper;                           /**< parts 2 and 3 (tm_paper.c) */
} tm_report_t;

/** @brief The table and JSON writer of a tm_report_t (tm_output.c). */
extern const bench_writer_t tm_report_writer;

#endif /* UTIM_BENCH_TM_BENCH_H */
