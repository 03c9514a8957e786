/**
 * @file harness.c
 * @brief TAP test harness; freestanding (no heap, no libc output).
 */
#include "harness.h"

#include <stddef.h>

/* Failures beyond this many in one test are counted, not printed: a broken
 * loop of 10,000 tries must not flood a UART. */
#define TH_MAX_PRINTED 8u
#define TH_NAME_LEN    96u
#define TH_DETAIL_LEN  200u
#define TH_CONTEXT_LEN 80u

static th_putc_t th_out_fn;
static void (*th_setup_fn)(void);

static unsigned th_n_run;
static unsigned th_n_pass;
static unsigned th_n_fail;
static unsigned th_n_skip;
static unsigned th_n_later;       /* passed only on a later attempt */
static unsigned th_attempts = 1u; /* th_set_attempts() */

static bool th_cur_failed;
static bool th_cur_skipped;
static unsigned th_cur_nfail;
static char th_cur_name[TH_NAME_LEN];
static char th_cur_detail[TH_DETAIL_LEN];
static char th_cur_skip[TH_DETAIL_LEN];
static char th_cur_context[TH_CONTEXT_LEN];

/* ---- formatter ---------------------------------------------------------- */

typedef struct th_sink {
  char *buf; /* NULL: write through the output hook */
  unsigned cap;
  unsigned len;
} th_sink_t;

static void th_emit(th_sink_t *s, char c) {
  if (s->buf == NULL) {
    if (th_out_fn != NULL) {
      th_out_fn(c);
    }
  } else if (s->len + 1u < s->cap) {
    s->buf[s->len] = c;
  }
  s->len++;
}

static void th_emit_str(th_sink_t *s, const char *str) {
  for (; *str != '\0'; str++) {
    th_emit(s, *str);
  }
}

static void th_emit_num(th_sink_t *s, uint64_t v, bool neg, unsigned base, bool upper,
                        unsigned width, bool zero, bool left) {
  char tmp[24];
  unsigned n = 0;
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    tmp[n++] = digits[v % base];
    v /= base;
  } while (v != 0u);
  unsigned len = n + (neg ? 1u : 0u);
  if (!left && !zero) {
    for (; len < width; width--) {
      th_emit(s, ' ');
    }
  }
  if (neg) {
    th_emit(s, '-');
  }
  if (!left && zero) {
    for (; len < width; width--) {
      th_emit(s, '0');
    }
  }
  while (n > 0u) {
    th_emit(s, tmp[--n]);
  }
  if (left) {
    for (; len < width; width--) {
      th_emit(s, ' ');
    }
  }
}

enum th_len {
  TH_LEN_INT,
  TH_LEN_CHAR,
  TH_LEN_SHORT,
  TH_LEN_LONG,
  TH_LEN_LLONG,
  TH_LEN_SIZE,
  TH_LEN_MAX,
  TH_LEN_PTRDIFF
};

/* Branches that look alike fetch distinct C types, which va_arg must match. */
// NOLINTBEGIN(bugprone-branch-clone)
static uint64_t th_arg_unsigned(va_list *ap, enum th_len len) {
  switch (len) {
  case TH_LEN_CHAR:
    return (unsigned char)va_arg(*ap, unsigned);
  case TH_LEN_SHORT:
    return (unsigned short)va_arg(*ap, unsigned);
  case TH_LEN_LONG:
    return va_arg(*ap, unsigned long);
  case TH_LEN_LLONG:
    return va_arg(*ap, unsigned long long);
  case TH_LEN_SIZE:
    return va_arg(*ap, size_t);
  case TH_LEN_MAX:
    return va_arg(*ap, uintmax_t);
  case TH_LEN_PTRDIFF:
    return (uint64_t)va_arg(*ap, ptrdiff_t);
  default:
    return va_arg(*ap, unsigned);
  }
}

static int64_t th_arg_signed(va_list *ap, enum th_len len) {
  switch (len) {
  case TH_LEN_CHAR:
    return (signed char)va_arg(*ap, int);
  case TH_LEN_SHORT:
    return (short)va_arg(*ap, int);
  case TH_LEN_LONG:
    return va_arg(*ap, long);
  case TH_LEN_LLONG:
    return va_arg(*ap, long long);
  case TH_LEN_SIZE:
    return (int64_t)va_arg(*ap, size_t);
  case TH_LEN_MAX:
    return va_arg(*ap, intmax_t);
  case TH_LEN_PTRDIFF:
    return va_arg(*ap, ptrdiff_t);
  default:
    return va_arg(*ap, int);
  }
}
// NOLINTEND(bugprone-branch-clone)

/* va_list is taken by pointer so that helpers can consume arguments portably
 * (va_list may be an array type). */
static void th_vformat(th_sink_t *s, const char *fmt, va_list *ap) {
  for (; *fmt != '\0'; fmt++) {
    if (*fmt != '%') {
      th_emit(s, *fmt);
      continue;
    }
    fmt++;
    bool zero = false;
    bool left = false;
    for (;; fmt++) {
      if (*fmt == '0') {
        zero = true;
      } else if (*fmt == '-') {
        left = true;
      } else {
        break;
      }
    }
    unsigned width = 0;
    for (; *fmt >= '0' && *fmt <= '9'; fmt++) {
      width = width * 10u + (unsigned)(*fmt - '0');
    }
    enum th_len len = TH_LEN_INT;
    if (*fmt == 'h') {
      fmt++;
      len = TH_LEN_SHORT;
      if (*fmt == 'h') {
        fmt++;
        len = TH_LEN_CHAR;
      }
    } else if (*fmt == 'l') {
      fmt++;
      len = TH_LEN_LONG;
      if (*fmt == 'l') {
        fmt++;
        len = TH_LEN_LLONG;
      }
    } else if (*fmt == 'z') {
      fmt++;
      len = TH_LEN_SIZE;
    } else if (*fmt == 'j') {
      fmt++;
      len = TH_LEN_MAX;
    } else if (*fmt == 't') {
      fmt++;
      len = TH_LEN_PTRDIFF;
    }
    switch (*fmt) {
    case 'd':
    case 'i': {
      int64_t v = th_arg_signed(ap, len);
      uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
      th_emit_num(s, mag, v < 0, 10u, false, width, zero, left);
      break;
    }
    case 'u':
      th_emit_num(s, th_arg_unsigned(ap, len), false, 10u, false, width, zero, left);
      break;
    case 'x':
    case 'X':
      th_emit_num(s, th_arg_unsigned(ap, len), false, 16u, *fmt == 'X', width, zero, left);
      break;
    case 'c':
      th_emit(s, (char)va_arg(*ap, int));
      break;
    case 's': {
      const char *str = va_arg(*ap, const char *);
      th_emit_str(s, str == NULL ? "(null)" : str);
      break;
    }
    case 'p':
      th_emit_str(s, "0x");
      th_emit_num(s, (uint64_t)(uintptr_t)va_arg(*ap, void *), false, 16u, false, 0u, false, false);
      break;
    case '%':
      th_emit(s, '%');
      break;
    case '\0':
      return;
    default:
      th_emit(s, '%');
      th_emit(s, *fmt);
      break;
    }
  }
}

static void th_terminate(th_sink_t *s) {
  if (s->buf != NULL && s->cap > 0u) {
    s->buf[s->len < s->cap ? s->len : s->cap - 1u] = '\0';
  }
}

/* ---- output ------------------------------------------------------------- */

void th_set_putc(th_putc_t fn) {
  th_out_fn = fn;
}

void th_set_setup(void (*fn)(void)) {
  th_setup_fn = fn;
}

void th_vprintf(const char *fmt, va_list ap) {
  th_sink_t s = {NULL, 0u, 0u};
  va_list cp;
  va_copy(cp, ap);
  th_vformat(&s, fmt, &cp);
  va_end(cp);
}

void th_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  th_vprintf(fmt, ap);
  va_end(ap);
}

/* buf is written through the sink, which tidy cannot see. */
static unsigned th_vsnprintf(char *buf, // NOLINT(readability-non-const-parameter)
                             unsigned cap, const char *fmt, va_list ap) {
  th_sink_t s = {buf, cap, 0u};
  va_list cp;
  va_copy(cp, ap);
  th_vformat(&s, fmt, &cp);
  va_end(cp);
  th_terminate(&s);
  return s.len;
}

unsigned th_snprintf(char *buf, unsigned cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  unsigned n = th_vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}

const char *th_fixed(char *buf, unsigned cap, int64_t v, unsigned decimals) {
  unsigned d = 0;
  uint64_t scale = 1u;
  while (d < decimals && d < 9u) {
    scale *= 10u;
    d++;
  }
  const bool neg = v < 0;
  const uint64_t a = neg ? 0u - (uint64_t)v : (uint64_t)v;
  /* The fraction's digits, leading zeros included (this printf has no '*'). */
  char frac[10];
  uint64_t f = a % scale;
  for (unsigned i = d; i > 0u; i--) {
    frac[i - 1u] = (char)('0' + f % 10u);
    f /= 10u;
  }
  frac[d] = '\0';
  (void)th_snprintf(buf, cap, "%s%llu%s%s", neg ? "-" : "", (unsigned long long)(a / scale),
                    d > 0u ? "." : "", frac);
  return buf;
}

void th_note(const char *fmt, ...) {
  va_list ap;
  th_printf("# ");
  va_start(ap, fmt);
  th_vprintf(fmt, ap);
  va_end(ap);
  th_printf("\n");
}

/* ---- tests -------------------------------------------------------------- */

static void th_copy(char *dst, unsigned cap, const char *src) {
  unsigned i = 0;
  for (; src != NULL && src[i] != '\0' && i + 1u < cap; i++) {
    dst[i] = src[i];
  }
  dst[i] = '\0';
}

void th_context(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  (void)th_vsnprintf(th_cur_context, TH_CONTEXT_LEN, fmt, ap);
  va_end(ap);
}

void th_skip(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  (void)th_vsnprintf(th_cur_skip, TH_DETAIL_LEN, fmt, ap);
  va_end(ap);
  th_cur_skipped = true;
}

static const char *th_basename(const char *path) {
  const char *b = path;
  for (const char *c = path; *c != '\0'; c++) {
    if (*c == '/' || *c == '\\') {
      b = c + 1;
    }
  }
  return b;
}

/* Records one failure: the first one becomes the detail of the "not ok"
 * line, each of the first few is printed in full as a diagnostic. */
static void th_fail(const char *file, int line, const char *what, const char *detail) {
  th_cur_failed = true;
  th_cur_nfail++;
  if (th_cur_nfail == 1u) {
    (void)th_snprintf(th_cur_detail, TH_DETAIL_LEN, "%s:%d: %s%s%s%s%s", th_basename(file), line,
                      th_cur_context, th_cur_context[0] != '\0' ? ": " : "", what,
                      detail[0] != '\0' ? " -- " : "", detail);
  }
  if (th_cur_nfail <= TH_MAX_PRINTED) {
    th_printf("# FAIL %s:%d: [%s] %s%s%s\n", th_basename(file), line, th_cur_context, what,
              detail[0] != '\0' ? " -- " : "", detail);
  } else if (th_cur_nfail == TH_MAX_PRINTED + 1u) {
    th_printf("# (further failures of this test are counted, not printed)\n");
  }
}

bool th_check(bool ok, const char *file, int line, const char *expr, const char *fmt, ...) {
  if (ok) {
    return true;
  }
  char detail[TH_DETAIL_LEN];
  detail[0] = '\0';
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    (void)th_vsnprintf(detail, TH_DETAIL_LEN, fmt, ap);
    va_end(ap);
  }
  th_fail(file, line, expr, detail);
  return false;
}

bool th_check_eq_i(int64_t a, int64_t b, const char *file, int line, const char *ea,
                   const char *eb) {
  if (a == b) {
    return true;
  }
  char what[TH_DETAIL_LEN];
  char detail[TH_DETAIL_LEN];
  (void)th_snprintf(what, TH_DETAIL_LEN, "%s == %s", ea, eb);
  (void)th_snprintf(detail, TH_DETAIL_LEN, "got %lld, want %lld", (long long)a, (long long)b);
  th_fail(file, line, what, detail);
  return false;
}

bool th_check_eq_u(uint64_t a, uint64_t b, const char *file, int line, const char *ea,
                   const char *eb) {
  if (a == b) {
    return true;
  }
  char what[TH_DETAIL_LEN];
  char detail[TH_DETAIL_LEN];
  (void)th_snprintf(what, TH_DETAIL_LEN, "%s == %s", ea, eb);
  (void)th_snprintf(detail, TH_DETAIL_LEN, "got %llu (0x%llx), want %llu (0x%llx)",
                    (unsigned long long)a, (unsigned long long)a, (unsigned long long)b,
                    (unsigned long long)b);
  th_fail(file, line, what, detail);
  return false;
}

bool th_test_failed(void) {
  return th_cur_failed;
}

void th_set_attempts(unsigned n) {
  th_attempts = n == 0u ? 1u : n;
}

void th_run(const char *name, th_test_t fn, void *arg) {
  th_copy(th_cur_name, TH_NAME_LEN, name);
  unsigned attempt = 1u;
  for (;; attempt++) {
    th_cur_failed = false;
    th_cur_skipped = false;
    th_cur_nfail = 0;
    th_cur_detail[0] = '\0';
    th_cur_skip[0] = '\0';
    th_cur_context[0] = '\0';
    if (th_setup_fn != NULL) {
      th_setup_fn();
    }
    fn(arg);
    if (!th_cur_failed || attempt >= th_attempts) {
      break;
    }
    th_printf("# attempt %u of %u of \"%s\" failed (%s); running it again\n", attempt, th_attempts,
              th_cur_name, th_cur_detail);
  }
  th_n_run++;
  if (attempt > 1u && !th_cur_failed) {
    th_n_later++;
    th_printf("# \"%s\" passed on attempt %u of %u\n", th_cur_name, attempt, th_attempts);
  }
  if (th_cur_failed) {
    th_n_fail++;
    if (th_cur_nfail > 1u) {
      th_printf("not ok %u - %s # %s (%u failed checks)\n", th_n_run, th_cur_name, th_cur_detail,
                th_cur_nfail);
    } else {
      th_printf("not ok %u - %s # %s\n", th_n_run, th_cur_name, th_cur_detail);
    }
  } else if (th_cur_skipped) {
    th_n_skip++;
    th_printf("ok %u - %s # SKIP %s\n", th_n_run, th_cur_name, th_cur_skip);
  } else {
    th_n_pass++;
    th_printf("ok %u - %s\n", th_n_run, th_cur_name);
  }
}

unsigned th_failed(void) {
  return th_n_fail;
}

int th_finish(void) {
  th_printf("1..%u\n", th_n_run);
  if (th_n_later > 0u) {
    th_printf("# %u of them passed only on a later attempt (see above)\n", th_n_later);
  }
  if (th_n_skip > 0u) {
    th_printf("%u passed, %u failed, %u skipped\n", th_n_pass, th_n_fail, th_n_skip);
  } else {
    th_printf("%u passed, %u failed\n", th_n_pass, th_n_fail);
  }
  return th_n_fail == 0u ? 0 : 1;
}
