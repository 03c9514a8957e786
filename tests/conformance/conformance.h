/**
 * @file conformance.h
 * @brief The utim conformance suite: one suite over every instance of the
 *        linked board, written against the uAPI only and gated on capabilities.
 */
#ifndef UTIM_TEST_CONFORMANCE_H
#define UTIM_TEST_CONFORMANCE_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Run the whole suite on every instance of the board (utim_count()).
 *
 * The board must be set up and the harness output hook installed
 * (th_set_putc()) before. Prints TAP and the closing summary line.
 * @return 0 when every test passed or was skipped, 1 otherwise
 */
int utim_conformance_run(void);

#ifdef __cplusplus
}
#endif

#endif /* UTIM_TEST_CONFORMANCE_H */
