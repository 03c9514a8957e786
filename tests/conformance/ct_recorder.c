/**
 * @file ct_recorder.c
 * @brief The conformance suite's event recorder: the callbacks every
 *        instance gets, and the log of what they saw, read by the cases.
 *
 * Writers are the callbacks. They run in the interrupt context (an MCU's
 * handler, native's interrupt thread, sim's delivery) or in the test thread
 * (an arming or unmask call delivers an event that is already due). The
 * core never nests the callbacks of one instance, but those of different
 * instances may run at the same time on native (interrupt thread and test
 * thread) or preempt one another on an MCU (an interrupt during a callback
 * run from thread mode). So a writer appends under the port lock, which
 * makes writers take turns, and publishes the entry with a release store of
 * the count. The test thread reads the count with an acquire load and only
 * entries below it: no writer touches those again before the next
 * ct_ev_reset(), which the test thread itself makes, under the lock too.
 *
 * Only atomic loads and stores, no read-modify-write: ARMv6-M (micro:bit)
 * has no instructions for those and the firmware links no libatomic; the
 * lock already makes each writer's load-then-store exclusive.
 */
#include <stdatomic.h>
#include <stddef.h>

#include "ct.h"
#include "utim/port.h"

unsigned char ct_cookie[CT_MAX_INST];

static ct_ev_t ct_ev[CT_MAX_EV];
static atomic_uint ct_nev;
static atomic_uint ct_lost;
static atomic_int ct_phase;
/* Published with release, read with acquire: whatever the action reads
 * (e.g. a period) is written by the test before it sets the action. */
static _Atomic(ct_action_t) ct_action;

static void ct_record(const utim_periph_t *p, int ch, void *arg) {
  /* Counter and phase are read before the lock, when the callback runs: a
   * callback kept waiting for the lock (native) still records its moment. */
  uint64_t at = utim_read(p);
  int phase = atomic_load_explicit(&ct_phase, memory_order_acquire);
  uint32_t key = utim_port_lock();
  unsigned n = atomic_load_explicit(&ct_nev, memory_order_relaxed);
  if (n < CT_MAX_EV) {
    ct_ev[n] = (ct_ev_t){p, arg, at, ch, phase};
    atomic_store_explicit(&ct_nev, n + 1u, memory_order_release);
  } else {
    unsigned lost = atomic_load_explicit(&ct_lost, memory_order_relaxed);
    atomic_store_explicit(&ct_lost, lost + 1u, memory_order_relaxed);
  }
  utim_port_unlock(key);
}

void ct_cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  ct_record(p, (int)ch, arg);
  ct_action_t fn = atomic_load_explicit(&ct_action, memory_order_acquire);
  if (fn != NULL) {
    fn(p, ch);
  }
}

void ct_ovf_cb(const utim_periph_t *p, void *arg) {
  ct_record(p, CT_OVF, arg);
}

void ct_ev_reset(void) {
  uint32_t key = utim_port_lock();
  atomic_store_explicit(&ct_action, NULL, memory_order_release);
  atomic_store_explicit(&ct_nev, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_lost, 0u, memory_order_relaxed);
  atomic_store_explicit(&ct_phase, CT_BEFORE, memory_order_release);
  utim_port_unlock(key);
}

unsigned ct_count(void) {
  return atomic_load_explicit(&ct_nev, memory_order_acquire);
}

ct_ev_t ct_event(unsigned i) {
  if (i < ct_count()) {
    return ct_ev[i];
  }
  return (ct_ev_t){NULL, NULL, 0u, 0, 0};
}

unsigned ct_lost_count(void) {
  return atomic_load_explicit(&ct_lost, memory_order_relaxed);
}

void ct_set_phase(int phase) {
  atomic_store_explicit(&ct_phase, phase, memory_order_release);
}

void ct_set_action(ct_action_t fn) {
  atomic_store_explicit(&ct_action, fn, memory_order_release);
}

unsigned ct_count_from(int min_phase) {
  unsigned n = 0;
  for (unsigned i = 0; i < ct_count(); i++) {
    n += ct_ev[i].phase >= min_phase ? 1u : 0u;
  }
  return n;
}

const ct_ev_t *ct_first_from(int min_phase) {
  for (unsigned i = 0; i < ct_count(); i++) {
    if (ct_ev[i].phase >= min_phase) {
      return &ct_ev[i];
    }
  }
  return NULL;
}

uint64_t ct_first_at(int min_phase) {
  const ct_ev_t *ev = ct_first_from(min_phase);
  return ev == NULL ? 0u : ev->at;
}
