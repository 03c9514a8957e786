/*
 * The fixture test_tm_sim's cases share (tm_sim.c): the seeded random
 * source, the instance under test, the manager on it, a reference time from
 * virtual time, and the three modes each instance runs. The cases:
 * test_tm_sim.c (argument errors, arming, far timeouts, the system time,
 * and main) and tm_sim_model.c (the random runs against models).
 */
#ifndef UTIM_TEST_TM_SIM_H
#define UTIM_TEST_TM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/tm.h"
#include "utim/utim.h"

/* Modular time: a difference of 2^63 or more is "behind". */
#define HALF ((uint64_t)1 << 63)

/* The modes each instance runs: tickless and ticked on channel 0, and
 * ticked on the overflow. */
#define N_MODES 3u

/* --seed and --ops (the random runs). */
extern unsigned long long opt_seed;
extern unsigned long long opt_ops;

/* The random source's state, and its next number. */
extern uint64_t rng_state;
uint64_t rnd(void);

/* The instance under test, its frequency, the virtual time of the
 * manager's init, and the manager. */
extern const utim_periph_t *inst;
extern uint32_t hz;
extern uint64_t t_init_ns;
extern utim_tm_t tm;

/* Counter ticks since the manager started, from virtual time. */
uint64_t ref_ticks(void);

/* @p ticks of the instance in ns, rounded up. */
uint64_t ns_of(uint64_t ticks);

/* Half the counter's range in ns, capped at 2 ms. */
uint64_t half_range_ns(const utim_periph_t *p);

/* A fresh sim with @p p initialised and counting, no manager yet. */
bool setup_inst(const utim_periph_t *p);

/* setup_inst(), then the manager on it (a failure fails the case). */
bool setup(const utim_periph_t *p, unsigned ch, utim_tm_mode_t mode, uint64_t tick);

/* The ticked mode's tick: about 50 us, at most half the counter's range. */
uint64_t tick_for(const utim_periph_t *p);

/* The modes' names, whether @p p runs mode number @p mode, and its tick. */
extern const char *const mode_names[N_MODES];
bool mode_runs(const utim_periph_t *p, unsigned mode);
uint64_t mode_tick(const utim_periph_t *p, unsigned mode);

/* The random runs against models (tm_sim_model.c), on instance @p arg. */
void t_random(void *arg);
void t_tasks(void *arg);

/* The pacing cases (tm_sim_pace.c), on instance @p arg. */
void t_chain(void *arg);
void t_chain_kept_up(void *arg);
void t_tick_chain(void *arg);
void t_tick_cost_grows(void *arg);
void t_tick_min_distance(void *arg);
void t_tick_paced_range(void *arg);

#endif /* UTIM_TEST_TM_SIM_H */
