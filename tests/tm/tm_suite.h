/**
 * @file tm_suite.h
 * @brief The time manager's semantics suite (tm_suite.c), run by each
 *        board's test main on every instance and mode the board can carry.
 */
#ifndef UTIM_TEST_TM_SUITE_H
#define UTIM_TEST_TM_SUITE_H

/**
 * @brief Run the suite (TAP on the harness's output) and finish the harness.
 * @return th_finish()'s result: 0 when every test passed
 */
int tm_suite_run(void);

#endif /* UTIM_TEST_TM_SUITE_H */
