/*
 * The clock source's report: what was chosen, how and why, as fields and as
 * one line of text built by hand (no stdio in the board), and the warning
 * about a UTIM_CLOCKSOURCE value that names no usable source.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "clocksource_internal.h"

typedef struct sbuf {
  char *p;
  size_t cap;
  size_t len;
} sbuf_t;

static void put_s(sbuf_t *b, const char *s) {
  while (*s != '\0') {
    if (b->len + 1u < b->cap) {
      b->p[b->len++] = *s;
    }
    s++;
  }
  b->p[b->len < b->cap ? b->len : b->cap - 1u] = '\0';
}

static void put_u(sbuf_t *b, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0u);
  char out[24];
  for (int i = 0; i < n; i++) {
    out[i] = tmp[n - 1 - i];
  }
  out[n] = '\0';
  put_s(b, out);
}

/* @p s in double quotes, so a stray space shows: printable ASCII as is,
 * '"' and '\\' escaped, anything else as \xNN. */
static void put_quoted(sbuf_t *b, const char *s) {
  static const char hex[] = "0123456789abcdef";
  put_s(b, "\"");
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[5] = {0};
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
    } else if (c >= 0x20u && c < 0x7fu) {
      esc[0] = (char)c;
    } else {
      esc[0] = '\\';
      esc[1] = 'x';
      esc[2] = hex[c >> 4];
      esc[3] = hex[c & 0xfu];
    }
    put_s(b, esc);
  }
  put_s(b, "\"");
}

static void put_i(sbuf_t *b, int64_t v) {
  if (v < 0) {
    put_s(b, "-");
    put_u(b, 0u - (uint64_t)v);
  } else {
    put_u(b, (uint64_t)v);
  }
}

static const char *freq_src_name(unsigned s) {
  switch (s) {
  case UTIM_CS_FREQ_CPUID_15:
    return "CPUID 0x15";
  case UTIM_CS_FREQ_CPUID_16:
    return "CPUID 0x16";
  case UTIM_CS_FREQ_HYPERVISOR:
    return "hypervisor leaf 0x40000010";
  case UTIM_CS_FREQ_CNTFRQ:
    return "CNTFRQ_EL0";
  case UTIM_CS_FREQ_NS:
    return "ns clock";
  default:
    return "unknown";
  }
}

static const char *const env_note[] = {
    [NATIVE_CS_ENV_UNSET] = "unset",
    [NATIVE_CS_ENV_HONOURED] = "honoured",
    [NATIVE_CS_ENV_UNKNOWN] = "ignored: no time source has that name",
    [NATIVE_CS_ENV_ABSENT] = "ignored: that time source is not present on this machine",
    [NATIVE_CS_ENV_FAILED] = "ignored: calibrating that time source failed",
};

/* The warning's reason, after the quoted value. */
static const char *const env_warning[] = {
    [NATIVE_CS_ENV_UNSET] = "",
    [NATIVE_CS_ENV_HONOURED] = "",
    [NATIVE_CS_ENV_UNKNOWN] = ": no time source has that name",
    [NATIVE_CS_ENV_ABSENT] = ": that time source is not present on this machine",
    [NATIVE_CS_ENV_FAILED] = ": calibrating that time source against CLOCK_MONOTONIC_RAW failed",
};

void native_cs_warn_env(void) {
  char text[768];
  sbuf_t b = {text, sizeof text, 0u};
  put_s(&b, "utim: UTIM_CLOCKSOURCE=");
  put_quoted(&b, native_cs.env_value != NULL ? native_cs.env_value : "");
  put_s(&b, env_warning[native_cs.env]);
  put_s(&b, "; using the automatic choice, ");
  put_s(&b, native_cs_names[native_cs.cur]);
  put_s(&b, ". Valid names here (any case, \"NATIVE_\" optional):");
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (native_cs.rep.cand[i].rating > 0) {
      put_s(&b, " ");
      put_s(&b, native_cs_names[i]);
      put_s(&b, ",");
    }
  }
  put_s(&b, " auto\n");
  /* write(2), not stdio: the board does without it. One call, so the line
   * is not split among other threads' output. */
  (void)!write(STDERR_FILENO, text, b.len);
}

void native_cs_compose_reason(utim_cs_report_t *r) {
  sbuf_t b = {r->reason, sizeof(r->reason), 0u};
  const utim_cs_candidate_t *c = &r->cand[r->chosen];
  static const char *const how[3] = {"chosen automatically", "chosen by UTIM_CLOCKSOURCE",
                                     "chosen by utim_clocksource_select()"};
  put_s(&b, c->name);
  put_s(&b, " (rating ");
  put_i(&b, c->rating);
  put_s(&b, ") ");
  put_s(&b, how[r->how]);
  put_s(&b, ": ");
  put_s(&b, c->why);
  if (r->chosen == native_cs.counter) {
    put_s(&b, "; ");
    if (r->chosen == UTIM_CS_CNTVCT) {
      /* No flags to read: the architecture defines the generic timer so. */
      put_s(&b, "architecturally constant-rate and always on, ");
    } else {
      if ((c->flags & UTIM_CS_F_INVARIANT) != 0u) {
        put_s(&b, "invariant bit, ");
      }
      if ((c->flags & UTIM_CS_F_CONSTANT) != 0u) {
        put_s(&b, "constant_tsc, ");
      }
      if ((c->flags & UTIM_CS_F_NONSTOP) != 0u) {
        put_s(&b, "nonstop_tsc, ");
      }
    }
    put_s(&b, "kernel clocksource ");
    put_s(&b, r->kernel_cs[0] != '\0' ? r->kernel_cs : "unknown");
    put_s(&b, (c->flags & UTIM_CS_F_SYNC_OK) != 0u     ? ", monotonic across "
              : (c->flags & UTIM_CS_F_SYNC_FAIL) != 0u ? ", went back across "
                                                       : ", cross-CPU check not run on ");
    put_u(&b, r->cpus_checked);
    put_s(&b, " CPUs (");
    put_u(&b, r->sync_rounds);
    put_s(&b, " readings per pair); nominal ");
    put_u(&b, c->hz);
    put_s(&b, " Hz (");
    put_s(&b, freq_src_name(c->freq_src));
    put_s(&b, "); calibrated ");
    put_u(&b, r->hz);
    put_s(&b, " Hz against CLOCK_MONOTONIC_RAW over ");
    put_i(&b, r->cal_window / UTIM_NS_PER_US);
    put_s(&b, " us (bracket ");
    put_i(&b, r->cal_bracket);
    put_s(&b, " ns); ns = ticks * ");
    put_u(&b, r->ms.mult);
    put_s(&b, " >> ");
    put_u(&b, r->ms.shift);
  } else {
    put_s(&b, "; kernel clocksource ");
    put_s(&b, r->kernel_cs[0] != '\0' ? r->kernel_cs : "unknown");
  }
  if (native_cs.env != NATIVE_CS_ENV_UNSET) {
    put_s(&b, "; UTIM_CLOCKSOURCE=");
    put_quoted(&b, native_cs.env_value);
    put_s(&b, " ");
    put_s(&b, env_note[native_cs.env]);
  }
  put_s(&b, ". Others:");
  for (int i = 0; i < (int)UTIM_CS_COUNT; i++) {
    if (i == r->chosen) {
      continue;
    }
    put_s(&b, " ");
    put_s(&b, r->cand[i].name);
    put_s(&b, " ");
    put_i(&b, r->cand[i].rating);
    put_s(&b, " (");
    put_s(&b, r->cand[i].why);
    put_s(&b, ")");
  }
  put_s(&b, ".");
}

int utim_clocksource_report(utim_cs_report_t *out) {
  if (out == NULL) {
    return -EINVAL;
  }
  (void)utim_clocksource_init();
  pthread_mutex_lock(&native_cs_lock);
  *out = native_cs.rep;
  out->chosen = native_cs.cur;
  out->how = native_cs.how;
  out->refits = native_cs.refits;
  out->last_offset = native_cs.last_offset;
  native_cs_snap_t s;
  while (!native_cs_snap_read(&s)) {
  }
  out->ms.mult = s.mult;
  out->ms.shift = s.shift;
  out->ms.max_delta = s.mult != 0u ? UINT64_MAX / s.mult : UINT64_MAX;
  out->ms.reserved = 0u;
  if (native_cs.cur == native_cs.counter) {
    out->hz = native_cs.hz;
    out->cal_window = native_cs.cal_window;
    out->cal_bracket = native_cs.cal_bracket;
    const utim_cs_candidate_t *c = &native_cs.rep.cand[native_cs.cur];
    if (c->hz != 0u) {
      uint64_t diff = native_cs.hz > c->hz ? native_cs.hz - c->hz : c->hz - native_cs.hz;
      uint64_t q;
      (void)utim_muldiv(diff, (uint64_t)UTIM_NS_PER_S, c->hz, UTIM_ROUND_NEAREST, &q);
      out->cal_ppb = native_cs.hz >= c->hz ? native_cs_sat_i64(q) : -native_cs_sat_i64(q);
    }
  } else {
    out->hz = (uint64_t)UTIM_NS_PER_S;
  }
  native_cs_compose_reason(out);
  pthread_mutex_unlock(&native_cs_lock);
  return 0;
}
