/**
 * @file board_test.h
 * @brief Hooks a board provides to the test suites, so that the suites stay
 *        board-independent.
 *
 * The sim board implements them in board_test_sim.c (virtual time, race
 * injection); an MCU board implements them with busy loops and reports that
 * it cannot inject races (the race loops then run once).
 *
 * "Ticks" below are ticks of the instance's current frequency (utim_freq());
 * the hooks measure time, not the counter, so they also work on a stopped
 * counter.
 */
#ifndef UTIM_TEST_BOARD_TEST_H
#define UTIM_TEST_BOARD_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Condition polled by tb_wait_until(). */
typedef bool (*tb_cond_t)(const void *ctx);

/** @brief Short name of the board for test output (e.g. "sim"). */
const char *tb_board_name(void);

/**
 * @brief Bring the board to a known state before each test (sim: sim_reset(),
 *        default access and relax costs). Does not touch utim's RAM state.
 */
void tb_setup(void);

/** @brief Let a little time pass (sim: about a microsecond of virtual time). */
void tb_idle(void);

/**
 * @brief Let at least @p ticks ticks of @p p's clock pass. Interrupts are
 *        delivered meanwhile. @p p must be initialised.
 */
void tb_wait_ticks(const utim_periph_t *p, uint64_t ticks);

/**
 * @brief Let time pass, one tick of @p p at a time, until @p cond(@p ctx) holds
 *        or @p limit ticks passed.
 * @return whether @p cond held
 */
bool tb_wait_until(const utim_periph_t *p, tb_cond_t cond, const void *ctx, uint64_t limit);

/**
 * @brief Callback latency allowance of @p p, in ticks at its current
 *        frequency: the most ticks between an event and the start of its
 *        callback that the board accepts (at least 1).
 */
uint64_t tb_latency_ticks(const utim_periph_t *p);

/**
 * @brief The longest single wait, in ticks of @p p, a test should ask for.
 *        Tests needing more (e.g. a wrap of a wide counter) write the counter
 *        closer to the event, pick a faster frequency, or skip.
 */
uint64_t tb_long_wait_ticks(const utim_periph_t *p);

/**
 * @name Race injection
 *
 * A race test measures how many register accesses an operation makes
 * (tb_race_mark() before a dry run, tb_race_count() after), then repeats the
 * operation with time advanced before each of these accesses in turn:
 *
 *     for (unsigned k = 0; k <= n; k++) { prepare(); tb_race_set(p, k, t); op(); tb_race_cancel();
 * }
 *
 * Boards that cannot inject report tb_race_count() == 0, so the loop runs once.
 * @{
 */
/** @brief Whether the board can inject time between register accesses. */
bool tb_race_supported(void);

/** @brief A mark of the board's register access count, for tb_race_count(). */
uint64_t tb_race_mark(void);

/** @brief Register accesses made since @p mark (0 when injection is not supported). */
unsigned tb_race_count(uint64_t mark);

/**
 * @brief Before register access number @p k (from 0) counted from now, let
 *        @p ticks ticks of @p p pass (interrupts are delivered then, if not
 *        locked). No effect on boards without injection.
 */
void tb_race_set(const utim_periph_t *p, unsigned k, uint64_t ticks);

/** @brief Drop an injection that has not happened yet. */
void tb_race_cancel(void);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TEST_BOARD_TEST_H */
