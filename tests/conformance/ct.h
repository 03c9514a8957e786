/**
 * @file ct.h
 * @brief Internals of the conformance suite, shared by its files and by
 *        nothing else: the event recorder (ct_recorder.c), the helpers
 *        (ct_helpers.c), the reference frequency computations (ct_freqref.c)
 *        and the cases (case_*.c, listed in ct_cases.h).
 *
 * Every case runs on every instance of the board and is gated on the
 * instance's capabilities and static properties, never on its name. Time is
 * let pass through board_test.h, so the same suite runs on sim (virtual time,
 * race injection) and on targets. Freestanding: no heap, no libc output.
 */
#ifndef UTIM_TEST_CT_H
#define UTIM_TEST_CT_H

#include <stdbool.h>
#include <stdint.h>

#include "board_test.h"
#include "ct_cases.h"
#include "harness.h"
#include "utim/utim.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Sized for small targets (a micro:bit has 16 KB of RAM): about 6 KB of
 * event log on a 32-bit target and 4 KB of frequency lists.
 */
#ifndef CT_MAX_INST
/** @brief Instances the suite covers, at most. */
#define CT_MAX_INST 32u
#endif
#ifndef CT_MAX_EV
/** @brief Callbacks one test can record; more are counted as lost. */
#define CT_MAX_EV 256u
#endif
#ifndef CT_MAX_FREQS
/** @brief Entries of a frequency list buffer. */
#define CT_MAX_FREQS 512u
#endif
/** @brief Channel of a recorded overflow callback. */
#define CT_OVF (-1)

/* ---- event recorder (ct_recorder.c) ------------------------------------- */

/**
 * @brief Where the test was when a callback ran: lets a test tell a callback
 *        that legitimately ran before an operation from one that ran during
 *        or after it.
 */
enum ct_phase { CT_BEFORE = 0, CT_IN = 1, CT_AFTER = 2 };

/** @brief One recorded callback. */
typedef struct ct_ev {
  const utim_periph_t *p; /**< instance */
  void *arg;              /**< argument the callback got */
  uint64_t at;            /**< counter read by the callback */
  int ch;                 /**< channel, or CT_OVF */
  int phase;              /**< enum ct_phase when the callback ran */
} ct_ev_t;

/** @brief Optional action a test runs from the compare callback, after recording. */
typedef void (*ct_action_t)(const utim_periph_t *p, unsigned ch);

/** @brief Per-instance callback arguments: instance i gets &ct_cookie[i]. */
extern unsigned char ct_cookie[CT_MAX_INST];

/** @brief Compare callback: records the event, then runs the action (if any). */
void ct_cmp_cb(const utim_periph_t *p, unsigned ch, void *arg);

/** @brief Overflow callback: records the event. */
void ct_ovf_cb(const utim_periph_t *p, void *arg);

/** @brief Empty the log and the lost count, drop the action, phase CT_BEFORE. */
void ct_ev_reset(void);

/** @brief Callbacks recorded since the last ct_ev_reset(). */
unsigned ct_count(void);

/**
 * @brief A copy of recorded event @p i; all zero when fewer than @p i + 1
 *        events are recorded (so failure messages may name it unguarded).
 */
ct_ev_t ct_event(unsigned i);

/** @brief Callbacks not recorded because the log was full. */
unsigned ct_lost_count(void);

/** @brief Set the phase the next callbacks record (enum ct_phase). */
void ct_set_phase(int phase);

/**
 * @brief Set the action the compare callback runs after recording (NULL:
 *        none). Whatever the action reads must be written before this call.
 */
void ct_set_action(ct_action_t fn);

/** @brief Events recorded in phase @p min_phase or later. */
unsigned ct_count_from(int min_phase);

/** @brief The first event recorded in phase @p min_phase or later, or NULL. */
const ct_ev_t *ct_first_from(int min_phase);

/** @brief Counter value of ct_first_from(@p min_phase), for messages (0 when none). */
uint64_t ct_first_at(int min_phase);

/* ---- helpers (ct_helpers.c, the small ones inline here) ------------------ */

/** @brief Whether @p p has capability @p cap. */
static inline bool ct_has(const utim_periph_t *p, uint32_t cap) {
  return (utim_caps(p) & cap) != 0u;
}

/** @brief The larger of @p a and @p b. */
static inline uint64_t ct_max64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}

/** @brief The smaller of @p a and @p b. */
static inline uint64_t ct_min64(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

/** @brief Ticks from @p from forward to @p to, modulo the counter's range. */
static inline uint64_t ct_dist(const utim_periph_t *p, uint64_t from, uint64_t to) {
  return (to - from) & utim_max(p);
}

/** @brief @p a + @p d modulo the counter's range. */
static inline uint64_t ct_add(const utim_periph_t *p, uint64_t a, uint64_t d) {
  return (a + d) & utim_max(p);
}

/** @brief The board's callback latency allowance for @p p, in ticks. */
static inline uint64_t ct_lat(const utim_periph_t *p) {
  return tb_latency_ticks(p);
}

/** @brief Minimum compare distance of @p p. */
static inline uint64_t ct_md(const utim_periph_t *p) {
  return utim_min_distance(p);
}

/** @brief A full wrap of the counter, or @p cap ticks when a wrap is longer. */
static inline uint64_t ct_wrap_or(const utim_periph_t *p, uint64_t cap) {
  uint64_t max = utim_max(p);
  return max < cap ? max + 1u : cap;
}

/** @brief The callback argument of @p p (its ct_cookie entry). */
void *ct_arg(const utim_periph_t *p);

/** @brief Number of bits set in @p v. */
unsigned ct_popcount(uint32_t v);

/** @brief Whether strings @p a and @p b are equal. */
bool ct_streq(const char *a, const char *b);

/** @brief Property @p id of @p p, checked to be readable (UINT64_MAX if not). */
uint64_t ct_prop(const utim_periph_t *p, unsigned id);

/** @brief Read the counter @p n times: varies the phase of what follows within a tick. */
void ct_jitter(const utim_periph_t *p, unsigned n);

/**
 * @brief Enter phase CT_IN and clear channel @p ch, with the timer
 *        interrupts held off from just before the phase starts.
 * @return utim_clear()'s result
 */
int ct_clear_now(const utim_periph_t *p, unsigned ch);

/** @brief How many utim_read() calls surely fit between two ticks (1..37). */
unsigned ct_reads_per_tick(const utim_periph_t *p);

/**
 * @brief Let time pass until the counter reads @p target - 1, then read up
 *        to @p extra more times while it still does, to move within that tick.
 * @return the last value read
 */
uint64_t ct_approach(const utim_periph_t *p, uint64_t target, unsigned extra);

/** @brief utim_init() at @p hz on the default clock, checked. */
bool ct_init(const utim_periph_t *p, uint32_t hz);

/** @brief ct_init(), then utim_start(), checked. */
bool ct_init_start(const utim_periph_t *p, uint32_t hz);

/**
 * @brief How a test gets the counter to wrap: by waiting for it when a wrap
 *        is short enough, else by writing the counter close to its maximum.
 */
enum ct_wrap_mode { CT_WRAP_NONE, CT_WRAP_WAIT, CT_WRAP_WRITE };

/** @brief The way @p p can be made to wrap. */
enum ct_wrap_mode ct_wrap_mode(const utim_periph_t *p);

/** @brief Make the running counter wrap once; returns with the counter just past 0. */
void ct_cause_wrap(const utim_periph_t *p, enum ct_wrap_mode mode);

/**
 * @brief Check that the events of channel @p ch from phase CT_IN on lie on
 *        the grid start + k * @p period, start within [@p s, @p e] (the
 *        arming call), each within the latency; the first @p want are checked.
 * @return the number of such events
 */
unsigned ct_check_grid(const utim_periph_t *p, unsigned ch, uint64_t s, uint64_t e, uint64_t period,
                       unsigned want);

/**
 * @brief One relative arming of @p n ticks on channel @p ch and its
 *        callback, checked against the documented bound. With @p adv > 0,
 *        @p adv ticks pass before register access @p k of the call. Repeated
 *        on boards without race injection when the callback was only late.
 */
void ct_rel_once(const utim_periph_t *p, unsigned ch, uint64_t n, unsigned k, uint64_t adv);

/**
 * @name Grid tally of a periodic channel
 * An action (ct_set_action()) that accounts for the grid points the
 * callbacks of a periodic channel stand for: each callback its own grid
 * point (the first not yet accounted for) plus utim_overrun(). It counts
 * callbacks that run before their own grid point of ref + k * period, and
 * may busy-wait in each callback to make them slow.
 * @{
 */
/** @brief What the tally found. */
typedef struct ct_tally {
  unsigned credit; /**< grid points the callbacks stood for (1 + overrun each) */
  unsigned early;  /**< callbacks before their own grid point */
  unsigned ov_max; /**< the largest overrun of one callback */
} ct_tally_t;

/**
 * @brief Start a tally (and set it as the callback action): the grid is
 *        @p ref + k * @p period, with @p ref read before the arming call;
 *        each callback busy-waits @p spin ticks.
 */
void ct_tally_begin(uint64_t ref, uint64_t period, uint64_t spin);

/** @brief The tally so far. */
ct_tally_t ct_tally(void);
/** @} */

/* ---- reference frequencies (ct_freqref.c), from the clock descriptions --- */

/** @brief Scratch list of the reference computations (also for the cases). */
extern uint32_t ct_fbuf2[CT_MAX_FREQS];

/** @brief Whether clock input @p c can clock the instance on its own. */
bool ct_usable(const utim_clock_desc_t *c);

/** @brief Whether input @p c reaches exactly @p f with one of its dividers. */
bool ct_achievable_on(const utim_clock_desc_t *c, uint32_t f);

/** @brief Whether an input selected by @p clock (UTIM_CLOCK_*) reaches @p f. */
bool ct_achievable(const utim_periph_t *p, unsigned clock, uint32_t f);

/**
 * @brief Reference list of the integer frequencies of input @p c, highest
 *        first, into @p out.
 * @return the total (entries beyond @p cap are counted, not stored), or -1
 *         when the divider range is too large to enumerate here
 */
long ct_expect_freqs(const utim_clock_desc_t *c, uint32_t *out, unsigned cap);

/**
 * @brief Reference closest frequency to @p q for selector @p clock (ties go
 *        to the lower), into @p best.
 * @return whether any input of the selector gives a frequency
 */
bool ct_ref_closest(const utim_periph_t *p, unsigned clock, uint32_t q, uint32_t *best);

/** @brief Highest achievable frequency of the instance (0 if none). */
uint32_t ct_hz_fastest(const utim_periph_t *p);

/** @brief A frequency no input reaches (0 if none found): just above the fastest. */
uint32_t ct_hz_unachievable(const utim_periph_t *p);

/** @brief A frequency below the fastest that no input reaches (0 if none found). */
uint32_t ct_hz_gap(const utim_periph_t *p);

/**
 * @brief Frequency for timing tests: an achievable one near 1 MHz, so a tick
 *        is long compared with a register access and short enough for quick
 *        tests (0 if none).
 */
uint32_t ct_hz_test(const utim_periph_t *p);

/**
 * @brief Common start of the channel tests: name the instance in failure
 *        messages, skip it when it has no channels, else initialise it at the
 *        test frequency and start it.
 * @return whether the test goes on (then the instance has channels)
 */
static inline bool ct_begin_channels(const utim_periph_t *p) {
  /* Inline so that the static analyser sees that the channel count is not
   * 0 after it (the cases divide by it). */
  th_context("%s", utim_name(p));
  if (utim_channels(p) == 0u) {
    th_skip("no channels");
    return false;
  }
  return ct_init_start(p, ct_hz_test(p));
}

/* ---- cases (case_*.c) ------------------------------------------------------ */

/** @brief Instance look-up by index and name; runs once, before the per-instance cases. */
void ct_case_lookup(void *unused);

/** @brief Declares the function of one registry entry (see ct_cases.h). */
#define CT_CASE_DECLARE(fn, name) void fn(const utim_periph_t *p);
CT_CASES(CT_CASE_DECLARE)
#undef CT_CASE_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TEST_CT_H */
