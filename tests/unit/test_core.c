/*
 * Unit tests of the core against a mock driver whose counter and compare
 * registers the test sets by hand: frequency selection and enumeration,
 * property routing, claims, the late-arming window, dispatch order, masking
 * and periodic re-arming. Host only.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "utim/port.h"
#include "utim/utim.h"

/* ---- mock port: a lock depth, and relax moves the mock counter ----------- */

static unsigned lock_depth;
static uint64_t mock_count; /* counter of the mock timer */
static unsigned relax_calls;

uint32_t utim_port_lock(void) {
  return lock_depth++;
}

void utim_port_unlock(uint32_t key) {
  lock_depth = key;
}

void utim_port_relax(void) {
  relax_calls++;
  mock_count++;
}

/* ---- mock driver -------------------------------------------------------------- */

#define MOCK_CH 3u

static struct {
  unsigned init_calls, clk;
  uint32_t div;
  bool running;
  int mode[MOCK_CH];
  uint64_t cc[MOCK_CH];
  unsigned set_calls;
  uint64_t ovf_irq;
  uint64_t advance_on_read; /* ticks the counter moves at each read */
  unsigned stall_reads;     /* reads left that move it by stall_ticks instead */
  uint64_t stall_ticks;
} mock;

static int mock_init(const utim_periph_t *p, unsigned clk, uint32_t div) {
  (void)p;
  mock.init_calls++;
  mock.clk = clk;
  mock.div = div;
  mock.running = false;
  mock_count = 0;
  return 0;
}

static int mock_enable(const utim_periph_t *p, bool on) {
  (void)p;
  mock.running = on;
  return 0;
}

static uint64_t mock_read(const utim_periph_t *p) {
  uint64_t step = mock.advance_on_read;
  if (mock.stall_reads > 0u) {
    mock.stall_reads--;
    step = mock.stall_ticks;
  }
  mock_count = (mock_count + step) & utim_max(p);
  return mock_count;
}

static int mock_write(const utim_periph_t *p, uint64_t v) {
  (void)p;
  mock_count = v;
  return 0;
}

static void mock_set_channel(const utim_periph_t *p, unsigned ch, utim_ch_mode_t mode,
                             uint64_t value) {
  (void)p;
  mock.mode[ch] = (int)mode;
  mock.cc[ch] = value;
  mock.set_calls++;
}

static int mock_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  (void)p;
  if (id == UTIM_PROP_DRIVER_BASE + 7u) {
    *value = 1234u;
    return 0;
  }
  return -ENOTSUP;
}

static int mock_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  (void)p;
  if (id == UTIM_HPROP_OVF_IRQ) {
    mock.ovf_irq = value;
    return 0;
  }
  return -ENOTSUP;
}

static const utim_driver_t mock_driver = {mock_init,        mock_enable,      mock_read,
                                          mock_write,       mock_set_channel, mock_get_property,
                                          mock_set_property};

static const utim_driver_t mock_driver_min = {mock_init,        mock_enable, mock_read, NULL,
                                              mock_set_channel, NULL,        NULL};

static const utim_clock_desc_t mock_clocks[] = {
    {16000000u, UTIM_CLASS_HF, UTIM_DIV_POW2, 0u, 0u, 9u},
    {32768u, UTIM_CLASS_LP, UTIM_DIV_POW2, 0u, 0u, 9u},
    {1000000u, UTIM_CLASS_HF, UTIM_DIV_LINEAR, 0u, 1u, 1000u},
    {0u, UTIM_CLASS_CHAIN, UTIM_DIV_LINEAR, 0u, 1u, 1u},
};

UTIM_STATE_DEFINE(mock_state, MOCK_CH);
UTIM_STATE_DEFINE(mock_state_min, 1);

static const utim_dev_t mock_dev = {&mock_state, "MOCK16", mock_clocks, 4u, 3u, 0u};
static const utim_dev_t mock_dev_min = {&mock_state_min, "MOCKMIN", mock_clocks, 2u, 1u, 0u};

static const utim_periph_t mock_p = {
    &mock_driver, &mock_dev, UTIM_PROPS(16, MOCK_CH, 0, UTIM_CAP_OVERFLOW | UTIM_CAP_WRITE)};
static const utim_periph_t mock_min = {&mock_driver_min, &mock_dev_min, UTIM_PROPS(8, 1, 1, 0)};

static const utim_periph_t *const mock_table[] = {&mock_p, &mock_min};
const utim_board_t utim_board = {"mock", mock_table, 2u};

/* ---- recorded callbacks ------------------------------------------------------- */

#define LOG_MAX 64u
static char cb_log[LOG_MAX * 4u];

static void log_add(const char *s) {
  size_t n = strlen(cb_log);
  (void)snprintf(cb_log + n, sizeof cb_log - n, "%s", s);
}

/* Callbacks and the grid points they stood for (1 + utim_overrun()). */
static unsigned cb_count;
static uint64_t cb_credit;

// cppcheck-suppress constParameter ; the signature is utim_cmp_cb_t
static void cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  char b[8];
  cb_count++;
  cb_credit += 1u + (uint64_t)utim_overrun(p, ch);
  (void)snprintf(b, sizeof b, "c%u%s", ch, arg == (void *)&mock ? "" : "?");
  log_add(b);
}

// cppcheck-suppress constParameter ; the signature is utim_ovf_cb_t
static void ovf_cb(const utim_periph_t *p, void *arg) {
  (void)p;
  log_add(arg == (void *)&mock ? "o" : "o?");
}

static void setup(void) {
  memset(&mock, 0, sizeof mock);
  mock_count = 0;
  relax_calls = 0;
  lock_depth = 0;
  cb_log[0] = '\0';
  cb_count = 0;
  cb_credit = 0;
  mock_state.hz = 0;
  (void)utim_set_compare_cb(&mock_p, cmp_cb, &mock);
  mock_state.ovf_cb = NULL;
  mock_state.owner = NULL;
}

/* ---- tests --------------------------------------------------------------------------- */

static void t_init_selects_clock(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(mock.clk, 0u); /* 16 MHz / 16 is tried before the 1 MHz input */
  TH_EQU(mock.div, 16u);
  TH_EQ(utim_init(&mock_p, 32768u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(mock.clk, 1u);
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_HF), 0);
  TH_EQ(mock.clk, 2u);
  TH_EQU(mock.div, 1000u);
  TH_EQ(utim_init(&mock_p, 64u, UTIM_CLOCK_LP), 0);
  TH_EQU(mock.div, 512u);
  TH_EQ(utim_init(&mock_p, 1000000u, UTIM_CLOCK_PLATFORM(2)), 0);
  TH_EQ(mock.clk, 2u);
  TH_EQU(utim_freq(&mock_p), 1000000u);
  uint64_t v = 0;
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_DIVIDER, &v), 0);
  TH_EQU(v, 1u);
}

static void t_init_errors_change_nothing(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  unsigned calls = mock.init_calls;
  TH_EQ(utim_init(&mock_p, 0u, UTIM_CLOCK_DEFAULT), -EINVAL);
  TH_EQ(utim_init(&mock_p, 1000u, 7u), -EINVAL);
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_PLATFORM(4)), -EINVAL);
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_LP), -ERANGE);
  TH_EQ(utim_init(&mock_p, 3u, UTIM_CLOCK_DEFAULT), -ERANGE);
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_PLATFORM(3)), -ERANGE); /* chained input */
  TH_EQ(utim_init(&mock_p, 999999u, UTIM_CLOCK_HF), -ERANGE);
  TH_EQ(utim_init(&mock_min, 1000000u, UTIM_CLOCK_LP), -ERANGE);
  TH_EQ(mock.init_calls, calls);
  TH_EQU(utim_freq(&mock_p), 1000u);
}

static void t_closest(void *arg) {
  (void)arg;
  uint32_t f = 0;
  TH_EQ(utim_closest_freq(&mock_p, 1000001u, UTIM_CLOCK_DEFAULT, &f), 0);
  TH_EQU(f, 1000000u);
  TH_EQ(utim_closest_freq(&mock_p, 999999u, UTIM_CLOCK_DEFAULT, &f), 0);
  TH_EQU(f, 1000000u);
  /* 16 MHz / 2^k around 3 MHz: 2 MHz and 4 MHz are 1 MHz away; the tie picks the lower. */
  TH_EQ(utim_closest_freq(&mock_p, 3000000u, UTIM_CLOCK_PLATFORM(0), &f), 0);
  TH_EQU(f, 2000000u);
  TH_EQ(utim_closest_freq(&mock_p, 20000000u, UTIM_CLOCK_DEFAULT, &f), 0);
  TH_EQU(f, 16000000u);
  TH_EQ(utim_closest_freq(&mock_p, 1u, UTIM_CLOCK_DEFAULT, &f), 0);
  TH_EQU(f, 64u);
  /* 1 MHz / d for d in 1..1000 dividing 10^6: 333 kHz lies between 1e6/3 (not exact) ... */
  TH_EQ(utim_closest_freq(&mock_p, 333333u, UTIM_CLOCK_PLATFORM(2), &f), 0);
  TH_EQU(f, 250000u);
  TH_EQ(utim_closest_freq(&mock_p, 1000u, UTIM_CLOCK_DEFAULT, NULL), -EINVAL);
  TH_EQ(utim_closest_freq(&mock_p, 0u, UTIM_CLOCK_DEFAULT, &f), -EINVAL);
  TH_EQ(utim_closest_freq(&mock_p, 10u, UTIM_CLOCK_PLATFORM(3), &f), -ERANGE);
}

static void t_freqs(void *arg) {
  (void)arg;
  uint32_t out[64];
  TH_EQ(utim_freqs(&mock_p, 0u, out, 64u), 10);
  TH_EQU(out[0], 16000000u);
  TH_EQU(out[9], 31250u);
  TH_EQ(utim_freqs(&mock_p, 0u, out, 2u), 10);
  TH_EQ(utim_freqs(&mock_p, 0u, NULL, 0u), 10);
  /* divisors of 10^6 up to 1000: (2^a 5^b, a,b <= 6) <= 1000 */
  int n = utim_freqs(&mock_p, 2u, out, 64u);
  int expect = 0;
  for (uint32_t d = 1; d <= 1000u; d++) {
    expect += (1000000u % d == 0u);
  }
  TH_EQ(n, expect);
  for (int i = 1; i < n && i < 64; i++) {
    TH_CHECKF(out[i] < out[i - 1], "not descending at %d", i);
  }
  TH_EQ(utim_freqs(&mock_p, 3u, out, 64u), 0);
  TH_EQ(utim_freqs(&mock_p, 4u, out, 64u), -EINVAL);
  TH_EQ(utim_freqs(&mock_p, 0u, NULL, 1u), -EINVAL);
  /* utim_freq_floor() walks the same list from the top, past any buffer. */
  for (unsigned c = 0; c < 3u; c++) {
    n = utim_freqs(&mock_p, c, out, 64u);
    uint32_t hz = UINT32_MAX;
    int k = 0;
    uint32_t f;
    while (utim_freq_floor(&mock_p, c, hz, &f) == 0) {
      TH_CHECKF(k >= 64 || f == out[k], "input %u: %d-th %lu, listed %lu", c, k, (unsigned long)f,
                (unsigned long)out[k]);
      k++;
      hz = f - 1u;
    }
    TH_EQ(k, n);
  }
  uint32_t f = 0;
  TH_EQ(utim_freq_floor(&mock_p, 2u, 333333u, &f), 0);
  TH_EQU(f, 250000u);
  TH_EQ(utim_freq_floor(&mock_p, 0u, 31249u, &f), -ERANGE);
  TH_EQ(utim_freq_floor(&mock_p, 0u, 0u, &f), -ERANGE);
  TH_EQ(utim_freq_floor(&mock_p, 3u, 1000u, &f), -ERANGE);
  TH_EQ(utim_freq_floor(&mock_p, 4u, 1000u, &f), -EINVAL);
  TH_EQ(utim_freq_floor(&mock_p, 0u, 1000u, NULL), -EINVAL);
}

static void t_properties(void *arg) {
  (void)arg;
  uint64_t v = 0;
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_WIDTH, &v), 0);
  TH_EQU(v, 16u);
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_MAX, &v), 0);
  TH_EQU(v, 0xffffu);
  TH_EQ(utim_get_property(&mock_min, UTIM_PROP_COUNT_DOWN, &v), 0);
  TH_EQU(v, 1u);
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_MIN_DISTANCE, &v), 0);
  TH_EQU(v, 3u);
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_DRIVER_BASE + 7u, &v), 0);
  TH_EQU(v, 1234u);
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_DRIVER_BASE + 8u, &v), -ENOTSUP);
  TH_EQ(utim_get_property(&mock_min, UTIM_PROP_DRIVER_BASE + 7u, &v), -ENOTSUP);
  TH_EQ(utim_get_property(&mock_p, 0x50u, &v), -ENOTSUP);
  TH_EQ(utim_get_property(&mock_p, UTIM_HPROP_OVF_IRQ, &v), -ENOTSUP);
  TH_EQ(utim_get_property(&mock_p, UTIM_PROP_WIDTH, NULL), -EINVAL);
  TH_EQ(utim_set_property(&mock_p, UTIM_PROP_FREQ, 5u), -EINVAL);
  TH_EQ(utim_set_property(&mock_p, UTIM_HPROP_OVF_IRQ, 1u), -ENOTSUP);
  TH_EQU(mock.ovf_irq, 0u);
  TH_EQ(utim_set_property(&mock_min, UTIM_PROP_DRIVER_BASE, 1u), -ENOTSUP);
}

static void t_claim_lookup(void *arg) {
  (void)arg;
  int a = 0;
  int b = 0;
  TH_EQ(utim_claim(&mock_p, &a), 0);
  TH_EQ(utim_claim(&mock_p, &a), 0);
  TH_EQ(utim_claim(&mock_p, &b), -EBUSY);
  TH_EQ(utim_release(&mock_p, &b), -EBUSY);
  TH_EQ(utim_release(&mock_p, &a), 0);
  TH_EQ(utim_release(&mock_p, &a), -EINVAL);
  TH_EQ(utim_claim(&mock_p, NULL), -EINVAL);
  TH_EQ(utim_claim(NULL, &a), -EINVAL);
  TH_CHECK(utim_by_name("MOCKMIN") == &mock_min);
  TH_CHECK(utim_by_name("MOCK") == NULL);
  TH_CHECK(utim_by_name(NULL) == NULL);
  TH_CHECK(utim_by_index(1) == &mock_min);
  TH_CHECK(utim_by_index(2) == NULL);
  TH_EQ(utim_count(), 2);
  TH_EQ(utim_write(&mock_min, 1u), -ENOTSUP);
  TH_EQ(utim_write(&mock_min, 256u), -ERANGE);
  TH_EQ(utim_start(&mock_min), -EINVAL); /* not initialised */
}

/* The late window of absolute arming: 0 or < min distance ahead, or more than half behind. */
static void t_abs_window(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  mock_count = 100;
  unsigned calls = mock.set_calls;
  TH_EQ(utim_set_abs(&mock_p, 0, 100u), -ETIME);
  TH_EQ(utim_set_abs(&mock_p, 0, 102u), -ETIME);
  TH_EQ(utim_set_abs(&mock_p, 0, 99u), -ETIME);
  TH_EQ(utim_set_abs(&mock_p, 0, (100u + 0x8000u) & 0xffffu), -ETIME);
  TH_EQ(mock.set_calls, calls);
  TH_EQ(utim_set_abs(&mock_p, 0, 103u), 0);
  TH_EQ(mock.mode[0], UTIM_CH_ONESHOT);
  TH_EQU(mock.cc[0], 103u);
  TH_EQ(utim_set_abs(&mock_p, 1, (100u + 0x7fffu) & 0xffffu), 0);
  TH_EQ(utim_set_abs(&mock_p, 3, 200u), -EINVAL);
  TH_EQ(utim_set_abs(&mock_p, 0, 0x10000u), -ERANGE);
  TH_EQ(mock.mode[0], UTIM_CH_ONESHOT); /* errors kept the earlier setting */
  TH_EQU(mock.cc[0], 103u);
}

/* Relative arming shorter than the minimum distance is stretched; wrap is masked. */
static void t_rel_stretch_and_wrap(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  mock_count = 0xfffe;
  TH_EQ(utim_set_rel(&mock_p, 2, 0u), 0);
  TH_EQU(mock.cc[2], 1u);
  TH_EQ(utim_set_rel(&mock_p, 2, 10u), 0);
  TH_EQU(mock.cc[2], 8u);
  TH_EQ(utim_set_rel(&mock_p, 2, 0x10000u), -ERANGE);
  TH_EQU(mock.cc[2], 8u);
  TH_CHECK(strcmp(cb_log, "") == 0);
}

/* The counter runs past the target while arming: due now, delivered once, hardware off. */
static void t_rel_due_during_call(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  mock.advance_on_read = 5; /* each read moves 5 ticks */
  TH_EQ(utim_set_rel(&mock_p, 1, 4u), 0);
  TH_CHECKF(strcmp(cb_log, "c1") == 0, "log '%s'", cb_log);
  TH_EQ(mock.mode[1], UTIM_CH_OFF);
  /* Target 6 ahead, read shows 5 (1 < min distance 3 short): busy-wait, then due. */
  cb_log[0] = '\0';
  mock.advance_on_read = 0;
  mock_count = 50;
  relax_calls = 0;
  TH_EQ(utim_set_rel(&mock_p, 0, 3u), 0); /* 3 ahead, nothing moves: armed */
  TH_EQ(mock.mode[0], UTIM_CH_ONESHOT);
  TH_EQ(relax_calls, 0u);
}

static void t_dispatch_order_mask(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  TH_EQ(utim_set_overflow_cb(&mock_p, ovf_cb, &mock), 0);
  TH_EQU(mock.ovf_irq, 1u);
  /* Events of channels that are not armed are stale and dropped. */
  utim_core_event(&mock_p, UTIM_EVT_CH(1));
  TH_CHECKF(strcmp(cb_log, "") == 0, "log '%s'", cb_log);
  for (unsigned ch = 0; ch < MOCK_CH; ch++) {
    TH_EQ(utim_set_rel(&mock_p, ch, 100u), 0);
  }
  utim_core_event(&mock_p, UTIM_EVT_OVF | UTIM_EVT_CH(2) | UTIM_EVT_CH(0));
  TH_CHECKF(strcmp(cb_log, "c0c2o") == 0, "log '%s'", cb_log);
  cb_log[0] = '\0';
  TH_EQ(utim_mask(&mock_p, UTIM_EVT_CH(1) | UTIM_EVT_OVF), 0);
  TH_EQ(utim_set_periodic(&mock_p, 1, 100u), 0);
  TH_EQ(utim_set_rel(&mock_p, 0, 100u), 0);
  utim_core_event(&mock_p, UTIM_EVT_OVF);
  utim_core_event(&mock_p, UTIM_EVT_CH(1));
  utim_core_event(&mock_p, UTIM_EVT_CH(1) | UTIM_EVT_OVF | UTIM_EVT_CH(0));
  TH_CHECKF(strcmp(cb_log, "c0") == 0, "log '%s'", cb_log);
  TH_EQU(utim_pending(&mock_p), UTIM_EVT_CH(1) | UTIM_EVT_OVF);
  TH_EQ(utim_mask(&mock_p, UTIM_EVT_CH(3)), -EINVAL);
  TH_EQ(utim_unmask(&mock_min, UTIM_EVT_OVF), -EINVAL);
  cb_log[0] = '\0';
  TH_EQ(utim_unmask(&mock_p, UTIM_EVT_CH(1) | UTIM_EVT_OVF), 0);
  TH_CHECKF(strcmp(cb_log, "c1o") == 0, "coalesced, got '%s'", cb_log);
  TH_EQU(utim_pending(&mock_p), 0u);
  /* clear drops a masked event */
  cb_log[0] = '\0';
  TH_EQ(utim_mask(&mock_p, UTIM_EVT_CH(2)), 0);
  TH_EQ(utim_set_rel(&mock_p, 2, 100u), 0);
  utim_core_event(&mock_p, UTIM_EVT_CH(2));
  TH_EQU(utim_pending(&mock_p), UTIM_EVT_CH(2));
  TH_EQ(utim_clear(&mock_p, 2), 0);
  TH_EQ(utim_unmask(&mock_p, UTIM_EVT_CH(2)), 0);
  TH_CHECKF(strcmp(cb_log, "") == 0, "log '%s'", cb_log);
  TH_EQ(utim_set_overflow_cb(&mock_p, NULL, NULL), 0);
  TH_EQU(mock.ovf_irq, 0u);
  TH_EQ(utim_set_overflow_cb(&mock_min, ovf_cb, NULL), -ENOTSUP);
  TH_EQ(lock_depth, 0u);
}

static void t_periodic_grid(void *arg) {
  (void)arg;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  mock_count = 0xfff0;
  TH_EQ(utim_set_periodic(&mock_p, 0, 0x20u), 0);
  TH_EQU(mock.cc[0], 0x10u);
  mock_count = 0x12; /* serviced 2 ticks late: next match stays on the grid */
  utim_core_event(&mock_p, UTIM_EVT_CH(0));
  TH_EQU(mock.cc[0], 0x30u);
  mock_count = 0x75; /* two whole periods late: 0x50 and 0x70 are skipped */
  utim_core_event(&mock_p, UTIM_EVT_CH(0));
  TH_EQU(mock.cc[0], 0x90u);
  TH_CHECKF(strcmp(cb_log, "c0c0") == 0, "log '%s'", cb_log);
  TH_EQ(utim_set_periodic(&mock_p, 0, 0u), -EINVAL);
  TH_EQ(utim_set_periodic(&mock_p, 0, 2u), -ERANGE);
  TH_EQ(utim_set_periodic(&mock_p, 0, 0x10000u), -ERANGE);
  TH_EQU(mock.cc[0], 0x90u);
  TH_EQ(utim_clear(&mock_p, 0), 0);
  TH_EQ(mock.mode[0], UTIM_CH_OFF);
  utim_core_event(&mock_p, UTIM_EVT_CH(0)); /* a stale event after clear is not re-armed */
  TH_EQ(mock.mode[0], UTIM_CH_OFF);
}

/* Grid points start + k * period (k >= 1) before the armed compare mock.cc[ch]. */
static uint64_t grid_before_cc(unsigned ch, uint64_t start, uint64_t period) {
  uint64_t d = (mock.cc[ch] - start) & utim_max(&mock_p);
  TH_CHECKF(d % period == 0u, "compare 0x%llx is off the grid 0x%llx + k * %llu",
            (unsigned long long)mock.cc[ch], (unsigned long long)start, (unsigned long long)period);
  return d / period - 1u;
}

/*
 * A period shorter than one re-arm (the counter moves 2 ticks at each read,
 * min distance 3): the re-arm skips ahead on the grid instead of chasing a
 * target that is always due, and callbacks plus overruns count every grid
 * point once. Before the fix utim_set_periodic() never returned here.
 */
static void t_periodic_unsustainable(void *arg) {
  (void)arg;
  const uint64_t period = 3u;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  mock_count = 100u;
  mock.advance_on_read = 2u;
  TH_EQ(utim_set_periodic(&mock_p, 0, period), 0);
  const uint64_t start = 102u; /* the counter the call read */
  TH_EQ(mock.mode[0], UTIM_CH_ONESHOT);
  TH_CHECKF(((mock.cc[0] - mock_count) & 0xffffu) >= 3u, "armed 0x%llx at counter 0x%llx",
            (unsigned long long)mock.cc[0], (unsigned long long)mock_count);
  uint64_t before = grid_before_cc(0, start, period);
  TH_EQU(cb_credit, before);
  for (unsigned i = 0; i < 20u; i++) {
    mock_count = mock.cc[0]; /* the match */
    utim_core_event(&mock_p, UTIM_EVT_CH(0));
    TH_EQ(mock.mode[0], UTIM_CH_ONESHOT);
    TH_EQU(cb_credit, grid_before_cc(0, start, period));
  }
  TH_CHECKF(cb_count >= 20u && cb_credit > cb_count, "%u callbacks for %llu grid points", cb_count,
            (unsigned long long)cb_credit);
  TH_EQ(lock_depth, 0u);
  TH_EQ(utim_clear(&mock_p, 0), 0);
  TH_EQ(utim_overrun(&mock_p, 0), 0);
  TH_EQ(utim_overrun(&mock_p, MOCK_CH), -EINVAL);
}

/*
 * Every re-arm attempt stalls for most of a wrap (three reads each): all
 * eight fail, and the reached match is left pending with its re-arm to be
 * retried by the delivery, outside the lock. Masked here, so the state in
 * between shows: no compare armed, the event pending. Unmasking re-arms the
 * channel on its grid before the callback runs.
 */
static void t_periodic_stalled_rearm(void *arg) {
  (void)arg;
  const uint64_t period = 0x100u;
  TH_EQ(utim_init(&mock_p, 1000u, UTIM_CLOCK_DEFAULT), 0);
  mock_count = 0x1000u;
  TH_EQ(utim_set_periodic(&mock_p, 1, period), 0);
  TH_EQU(mock.cc[1], 0x1100u);
  TH_EQ(utim_mask(&mock_p, UTIM_EVT_CH(1)), 0);
  mock_count = 0x1100u;
  mock.stall_reads = 3u * 8u;
  mock.stall_ticks = 0xc000u;
  utim_core_event(&mock_p, UTIM_EVT_CH(1));
  TH_EQ(mock.stall_reads, 0u);
  TH_EQ(mock.mode[1], UTIM_CH_OFF);
  TH_EQU(utim_pending(&mock_p), UTIM_EVT_CH(1));
  TH_EQ(cb_count, 0u);
  TH_EQ(utim_unmask(&mock_p, UTIM_EVT_CH(1)), 0);
  TH_EQ(cb_count, 1u);
  TH_EQ(mock.mode[1], UTIM_CH_ONESHOT);
  (void)grid_before_cc(1, 0x1000u, period);
  TH_CHECKF(((mock.cc[1] - mock_count) & 0xffffu) >= 3u, "armed 0x%llx at counter 0x%llx",
            (unsigned long long)mock.cc[1], (unsigned long long)mock_count);
  TH_CHECK(utim_overrun(&mock_p, 1) > 0);
  TH_EQU(utim_pending(&mock_p), 0u);
  TH_EQ(lock_depth, 0u);
}

int main(void) {
  th_set_putc(th_stdio_putc);
  th_set_setup(setup);
  th_run("init selects clock input and divider", t_init_selects_clock, NULL);
  th_run("init errors change nothing", t_init_errors_change_nothing, NULL);
  th_run("closest frequency", t_closest, NULL);
  th_run("frequency enumeration", t_freqs, NULL);
  th_run("property routing", t_properties, NULL);
  th_run("claim, release and look-up", t_claim_lookup, NULL);
  th_run("absolute arming late window", t_abs_window, NULL);
  th_run("relative arming stretch and wrap", t_rel_stretch_and_wrap, NULL);
  th_run("relative arming due during the call", t_rel_due_during_call, NULL);
  th_run("dispatch order and masking", t_dispatch_order_mask, NULL);
  th_run("periodic grid", t_periodic_grid, NULL);
  th_run("periodic shorter than a re-arm", t_periodic_unsustainable, NULL);
  th_run("periodic re-arm stalled at every attempt", t_periodic_stalled_rearm, NULL);
  return th_finish();
}
