/*
 * The time manager (see utim/tm.h): system time, software timers on the
 * timing wheel (wheel.c), the channel armed tickless or ticked. Uses the
 * uAPI and the port lock only.
 *
 * Internal time is the 64-bit count of the instance's ticks since
 * utim_tm_init() (on the overflow: since the wrap before it); the wheel
 * runs on it, the reported time adds the offset utim_tm_set_time() sets,
 * so a new reported time moves no expiry.
 */
#include "utim/tm.h"

#include <stdatomic.h>
#include <stddef.h>

#include "tm_layer.h"
#include "utim/port.h"
#include "wheel_take.h"

/* Modular time: a difference of 2^63 or more is "behind". */
#define TM_HALF ((uint64_t)1 << 63)

/* The farthest the channel is armed ahead: utim_max() / 2, the farthest
 * utim_set_abs() takes (one tick more would read as passed). So reads of
 * the counter are never half a range apart. */
static uint64_t half_range(const utim_tm_t *tm) {
  return tm->max >> 1;
}

/* Whether the manager runs on the counter's overflow (ticked, no channel). */
static bool on_ovf(const utim_tm_t *tm) {
  return tm->ch == UTIM_TM_OVERFLOW;
}

/* Internal time now, extended from the counter; under the port lock.
 * On a channel: the counter's advance since the previous read, modulo its
 * range (reads are at most half a range apart). On the overflow: the time
 * of the last wrap the tick counted (last) plus the count, or plus a whole
 * period and a fresh count when the hardware flags a wrap the tick has not
 * counted yet (one at most: interrupts are never held off for a tick). */
static uint64_t now_locked(utim_tm_t *tm) {
  uint64_t raw = utim_read(tm->p);
  if (on_ovf(tm)) {
    uint64_t pending = 0;
    if (utim_get_property(tm->p, UTIM_PROP_OVF_PENDING, &pending) == 0 && pending != 0u) {
      return tm->last + tm->tick + utim_read(tm->p);
    }
    return tm->last + raw;
  }
  tm->last += (raw - tm->last_raw) & tm->max;
  tm->last_raw = raw;
  return tm->last;
}

/* Arm the channel for internal time @p target, @p now being the time of the
 * last read: exactly with utim_set_abs(); when the hardware cannot match it
 * (due, passed by now, or nearer than the minimum distance), relative to a
 * fresh read: at once when due, else no sooner than the target and at least
 * the minimum distance ahead. (At once while not due would find nothing to
 * do and come back here, over and over until the target.) */
static void arm(utim_tm_t *tm, uint64_t target, uint64_t now) {
  if (target != now &&
      utim_set_abs(tm->p, tm->ch, (tm->last_raw + (target - now)) & tm->max) == 0) {
    return;
  }
  const uint64_t left = target - now_locked(tm);
  const uint64_t md = utim_min_distance(tm->p);
  (void)utim_set_rel(tm->p, tm->ch, left >= TM_HALF || left == 0u ? 0u : (left < md ? md : left));
}

/*
 * Arm the channel for @p target, @p now being the time just read, and note
 * it as the moment the channel is armed for. Unless forced (the setting is
 * used up after the channel's interrupt), leave the channel alone when it
 * is armed for a moment no later than the target, and when that moment has
 * come: its interrupt is pending or about to be, and re-arming would drop
 * it (a task starting timers in a tight loop would hold every callback
 * off).
 */
static void rearm(utim_tm_t *tm, uint64_t target, uint64_t now, bool force) {
  if (!force && (tm->armed - now - 1u >= TM_HALF - 1u || target - now >= tm->armed - now)) {
    return;
  }
  tm->armed = target;
  arm(tm, target, now);
}

static uint32_t sat32(uint64_t x) {
  return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

/* Interrupts in a row whose next expiry is near, after which the manager
 * paces itself: a burst of close expiries is served at once, a chain that
 * does not end is not. */
#define PACE_STREAK 3u
/* The most an interrupt's entry and return are taken to cost, in multiples
 * of its own time plus a tick. */
#define PACE_COST 4u

/*
 * The interrupt's guard against taking the CPU over (the uAPI's
 * periodic channels have theirs, periodic.c). A periodic timer whose period
 * is shorter than the manager's interrupt, or a callback that starts its
 * timer again a tick ahead, finds its next expiry passed at every re-arm:
 * the interrupt would come back at once, for good. The manager cannot see
 * its interrupt's entry and return, but it sees their sum when interrupts
 * come back to back: the gap from one interrupt's re-arm (tm->end) to the
 * next one's first read (@p entry), the program getting none of it. The
 * interrupt's cost as far as it shows is that gap, but no more than its
 * lateness (from the moment it was armed for) plus its own time (@p entry
 * to @p now): one that came when due, after the program had the wait it
 * was given, costs its own time only. Only the interrupt itself can keep
 * a chain up (a starved program starts no timers): an interrupt that put
 * expiries on the wheel itself (@p self: a periodic timer's next point, a
 * start from a callback) and whose next expiry (@p target) is no farther
 * than its cost and the minimum distance is "near". From the
 * PACE_STREAK-th near one in a row, the channel is armed no sooner than
 * the least gap of the streak plus the minimum distance ahead (the pace),
 * which leaves the program at least the interrupt's entry and a tick
 * between two interrupts. A gap counts up to
 * PACE_COST times the interrupt's own time: beyond, it is a critical
 * section that held the interrupt off (the program ran), not the
 * interrupt's cost; and the least gap of the streak is moved no more
 * than halfway up by one held-off or stalled interrupt (halfway at each
 * wider gap: an interrupt whose cost grows keeps its pace). The pace
 * halves at each interrupt that is not near. Ticked, the tick itself is
 * such a chain (a tick shorter than the interrupt). Expiries come later,
 * never earlier; a periodic timer's grid points passed meanwhile are its
 * overruns. On sim at 16 MHz a periodic
 * timer is paced up to about twice the interrupt's cost (the interrupt then
 * takes half the CPU or more), never from 8 ticks up (unit_tm_sim).
 * Returns the moment to arm for.
 */
static uint64_t paced(utim_tm_t *tm, uint64_t target, bool self, uint64_t entry, uint64_t now) {
  /* In 32 bits (saturated): a cost of 2^32 ticks is no longer one to pace. */
  const uint32_t took = sat32(now - entry);
  const uint32_t most = took < UINT32_MAX / PACE_COST - 1u ? PACE_COST * (took + 1u) : UINT32_MAX;
  uint32_t gap = sat32(entry - tm->end);
  gap = gap < most ? gap : most;
  /* Its cost as far as it shows: no more than the gap, nor than its
   * lateness (from the moment it was armed for) and its own time. An
   * interrupt that came when it was due after the program had the wait
   * it was given (late 0) costs its own time only, however long the wait. */
  const uint32_t late = sat32(entry - tm->armed < TM_HALF ? entry - tm->armed : 0u);
  const uint64_t cost = (uint64_t)late + took + 1u < gap ? (uint64_t)late + took + 1u : gap;
  const uint64_t ahead = target - now < TM_HALF ? target - now : 0u;
  /* Nearer than the minimum distance (beyond its cost), the core waits
   * for the moment itself and delivers it at once (utim_set_abs()): the
   * interrupt comes when due (late 0) although the program had none of
   * the wait, so that distance counts as near whatever the lateness
   * shows, and the pace leaves it beyond the gap (a tick of the minimum
   * distance, arming itself within it, never let utim_tm_init() return). */
  const uint32_t md = utim_min_distance(tm->p) > 1u ? utim_min_distance(tm->p) : 1u;
  if (self && ahead <= cost + md) {
    /* The least of the streak: a critical section before one interrupt, or
     * a stall inside it, widens that one's figures only. But a gap above
     * it moves it halfway up: an interrupt that came to cost more than
     * the streak's first ones (its re-arm, its entry) found the pace too
     * short at every re-arm, and the streak, which only a wait of the
     * program's can end, never ended (the CPU kept for good). */
    tm->gap = tm->streak == 0u || gap < tm->gap ? gap : tm->gap + (gap - tm->gap + 1u) / 2u;
    if (tm->streak < PACE_STREAK) {
      tm->streak++;
    }
    if (tm->streak == PACE_STREAK) {
      tm->pace = tm->gap < UINT32_MAX - md ? tm->gap + md : UINT32_MAX;
    }
  } else {
    tm->streak = 0u;
    tm->pace /= 2u;
  }
  if (ahead >= tm->pace) {
    return target;
  }
  /* No farther than the channel is ever armed ahead. */
  return now + (tm->pace < half_range(tm) ? tm->pace : half_range(tm));
}

/*
 * Arm the channel for the manager's next interrupt, after the channel's
 * interrupt (@p in_irq: @p entry the time it read first) or at init.
 * Tickless: the earliest expiry, or half a range ahead when that is sooner
 * (the checkpoint that keeps the time extension right). Ticked: the next
 * point of the tick grid after now (ticks missed while interrupts were held
 * off are skipped, not caught up). After an interrupt, paced (paced()).
 */
static void program(utim_tm_t *tm, bool in_irq, uint64_t entry) {
  const uint64_t now = now_locked(tm);
  uint64_t target = now + half_range(tm);
  if (tm->mode == UTIM_TM_TICKED) {
    target = tm->tick_at + tm->tick;
    if (now - target < TM_HALF) {
      target += ((now - target) / tm->tick + 1u) * tm->tick;
    }
    if (in_irq) {
      /* The tick is a chain the interrupt feeds itself: a tick shorter
       * than the interrupt is paced as a periodic timer is, to the first
       * tick point at or after the pace (ticks skipped, not caught up). */
      const uint64_t at = paced(tm, target, true, entry, now);
      target += (at - target + tm->tick - 1u) / tm->tick * tm->tick;
      /* No farther than the channel is ever armed ahead (the pace is at
       * most that, the rounding up adds less than a tick): else a
       * critical section within the time's tolerance delays this
       * interrupt past a whole range, and a wrap is lost. The tick point
       * before is still after now. */
      if (target - now > half_range(tm)) {
        target -= tm->tick;
      }
    }
    tm->tick_at = target;
  } else {
    uint64_t next = 0;
    const bool found = utim_tm_wheel_next(&tm->wheel, &next);
    if (found) {
      if (next - now >= TM_HALF) {
        target = now; /* due: the wheel's time is behind now */
      } else if (next - now < target - now) {
        target = next;
      }
    }
    if (in_irq) {
      target = paced(tm, target, found && tm->fed, entry, now);
    }
  }
  tm->end = now;
  rearm(tm, target, now, true);
}

/* The wheel's expiry function: the timer's callback (a periodic timer back
 * on the wheel first). It ends the advance when the callback started the
 * manager anew (utim_tm_init() clears serving): the new wheel's time has
 * nothing to do with the advance's target, and going on would serve the
 * new timers early. */
static bool expire(utim_tm_node_t *n, void *ctx) {
  utim_tm_t *tm = ctx;
  utim_tm_timer_t *t = (utim_tm_timer_t *)(void *)n;
  tm->overrun = 0;
  if (t->period != 0u) {
    /* Its next grid point after the time the wheel was advanced to. The
     * expiry is due, so now - due is how long ago it was, in full: a start
     * in the past reaches 2^63 back at the start, more by the time it is
     * served (read as "ahead" modulo 2^64, that distance skipped the
     * coalescing and served the points passed one callback each). */
    const uint64_t due = n->expiry;
    const uint64_t late = tm->now_at - due;
    /* No division when on time (a library call on 32-bit cores). */
    const uint64_t k = late < t->period ? 0u : late / t->period;
    tm->overrun = k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
    utim_tm_wheel_insert(&tm->wheel, n, due + (k + 1u) * t->period);
    tm->fed = true;
  }
  t->cb(tm, t, t->arg);
  return tm->serving;
}

/* The manager's interrupt: serve what is due, arm the next one (a channel)
 * or count the wrap (the overflow, whose tick the hardware repeats). */
static void service(utim_tm_t *tm) {
  if (on_ovf(tm)) {
    tm->last += tm->tick;
  }
  const uint64_t entry = now_locked(tm);
  tm->now_at = entry;
  tm->fed = false;
  tm->serving = true;
  (void)utim_tm_wheel_advance(&tm->wheel, entry, expire, tm);
  /* A callback may have ended the manager (utim_tm_deinit()): its channel
   * is cleared and stays so; or started it anew (utim_tm_init()), which
   * armed its channel itself (a second arming would skip a tick). */
  if (!tm->serving) {
    return;
  }
  tm->serving = false;
  if (!on_ovf(tm) && tm->running) {
    program(tm, true, entry);
  }
}

/* The core delivers its callbacks with the port lock released: the
 * manager's interrupt takes it (its time extension, the wheel and the
 * timers' callbacks run under it, as tm.h says), so an interrupt of a
 * higher priority that reads the time cannot come in between. */
static void on_compare(const utim_periph_t *p, unsigned ch, void *arg) {
  utim_tm_t *tm = arg;
  (void)p;
  const uint32_t key = utim_port_lock();
  if (tm->running && ch == tm->ch) {
    service(tm);
  }
  utim_port_unlock(key);
}

static void on_overflow(const utim_periph_t *p, void *arg) {
  utim_tm_t *tm = arg;
  (void)p;
  const uint32_t key = utim_port_lock();
  if (tm->running) {
    service(tm);
  }
  utim_port_unlock(key);
}

/* Whether the manager can run on @p p's overflow with this tick: the
 * hardware must interrupt on it and tell a pending wrap, and the wrap must
 * come every tick (a settable top, or a counter whose range is the tick). */
static int check_ovf(const utim_periph_t *p, utim_tm_mode_t mode, uint64_t tick) {
  uint64_t pending = 0;
  if ((utim_caps(p) & UTIM_CAP_OVERFLOW) == 0u ||
      utim_get_property(p, UTIM_PROP_OVF_PENDING, &pending) != 0) {
    return -ENOTSUP; /* no overflow interrupt, or no pending-wrap query */
  }
  const uint64_t max = utim_max(p);
  const bool top = (utim_caps(p) & UTIM_CAP_TOP) != 0u;
  if (mode != UTIM_TM_TICKED || tick < 2u || tick - 1u > max || (!top && tick - 1u != max)) {
    return -EINVAL;
  }
  return 0;
}

int utim_tm_init(utim_tm_t *tm, const utim_periph_t *p, unsigned ch, utim_tm_mode_t mode,
                 uint64_t tick) {
  if (tm == NULL || p == NULL) {
    return -EINVAL;
  }
  tm->running = false;
  const uint64_t max = utim_max(p);
  if (ch == UTIM_TM_OVERFLOW) {
    const int rc = check_ovf(p, mode, tick);
    if (rc != 0) {
      return rc;
    }
  } else if (utim_channels(p) == 0u) {
    return -ENOTSUP;
  } else if (ch >= utim_channels(p) || (mode != UTIM_TM_TICKLESS && mode != UTIM_TM_TICKED) ||
             (mode == UTIM_TM_TICKED && (tick < utim_min_distance(p) || tick > (max >> 1)))) {
    return -EINVAL;
  }
  if (utim_freq(p) == 0u) {
    return -EINVAL; /* not initialised: its channel could never be armed */
  }
  const uint32_t key = utim_port_lock();
  tm->p = p;
  tm->ch = ch;
  tm->mode = mode;
  tm->tick = mode == UTIM_TM_TICKED ? tick : 0u;
  tm->max = max;
  tm->offset = 0u;
  tm->overrun = 0u;
  tm->serving = false;
  tm->end = 0u;
  tm->gap = 0u;
  tm->pace = 0u;
  tm->streak = 0u;
  tm->fed = false;
  tm->tick_at = 0u;
  tm->last = 0u;
  utim_tm_wheel_init(&tm->wheel, 0u);
  int rc = 0;
  if (ch == UTIM_TM_OVERFLOW) {
    if ((utim_caps(p) & UTIM_CAP_TOP) != 0u) {
      rc = utim_set_property(p, UTIM_PROP_TOP, tick - 1u);
    }
    if (rc == 0) {
      /* Not refused for want of the interrupt: check_ovf() asked first. */
      rc = utim_set_overflow_cb(p, on_overflow, tm);
    }
    /* Internal time 0 at the last wrap (tm->last is 0): the time is the
     * count, plus a period when the hardware has flagged a wrap since the
     * callback was set (that wrap is the callback's, which runs after the
     * unlock; one before is no one's: the driver drops its flag when the
     * interrupt goes on). So the tick points (the wraps) lie on multiples
     * of the tick, as a channel's do from its time zero, and a kernel tick
     * grid over the time (the CMSIS layer's) falls on them. Time 0 at init
     * (the count subtracted, until 2026-11-26) put them that count before
     * each multiple: a delay of the CMSIS layer ended that much before its
     * kernel tick. */
  } else {
    tm->last_raw = utim_read(p);
    rc = utim_set_compare_cb(p, on_compare, tm);
  }
  if (rc == 0) {
    tm->running = true;
    if (ch != UTIM_TM_OVERFLOW) {
      program(tm, false, 0u);
    }
  }
  utim_port_unlock(key);
  return rc;
}

/* Take every pending timer off the wheel (their nodes read "not pending"). */
static void drop_list(utim_tm_wheel_t *w, utim_tm_link_t *head) {
  while (head->next != head) {
    (void)utim_tm_wheel_remove(w, (utim_tm_node_t *)(void *)head->next);
  }
}

int utim_tm_deinit(utim_tm_t *tm) {
  if (tm == NULL || !tm->running) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  if (on_ovf(tm)) {
    (void)utim_set_overflow_cb(tm->p, NULL, NULL);
    if ((utim_caps(tm->p) & UTIM_CAP_TOP) != 0u) {
      (void)utim_set_property(tm->p, UTIM_PROP_TOP, tm->max);
    }
  } else {
    (void)utim_clear(tm->p, tm->ch);
    (void)utim_set_compare_cb(tm->p, NULL, NULL);
  }
  for (unsigned i = 0; i < UTIM_TM_WHEEL_LEVELS * UTIM_TM_WHEEL_SLOTS; i++) {
    drop_list(&tm->wheel, &tm->wheel.slot[i]);
  }
  drop_list(&tm->wheel, &tm->wheel.far);
  tm->running = false;
  utim_port_unlock(key);
  return 0;
}

uint64_t utim_tm_now(utim_tm_t *tm) {
  if (tm == NULL || !tm->running) {
    return 0u;
  }
  const uint32_t key = utim_port_lock();
  const uint64_t t = now_locked(tm) + tm->offset;
  utim_port_unlock(key);
  return t;
}

int utim_tm_set_time(utim_tm_t *tm, uint64_t t) {
  if (tm == NULL || !tm->running) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  tm->offset = t - now_locked(tm);
  utim_port_unlock(key);
  return 0;
}

void utim_tm_timer_init(utim_tm_timer_t *t, utim_tm_cb_t cb, void *arg) {
  if (t == NULL) {
    return;
  }
  t->node.link.next = NULL;
  t->node.link.prev = NULL;
  t->node.expiry = 0u;
  t->period = 0u;
  t->cb = cb;
  t->arg = arg;
}

/* The checks every start makes (utim_tm_start()'s -EINVAL). */
static bool start_ok(const utim_tm_t *tm, const utim_tm_timer_t *t, uint64_t period) {
  return tm != NULL && t != NULL && tm->running && t->cb != NULL && period <= UTIM_TM__MAX_AHEAD;
}

/* Put t on the wheel at internal time @p at (due at once when not ahead of
 * @p now, the time just read: it keeps @p at as its expiry, so a periodic
 * timer's grid is @p at + k x period and the points already passed count
 * as overruns) and, tickless, arm the channel for it (now, when due) when it
 * comes before the moment the channel is armed for: the other pending
 * expiries are none of them earlier than that moment (a stop only takes
 * expiries away), and that moment is never more than half a range ahead,
 * so the wheel need not be searched again. Under the port lock. Inline:
 * a start is little else, and its calls' frames cost it some 15 % at 10^6
 * timers pending on a host (utim-bench tm); -Os builds keep one copy. */
static inline void put(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t at, uint64_t now,
                       uint64_t period) {
  (void)WHEEL_TAKE(&tm->wheel, &t->node);
  t->period = period;
  utim_tm_wheel_insert(&tm->wheel, &t->node, at);
  if (tm->mode == UTIM_TM_TICKLESS) {
    /* From a callback of the manager's interrupt: one it feeds itself. */
    tm->fed = tm->fed || tm->serving;
    rearm(tm, at - now >= TM_HALF ? now : at, now, false);
  }
}

void utim_tm__start(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t ticks, uint64_t period) {
  const uint32_t key = utim_port_lock();
  const uint64_t now = now_locked(tm);
  put(tm, t, now + ticks, now, period);
  utim_port_unlock(key);
}

void utim_tm__start_seq(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t ticks, uint64_t period,
                        _Atomic uint32_t *seq) {
  const uint32_t key = utim_port_lock();
  /* A load and a store (relaxed): plain instructions on every target; the
   * lock makes them one step with the start. */
  atomic_store_explicit(seq, atomic_load_explicit(seq, memory_order_relaxed) + 1u,
                        memory_order_relaxed);
  const uint64_t now = now_locked(tm);
  put(tm, t, now + ticks, now, period);
  utim_port_unlock(key);
}

int utim_tm_start(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t ticks, uint64_t period) {
  if (!start_ok(tm, t, period) || ticks > UTIM_TM__MAX_AHEAD) {
    return -EINVAL;
  }
  utim_tm__start(tm, t, ticks, period);
  return 0;
}

int utim_tm_start_at(utim_tm_t *tm, utim_tm_timer_t *t, uint64_t when, uint64_t period) {
  if (!start_ok(tm, t, period)) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  const uint64_t now = now_locked(tm);
  const uint64_t at = when - tm->offset;
  if (at - now > UTIM_TM__MAX_AHEAD && at - now < TM_HALF) {
    utim_port_unlock(key);
    return -EINVAL;
  }
  put(tm, t, at, now, period);
  utim_port_unlock(key);
  return 0;
}

int utim_tm_stop(utim_tm_t *tm, utim_tm_timer_t *t) {
  if (tm == NULL || t == NULL || !tm->running) {
    return -EINVAL;
  }
  return utim_tm__stop(tm, t) ? 1 : 0;
}

bool utim_tm_pending(const utim_tm_timer_t *t) {
  return t != NULL && utim_tm_node_pending(&t->node);
}

int utim_tm_expiry(utim_tm_t *tm, const utim_tm_timer_t *t, uint64_t *out) {
  if (tm == NULL || t == NULL || out == NULL || !tm->running) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  int rc = -ENOENT;
  if (utim_tm_node_pending(&t->node)) {
    *out = t->node.expiry + tm->offset;
    rc = 0;
  }
  utim_port_unlock(key);
  return rc;
}

int utim_tm_remaining(utim_tm_t *tm, const utim_tm_timer_t *t, uint64_t *out) {
  if (tm == NULL || t == NULL || out == NULL || !tm->running) {
    return -EINVAL;
  }
  const uint32_t key = utim_port_lock();
  int rc = -ENOENT;
  if (utim_tm_node_pending(&t->node)) {
    /* Due also when not ahead of the wheel's time: a start in the past
     * (up to 2^63 back) reads "ahead" of a later now modulo 2^64. */
    const uint64_t ahead = t->node.expiry - now_locked(tm);
    const bool due = t->node.expiry - tm->wheel.clk - 1u >= TM_HALF - 1u;
    *out = due || ahead >= TM_HALF ? 0u : ahead;
    rc = 0;
  }
  utim_port_unlock(key);
  return rc;
}

uint32_t utim_tm_overrun(const utim_tm_t *tm) {
  return tm == NULL ? 0u : tm->overrun;
}
