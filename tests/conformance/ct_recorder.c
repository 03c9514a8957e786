/**
 * @file ct_recorder.c
 * @brief The conformance suite's event recorder: the callbacks every
 *        instance gets, and the log of what they saw, read by the cases.
 */
#include "ct.h"

unsigned char ct_cookie[CT_MAX_INST];

static ct_ev_t ct_ev[CT_MAX_EV];
static volatile unsigned ct_nev;
static volatile unsigned ct_lost;
static volatile int ct_phase;
static void (*volatile ct_action)(const utim_periph_t *p, unsigned ch);

static void ct_record(const utim_periph_t *p, int ch, void *arg) {
  if (ct_nev < CT_MAX_EV) {
    ct_ev[ct_nev] = (ct_ev_t){p, arg, utim_read(p), ch, ct_phase};
    ct_nev = ct_nev + 1u;
  } else {
    ct_lost = ct_lost + 1u;
  }
}

void ct_cmp_cb(const utim_periph_t *p, unsigned ch, void *arg) {
  ct_record(p, (int)ch, arg);
  if (ct_action != NULL) {
    ct_action(p, ch);
  }
}

void ct_ovf_cb(const utim_periph_t *p, void *arg) {
  ct_record(p, CT_OVF, arg);
}

void ct_ev_reset(void) {
  ct_action = NULL;
  ct_nev = 0;
  ct_lost = 0;
  ct_phase = CT_BEFORE;
}

unsigned ct_count(void) {
  return ct_nev;
}

ct_ev_t ct_event(unsigned i) {
  return ct_ev[i];
}

unsigned ct_lost_count(void) {
  return ct_lost;
}

void ct_set_phase(int phase) {
  ct_phase = phase;
}

void ct_set_action(ct_action_t fn) {
  ct_action = fn;
}

unsigned ct_count_from(int min_phase) {
  unsigned n = 0;
  for (unsigned i = 0; i < ct_nev; i++) {
    n += ct_ev[i].phase >= min_phase ? 1u : 0u;
  }
  return n;
}

const ct_ev_t *ct_first_from(int min_phase) {
  for (unsigned i = 0; i < ct_nev; i++) {
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
