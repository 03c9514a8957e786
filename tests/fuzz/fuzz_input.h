/**
 * @file fuzz_input.h
 * @brief The fuzz targets' reader of their input bytes (fuzz_uapi.c,
 *        fuzz_tm.c, fuzz_os2.c): little-endian values, bytes past the end
 *        reading as 0, so every input, however short, is a whole program.
 */
#ifndef UTIM_FUZZ_INPUT_H
#define UTIM_FUZZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** @brief An input and how far it has been read. */
typedef struct fuzz_input {
  const uint8_t *data; /**< the bytes */
  size_t len;          /**< how many */
  size_t pos;          /**< the next one to read (may pass len) */
} fuzz_input_t;

/**
 * @brief The next @p bytes bytes (at most 8) as a little-endian value;
 *        those past the end read as 0 (and still count as read).
 */
static inline uint64_t fuzz_take(fuzz_input_t *in, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; i++) {
    const uint64_t b = in->pos < in->len ? in->data[in->pos] : 0u;
    in->pos++;
    v |= b << (8u * i);
  }
  return v;
}

/** @brief Whether bytes are left to read. */
static inline bool fuzz_more(const fuzz_input_t *in) {
  return in->pos < in->len;
}

#endif /* UTIM_FUZZ_INPUT_H */
