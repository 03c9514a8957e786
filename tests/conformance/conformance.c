/**
 * @file conformance.c
 * @brief The utim conformance suite (see conformance.h).
 *
 * Every test runs on every instance of the board and is gated on the
 * instance's capabilities and static properties, never on its name. Time is
 * let pass through board_test.h, so the same suite runs on sim (virtual time,
 * race injection) and on targets.
 */
#include "conformance.h"

#include "board_test.h"
#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"

/* ---- event recorder ----------------------------------------------------- */

/* Sized for small targets (a micro:bit has 16 KB of RAM): about 6 KB of
 * event log on a 32-bit target and 4 KB of frequency lists. */
#ifndef CT_MAX_INST
#define CT_MAX_INST 32u
#endif
#ifndef CT_MAX_EV
#define CT_MAX_EV 256u
#endif
#ifndef CT_MAX_FREQS
#define CT_MAX_FREQS 512u
#endif
#define CT_OVF (-1)

/* Where the test was when a callback ran: lets a test tell a callback that
 * legitimately ran before an operation from one that ran during or after it. */
enum ct_phase { CT_BEFORE = 0, CT_IN = 1, CT_AFTER = 2 };

typedef struct ct_ev {
  const utim_periph_t *p;
  void *arg;
  uint64_t at; /* counter read by the callback */
  int ch;      /* channel, or CT_OVF */
  int phase;
} ct_ev_t;

static ct_ev_t ct_ev[CT_MAX_EV];
static volatile unsigned ct_nev;
static volatile unsigned ct_lost;
static volatile int ct_phase;
static unsigned char ct_cookie[CT_MAX_INST];
static uint32_t ct_fbuf[CT_MAX_FREQS];
static uint32_t ct_fbuf2[CT_MAX_FREQS];

static void ct_record(const utim_periph_t *p, int ch, void *arg) {
  if (ct_nev < CT_MAX_EV) {
    ct_ev[ct_nev] = (ct_ev_t){p, arg, utim_read(p), ch, ct_phase};
    ct_nev = ct_nev + 1u;
  } else {
    ct_lost = ct_lost + 1u;
  }
}

/* Optional action a test runs from the compare callback, after recording. */
static void (*volatile ct_action)(const utim_periph_t *p, unsigned ch);

static void ct_cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  ct_record(p, (int)ch, arg);
  if (ct_action != NULL) {
    ct_action(p, ch);
  }
}

static void ct_ovf_cb(const utim_periph_t *p, void *arg) {
  ct_record(p, CT_OVF, arg);
}

static void ct_ev_reset(void) {
  ct_action = NULL;
  ct_nev = 0;
  ct_lost = 0;
  ct_phase = CT_BEFORE;
}

/* Events recorded in phase @p min_phase or later. */
static unsigned ct_count_from(int min_phase) {
  unsigned n = 0;
  for (unsigned i = 0; i < ct_nev; i++) {
    n += ct_ev[i].phase >= min_phase ? 1u : 0u;
  }
  return n;
}

static const ct_ev_t *ct_first_from(int min_phase) {
  for (unsigned i = 0; i < ct_nev; i++) {
    if (ct_ev[i].phase >= min_phase) {
      return &ct_ev[i];
    }
  }
  return NULL;
}

/* Counter value of the first such event, for messages (0 when none). */
static uint64_t ct_first_at(int min_phase) {
  const ct_ev_t *ev = ct_first_from(min_phase);
  return ev == NULL ? 0u : ev->at;
}

/* ---- helpers ------------------------------------------------------------ */

static unsigned ct_index(const utim_periph_t *p) {
  for (unsigned i = 0; i < utim_count() && i < CT_MAX_INST; i++) {
    if (utim_by_index(i) == p) {
      return i;
    }
  }
  return 0;
}

static void *ct_arg(const utim_periph_t *p) {
  return &ct_cookie[ct_index(p)];
}

static bool ct_has(const utim_periph_t *p, uint32_t cap) {
  return (utim_caps(p) & cap) != 0u;
}

static uint64_t ct_max64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}

static uint64_t ct_min64(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

/* Ticks from @p from forward to @p to, modulo the counter's range. */
static uint64_t ct_dist(const utim_periph_t *p, uint64_t from, uint64_t to) {
  return (to - from) & utim_max(p);
}

static uint64_t ct_add(const utim_periph_t *p, uint64_t a, uint64_t d) {
  return (a + d) & utim_max(p);
}

static uint64_t ct_lat(const utim_periph_t *p) {
  return tb_latency_ticks(p);
}

static uint64_t ct_md(const utim_periph_t *p) {
  return utim_min_distance(p);
}

/* A full wrap of the counter, or @p cap ticks when a wrap is longer. */
static uint64_t ct_wrap_or(const utim_periph_t *p, uint64_t cap) {
  uint64_t max = utim_max(p);
  return max < cap ? max + 1u : cap;
}

static unsigned ct_popcount(uint32_t v) {
  unsigned n = 0;
  for (; v != 0u; v &= v - 1u) {
    n++;
  }
  return n;
}

static bool ct_streq(const char *a, const char *b) {
  for (; *a != '\0' && *a == *b; a++, b++) {
  }
  return *a == *b;
}

static uint64_t ct_prop(const utim_periph_t *p, unsigned id) {
  uint64_t v = UINT64_MAX;
  TH_CHECKF(utim_get_property(p, id, &v) == 0, "property %u", id);
  return v;
}

/* Read the counter @p n times: varies the phase of what follows within a tick. */
static void ct_jitter(const utim_periph_t *p, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    (void)utim_read(p);
  }
}

/* Let time pass until the counter reads @p target - 1, then read up to
 * @p extra more times while it still does, to move within that tick.
 * Returns the last value read. */
/*
 * Enter the "in clear" phase and clear, with the timer interrupts held off
 * from just before the phase starts: a match that happens before the call
 * (after the test's last read) then counts as cleared, not as a callback
 * during the call. Returns utim_clear()'s result.
 */
static int ct_clear_now(const utim_periph_t *p, unsigned ch) {
  uint32_t key = utim_port_lock();
  ct_phase = CT_IN;
  int r = utim_clear(p, ch);
  utim_port_unlock(key);
  return r;
}

/*
 * How many utim_read() calls surely fit between two ticks: the fewest reads
 * seen showing one counter value, over a few ticks (at least 1, at most 37).
 */
static unsigned ct_reads_per_tick(const utim_periph_t *p) {
  unsigned best = 37u;
  for (unsigned round = 0; round < 8u; round++) {
    uint64_t c = utim_read(p);
    uint64_t v = c;
    for (unsigned guard = 0; v == c && guard < 1000000u; guard++) {
      v = utim_read(p); /* wait for a tick edge */
    }
    unsigned n = 0;
    for (uint64_t w = v; w == v && n < 1000000u; n++) {
      w = utim_read(p);
    }
    if (n < best) {
      best = n;
    }
  }
  return best > 1u ? best - 1u : 1u;
}

static uint64_t ct_approach(const utim_periph_t *p, uint64_t target, unsigned extra) {
  uint64_t half = utim_max(p) / 2u;
  uint64_t c = utim_read(p);
  uint64_t rem = ct_dist(p, c, target);
  /* Wait to two ticks before, then spin on reads: waits may overshoot a little. */
  if (rem >= 3u && rem <= half) {
    tb_wait_ticks(p, rem - 2u);
  }
  c = utim_read(p);
  for (unsigned guard = 0; guard < 1000000u; guard++) {
    rem = ct_dist(p, c, target);
    if (rem <= 1u || rem > half) {
      break;
    }
    c = utim_read(p);
  }
  for (unsigned i = 0; i < extra && ct_dist(p, c, target) == 1u; i++) {
    c = utim_read(p);
  }
  return c;
}

/* ---- clock inputs and frequencies (reference computed from the descriptions) */

static bool ct_usable(const utim_clock_desc_t *c) {
  return c != NULL && c->hz != 0u && c->cls != UTIM_CLASS_CHAIN;
}

static bool ct_div_ok(const utim_clock_desc_t *c, uint64_t d) {
  if (d == 0u) {
    return false;
  }
  if (c->div_kind == UTIM_DIV_POW2) {
    if ((d & (d - 1u)) != 0u) {
      return false;
    }
    unsigned e = 0;
    while ((d >> e) != 1u) {
      e++;
    }
    return e >= c->div_lo && e <= c->div_hi;
  }
  return d >= c->div_lo && d <= c->div_hi;
}

static bool ct_achievable_on(const utim_clock_desc_t *c, uint32_t f) {
  return ct_usable(c) && f != 0u && c->hz % f == 0u && ct_div_ok(c, c->hz / f);
}

/* Whether clock selector @p clock (UTIM_CLOCK_*) includes input @p i. */
static bool ct_selects(const utim_periph_t *p, unsigned clock, unsigned i) {
  const utim_clock_desc_t *c = utim_clock(p, i);
  if (!ct_usable(c)) {
    return false;
  }
  switch (clock) {
  case UTIM_CLOCK_DEFAULT:
    return true;
  case UTIM_CLOCK_HF:
    return c->cls == UTIM_CLASS_HF;
  case UTIM_CLOCK_LP:
    return c->cls == UTIM_CLASS_LP;
  default:
    return clock == UTIM_CLOCK_PLATFORM(i);
  }
}

static bool ct_achievable(const utim_periph_t *p, unsigned clock, uint32_t f) {
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    if (ct_selects(p, clock, i) && ct_achievable_on(utim_clock(p, i), f)) {
      return true;
    }
  }
  return false;
}

/* Reference list of the integer frequencies of input @p c, highest first.
 * Returns the total (entries beyond @p cap are counted, not stored), or -1
 * when the divider range is too large to enumerate here. */
static long ct_expect_freqs(const utim_clock_desc_t *c, uint32_t *out, unsigned cap) {
  long n = 0;
  if (!ct_usable(c)) {
    return 0;
  }
  if (c->div_kind == UTIM_DIV_POW2) {
    for (uint32_t e = c->div_lo; e <= c->div_hi && e < 32u; e++) {
      uint32_t d = 1u << e;
      if (c->hz % d == 0u) {
        if ((unsigned long)n < cap) {
          out[n] = c->hz / d;
        }
        n++;
      }
    }
    return n;
  }
  uint32_t lo = c->div_lo == 0u ? 1u : c->div_lo;
  uint32_t hi = c->div_hi < c->hz ? c->div_hi : c->hz;
  if (hi >= lo && hi - lo > (1u << 22)) {
    return -1;
  }
  for (uint32_t d = lo; d <= hi && d != 0u; d++) {
    if (c->hz % d == 0u) {
      if ((unsigned long)n < cap) {
        out[n] = c->hz / d;
      }
      n++;
    }
    if (d == UINT32_MAX) {
      break;
    }
  }
  return n;
}

/* Reference closest frequency for selector @p clock: ties go to the lower. */
static bool ct_ref_closest(const utim_periph_t *p, unsigned clock, uint32_t q, uint32_t *best) {
  bool found = false;
  uint64_t bd = 0;
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    if (!ct_selects(p, clock, i)) {
      continue;
    }
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf2, CT_MAX_FREQS);
    for (long k = 0; k < n && k < (long)CT_MAX_FREQS; k++) {
      uint32_t f = ct_fbuf2[k];
      uint64_t d = f > q ? (uint64_t)f - q : (uint64_t)q - f;
      if (!found || d < bd || (d == bd && f < *best)) {
        found = true;
        bd = d;
        *best = f;
      }
    }
  }
  return found;
}

/* Highest achievable frequency of the instance (0 if none). */
static uint32_t ct_hz_fastest(const utim_periph_t *p) {
  uint32_t best = 0;
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf2, 1u);
    if (n > 0 && ct_fbuf2[0] > best) {
      best = ct_fbuf2[0];
    }
  }
  return best;
}

/* A frequency no input reaches (0 if none found): just above the fastest. */
static uint32_t ct_hz_unachievable(const utim_periph_t *p) {
  uint32_t f = ct_hz_fastest(p);
  return f != 0u && f < UINT32_MAX ? f + 1u : 0u;
}

/* A frequency below the fastest that no input reaches (0 if none found). */
static uint32_t ct_hz_gap(const utim_periph_t *p) {
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf2, CT_MAX_FREQS);
    for (long k = 0; k < n && k < (long)CT_MAX_FREQS; k++) {
      uint32_t f = ct_fbuf2[k];
      if (f > 2u && !ct_achievable(p, UTIM_CLOCK_DEFAULT, f - 1u)) {
        return f - 1u;
      }
    }
  }
  return 0;
}

/* Frequency for timing tests: an achievable one near 1 MHz, so a tick is
 * long compared with a register access and short enough for quick tests. */
static uint32_t ct_hz_test(const utim_periph_t *p) {
  uint32_t f = 0;
  if (utim_closest_freq(p, 1000000u, UTIM_CLOCK_DEFAULT, &f) != 0) {
    return 0;
  }
  return f;
}

static bool ct_init(const utim_periph_t *p, uint32_t hz) {
  if (!TH_CHECKF(hz != 0u, "no usable frequency")) {
    return false;
  }
  int r = utim_init(p, hz, UTIM_CLOCK_DEFAULT);
  return TH_CHECKF(r == 0, "utim_init(%lu Hz) = %d", (unsigned long)hz, r);
}

static bool ct_init_start(const utim_periph_t *p, uint32_t hz) {
  return ct_init(p, hz) && TH_EQ(utim_start(p), 0);
}

/*
 * Common start of the channel tests: name the instance in failure messages,
 * skip it when it has no channels, else initialise it at the test frequency
 * and start it. Returns whether the test goes on.
 */
static bool ct_begin_channels(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (utim_channels(p) == 0u) {
    th_skip("no channels");
    return false;
  }
  return ct_init_start(p, ct_hz_test(p));
}

/* How a test gets the counter to wrap: by waiting for it when a wrap is
 * short enough, else by writing the counter close to its maximum. */
enum ct_wrap_mode { CT_WRAP_NONE, CT_WRAP_WAIT, CT_WRAP_WRITE };

static enum ct_wrap_mode ct_wrap_mode(const utim_periph_t *p) {
  if (utim_width(p) < 64u && utim_max(p) + 1u <= tb_long_wait_ticks(p) / 2u) {
    return CT_WRAP_WAIT;
  }
  return ct_has(p, UTIM_CAP_WRITE) ? CT_WRAP_WRITE : CT_WRAP_NONE;
}

/* Make the running counter wrap once; returns with the counter just past 0. */
static void ct_cause_wrap(const utim_periph_t *p, enum ct_wrap_mode mode) {
  uint64_t m = 40u + 2u * ct_lat(p);
  if (mode == CT_WRAP_WRITE) {
    TH_EQ(utim_write(p, utim_max(p) - m), 0);
    tb_wait_ticks(p, m + 3u);
  } else {
    uint64_t c = utim_read(p);
    tb_wait_ticks(p, ct_dist(p, c, utim_max(p)) + 3u);
  }
}

/* ---- tests -------------------------------------------------------------- */

/* Must run before anything initialises the instance: there is no way back
 * to the uninitialised state through the uAPI. */
static void t_uninit(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (utim_freq(p) != 0u) {
    TH_SKIP("already initialised before this test");
  }
  TH_EQU(ct_prop(p, UTIM_PROP_FREQ), 0);
  TH_EQ(utim_start(p), -EINVAL);
  TH_EQ(utim_stop(p), -EINVAL);
  if (utim_channels(p) > 0u) {
    TH_EQ(utim_set_abs(p, 0, 1u), -EINVAL);
    TH_EQ(utim_set_rel(p, 0, 1u), -EINVAL);
    TH_EQ(utim_set_periodic(p, 0, ct_md(p) + 10u), -EINVAL);
  }
  TH_EQ(utim_init(p, 0u, UTIM_CLOCK_DEFAULT), -EINVAL);
  uint32_t bad = ct_hz_unachievable(p);
  if (bad != 0u) {
    TH_EQ(utim_init(p, bad, UTIM_CLOCK_DEFAULT), -ERANGE);
  }
  uint32_t nclk = (uint32_t)ct_prop(p, UTIM_PROP_CLOCKS);
  TH_EQ(utim_init(p, ct_hz_test(p), UTIM_CLOCK_PLATFORM(nclk)), -EINVAL);
  TH_EQU(utim_freq(p), 0);
  TH_EQ(utim_start(p), -EINVAL);
  TH_EQ(ct_nev, 0);
}

static void t_props(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  TH_CHECK(utim_name(p) != NULL && utim_name(p)[0] != '\0');
  TH_CHECK(utim_width(p) >= 1u && utim_width(p) <= 64u);
  TH_EQU(utim_max(p), utim_width(p) == 64u ? UINT64_MAX : (1ull << utim_width(p)) - 1u);
  TH_CHECK(utim_channels(p) <= UTIM_MAX_CHANNELS);
  TH_CHECK(utim_min_distance(p) >= 1u);
  TH_EQU(ct_prop(p, UTIM_PROP_WIDTH), utim_width(p));
  TH_EQU(ct_prop(p, UTIM_PROP_MAX), utim_max(p));
  TH_EQU(ct_prop(p, UTIM_PROP_CHANNELS), utim_channels(p));
  TH_EQU(ct_prop(p, UTIM_PROP_COUNT_DOWN), utim_count_down(p));
  TH_EQU(ct_prop(p, UTIM_PROP_CAPS), utim_caps(p));
  TH_EQU(ct_prop(p, UTIM_PROP_MIN_DISTANCE), utim_min_distance(p));
  unsigned nclk = 0;
  while (utim_clock(p, nclk) != NULL) {
    nclk++;
  }
  TH_CHECK(nclk >= 1u);
  TH_EQU(ct_prop(p, UTIM_PROP_CLOCKS), nclk);
  TH_EQU(ct_prop(p, UTIM_PROP_FREQ), utim_freq(p));

  uint32_t hz = ct_hz_test(p);
  if (!ct_init(p, hz)) {
    return;
  }
  TH_EQU(utim_freq(p), hz);
  TH_EQU(ct_prop(p, UTIM_PROP_FREQ), hz);
  uint64_t clk = ct_prop(p, UTIM_PROP_CLOCK);
  uint64_t div = ct_prop(p, UTIM_PROP_DIVIDER);
  if (TH_CHECKF(clk < nclk, "clock %llu", (unsigned long long)clk)) {
    const utim_clock_desc_t *c = utim_clock(p, (unsigned)clk);
    TH_CHECKF(div != 0u && (uint64_t)hz * div == c->hz,
              "input %llu at %lu Hz, divider property %llu, frequency %lu Hz",
              (unsigned long long)clk, (unsigned long)c->hz, (unsigned long long)div,
              (unsigned long)hz);
  }
  /* Capabilities agree with what the operations report. */
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    TH_EQ(utim_write(p, 0u), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_stop(p), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, NULL), -ENOTSUP);
  }
}

static void t_lookup(void *unused) {
  (void)unused;
  unsigned n = utim_count();
  TH_CHECK(n >= 1u);
  for (unsigned i = 0; i < n; i++) {
    const utim_periph_t *p = utim_by_index(i);
    if (p == NULL) {
      TH_CHECKF(false, "utim_by_index(%u) is NULL", i);
      continue;
    }
    th_context("index %u %s", i, utim_name(p));
    TH_CHECK(utim_by_name(utim_name(p)) == p);
    for (unsigned j = 0; j < i; j++) {
      const utim_periph_t *q = utim_by_index(j);
      TH_CHECKF(q == NULL || !ct_streq(utim_name(q), utim_name(p)), "name shared with index %u", j);
    }
    /* Names are case-sensitive: a lower-case copy must not find it. */
    char lower[64];
    unsigned k = 0;
    bool changed = false;
    for (; utim_name(p)[k] != '\0' && k + 1u < sizeof lower; k++) {
      char c = utim_name(p)[k];
      lower[k] = c;
      if (c >= 'A' && c <= 'Z') {
        lower[k] = "abcdefghijklmnopqrstuvwxyz"[c - 'A'];
      }
      changed = changed || lower[k] != c;
    }
    lower[k] = '\0';
    if (changed && utim_name(p)[k] == '\0') {
      const utim_periph_t *q = utim_by_name(lower);
      TH_CHECKF(q == NULL || ct_streq(utim_name(q), lower), "by_name(\"%s\")", lower);
    }
  }
  th_context("board");
  TH_CHECK(utim_by_index(n) == NULL);
  TH_CHECK(utim_by_index(n + 100u) == NULL);
  TH_CHECK(utim_by_index(~0u) == NULL);
  TH_CHECK(utim_by_name(NULL) == NULL);
  TH_CHECK(utim_by_name("") == NULL);
  TH_CHECK(utim_by_name("NO_SUCH_TIMER_xyzzy") == NULL);
}

static void t_claim(const utim_periph_t *p) {
  int a = 0;
  int b = 0;
  th_context("%s", utim_name(p));
  TH_EQ(utim_claim(p, NULL), -EINVAL);
  TH_EQ(utim_claim(NULL, &a), -EINVAL);
  TH_EQ(utim_release(NULL, &a), -EINVAL);
  TH_EQ(utim_release(p, &a), -EINVAL); /* not claimed */
  TH_EQ(utim_claim(p, &a), 0);
  TH_EQ(utim_claim(p, &a), 0);
  TH_EQ(utim_claim(p, &b), -EBUSY);
  TH_EQ(utim_release(p, &b), -EBUSY);
  TH_EQ(utim_release(p, NULL), -EINVAL);
  /* Advisory: the other functions do not check ownership. */
  TH_EQ(utim_init(p, ct_hz_test(p), UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_start(p), 0);
  /* utim_init() keeps the claim. */
  TH_EQ(utim_claim(p, &b), -EBUSY);
  TH_EQ(utim_release(p, &a), 0);
  TH_EQ(utim_release(p, &a), -EINVAL);
  TH_EQ(utim_claim(p, &b), 0);
  TH_EQ(utim_claim(p, &a), -EBUSY);
  TH_EQ(utim_release(p, &b), 0);
  /* Other instances are independent. */
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *q = utim_by_index(i);
    if (q != p) {
      TH_EQ(utim_claim(p, &a), 0);
      TH_EQ(utim_claim(q, &b), 0);
      TH_EQ(utim_release(q, &b), 0);
      TH_EQ(utim_release(p, &a), 0);
    }
  }
}

static void t_freqs(const utim_periph_t *p) {
  unsigned nclk = 0;
  while (utim_clock(p, nclk) != NULL) {
    nclk++;
  }
  th_context("%s", utim_name(p));
  TH_EQ(utim_freqs(p, nclk, NULL, 0u), -EINVAL);
  TH_EQ(utim_freqs(p, 0u, NULL, 1u), -EINVAL);
  unsigned tested = 0;
  for (unsigned i = 0; i < nclk; i++) {
    const utim_clock_desc_t *c = utim_clock(p, i);
    if (!ct_usable(c)) {
      continue;
    }
    th_context("%s input %u (%lu Hz)", utim_name(p), i, (unsigned long)c->hz);
    long ne = ct_expect_freqs(c, ct_fbuf2, CT_MAX_FREQS);
    int n = utim_freqs(p, i, NULL, 0u);
    if (ne >= 0) {
      TH_EQ(n, ne);
    }
    if (n <= 0) {
      TH_CHECKF(false, "utim_freqs() = %d", n);
      continue;
    }
    TH_EQ(utim_freqs(p, i, ct_fbuf, CT_MAX_FREQS), n);
    unsigned m = (unsigned)ct_min64((uint64_t)n, CT_MAX_FREQS);
    for (unsigned k = 0; k < m; k++) {
      if (ne >= 0) {
        TH_CHECKF(ct_fbuf[k] == ct_fbuf2[k], "entry %u: %lu Hz, expected %lu Hz", k,
                  (unsigned long)ct_fbuf[k], (unsigned long)ct_fbuf2[k]);
      }
      TH_CHECKF(ct_achievable_on(c, ct_fbuf[k]), "entry %u: %lu Hz not reachable", k,
                (unsigned long)ct_fbuf[k]);
      TH_CHECKF(k == 0u || ct_fbuf[k] < ct_fbuf[k - 1u], "entry %u not below entry %u", k, k - 1u);
    }
    /* A short buffer receives the first entries only; the total is still returned. */
    uint32_t small[3] = {0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu};
    TH_EQ(utim_freqs(p, i, small, 1u), n);
    TH_EQU(small[0], ct_fbuf[0]);
    TH_EQU(small[1], 0xdeadbeefu);

    for (unsigned k = 0; k < m; k++) {
      uint32_t f = ct_fbuf[k];
      th_context("%s input %u at %lu Hz", utim_name(p), i, (unsigned long)f);
      tested++;
      if (!TH_EQ(utim_init(p, f, UTIM_CLOCK_PLATFORM(i)), 0)) {
        continue;
      }
      TH_EQU(utim_freq(p), f);
      TH_EQU(ct_prop(p, UTIM_PROP_FREQ), f);
      TH_EQU(ct_prop(p, UTIM_PROP_CLOCK), i);
      TH_EQU(ct_prop(p, UTIM_PROP_DIVIDER), c->hz / f);
      uint64_t c0 = utim_read(p);
      if (ct_has(p, UTIM_CAP_STOP)) {
        TH_EQU(c0, 0);
      } else {
        TH_CHECKF(c0 <= ct_lat(p), "counter %llu after init", (unsigned long long)c0);
      }
      /* DEFAULT picks any input that reaches it, high-frequency inputs first. */
      if (TH_EQ(utim_init(p, f, UTIM_CLOCK_DEFAULT), 0)) {
        uint64_t ck = ct_prop(p, UTIM_PROP_CLOCK);
        const utim_clock_desc_t *cc = utim_clock(p, (unsigned)ck);
        if (TH_CHECKF(cc != NULL, "clock %llu", (unsigned long long)ck)) {
          TH_CHECK(ct_achievable_on(cc, f));
          if (ct_achievable(p, UTIM_CLOCK_HF, f)) {
            TH_CHECKF(cc->cls == UTIM_CLASS_HF, "DEFAULT chose input %llu (class %u)",
                      (unsigned long long)ck, cc->cls);
          }
        }
        TH_EQU(utim_freq(p), f);
      }
      if (c->cls == UTIM_CLASS_HF || c->cls == UTIM_CLASS_LP) {
        unsigned sel = c->cls == UTIM_CLASS_HF ? UTIM_CLOCK_HF : UTIM_CLOCK_LP;
        if (TH_EQ(utim_init(p, f, sel), 0)) {
          const utim_clock_desc_t *cc = utim_clock(p, (unsigned)ct_prop(p, UTIM_PROP_CLOCK));
          TH_CHECK(cc != NULL && cc->cls == c->cls);
        }
      }
      for (unsigned j = 0; j < nclk; j++) {
        if (j != i && !ct_achievable_on(utim_clock(p, j), f)) {
          TH_CHECKF(utim_init(p, f, UTIM_CLOCK_PLATFORM(j)) == -ERANGE, "on input %u", j);
        }
      }
    }
  }
  th_context("%s", utim_name(p));
  TH_CHECK(tested > 0u);
  uint32_t bad = ct_hz_unachievable(p);
  if (bad != 0u) {
    TH_CHECKF(utim_init(p, bad, UTIM_CLOCK_DEFAULT) == -ERANGE, "%lu Hz", (unsigned long)bad);
    TH_CHECKF(utim_init(p, bad, UTIM_CLOCK_PLATFORM(0)) == -ERANGE, "%lu Hz", (unsigned long)bad);
  }
  uint32_t gap = ct_hz_gap(p);
  if (gap != 0u) {
    TH_CHECKF(utim_init(p, gap, UTIM_CLOCK_DEFAULT) == -ERANGE, "%lu Hz", (unsigned long)gap);
  }
}

static void t_closest(const utim_periph_t *p) {
  uint32_t out = 7u;
  th_context("%s", utim_name(p));
  TH_EQ(utim_closest_freq(p, 0u, UTIM_CLOCK_DEFAULT, &out), -EINVAL);
  TH_EQ(utim_closest_freq(p, 1000u, UTIM_CLOCK_DEFAULT, NULL), -EINVAL);
  TH_EQ(utim_closest_freq(p, 1000u, UTIM_CLOCK_PLATFORM((unsigned)ct_prop(p, UTIM_PROP_CLOCKS)),
                          &out),
        -EINVAL);
  static const unsigned sels[] = {UTIM_CLOCK_DEFAULT, UTIM_CLOCK_HF, UTIM_CLOCK_LP};
  for (unsigned i = 0; utim_clock(p, i) != NULL; i++) {
    long n = ct_expect_freqs(utim_clock(p, i), ct_fbuf, CT_MAX_FREQS);
    for (long k = 0; k < n && k < (long)CT_MAX_FREQS; k++) {
      uint32_t f = ct_fbuf[k];
      for (int dq = -1; dq <= 1; dq++) {
        uint32_t q = (uint32_t)((int64_t)f + dq);
        if (q == 0u || (dq > 0 && f == UINT32_MAX)) {
          continue;
        }
        th_context("%s input %u, f = %lu Hz, asking %lu Hz", utim_name(p), i, (unsigned long)f,
                   (unsigned long)q);
        uint32_t want = 0;
        int r = utim_closest_freq(p, q, UTIM_CLOCK_DEFAULT, &out);
        if (TH_EQ(r, 0)) {
          if (ct_ref_closest(p, UTIM_CLOCK_DEFAULT, q, &want)) {
            TH_EQU(out, want);
          }
          if (dq < 0) {
            TH_CHECKF(out + 2u >= f && out <= f, "got %lu", (unsigned long)out);
          } else if (dq > 0) {
            TH_CHECKF(out >= f && out <= f + 2u, "got %lu", (unsigned long)out);
          } else {
            TH_EQU(out, f);
          }
        }
        if (TH_EQ(utim_closest_freq(p, q, UTIM_CLOCK_PLATFORM(i), &out), 0) &&
            ct_ref_closest(p, UTIM_CLOCK_PLATFORM(i), q, &want)) {
          TH_EQU(out, want);
        }
        for (unsigned s = 1; s < sizeof sels / sizeof sels[0]; s++) {
          if (ct_ref_closest(p, sels[s], q, &want)) {
            TH_EQ(utim_closest_freq(p, q, sels[s], &out), 0);
            TH_EQU(out, want);
          }
        }
      }
    }
  }
  uint32_t want = 0;
  th_context("%s extremes", utim_name(p));
  if (ct_ref_closest(p, UTIM_CLOCK_DEFAULT, UINT32_MAX, &want)) {
    TH_EQ(utim_closest_freq(p, UINT32_MAX, UTIM_CLOCK_DEFAULT, &out), 0);
    TH_EQU(out, want);
    TH_EQU(want, ct_hz_fastest(p));
  }
  if (ct_ref_closest(p, UTIM_CLOCK_DEFAULT, 1u, &want)) {
    TH_EQ(utim_closest_freq(p, 1u, UTIM_CLOCK_DEFAULT, &out), 0);
    TH_EQU(out, want);
  }
}

static void t_counter(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (!ct_init(p, ct_hz_test(p))) {
    return;
  }
  uint64_t n = ct_min64(100u, utim_max(p) / 4u);
  if (ct_has(p, UTIM_CAP_STOP)) {
    /* utim_init() leaves the counter stopped at 0. */
    TH_EQU(utim_read(p), 0);
    tb_wait_ticks(p, n);
    TH_EQU(utim_read(p), 0);
  }
  TH_EQ(utim_start(p), 0);
  uint64_t prev = utim_read(p);
  for (unsigned i = 0; i < 20u; i++) {
    tb_wait_ticks(p, n);
    uint64_t c = utim_read(p);
    uint64_t d = ct_dist(p, prev, c);
    TH_CHECKF(d >= n && d <= 2u * n + ct_lat(p), "advanced %llu ticks (%llu -> %llu) in %llu",
              (unsigned long long)d, (unsigned long long)prev, (unsigned long long)c,
              (unsigned long long)n);
    prev = c;
  }
  TH_EQ(utim_start(p), 0); /* starting a running counter is harmless */
  if (ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_stop(p), 0);
    uint64_t c1 = utim_read(p);
    tb_wait_ticks(p, n);
    TH_EQU(utim_read(p), c1);
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, n);
    uint64_t d = ct_dist(p, c1, utim_read(p));
    TH_CHECKF(d >= n && d <= 2u * n + ct_lat(p), "advanced %llu after restart",
              (unsigned long long)d);
  } else {
    TH_EQ(utim_stop(p), -ENOTSUP);
    tb_wait_ticks(p, n);
    TH_CHECK(ct_dist(p, prev, utim_read(p)) >= n);
  }
}

static void t_write(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (!ct_init(p, ct_hz_test(p))) {
    return;
  }
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    TH_EQ(utim_write(p, 0u), -ENOTSUP);
    TH_SKIP("no UTIM_CAP_WRITE (utim_write() = -ENOTSUP checked)");
  }
  uint64_t max = utim_max(p);
  const uint64_t vals[] = {0u,
                           1u,
                           2u,
                           max / 2u,
                           max / 2u + 1u,
                           max - 1u,
                           max,
                           0x5a5a5a5a5a5a5a5aull & max,
                           0xa5a5a5a5a5a5a5a5ull & max};
  const unsigned nv = sizeof vals / sizeof vals[0];
  uint64_t slack = ct_lat(p) + 4u;
  if (ct_has(p, UTIM_CAP_STOP)) {
    for (unsigned i = 0; i < nv; i++) {
      th_context("%s stopped, value 0x%llx", utim_name(p), (unsigned long long)vals[i]);
      TH_EQ(utim_write(p, vals[i]), 0);
      TH_EQU(utim_read(p), vals[i]);
    }
  }
  TH_EQ(utim_start(p), 0);
  for (unsigned i = 0; i < nv; i++) {
    th_context("%s running, value 0x%llx", utim_name(p), (unsigned long long)vals[i]);
    TH_EQ(utim_write(p, vals[i]), 0);
    uint64_t c = utim_read(p);
    TH_CHECKF(ct_dist(p, vals[i], c) <= slack, "read 0x%llx", (unsigned long long)c);
    tb_wait_ticks(p, 10u);
    c = utim_read(p);
    uint64_t d = ct_dist(p, vals[i], c);
    TH_CHECKF(d >= 10u && d <= 10u + slack, "read 0x%llx 10 ticks later", (unsigned long long)c);
  }
  /* Armed channels keep their absolute compare values across a write. */
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    uint64_t a = ct_min64(400u, max / 2u - 10u);
    uint64_t t = ct_add(p, utim_read(p), a);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    TH_EQ(utim_write(p, ct_add(p, t, max - 19u)), 0); /* t - 20 */
    tb_wait_ticks(p, 15u);
    TH_EQ(ct_nev, 0);
    tb_wait_ticks(p, 5u + slack);
    if (TH_EQ(ct_nev, 1)) {
      TH_EQ(ct_ev[0].ch, (int)ch);
      TH_CHECKF(ct_dist(p, t, ct_ev[0].at) <= slack, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_ev[0].at, (unsigned long long)t);
    }
  }
}

static void t_oneshot(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (utim_channels(p) == 0u) {
    TH_SKIP("no channels");
  }
  if (!ct_init_start(p, ct_hz_test(p))) {
    return;
  }
  uint64_t d = ct_max64(20u, ct_md(p) + 5u);
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    uint64_t s = utim_read(p);
    int r = utim_set_rel(p, ch, d);
    uint64_t e = utim_read(p);
    TH_EQ(r, 0);
    tb_wait_ticks(p, d + ct_lat(p) + 2u);
    if (TH_EQ(ct_nev, 1)) {
      TH_CHECK(ct_ev[0].p == p);
      TH_EQ(ct_ev[0].ch, (int)ch);
      TH_CHECK(ct_ev[0].arg == ct_arg(p));
      uint64_t at = ct_dist(p, s, ct_ev[0].at);
      TH_CHECKF(at >= d && at <= d + ct_dist(p, s, e) + ct_lat(p),
                "fired %llu ticks after the call began, armed %llu", (unsigned long long)at,
                (unsigned long long)d);
    }
    tb_wait_ticks(p, ct_wrap_or(p, 4096u) + 8u);
    TH_CHECKF(ct_nev == 1u, "%u callbacks for one one-shot", ct_nev);

    ct_ev_reset();
    uint64_t t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    tb_wait_ticks(p, d + ct_lat(p) + 2u);
    if (TH_EQ(ct_nev, 1)) {
      TH_EQ(ct_ev[0].ch, (int)ch);
      TH_CHECK(ct_ev[0].arg == ct_arg(p));
      TH_CHECKF(ct_dist(p, t, ct_ev[0].at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_ev[0].at, (unsigned long long)t);
    }
    tb_wait_ticks(p, ct_wrap_or(p, 4096u) + 8u);
    TH_CHECKF(ct_nev == 1u, "%u callbacks for one one-shot", ct_nev);
  }
}

static void t_order(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t base = ct_md(p) + 10u + 2u * (uint64_t)n;
  uint64_t gap = ct_max64(5u, ct_lat(p) + 3u);
  while (base + gap * n >= utim_max(p) / 2u && gap > 1u) {
    gap--;
  }
  /* Distinct values, channel 0 last: callbacks follow the values. */
  ct_ev_reset();
  uint64_t s = utim_read(p);
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_abs(p, ch, ct_add(p, s, base + gap * (n - 1u - ch))), 0);
  }
  tb_wait_ticks(p, base + gap * n + ct_lat(p) + 2u);
  if (TH_EQ(ct_nev, n)) {
    for (unsigned k = 0; k < n; k++) {
      unsigned ch = n - 1u - k;
      uint64_t t = ct_add(p, s, base + gap * k);
      TH_CHECKF(ct_ev[k].ch == (int)ch, "callback %u on ch %d, expected ch %u", k, ct_ev[k].ch, ch);
      TH_CHECKF(ct_dist(p, t, ct_ev[k].at) <= ct_lat(p) + 2u, "ch %u fired at 0x%llx for 0x%llx",
                ch, (unsigned long long)ct_ev[k].at, (unsigned long long)t);
    }
  }
  /* The same value on every channel: delivered channel 0 first. */
  ct_ev_reset();
  uint64_t t = ct_add(p, utim_read(p), base);
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_abs(p, ch, t), 0);
  }
  tb_wait_ticks(p, base + ct_lat(p) + 2u);
  if (TH_EQ(ct_nev, n)) {
    for (unsigned k = 0; k < n; k++) {
      TH_CHECKF(ct_ev[k].ch == (int)k, "callback %u on ch %d", k, ct_ev[k].ch);
      TH_CHECKF(ct_dist(p, t, ct_ev[k].at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_ev[k].at, (unsigned long long)t);
    }
  }
}

/* Check that events of channel @p ch lie on the grid start + k * period,
 * where start is within [s, e] (the arming call), each within the latency. */
static unsigned ct_check_grid(const utim_periph_t *p, unsigned ch, uint64_t s, uint64_t e,
                              uint64_t period, unsigned want) {
  unsigned k = 0;
  uint64_t slack = ct_dist(p, s, e) + ct_lat(p);
  for (unsigned i = 0; i < ct_nev; i++) {
    if (ct_ev[i].ch != (int)ch || ct_ev[i].phase == CT_BEFORE) {
      continue;
    }
    k++;
    if (k > want) {
      continue;
    }
    uint64_t grid = ct_add(p, s, k * period);
    uint64_t off = ct_dist(p, grid, ct_ev[i].at);
    TH_CHECKF(off <= slack, "ch %u match %u at 0x%llx, grid point 0x%llx (+%llu allowed)", ch, k,
              (unsigned long long)ct_ev[i].at, (unsigned long long)grid, (unsigned long long)slack);
  }
  return k;
}

static void t_periodic(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t period = ct_max64(ct_md(p), ct_max64(40u, 4u * ct_lat(p)));
  if (period > utim_max(p) / 4u) {
    period = ct_max64(ct_md(p), utim_max(p) / 4u);
  }
  const unsigned k_want = 8u;
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u period %llu", utim_name(p), ch, (unsigned long long)period);
    ct_ev_reset();
    uint64_t s = utim_read(p);
    ct_phase = CT_IN;
    int r = utim_set_periodic(p, ch, period);
    uint64_t e = utim_read(p);
    ct_phase = CT_AFTER;
    TH_EQ(r, 0);
    tb_wait_ticks(p, k_want * period + period / 2u);
    unsigned got = ct_check_grid(p, ch, s, e, period, k_want);
    TH_CHECKF(got == k_want, "%u matches in %u periods", got, k_want);
    TH_EQ(utim_clear(p, ch), 0);
    unsigned after = ct_nev;
    tb_wait_ticks(p, 3u * period);
    TH_CHECKF(ct_nev == after, "%u callbacks after clear", ct_nev - after);
  }
  /* All channels at once, each with its own period. */
  th_context("%s all channels", utim_name(p));
  ct_ev_reset();
  uint64_t s0[UTIM_MAX_CHANNELS];
  uint64_t e0[UTIM_MAX_CHANNELS];
  ct_phase = CT_IN;
  for (unsigned ch = 0; ch < n; ch++) {
    s0[ch] = utim_read(p);
    TH_EQ(utim_set_periodic(p, ch, period + 3u * (uint64_t)ch), 0);
    e0[ch] = utim_read(p);
  }
  ct_phase = CT_AFTER;
  uint64_t span = 5u * period;
  tb_wait_ticks(p, span);
  uint64_t now_d = ct_dist(p, s0[0], utim_read(p));
  for (unsigned ch = 0; ch < n; ch++) {
    uint64_t pc = period + 3u * (uint64_t)ch;
    unsigned got = ct_check_grid(p, ch, s0[ch], e0[ch], pc, 64u);
    uint64_t lo = (now_d - ct_min64(now_d, ct_lat(p) + 2u * (uint64_t)n)) / pc;
    uint64_t hi = now_d / pc;
    TH_CHECKF(got >= lo && got <= hi + 1u, "ch %u: %u matches, expected %llu..%llu", ch, got,
              (unsigned long long)lo, (unsigned long long)hi);
    TH_EQ(utim_clear(p, ch), 0);
  }
  TH_EQ(ct_lost, 0);

  /* Race: time advanced before every register access of the arming call. */
  ct_ev_reset();
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_set_periodic(p, 0, period), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_set_periodic()", utim_name(p), cnt);
  TH_EQ(utim_clear(p, 0), 0);
  const uint64_t adv[] = {1u, period / 2u};
  for (unsigned k = 0; k <= cnt; k++) {
    for (unsigned a = 0; a < 2u; a++) {
      th_context("%s ch 0 race: +%llu ticks before access %u of %u", utim_name(p),
                 (unsigned long long)adv[a], k, cnt);
      ct_ev_reset();
      tb_idle();
      uint64_t s = utim_read(p);
      tb_race_set(p, k, adv[a]);
      ct_phase = CT_IN;
      int r = utim_set_periodic(p, 0, period);
      ct_phase = CT_AFTER;
      tb_race_cancel();
      uint64_t e = utim_read(p);
      TH_EQ(r, 0);
      tb_wait_ticks(p, 3u * period + period / 2u);
      unsigned got = ct_check_grid(p, 0, s, e, period, 3u);
      TH_CHECKF(got >= 3u && got <= 4u, "%u matches in 3.5 periods", got);
      TH_EQ(utim_clear(p, 0), 0);
    }
  }
}

static void t_stopped(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  th_context("%s", utim_name(p));
  if (!ct_has(p, UTIM_CAP_STOP)) {
    TH_SKIP("no UTIM_CAP_STOP");
  }
  if (n == 0u) {
    TH_SKIP("no channels");
  }
  if (!ct_init(p, ct_hz_test(p))) {
    return;
  }
  uint64_t d = ct_md(p) + 10u;
  /* Freshly initialised: stopped at 0. */
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_rel(p, ch, d + ch), 0);
  }
  tb_wait_ticks(p, 1000u);
  TH_CHECKF(ct_nev == 0u, "%u callbacks while stopped", ct_nev);
  TH_EQU(utim_read(p), 0);
  TH_EQ(utim_start(p), 0);
  tb_wait_ticks(p, d + n + ct_lat(p) + 2u);
  if (TH_EQ(ct_nev, n)) {
    for (unsigned k = 0; k < n; k++) {
      TH_EQ(ct_ev[k].ch, (int)k);
      TH_CHECKF(ct_dist(p, d + k, ct_ev[k].at) <= ct_lat(p) + 2u, "ch %u fired at %llu", k,
                (unsigned long long)ct_ev[k].at);
    }
  }
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    /* Stopped after running: an absolute value ahead waits for the start. */
    ct_ev_reset();
    TH_EQ(utim_stop(p), 0);
    uint64_t t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    tb_wait_ticks(p, 500u);
    TH_EQ(ct_nev, 0);
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, d + ct_lat(p) + 2u);
    if (TH_EQ(ct_nev, 1)) {
      TH_CHECKF(ct_dist(p, t, ct_ev[0].at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_ev[0].at, (unsigned long long)t);
    }
    /* Armed, then stopped before the match: waits for the start. */
    ct_ev_reset();
    uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, ch, 3u * d), 0);
    TH_EQ(utim_stop(p), 0);
    tb_wait_ticks(p, 10u * d);
    TH_EQ(ct_nev, 0);
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, 3u * d + ct_lat(p) + 2u);
    if (TH_EQ(ct_nev, 1)) {
      TH_CHECK(ct_dist(p, s, ct_ev[0].at) >= 3u * d);
    }
    /* Periodic armed while stopped. */
    ct_ev_reset();
    TH_EQ(utim_stop(p), 0);
    TH_EQ(utim_set_periodic(p, ch, 2u * d), 0);
    tb_wait_ticks(p, 20u * d);
    TH_EQ(ct_nev, 0);
    uint64_t s0 = utim_read(p); /* stopped: where counting resumes */
    TH_EQ(utim_start(p), 0);
    tb_wait_ticks(p, 5u * d);
    /* Matches at 2d and 4d after the start; a third only if the wait ran
     * past 6d (a real-time host can overrun a wait), never early. */
    if (TH_CHECKF(ct_nev >= 2u, "%u callbacks", ct_nev)) {
      TH_CHECK(ct_dist(p, s0, ct_ev[0].at) >= 2u * d);
      TH_CHECK(ct_dist(p, s0, ct_ev[1].at) >= 4u * d);
      TH_CHECKF(ct_nev == 2u || ct_dist(p, s0, ct_ev[2].at) >= 6u * d, "third at 0x%llx",
                (unsigned long long)ct_ev[2].at);
    }
    TH_EQ(utim_clear(p, ch), 0);
  }
}

static void t_clear(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t d = ct_md(p) + 20u;
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_clear(p, ch), 0); /* nothing armed: fine */
    TH_EQ(utim_set_rel(p, ch, d), 0);
    TH_EQ(utim_clear(p, ch), 0);
    TH_EQ(utim_set_abs(p, ch, ct_add(p, utim_read(p), d)), 0);
    TH_EQ(utim_clear(p, ch), 0);
    TH_EQ(utim_set_periodic(p, ch, d), 0);
    TH_EQ(utim_clear(p, ch), 0);
    tb_wait_ticks(p, ct_wrap_or(p, 4u * d) + ct_lat(p));
    TH_CHECKF(ct_nev == 0u, "%u callbacks after clear", ct_nev);
  }

  /*
   * Cleared one tick before the match: 10,000 tries, no callback. The extra
   * reads spread the moment of the clear over the last tick; only as many as
   * fit in one tick on this board, so that slow CPUs still clear in it.
   */
  unsigned rpt = ct_reads_per_tick(p);
  th_note("%s: %u counter reads fit in one tick", utim_name(p), rpt);
  const unsigned want = 10000u;
  unsigned valid = 0;
  unsigned tries = 0;
  uint64_t dn = ct_md(p) + 6u;
  for (; valid < want && tries < 3u * want; tries++) {
    unsigned ch = tries % n;
    th_context("%s ch %u try %u", utim_name(p), ch, tries);
    ct_ev_reset();
    uint64_t t = ct_add(p, utim_read(p), dn);
    uint64_t before = utim_read(p);
    int ra = utim_set_abs(p, ch, t);
    if (ra == -ETIME && ct_dist(p, before, utim_read(p)) + ct_md(p) >= dn) {
      continue; /* preempted past the value before arming (a host): not a try */
    }
    if (!TH_EQ(ra, 0)) {
      break;
    }
    uint64_t c = ct_approach(p, t, tries % rpt);
    int r = ct_clear_now(p, ch);
    ct_phase = CT_AFTER;
    tb_wait_ticks(p, ct_lat(p) + 3u);
    TH_EQ(r, 0);
    unsigned bad = ct_count_from(CT_IN);
    if (!TH_CHECKF(
            bad == 0u, "callback during/after clear at 0x%llx (match 0x%llx, last read 0x%llx)",
            (unsigned long long)ct_first_at(CT_IN), (unsigned long long)t, (unsigned long long)c)) {
      break;
    }
    if (ct_dist(p, c, t) == 1u && ct_nev == 0u) {
      valid++;
    }
  }
  th_context("%s", utim_name(p));
  TH_CHECKF(valid == want, "%u of %u tries cleared one tick before the match", valid, tries);

  /* Race: the match happens at every register access of utim_clear(). */
  ct_ev_reset();
  TH_EQ(utim_set_abs(p, 0, ct_add(p, utim_read(p), dn)), 0);
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_clear(p, 0), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_clear()", utim_name(p), cnt);
  for (unsigned ch = 0; ch < n; ch++) {
    for (unsigned k = 0; k <= cnt; k++) {
      for (uint64_t a = 1u; a <= 2u; a++) {
        th_context("%s ch %u race: +%llu ticks before access %u of %u", utim_name(p), ch,
                   (unsigned long long)a, k, cnt);
        ct_ev_reset();
        uint64_t t = ct_add(p, utim_read(p), dn);
        TH_EQ(utim_set_abs(p, ch, t), 0);
        uint64_t c = ct_approach(p, t, 0u);
        tb_race_set(p, k, a);
        int r = ct_clear_now(p, ch);
        ct_phase = CT_AFTER;
        tb_race_cancel();
        tb_wait_ticks(p, ct_lat(p) + 3u);
        TH_EQ(r, 0);
        TH_CHECKF(ct_count_from(CT_IN) == 0u, "callback at 0x%llx, match 0x%llx, last read 0x%llx",
                  (unsigned long long)ct_first_at(CT_IN), (unsigned long long)t,
                  (unsigned long long)c);
      }
    }
  }
}

/* One re-arm after a clear one tick before the old match: exactly one
 * callback, not before the new distance. @p race_in: 0 none, 1 inject in the
 * clear, 2 inject in the re-arm. */
static void ct_rearm_once(const utim_periph_t *p, unsigned ch, unsigned extra, unsigned race_in,
                          unsigned k, uint64_t adv) {
  uint64_t n1 = ct_md(p) + 6u;
  uint64_t n2 = ct_max64(20u, ct_md(p) + 10u);
  ct_ev_reset();
  uint64_t t1 = ct_add(p, utim_read(p), n1);
  TH_EQ(utim_set_abs(p, ch, t1), 0);
  (void)ct_approach(p, t1, extra);
  if (race_in == 1u) {
    tb_race_set(p, k, adv);
  }
  TH_EQ(ct_clear_now(p, ch), 0);
  tb_race_cancel();
  uint64_t s2 = utim_read(p);
  if (race_in == 2u) {
    tb_race_set(p, k, adv);
  }
  int r = utim_set_rel(p, ch, n2);
  tb_race_cancel();
  uint64_t e2 = utim_read(p);
  ct_phase = CT_AFTER;
  TH_EQ(r, 0);
  tb_wait_ticks(p, n2 + ct_lat(p) + 4u);
  unsigned got = ct_count_from(CT_IN);
  const ct_ev_t *ev = ct_first_from(CT_IN);
  if (TH_CHECKF(got == 1u, "%u callbacks (old match 0x%llx, re-armed at 0x%llx + %llu)", got,
                (unsigned long long)t1, (unsigned long long)s2, (unsigned long long)n2)) {
    uint64_t at = ct_dist(p, s2, ev->at);
    TH_CHECKF(at >= n2 && at <= n2 + ct_dist(p, s2, e2) + ct_lat(p),
              "fired at 0x%llx, %llu ticks after the re-arm began (armed %llu; old match 0x%llx)",
              (unsigned long long)ev->at, (unsigned long long)at, (unsigned long long)n2,
              (unsigned long long)t1);
  }
}

static void t_rearm(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  for (unsigned i = 0; i < 1000u && !th_test_failed(); i++) {
    th_context("%s ch %u try %u", utim_name(p), i % n, i);
    ct_rearm_once(p, i % n, i % 61u, 0u, 0u, 0u);
  }
  /* Race: count the accesses of utim_clear() and utim_set_rel(). */
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_clear(p, 0), 0);
  unsigned cnt_clear = tb_race_count(mark);
  mark = tb_race_mark();
  TH_EQ(utim_set_rel(p, 0, 1000u < utim_max(p) / 2u ? 1000u : ct_md(p)), 0);
  unsigned cnt_rel = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_clear(), %u of utim_set_rel()", utim_name(p),
          cnt_clear, cnt_rel);
  TH_EQ(utim_clear(p, 0), 0);
  for (unsigned where = 1; where <= 2u; where++) {
    unsigned cnt = where == 1u ? cnt_clear : cnt_rel;
    for (unsigned k = 0; k <= cnt; k++) {
      for (uint64_t a = 1u; a <= 2u; a++) {
        th_context("%s race in %s: +%llu ticks before access %u of %u", utim_name(p),
                   where == 1u ? "clear" : "set_rel", (unsigned long long)a, k, cnt);
        ct_rearm_once(p, k % n, 0u, where, k, a);
      }
    }
  }
}

static void t_replace(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t lat = ct_lat(p);
  uint64_t near = ct_max64(20u, ct_md(p) + 10u);
  uint64_t far = near + 40u + 2u * lat;
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u far->near", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_rel(p, ch, far), 0);
    uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, ch, near), 0);
    uint64_t e = utim_read(p);
    tb_wait_ticks(p, near + lat + 2u);
    if (TH_EQ(ct_nev, 1)) {
      uint64_t at = ct_dist(p, s, ct_ev[0].at);
      TH_CHECKF(at >= near && at <= near + ct_dist(p, s, e) + lat, "fired %llu ticks after",
                (unsigned long long)at);
    }
    tb_wait_ticks(p, far + lat);
    TH_CHECKF(ct_nev == 1u, "%u callbacks: the replaced setting fired", ct_nev);

    th_context("%s ch %u near->far", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_rel(p, ch, near), 0);
    s = utim_read(p);
    TH_EQ(utim_set_abs(p, ch, ct_add(p, s, far)), 0);
    tb_wait_ticks(p, near + lat + 2u);
    TH_CHECKF(ct_nev == 0u, "the replaced setting fired at 0x%llx",
              (unsigned long long)ct_ev[0].at);
    tb_wait_ticks(p, far - near + lat);
    if (TH_EQ(ct_nev, 1)) {
      TH_CHECKF(ct_dist(p, ct_add(p, s, far), ct_ev[0].at) <= lat + 2u, "fired at 0x%llx",
                (unsigned long long)ct_ev[0].at);
    }

    th_context("%s ch %u periodic->one-shot", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_periodic(p, ch, near), 0);
    s = utim_read(p);
    /* Counted from the re-arm on: a host stall before it may let the
     * periodic setting fire once, legitimately. */
    ct_phase = CT_IN;
    TH_EQ(utim_set_rel(p, ch, far), 0);
    ct_phase = CT_AFTER;
    tb_wait_ticks(p, 3u * far);
    if (TH_CHECKF(ct_count_from(CT_IN) == 1u, "%u callbacks", ct_count_from(CT_IN))) {
      TH_CHECK(ct_dist(p, s, ct_first_at(CT_IN)) >= far);
    }

    th_context("%s ch %u one-shot->periodic", utim_name(p), ch);
    ct_ev_reset();
    TH_EQ(utim_set_rel(p, ch, near), 0);
    s = utim_read(p);
    ct_phase = CT_IN;
    TH_EQ(utim_set_periodic(p, ch, far), 0);
    e = utim_read(p);
    ct_phase = CT_AFTER;
    tb_wait_ticks(p, 3u * far + far / 2u);
    unsigned got = ct_check_grid(p, ch, s, e, far, 3u);
    TH_CHECKF(got == 3u && ct_nev == 3u, "%u matches on the grid, %u callbacks", got, ct_nev);
    TH_EQ(utim_clear(p, ch), 0);
  }

  /* Race: re-arm one tick before the old match, time advanced at every access. */
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_set_rel(p, 0, far), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_set_rel()", utim_name(p), cnt);
  TH_EQ(utim_clear(p, 0), 0);
  for (unsigned k = 0; k <= cnt; k++) {
    for (uint64_t a = 1u; a <= 2u; a++) {
      unsigned ch = k % n;
      th_context("%s ch %u race: +%llu ticks before access %u of %u", utim_name(p), ch,
                 (unsigned long long)a, k, cnt);
      ct_ev_reset();
      uint64_t t = ct_add(p, utim_read(p), ct_md(p) + 6u);
      TH_EQ(utim_set_abs(p, ch, t), 0);
      (void)ct_approach(p, t, 0u);
      uint64_t s = utim_read(p);
      tb_race_set(p, k, a);
      ct_phase = CT_IN;
      int r = utim_set_rel(p, ch, far);
      tb_race_cancel();
      uint64_t e = utim_read(p);
      ct_phase = CT_AFTER;
      TH_EQ(r, 0);
      tb_wait_ticks(p, far + lat + 2u);
      unsigned got = ct_count_from(CT_IN);
      if (TH_CHECKF(got == 1u, "%u callbacks (old match 0x%llx)", got, (unsigned long long)t)) {
        uint64_t at = ct_dist(p, s, ct_first_at(CT_IN));
        TH_CHECKF(at >= far && at <= far + ct_dist(p, s, e) + lat,
                  "fired at 0x%llx, %llu ticks after the re-arm began (old match 0x%llx)",
                  (unsigned long long)ct_first_at(CT_IN), (unsigned long long)at,
                  (unsigned long long)t);
      }
    }
  }
}

/* One relative arming of @p n ticks; checks the documented bound. With
 * @p adv > 0, @p adv ticks pass before register access @p k of the call. */
/*
 * One relative arming and its callback. Returns false, without recording a
 * failure, when @p may_retry and the callback was only late: on a board that
 * runs in real time on a shared host (no race injection) the scheduler can
 * stall the interrupt context for milliseconds, which a repeat tells apart
 * from a real delay (a full wrap, a lost event), which repeats. Early or
 * extra callbacks are always failures.
 */
static bool ct_rel_try(const utim_periph_t *p, unsigned ch, uint64_t n, unsigned k, uint64_t adv,
                       bool may_retry) {
  ct_ev_reset();
  uint64_t s = utim_read(p);
  if (adv > 0u) {
    tb_race_set(p, k, adv);
  }
  ct_phase = CT_IN;
  int r = utim_set_rel(p, ch, n);
  ct_phase = CT_AFTER;
  tb_race_cancel();
  uint64_t e = utim_read(p);
  TH_EQ(r, 0);
  uint64_t bound = ct_max64(n, ct_md(p)) + ct_dist(p, s, e) + ct_lat(p);
  tb_wait_ticks(p, bound + 1u);
  unsigned got = ct_count_from(CT_IN);
  if (got == 1u) {
    uint64_t at = ct_dist(p, s, ct_first_at(CT_IN));
    if (may_retry && at > bound) {
      th_note("set_rel(%llu) fired %llu ticks after the call began (bound %llu): late, "
              "measuring again",
              (unsigned long long)n, (unsigned long long)at, (unsigned long long)bound);
      return false;
    }
    TH_CHECKF(at >= n && at <= bound,
              "set_rel(%llu) fired %llu ticks after the call began (bound %llu, call took %llu)",
              (unsigned long long)n, (unsigned long long)at, (unsigned long long)bound,
              (unsigned long long)ct_dist(p, s, e));
    return true;
  }
  if (got == 0u) {
    /* Find out whether it fires at all, e.g. a full wrap late. */
    uint64_t w = ct_wrap_or(p, tb_long_wait_ticks(p));
    tb_wait_ticks(p, w);
    if (may_retry && ct_nev == 1u) {
      th_note("set_rel(%llu): callback only after %llu ticks: late, measuring again",
              (unsigned long long)n, (unsigned long long)bound);
      return false;
    }
    TH_CHECKF(false, "set_rel(%llu) at 0x%llx: no callback within %llu ticks; %s",
              (unsigned long long)n, (unsigned long long)s, (unsigned long long)bound,
              ct_nev > 0u ? "it fired later (a wrap late?)" : "none even after a wrap");
    if (ct_nev > 0u) {
      th_note("late callback at 0x%llx", (unsigned long long)ct_ev[0].at);
    }
    TH_EQ(utim_clear(p, ch), 0);
    return true;
  }
  TH_CHECKF(false, "set_rel(%llu): %u callbacks", (unsigned long long)n, got);
  return true;
}

static void ct_rel_once(const utim_periph_t *p, unsigned ch, uint64_t n, unsigned k, uint64_t adv) {
  const unsigned tries = tb_race_supported() ? 1u : 3u;
  for (unsigned t = 0; t < tries; t++) {
    if (ct_rel_try(p, ch, n, k, adv, t + 1u < tries)) {
      return;
    }
  }
}

static void t_rel(const utim_periph_t *p) {
  unsigned nch = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  for (uint64_t n = 0; n <= 15u && !th_test_failed(); n++) {
    for (unsigned rep = 0; rep < 128u && !th_test_failed(); rep++) {
      unsigned ch = rep % nch;
      th_context("%s ch %u set_rel(%llu) rep %u", utim_name(p), ch, (unsigned long long)n, rep);
      ct_jitter(p, (rep * 37u) % 101u);
      ct_rel_once(p, ch, n, 0u, 0u);
    }
    /* No duplicates later, e.g. one wrap on. */
    ct_ev_reset();
    tb_wait_ticks(p, ct_wrap_or(p, 70000u) + ct_lat(p));
    TH_CHECKF(ct_nev == 0u, "%u late extra callbacks for set_rel(%llu)", ct_nev,
              (unsigned long long)n);
  }
  /* Race: time advanced before every register access of utim_set_rel(). */
  for (uint64_t n = 0; n <= 15u && !th_test_failed(); n++) {
    ct_ev_reset();
    uint64_t mark = tb_race_mark();
    TH_EQ(utim_set_rel(p, 0, n), 0);
    unsigned cnt = tb_race_count(mark);
    if (n == 0u) {
      th_note("%s: race over %u accesses of utim_set_rel(0)", utim_name(p), cnt);
    }
    tb_wait_ticks(p, ct_max64(n, ct_md(p)) + ct_lat(p) + 4u);
    const uint64_t adv[] = {1u, n, n + 1u};
    for (unsigned k = 0; k <= cnt; k++) {
      for (unsigned a = 0; a < 3u; a++) {
        if (adv[a] == 0u || (a > 0u && adv[a] == adv[a - 1u])) {
          continue;
        }
        unsigned ch = k % nch;
        th_context("%s ch %u set_rel(%llu) race: +%llu ticks before access %u of %u", utim_name(p),
                   ch, (unsigned long long)n, (unsigned long long)adv[a], k, cnt);
        ct_rel_once(p, ch, n, k, adv[a]);
      }
    }
  }
}

static void t_abs_late(const utim_periph_t *p) {
  unsigned nch = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t max = utim_max(p);
  uint64_t md = ct_md(p);
  uint64_t prev = ct_max64(60u, md + 20u);
  tb_wait_ticks(p, 1000u); /* so that "passed" values below are not negative */
  for (unsigned ch = 0; ch < nch; ch++) {
    const uint64_t back[] = {0u, 1u, 2u, max / 4u, max / 2u - 8u};
    for (unsigned i = 0; i < sizeof back / sizeof back[0] + 1u; i++) {
      ct_ev_reset();
      uint64_t s0 = utim_read(p);
      TH_EQ(utim_set_rel(p, ch, prev), 0); /* a setting the failed call must keep */
      uint64_t s = utim_read(p);
      uint64_t v = i < sizeof back / sizeof back[0] ? ct_add(p, s, max + 1u - back[i])
                                                    : ct_add(p, s, md - 1u);
      if (i == sizeof back / sizeof back[0] && md <= 1u) {
        TH_EQ(utim_clear(p, ch), 0);
        continue;
      }
      th_context("%s ch %u set_abs(0x%llx) at counter 0x%llx", utim_name(p), ch,
                 (unsigned long long)v, (unsigned long long)s);
      ct_phase = CT_IN;
      int r = utim_set_abs(p, ch, v);
      ct_phase = CT_AFTER;
      TH_EQ(r, -ETIME);
      tb_wait_ticks(p, prev + ct_lat(p) + 2u);
      /* An error changes nothing: the earlier relative setting still fires, once, on time. */
      if (TH_CHECKF(ct_nev == 1u, "-ETIME must keep the earlier setting; %u callbacks", ct_nev)) {
        TH_CHECKF(ct_dist(p, s0, ct_ev[0].at) >= prev, "earlier setting fired early at 0x%llx",
                  (unsigned long long)ct_ev[0].at);
      }
    }
    /* The late value never comes round either. */
    th_context("%s ch %u", utim_name(p), ch);
    ct_ev_reset();
    tb_wait_ticks(p, ct_wrap_or(p, 70000u) + ct_lat(p));
    TH_EQ(ct_nev, 0);
    /* A value far enough ahead is accepted. */
    uint64_t t = ct_add(p, utim_read(p), md + 20u);
    TH_EQ(utim_set_abs(p, ch, t), 0);
    tb_wait_ticks(p, md + 20u + ct_lat(p) + 2u);
    TH_EQ(ct_nev, 1);
  }
  /* Race near the limit: either armed and fires once at the value, or -ETIME
   * and never fires. */
  ct_ev_reset();
  uint64_t mark = tb_race_mark();
  TH_EQ(utim_set_abs(p, 0, ct_add(p, utim_read(p), md + 100u)), 0);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_set_abs()", utim_name(p), cnt);
  TH_EQ(utim_clear(p, 0), 0);
  for (uint64_t j = 0; j <= 3u; j++) {
    for (unsigned k = 0; k <= cnt; k++) {
      for (unsigned a = 0; a < 2u; a++) {
        uint64_t adv = a == 0u ? 1u : md + j;
        unsigned ch = k % nch;
        ct_ev_reset();
        tb_idle();
        uint64_t s = utim_read(p);
        uint64_t v = ct_add(p, s, md + j);
        th_context("%s ch %u set_abs(now + %llu) race: +%llu ticks before access %u of %u",
                   utim_name(p), ch, (unsigned long long)md + j, (unsigned long long)adv, k, cnt);
        tb_race_set(p, k, adv);
        ct_phase = CT_IN;
        int r = utim_set_abs(p, ch, v);
        ct_phase = CT_AFTER;
        tb_race_cancel();
        uint64_t e = utim_read(p);
        tb_wait_ticks(p, md + j + ct_lat(p) + 2u);
        if (r == 0) {
          if (TH_CHECKF(ct_nev == 1u, "armed (0) but %u callbacks", ct_nev)) {
            TH_CHECKF(ct_dist(p, v, ct_ev[0].at) <= ct_dist(p, s, e) + ct_lat(p),
                      "fired at 0x%llx for 0x%llx", (unsigned long long)ct_ev[0].at,
                      (unsigned long long)v);
          }
        } else if (TH_CHECKF(r == -ETIME, "set_abs() = %d", r)) {
          tb_wait_ticks(p, ct_wrap_or(p, 70000u));
          TH_CHECKF(ct_nev == 0u, "-ETIME but %u callbacks", ct_nev);
        }
        TH_EQ(utim_clear(p, ch), 0);
      }
    }
  }
}

static void t_overflow(const utim_periph_t *p) {
  th_context("%s", utim_name(p));
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), -ENOTSUP);
    TH_SKIP("no UTIM_CAP_OVERFLOW (-ENOTSUP checked)");
  }
  uint32_t hz = ct_hz_fastest(p);
  if (!ct_init(p, hz)) {
    return;
  }
  enum ct_wrap_mode mode = ct_wrap_mode(p);
  if (mode == CT_WRAP_NONE) {
    TH_SKIP("a wrap takes too long at %lu Hz and the counter is not writable", (unsigned long)hz);
  }
  uint64_t lat = ct_lat(p);
  const unsigned wraps_want = 4u;
  TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  TH_EQ(utim_start(p), 0);
  unsigned wraps = 0;
  if (mode == CT_WRAP_WAIT) {
    /* Count wraps from counter reads a quarter wrap apart. */
    uint64_t step = (utim_max(p) + 1u) / 4u;
    uint64_t prev = utim_read(p);
    for (unsigned i = 0; i < 4u * wraps_want + 2u; i++) {
      tb_wait_ticks(p, step);
      uint64_t c = utim_read(p);
      wraps += c < prev ? 1u : 0u;
      prev = c;
    }
    if (prev <= lat + 2u) {
      tb_wait_ticks(p, lat + 2u);
    }
    TH_CHECKF(wraps >= wraps_want, "only %u wraps seen", wraps);
  } else {
    uint64_t m = 40u + 2u * lat;
    for (unsigned i = 0; i < wraps_want; i++) {
      TH_EQ(utim_write(p, utim_max(p) - m), 0);
      tb_wait_ticks(p, m / 2u);
      TH_CHECKF(ct_nev == wraps, "callback before the wrap (%u, %u wraps)", ct_nev, wraps);
      tb_wait_ticks(p, m / 2u + lat + 3u);
      wraps++;
      TH_CHECKF(ct_nev == wraps, "%u callbacks for %u wraps", ct_nev, wraps);
    }
  }
  th_context("%s at %lu Hz, %u wraps", utim_name(p), (unsigned long)hz, wraps);
  TH_EQ(ct_nev, wraps);
  for (unsigned i = 0; i < ct_nev; i++) {
    TH_CHECKF(ct_ev[i].ch == CT_OVF && ct_ev[i].p == p && ct_ev[i].arg == ct_arg(p),
              "event %u: ch %d", i, ct_ev[i].ch);
    TH_CHECKF(ct_ev[i].at <= lat, "overflow callback %u saw counter 0x%llx", i,
              (unsigned long long)ct_ev[i].at);
  }

  /* NULL disables the overflow interrupt. */
  ct_ev_reset();
  TH_EQ(utim_set_overflow_cb(p, NULL, NULL), 0);
  ct_cause_wrap(p, mode);
  tb_wait_ticks(p, lat);
  TH_CHECKF(ct_nev == 0u, "%u callbacks after utim_set_overflow_cb(NULL)", ct_nev);

  /* utim_init() keeps the callback; it is live again once started. */
  th_context("%s callback set before utim_init()", utim_name(p));
  ct_ev_reset();
  TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  if (!ct_init_start(p, hz)) {
    return;
  }
  ct_cause_wrap(p, mode);
  tb_wait_ticks(p, lat);
  TH_CHECKF(ct_nev == 1u, "%u callbacks for one wrap", ct_nev);
}

static void t_mask(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  bool ovf = ct_has(p, UTIM_CAP_OVERFLOW);
  uint32_t chans = n == 0u ? 0u : (uint32_t)((1ull << n) - 1u);
  th_context("%s", utim_name(p));
  uint32_t hz = ovf ? ct_hz_fastest(p) : ct_hz_test(p);
  if (!ct_init(p, hz)) {
    return;
  }
  enum ct_wrap_mode mode = ovf ? ct_wrap_mode(p) : CT_WRAP_NONE;
  uint32_t all = chans | (mode != CT_WRAP_NONE ? UTIM_EVT_OVF : 0u);
  if (all == 0u) {
    TH_SKIP("no channels and no reachable overflow");
  }
  uint64_t lat = ct_lat(p);
  uint64_t md = ct_md(p);
  if (ovf) {
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
  }
  TH_EQ(utim_start(p), 0);
  TH_EQ(utim_pending(p), 0);

  /* Everything masked: nothing delivered, all pending, all delivered in
   * order by utim_unmask(). */
  ct_ev_reset();
  TH_EQ(utim_mask(p, all), 0);
  if ((all & UTIM_EVT_OVF) != 0u) {
    ct_cause_wrap(p, mode);
  }
  uint64_t base = md + 10u;
  uint64_t s = utim_read(p);
  for (unsigned ch = 0; ch < n; ch++) {
    TH_EQ(utim_set_abs(p, ch, ct_add(p, s, base + 3u * (uint64_t)ch)), 0);
  }
  tb_wait_ticks(p, base + 3u * (uint64_t)n + lat + 2u);
  TH_CHECKF(ct_nev == 0u, "%u callbacks while masked", ct_nev);
  TH_EQU(utim_pending(p), all);
  ct_phase = CT_IN;
  TH_EQ(utim_unmask(p, all), 0);
  ct_phase = CT_AFTER;
  if (TH_CHECKF(ct_nev == ct_popcount(all), "%u callbacks from utim_unmask(), %u events", ct_nev,
                ct_popcount(all))) {
    for (unsigned k = 0; k < ct_nev; k++) {
      int want = k < n ? (int)k : CT_OVF;
      TH_CHECKF(ct_ev[k].ch == want && ct_ev[k].phase == CT_IN, "delivery %u: ch %d, want %d", k,
                ct_ev[k].ch, want);
    }
  }
  TH_EQ(utim_pending(p), 0);
  unsigned after = ct_nev;
  tb_wait_ticks(p, 4u * base);
  TH_CHECKF(ct_nev == after, "%u extra callbacks", ct_nev - after);
  /* Wraps would interleave with the channel checks below. */
  if (ovf) {
    TH_EQ(utim_set_overflow_cb(p, NULL, NULL), 0);
  }

  if (n >= 2u) {
    /* Only channel 0 masked: channel 1 is delivered on time. */
    th_context("%s ch 0 masked, ch 1 not", utim_name(p));
    ct_ev_reset();
    TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
    s = utim_read(p);
    TH_EQ(utim_set_abs(p, 0, ct_add(p, s, base)), 0);
    TH_EQ(utim_set_abs(p, 1, ct_add(p, s, base)), 0);
    tb_wait_ticks(p, base + lat + 2u);
    if (TH_EQ(ct_nev, 1)) {
      TH_EQ(ct_ev[0].ch, 1);
    }
    TH_EQU(utim_pending(p), UTIM_EVT_CH(0));
    TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
    if (TH_EQ(ct_nev, 2)) {
      TH_EQ(ct_ev[1].ch, 0);
    }
  }

  if (n >= 1u) {
    /* A periodic channel masked for several periods: one delivery, then on. */
    uint64_t period = ct_max64(md, ct_max64(30u, 3u * lat));
    if (period < utim_max(p) / 4u) {
      th_context("%s ch 0 periodic %llu masked", utim_name(p), (unsigned long long)period);
      ct_ev_reset();
      TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
      TH_EQ(utim_set_periodic(p, 0, period), 0);
      tb_wait_ticks(p, 5u * period + period / 2u);
      TH_EQ(ct_nev, 0);
      TH_EQU(utim_pending(p) & UTIM_EVT_CH(0), UTIM_EVT_CH(0));
      TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
      TH_CHECKF(ct_nev == 1u, "%u callbacks from unmask (masked events coalesce)", ct_nev);
      tb_wait_ticks(p, 2u * period);
      TH_CHECKF(ct_nev == 3u, "%u callbacks, expected 1 + 2 after unmask", ct_nev);
      TH_EQ(utim_clear(p, 0), 0);
    }

    /* Cleared while pending behind the mask: never delivered. */
    th_context("%s ch 0 cleared while masked", utim_name(p));
    ct_ev_reset();
    TH_EQ(utim_mask(p, UTIM_EVT_CH(0)), 0);
    TH_EQ(utim_set_rel(p, 0, base), 0);
    tb_wait_ticks(p, base + lat + 2u);
    TH_EQU(utim_pending(p) & UTIM_EVT_CH(0), UTIM_EVT_CH(0));
    TH_EQ(utim_clear(p, 0), 0);
    TH_EQ(utim_unmask(p, UTIM_EVT_CH(0)), 0);
    TH_CHECKF(ct_nev == 0u, "%u callbacks after clear", ct_nev);
    TH_EQ(utim_pending(p) & UTIM_EVT_CH(0), 0);
  }

  if (mode == CT_WRAP_WAIT) {
    /* Several wraps while masked coalesce into one. */
    th_context("%s overflow masked over 3 wraps", utim_name(p));
    ct_ev_reset();
    TH_EQ(utim_set_overflow_cb(p, ct_ovf_cb, ct_arg(p)), 0);
    TH_EQ(utim_mask(p, UTIM_EVT_OVF), 0);
    tb_wait_ticks(p, 3u * (utim_max(p) + 1u));
    TH_EQ(ct_nev, 0);
    TH_EQU(utim_pending(p), UTIM_EVT_OVF);
    TH_EQ(utim_unmask(p, UTIM_EVT_OVF), 0);
    TH_CHECKF(ct_nev == 1u, "%u callbacks", ct_nev);
  }
}

/* State that an invalid call must leave unchanged. */
typedef struct ct_snap {
  uint64_t count;
  uint32_t hz;
  uint32_t pending;
  uint64_t clk;
  uint64_t div;
} ct_snap_t;

static ct_snap_t ct_snapshot(const utim_periph_t *p) {
  ct_snap_t s = {utim_read(p), utim_freq(p), utim_pending(p), ct_prop(p, UTIM_PROP_CLOCK),
                 ct_prop(p, UTIM_PROP_DIVIDER)};
  return s;
}

static void ct_unchanged(const utim_periph_t *p, const ct_snap_t *a, const char *call, int line) {
  ct_snap_t b = ct_snapshot(p);
  bool cnt_ok =
      ct_has(p, UTIM_CAP_STOP) ? b.count == a->count : ct_dist(p, a->count, b.count) < 2000u;
  th_check(cnt_ok && b.hz == a->hz && b.pending == a->pending && b.clk == a->clk &&
               b.div == a->div && ct_nev == 0u,
           __FILE__, line, call,
           "state changed: count 0x%llx -> 0x%llx, hz %lu -> %lu, pending 0x%lx -> 0x%lx, "
           "clock %llu -> %llu, divider %llu -> %llu, %u callbacks",
           (unsigned long long)a->count, (unsigned long long)b.count, (unsigned long)a->hz,
           (unsigned long)b.hz, (unsigned long)a->pending, (unsigned long)b.pending,
           (unsigned long long)a->clk, (unsigned long long)b.clk, (unsigned long long)a->div,
           (unsigned long long)b.div, ct_nev);
}

/* Check an invalid call's error code, then that nothing changed. */
#define CT_INVALID(call, err)                                                                      \
  do {                                                                                             \
    int ct_r_ = (call);                                                                            \
    th_check(ct_r_ == (err), __FILE__, __LINE__, #call " == " #err, "returned %d", ct_r_);         \
    ct_unchanged(p, &snap, #call, __LINE__);                                                       \
  } while (0)

static void t_invalid(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  uint64_t max = utim_max(p);
  unsigned nclk = (unsigned)ct_prop(p, UTIM_PROP_CLOCKS);
  th_context("%s", utim_name(p));
  uint32_t hz = ct_hz_test(p);
  if (!ct_init_start(p, hz)) {
    return;
  }
  tb_wait_ticks(p, 50u); /* counter away from 0, so a reset would show */
  uint64_t ahead = ct_min64(3000u, max / 2u - 10u);
  uint64_t t = 0;
  if (n > 0u) {
    t = ct_add(p, utim_read(p), ahead);
    TH_EQ(utim_set_abs(p, 0, t), 0);
  }
  if (ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_stop(p), 0);
  }
  ct_ev_reset();
  ct_snap_t snap = ct_snapshot(p);
  uint32_t out = 0;
  uint64_t v = 0;
  int owner = 0;

  CT_INVALID(utim_init(p, 0u, UTIM_CLOCK_DEFAULT), -EINVAL);
  CT_INVALID(utim_init(p, hz, UTIM_CLOCK_PLATFORM(nclk)), -EINVAL);
  CT_INVALID(utim_init(p, hz, UTIM_CLOCK_PLATFORM(200u)), -EINVAL);
  if (ct_hz_unachievable(p) != 0u) {
    CT_INVALID(utim_init(p, ct_hz_unachievable(p), UTIM_CLOCK_DEFAULT), -ERANGE);
  }
  if (ct_hz_gap(p) != 0u) {
    CT_INVALID(utim_init(p, ct_hz_gap(p), UTIM_CLOCK_DEFAULT), -ERANGE);
  }
  CT_INVALID(utim_closest_freq(p, 0u, UTIM_CLOCK_DEFAULT, &out), -EINVAL);
  CT_INVALID(utim_closest_freq(p, hz, UTIM_CLOCK_DEFAULT, NULL), -EINVAL);
  CT_INVALID(utim_closest_freq(p, hz, UTIM_CLOCK_PLATFORM(nclk), &out), -EINVAL);
  CT_INVALID(utim_freqs(p, nclk, NULL, 0u), -EINVAL);
  CT_INVALID(utim_freqs(p, 0u, NULL, 4u), -EINVAL);
  if (utim_width(p) < 64u) {
    CT_INVALID(utim_write(p, max + 1u), -ERANGE);
    CT_INVALID(utim_write(p, UINT64_MAX), -ERANGE);
  }
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    CT_INVALID(utim_write(p, 0u), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_STOP)) {
    CT_INVALID(utim_stop(p), -ENOTSUP);
  }
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    CT_INVALID(utim_set_overflow_cb(p, ct_ovf_cb, NULL), -ENOTSUP);
  }
  const unsigned bad_ch[] = {n, n + 1u, UTIM_MAX_CHANNELS, 31u, 32u, 1000u, ~0u};
  for (unsigned i = 0; i < sizeof bad_ch / sizeof bad_ch[0]; i++) {
    unsigned ch = bad_ch[i];
    th_context("%s channel %u", utim_name(p), ch);
    CT_INVALID(utim_set_abs(p, ch, ct_add(p, snap.count, 100u)), -EINVAL);
    CT_INVALID(utim_set_rel(p, ch, 100u), -EINVAL);
    CT_INVALID(utim_set_periodic(p, ch, ct_md(p) + 100u), -EINVAL);
    CT_INVALID(utim_clear(p, ch), -EINVAL);
  }
  th_context("%s", utim_name(p));
  if (n > 0u) {
    /* Invalid values on a valid, armed channel: the setting survives (below). */
    if (utim_width(p) < 64u) {
      CT_INVALID(utim_set_abs(p, 0, max + 1u), -ERANGE);
      CT_INVALID(utim_set_rel(p, 0, max + 1u), -ERANGE);
      CT_INVALID(utim_set_periodic(p, 0, max + 1u), -ERANGE);
    }
    CT_INVALID(utim_set_periodic(p, 0, 0u), -EINVAL);
    if (ct_md(p) > 1u) {
      CT_INVALID(utim_set_periodic(p, 0, ct_md(p) - 1u), -ERANGE);
    }
  }
  uint32_t bad_evt[4];
  unsigned nbad = 0;
  bad_evt[nbad++] = 1u << 30;
  if (n < 16u) {
    bad_evt[nbad++] = UTIM_EVT_CH(n);
    bad_evt[nbad++] = UTIM_EVT_CH(n) | (n > 0u ? UTIM_EVT_CH(0) : 0u);
  }
  if (!ct_has(p, UTIM_CAP_OVERFLOW)) {
    bad_evt[nbad++] = UTIM_EVT_OVF | (n > 0u ? UTIM_EVT_CH(0) : 0u);
  }
  for (unsigned i = 0; i < nbad; i++) {
    th_context("%s events 0x%lx", utim_name(p), (unsigned long)bad_evt[i]);
    CT_INVALID(utim_mask(p, bad_evt[i]), -EINVAL);
    CT_INVALID(utim_unmask(p, bad_evt[i]), -EINVAL);
  }
  th_context("%s", utim_name(p));
  CT_INVALID(utim_get_property(p, UTIM_PROP_WIDTH, NULL), -EINVAL);
  CT_INVALID(utim_get_property(p, 0u, &v), -ENOTSUP);
  CT_INVALID(utim_get_property(p, 0xffu, &v), -ENOTSUP);
  CT_INVALID(utim_get_property(p, UTIM_PROP_DRIVER_BASE + 0xfff0u, &v), -ENOTSUP);
  for (unsigned id = UTIM_PROP_WIDTH; id <= UTIM_PROP_DIVIDER; id++) {
    th_context("%s property %u", utim_name(p), id);
    CT_INVALID(utim_set_property(p, id, 1u), -EINVAL);
  }
  th_context("%s", utim_name(p));
  CT_INVALID(utim_set_property(p, UTIM_PROP_DRIVER_BASE + 0xfff0u, 0u), -ENOTSUP);
  CT_INVALID(utim_claim(p, NULL), -EINVAL);
  CT_INVALID(utim_release(p, &owner), -EINVAL);

  /* The armed channel is still armed, unmasked, at its value. */
  if (ct_has(p, UTIM_CAP_STOP)) {
    TH_EQ(utim_start(p), 0);
  }
  if (n > 0u) {
    th_context("%s ch 0 armed before the invalid calls", utim_name(p));
    tb_wait_ticks(p, ct_dist(p, utim_read(p), t) + ct_lat(p) + 2u);
    if (TH_CHECKF(ct_nev == 1u, "%u callbacks", ct_nev)) {
      TH_EQ(ct_ev[0].ch, 0);
      TH_CHECKF(ct_dist(p, t, ct_ev[0].at) <= ct_lat(p) + 2u, "fired at 0x%llx for 0x%llx",
                (unsigned long long)ct_ev[0].at, (unsigned long long)t);
    }
  }
}

/* Boundaries of every bit: the chain's low half wraps at one of them. */
static void t_chain(const utim_periph_t *p) {
  unsigned w = utim_width(p);
  th_context("%s", utim_name(p));
  if (!ct_has(p, UTIM_CAP_CHAINED)) {
    TH_SKIP("no UTIM_CAP_CHAINED");
  }
  uint32_t hz = ct_hz_fastest(p);
  if (!ct_init_start(p, hz)) {
    return;
  }
  uint64_t lat = ct_lat(p);
  uint64_t max = utim_max(p);

  /* Monotonic reads over many low-half wraps. */
  uint64_t total = ct_min64((uint64_t)300u << (w / 2u), tb_long_wait_ticks(p));
  uint64_t prev = utim_read(p);
  uint64_t done = 0;
  for (unsigned i = 0; done < total && !th_test_failed(); i++) {
    uint64_t step = 1u + (i * 7919u) % 4093u;
    tb_wait_ticks(p, step);
    uint64_t c = utim_read(p);
    uint64_t d = ct_dist(p, prev, c);
    TH_CHECKF(d >= step && d <= step + lat + 8u, "read 0x%llx then 0x%llx, %llu ticks apart",
              (unsigned long long)prev, (unsigned long long)c, (unsigned long long)step);
    done += d;
    prev = c;
  }
  if (!ct_has(p, UTIM_CAP_WRITE)) {
    TH_SKIP("not writable: only monotonic reads checked");
  }

  /* Reads across each bit boundary, at every phase and with time advanced
   * at every register access of the read. */
  uint64_t mark = tb_race_mark();
  (void)utim_read(p);
  unsigned cnt = tb_race_count(mark);
  th_note("%s: race over %u accesses of utim_read()", utim_name(p), cnt);
  for (unsigned k = 2; k < w && !th_test_failed(); k++) {
    uint64_t b = 1ull << k;
    th_context("%s boundary 0x%llx", utim_name(p), (unsigned long long)b);
    TH_EQ(utim_write(p, b - 3u), 0);
    prev = utim_read(p);
    for (unsigned i = 0; i < 60u; i++) {
      uint64_t c = utim_read(p);
      /* A glitch is a whole low period (or a step back): far beyond the
       * board's latency allowance, which covers a slow read on a fast clock. */
      TH_CHECKF(ct_dist(p, prev, c) <= 3u + lat, "read 0x%llx then 0x%llx",
                (unsigned long long)prev, (unsigned long long)c);
      prev = c;
    }
    TH_CHECKF(ct_dist(p, b, prev) < max / 2u, "ended at 0x%llx", (unsigned long long)prev);
    if (ct_has(p, UTIM_CAP_STOP)) {
      for (unsigned j = 0; j <= cnt; j++) {
        TH_EQ(utim_stop(p), 0);
        TH_EQ(utim_write(p, b - 1u), 0);
        TH_EQ(utim_start(p), 0);
        tb_race_set(p, j, 2u);
        uint64_t c = utim_read(p);
        tb_race_cancel();
        TH_CHECKF(ct_dist(p, b - 1u, c) <= 4u + lat, "read 0x%llx with +2 ticks before access %u",
                  (unsigned long long)c, j);
      }
    }
  }

  /* Compare values whose upper bits differ from the counter's. */
  unsigned nch = utim_channels(p);
  for (unsigned k = 8; k + 2u <= w && nch > 0u && !th_test_failed(); k++) {
    if (k > 20u && k != w / 2u) {
      continue;
    }
    uint64_t b = 1ull << k;
    const uint64_t from[] = {2u * b - 100u, b + 100u, b + 100u, b + 5u};
    const uint64_t to[] = {2u * b + 50u, 2u * b + 100u, 2u * b + 300u, 3u * b - 7u};
    for (unsigned i = 0; i < 4u; i++) {
      unsigned ch = (k + i) % nch;
      th_context("%s ch %u counter 0x%llx, match 0x%llx", utim_name(p), ch,
                 (unsigned long long)from[i], (unsigned long long)to[i]);
      ct_ev_reset();
      if (ct_has(p, UTIM_CAP_STOP)) {
        TH_EQ(utim_stop(p), 0);
      }
      TH_EQ(utim_write(p, from[i]), 0);
      TH_EQ(utim_set_abs(p, ch, to[i]), 0);
      TH_EQ(utim_start(p), 0);
      uint64_t d = to[i] - from[i];
      tb_wait_ticks(p, d - 3u);
      /* A wait may overrun (interrupts lengthen it on a board that counts
       * instructions): what must not happen is a callback before the match. */
      TH_CHECKF(ct_nev == 0u || ct_dist(p, to[i], ct_ev[0].at) <= lat + 2u,
                "fired early, at 0x%llx", (unsigned long long)ct_ev[0].at);
      tb_wait_ticks(p, 3u + lat + 2u);
      if (TH_CHECKF(ct_nev == 1u, "%u callbacks", ct_nev)) {
        TH_CHECKF(ct_dist(p, to[i], ct_ev[0].at) <= lat + 2u, "fired at 0x%llx",
                  (unsigned long long)ct_ev[0].at);
      }
      TH_EQ(utim_clear(p, ch), 0);
    }
  }
  /* A relative distance spanning several low-half wraps. */
  if (nch > 0u && w >= 8u) {
    uint64_t dist = 3u * (1ull << (w / 2u)) + 17u;
    if (dist < max / 2u) {
      th_context("%s set_rel(%llu)", utim_name(p), (unsigned long long)dist);
      ct_rel_once(p, 0, dist, 0u, 0u);
    }
  }
}

static uint64_t ct_self_period;

/* Channel 0's callback clears channel 1, which became due at the same time. */
static void ct_act_clear_1(const utim_periph_t *p, unsigned ch) {
  if (ch == 0u) {
    TH_EQ(utim_clear(p, 1), 0);
  }
}

/* Each callback re-arms its own channel, five times in all. */
static void ct_act_rearm(const utim_periph_t *p, unsigned ch) {
  if (ct_nev < 5u) {
    TH_EQ(utim_set_rel(p, ch, ct_self_period), 0);
  }
}

/* A periodic channel clears itself from its first callback. */
static void ct_act_clear_self(const utim_periph_t *p, unsigned ch) {
  TH_EQ(utim_clear(p, ch), 0);
}

static void t_cb_api(const utim_periph_t *p) {
  unsigned n = utim_channels(p);
  if (!ct_begin_channels(p)) {
    return;
  }
  uint64_t lat = ct_lat(p);
  uint64_t d = ct_md(p) + 10u;
  if (n >= 2u) {
    th_context("%s ch 0 callback clears ch 1 due at the same value", utim_name(p));
    ct_ev_reset();
    ct_action = ct_act_clear_1;
    uint64_t t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, 0, t), 0);
    TH_EQ(utim_set_abs(p, 1, t), 0);
    tb_wait_ticks(p, d + lat + 2u);
    if (TH_CHECKF(ct_nev == 1u, "%u callbacks", ct_nev)) {
      TH_EQ(ct_ev[0].ch, 0);
    }
    /* The same with both events held behind a mask, delivered by unmask. */
    ct_ev_reset();
    ct_action = ct_act_clear_1;
    TH_EQ(utim_mask(p, UTIM_EVT_CH(0) | UTIM_EVT_CH(1)), 0);
    t = ct_add(p, utim_read(p), d);
    TH_EQ(utim_set_abs(p, 0, t), 0);
    TH_EQ(utim_set_abs(p, 1, t), 0);
    tb_wait_ticks(p, d + lat + 2u);
    TH_EQ(ct_nev, 0);
    TH_EQ(utim_unmask(p, UTIM_EVT_CH(0) | UTIM_EVT_CH(1)), 0);
    if (TH_CHECKF(ct_nev == 1u, "%u callbacks", ct_nev)) {
      TH_EQ(ct_ev[0].ch, 0);
    }
  }
  for (unsigned ch = 0; ch < n; ch++) {
    th_context("%s ch %u re-arms itself from its callback", utim_name(p), ch);
    ct_ev_reset();
    ct_self_period = d;
    ct_action = ct_act_rearm;
    uint64_t s = utim_read(p);
    TH_EQ(utim_set_rel(p, ch, d), 0);
    tb_wait_ticks(p, 7u * (d + lat));
    if (TH_CHECKF(ct_nev == 5u, "%u callbacks", ct_nev)) {
      uint64_t prev = s;
      for (unsigned k = 0; k < 5u; k++) {
        uint64_t gap = ct_dist(p, prev, ct_ev[k].at);
        TH_CHECKF(gap >= d && gap <= d + 2u * lat, "callback %u %llu ticks after the previous", k,
                  (unsigned long long)gap);
        prev = ct_ev[k].at;
      }
    }
    th_context("%s ch %u periodic clears itself from its callback", utim_name(p), ch);
    ct_ev_reset();
    ct_action = ct_act_clear_self;
    TH_EQ(utim_set_periodic(p, ch, d), 0);
    tb_wait_ticks(p, 5u * d);
    TH_CHECKF(ct_nev == 1u, "%u callbacks", ct_nev);
  }
}

/* ---- runner ------------------------------------------------------------- */

typedef void (*ct_fn_t)(const utim_periph_t *p);

typedef struct ct_test {
  const char *name;
  ct_fn_t fn;
} ct_test_t;

/* t_uninit first: nothing may initialise an instance before it. */
static const ct_test_t ct_tests[] = {
    {"uninitialised", t_uninit},
    {"properties", t_props},
    {"claim", t_claim},
    {"frequencies", t_freqs},
    {"closest frequency", t_closest},
    {"counter advances", t_counter},
    {"write then read", t_write},
    {"one-shot every channel", t_oneshot},
    {"channels in order", t_order},
    {"periodic", t_periodic},
    {"armed while stopped", t_stopped},
    {"clear", t_clear},
    {"re-arm after clear", t_rearm},
    {"re-arm replaces", t_replace},
    {"relative 0..15", t_rel},
    {"absolute late", t_abs_late},
    {"overflow", t_overflow},
    {"mask and pending", t_mask},
    {"invalid input", t_invalid},
    {"callbacks calling the API", t_cb_api},
    {"chained", t_chain},
};

typedef struct ct_job {
  ct_fn_t fn;
  const utim_periph_t *p;
} ct_job_t;

static void ct_trampoline(void *arg) {
  const ct_job_t *job = arg;
  job->fn(job->p);
  TH_CHECKF(ct_lost == 0u, "%u callbacks not recorded (recorder full)", ct_lost);
}

static void ct_setup(void) {
  tb_setup();
  ct_ev_reset();
  for (unsigned i = 0; i < utim_count() && i < CT_MAX_INST; i++) {
    const utim_periph_t *p = utim_by_index(i);
    (void)utim_set_compare_cb(p, ct_cmp_cb, &ct_cookie[i]);
    if (ct_has(p, UTIM_CAP_OVERFLOW)) {
      (void)utim_set_overflow_cb(p, NULL, NULL);
    }
  }
}

int utim_conformance_run(void) {
  th_set_setup(ct_setup);
  th_printf("TAP version 13\n");
  th_note("utim conformance suite, board %s, %u instances", tb_board_name(), utim_count());
  for (unsigned i = 0; i < utim_count(); i++) {
    const utim_periph_t *p = utim_by_index(i);
    if (p != NULL) {
      th_note("Timer %u: %s, %u bits, %u channels, caps 0x%lx, min distance %u", i, utim_name(p),
              utim_width(p), utim_channels(p), (unsigned long)utim_caps(p), utim_min_distance(p));
    }
  }
  th_run("instance look-up", t_lookup, NULL);
  for (unsigned t = 0; t < sizeof ct_tests / sizeof ct_tests[0]; t++) {
    for (unsigned i = 0; i < utim_count() && i < CT_MAX_INST; i++) {
      char name[96];
      ct_job_t job = {ct_tests[t].fn, utim_by_index(i)};
      (void)th_snprintf(name, sizeof name, "%s: %s", ct_tests[t].name, utim_name(job.p));
      th_run(name, ct_trampoline, &job);
    }
  }
  return th_finish();
}
