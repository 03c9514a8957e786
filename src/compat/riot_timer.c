/*
 * RIOT's periph_timer API over the uAPI (see utim/riot_timer.h): each call a
 * thin mapping, its errors folded into RIOT's -1.
 */
#include "utim/riot_timer.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "utim/port.h"
#include "utim/utim.h"

static timer_isr_ctx_t g_ctx[UTIM_RIOT_TIMER_NUMOF];

/* Per device, the channels timer_set_periodic() set (under utim_port_lock():
 * the interrupt context reads them). */
static uint32_t g_periodic[UTIM_RIOT_TIMER_NUMOF];

/* Hardware re-arms a match found due outside the interrupt gets (see
 * on_compare()) before it is called back where it was found. */
#define DEFER_TRIES 16u

/* The instance of a device the shim keeps, or NULL. */
static const utim_periph_t *dev_of(tim_t dev) {
  return dev < UTIM_RIOT_TIMER_NUMOF && dev < utim_count() ? utim_by_index(dev) : NULL;
}

/* The instance of a device timer_init() set up (the shim's claim), or NULL:
 * a device another subsystem owns is left alone. */
static const utim_periph_t *own_of(tim_t dev) {
  const utim_periph_t *p = dev_of(dev);
  return p != NULL && g_ctx[dev].cb != NULL ? p : NULL;
}

/* An initialised device's instance, with a channel it has, or NULL. */
static const utim_periph_t *chan_of(tim_t dev, int channel) {
  const utim_periph_t *p = own_of(dev);
  return p != NULL && channel >= 0 && (unsigned)channel < utim_channels(p) ? p : NULL;
}

static int riot_rc(int rc) {
  return rc == 0 ? 0 : -1;
}

static void set_periodic_bit(tim_t dev, int channel, bool on) {
  const uint32_t bit = UTIM_EVT_CH((unsigned)channel);
  /* Only this channel's calls write its bit: no lock when it is as asked
   * (a one-shot arming, the common case, pays one load). */
  if (((g_periodic[dev] & bit) != 0u) == on) {
    return;
  }
  const uint32_t key = utim_port_lock();
  g_periodic[dev] = on ? g_periodic[dev] | bit : g_periodic[dev] & ~bit;
  utim_port_unlock(key);
}

static bool is_periodic(tim_t dev, unsigned ch) {
  const uint32_t key = utim_port_lock();
  const bool on = (g_periodic[dev] & UTIM_EVT_CH(ch)) != 0u;
  utim_port_unlock(key);
  return on;
}

/* RIOT calls back from the timer's interrupt only. The uAPI delivers a match
 * it finds already due while arming from the arming call itself (thread
 * context, the caller's locks and disabled interrupts held): a one-shot
 * found so is put back on the hardware, each time twice as far (never
 * early, late by about the time the arming took), so that its interrupt
 * calls back. Only an arming that outlasts every try is called back here,
 * once: cleared first, so the delivery loop does not run it again. */
static bool deferred(const utim_periph_t *p, unsigned ch, tim_t dev) {
  if (utim_port_in_isr() || is_periodic(dev, ch)) {
    return false;
  }
  uint64_t d = utim_min_distance(p);
  for (unsigned k = 0; k < DEFER_TRIES && d <= utim_max(p) / 2u; k++, d *= 2u) {
    if (utim_set_rel(p, ch, d) != 0) {
      break;
    }
    if ((utim_pending(p) & UTIM_EVT_CH(ch)) == 0u) {
      return true;
    }
  }
  (void)utim_clear(p, ch);
  return false;
}

static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  const timer_isr_ctx_t *c = arg;
  if (!deferred(p, ch, (tim_t)(c - g_ctx))) {
    c->cb(c->arg, (int)ch);
  }
}

int timer_init(tim_t dev, uint32_t freq, timer_cb_t cb, void *arg) {
  const utim_periph_t *p = dev_of(dev);
  /* The shim owns the devices it initialises: one claimed by another
   * subsystem (utim_claim()) is refused, as RIOT refuses a busy device. A
   * refused frequency leaves a device the shim had not set up free again. */
  if (p == NULL || cb == NULL || freq == 0u || utim_claim(p, &g_ctx[dev]) != 0) {
    return -1;
  }
  const bool had = g_ctx[dev].cb != NULL;
  if (utim_init(p, freq, UTIM_CLOCK_DEFAULT) != 0) {
    if (!had) {
      (void)utim_release(p, &g_ctx[dev]);
    }
    return -1;
  }
  for (unsigned ch = 0; ch < utim_channels(p); ch++) {
    (void)utim_clear(p, ch);
    set_periodic_bit(dev, (int)ch, false);
  }
  g_ctx[dev] = (timer_isr_ctx_t){cb, arg};
  if (utim_set_compare_cb(p, on_compare, &g_ctx[dev]) != 0 || utim_start(p) != 0) {
    g_ctx[dev].cb = NULL;
    (void)utim_release(p, &g_ctx[dev]);
    return -1;
  }
  return 0;
}

int timer_set(tim_t dev, int channel, unsigned int timeout) {
  const utim_periph_t *p = chan_of(dev, channel);
  if (p == NULL || (uint64_t)timeout > utim_max(p)) {
    return -1;
  }
  /* A one-shot from here on, also for a match due during the call. */
  set_periodic_bit(dev, channel, false);
  return riot_rc(utim_set_rel(p, (unsigned)channel, timeout));
}

/* RIOT's counters are at most as wide as unsigned int. On a wider instance
 * (a 64-bit RISC-V mtime, the native board's) the value names the counter's
 * low bits, as on a timer of that width: up to half their range ahead it is
 * the next moment they equal @p value (across a carry into the upper bits);
 * otherwise it has just passed. A value just passed (or less than the
 * minimum compare distance ahead) fires at once, on every width: the
 * uAPI's -ETIME is armed as soon as possible (utim_set_rel() of 0 ticks),
 * never a full wrap late. */
int timer_set_absolute(tim_t dev, int channel, unsigned int value) {
  const utim_periph_t *p = chan_of(dev, channel);
  if (p == NULL) {
    return -1;
  }
  const uint64_t max = utim_max(p);
  int rc = -ETIME;
  set_periodic_bit(dev, channel, false);
  if (max <= (uint64_t)UINT_MAX) {
    rc = utim_set_abs(p, (unsigned)channel, value & max);
  } else {
    const uint64_t now = utim_read(p);
    const uint64_t ahead = (uint64_t)(unsigned int)(value - (unsigned int)now);
    if (ahead >= utim_min_distance(p) && ahead <= UINT_MAX / 2u) {
      rc = utim_set_abs(p, (unsigned)channel, (now + ahead) & max);
    }
  }
  if (rc == -ETIME) {
    /* Passed (also between the read and the call), or too close: at once. */
    rc = utim_set_rel(p, (unsigned)channel, 0u);
  }
  return riot_rc(rc);
}

int timer_set_periodic(tim_t dev, int channel, unsigned int value, uint8_t flags) {
  const utim_periph_t *p = chan_of(dev, channel);
  /* Everything utim_set_periodic() and the reset would refuse is refused
   * before the device is stopped or reset: a refused call changes nothing. */
  if (p == NULL || (flags & TIM_FLAG_RESET_ON_MATCH) == 0u || value < utim_min_distance(p) ||
      value == 0u || (uint64_t)value > utim_max_period(p) ||
      ((flags & TIM_FLAG_RESET_ON_SET) != 0u && (utim_caps(p) & UTIM_CAP_WRITE) == 0u) ||
      ((flags & TIM_FLAG_SET_STOPPED) != 0u && (utim_caps(p) & UTIM_CAP_STOP) == 0u)) {
    return -1;
  }
  if ((flags & TIM_FLAG_SET_STOPPED) != 0u && utim_stop(p) != 0) {
    return -1;
  }
  if ((flags & TIM_FLAG_RESET_ON_SET) != 0u && utim_write(p, 0u) != 0) {
    return -1;
  }
  /* Periodic before its first match, which may come during the call. */
  const bool was = is_periodic(dev, (unsigned)channel);
  set_periodic_bit(dev, channel, true);
  if (utim_set_periodic(p, (unsigned)channel, value) != 0) {
    set_periodic_bit(dev, channel, was);
    return -1;
  }
  /* Without TIM_FLAG_SET_STOPPED the device runs afterwards, as on RIOT's
   * boards, also when timer_stop() had stopped it. */
  return (flags & TIM_FLAG_SET_STOPPED) != 0u ? 0 : riot_rc(utim_start(p));
}

int timer_clear(tim_t dev, int channel) {
  const utim_periph_t *p = chan_of(dev, channel);
  if (p == NULL || utim_clear(p, (unsigned)channel) != 0) {
    return -1;
  }
  set_periodic_bit(dev, channel, false);
  return 0;
}

unsigned int timer_read(tim_t dev) {
  const utim_periph_t *p = dev_of(dev);
  return p != NULL ? (unsigned int)utim_read(p) : 0u;
}

void timer_start(tim_t dev) {
  const utim_periph_t *p = own_of(dev);
  if (p != NULL) {
    (void)utim_start(p);
  }
}

void timer_stop(tim_t dev) {
  const utim_periph_t *p = own_of(dev);
  if (p != NULL) {
    (void)utim_stop(p);
  }
}

uword_t timer_query_channel_numof(tim_t dev) {
  const utim_periph_t *p = dev_of(dev);
  return p != NULL ? utim_channels(p) : 0u;
}

/* The device's frequencies, highest first (RIOT's order), each once: the
 * index-th of them (0 past the end), and how many there are in *n when
 * @p n is not NULL. Those of every input timer_init() may pick
 * (UTIM_CLOCK_DEFAULT: all but chained ones), not only input 0's; walked
 * from the top with utim_freq_floor(), so no list of them is kept. */
static uint32_t freq_at(tim_t dev, uword_t index, uword_t *n) {
  const utim_periph_t *p = dev_of(dev);
  uint32_t hz = UINT32_MAX;
  uint32_t at = 0u;
  uword_t k = 0u;
  while (p != NULL && (n != NULL || k <= index)) {
    uint32_t best = 0u;
    for (unsigned c = 0; utim_clock(p, c) != NULL; c++) {
      uint32_t f;
      if (utim_clock(p, c)->cls != UTIM_CLASS_CHAIN && utim_freq_floor(p, c, hz, &f) == 0 &&
          f > best) {
        best = f;
      }
    }
    if (best == 0u) {
      break;
    }
    if (k == index) {
      at = best;
    }
    k++;
    hz = best - 1u;
  }
  if (n != NULL) {
    *n = k;
  }
  return at;
}

uword_t timer_query_freqs_numof(tim_t dev) {
  uword_t n;
  (void)freq_at(dev, 0u, &n);
  return n;
}

uint32_t timer_query_freqs(tim_t dev, uword_t index) {
  return freq_at(dev, index, NULL);
}

/* Over the inputs timer_init() may pick (UTIM_CLOCK_DEFAULT), as
 * timer_query_freqs() lists them; ties go to the lower frequency. A target
 * of 0 (which utim_closest_freq() refuses) is closest to the lowest. */
uint32_t timer_get_closest_freq(tim_t dev, uint32_t target) {
  const utim_periph_t *p = dev_of(dev);
  uint32_t f;
  if (p == NULL) {
    return 0u;
  }
  if (target == 0u) {
    const uword_t n = timer_query_freqs_numof(dev);
    return n > 0u ? timer_query_freqs(dev, n - 1u) : 0u;
  }
  return utim_closest_freq(p, target, UTIM_CLOCK_DEFAULT, &f) == 0 ? f : 0u;
}
