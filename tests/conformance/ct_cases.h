/**
 * @file ct_cases.h
 * @brief The registry of the conformance suite: every per-instance case, in
 *        the order the suite runs them.
 *
 * Each entry X(function, "name") is a case `void function(const
 * utim_periph_t *p)` defined in one of the case_*.c files; the suite runs it
 * on every instance, as the TAP test "name: <instance name>". ct.h declares
 * the functions and conformance.c builds its run list from this one list.
 *
 * Adding a case: write its function in the case file of its group (or in a
 * new case_<group>.c that includes "ct.h", added to the sources of
 * utim_conformance in CMakeLists.txt), then add its line here. The order is
 * part of the suite's output: append unless there is a reason not to, and
 * keep ct_case_uninit first (nothing may initialise an instance before it;
 * the uAPI has no way back to the uninitialised state).
 */
#ifndef UTIM_TEST_CT_CASES_H
#define UTIM_TEST_CT_CASES_H

/** @brief Apply @p X(function, name) to every case, in run order. */
#define CT_CASES(X)                                                                                \
  X(ct_case_uninit, "uninitialised")                                                               \
  X(ct_case_props, "properties")                                                                   \
  X(ct_case_claim, "claim")                                                                        \
  X(ct_case_freqs, "frequencies")                                                                  \
  X(ct_case_closest, "closest frequency")                                                          \
  X(ct_case_counter, "counter advances")                                                           \
  X(ct_case_write, "write then read")                                                              \
  X(ct_case_oneshot, "one-shot every channel")                                                     \
  X(ct_case_order, "channels in order")                                                            \
  X(ct_case_periodic, "periodic")                                                                  \
  X(ct_case_stopped, "armed while stopped")                                                        \
  X(ct_case_clear, "clear")                                                                        \
  X(ct_case_rearm, "re-arm after clear")                                                           \
  X(ct_case_replace, "re-arm replaces")                                                            \
  X(ct_case_rel, "relative 0..15")                                                                 \
  X(ct_case_abs_late, "absolute late")                                                             \
  X(ct_case_rel_far, "relative, far")                                                              \
  X(ct_case_overflow, "overflow")                                                                  \
  X(ct_case_mask, "mask and pending")                                                              \
  X(ct_case_top, "top (reload) and overflow pending")                                              \
  X(ct_case_invalid, "invalid input")                                                              \
  X(ct_case_cb_api, "callbacks calling the API")                                                   \
  X(ct_case_chain, "chained")                                                                      \
  X(ct_case_overrun, "periodic overruns")                                                          \
  X(ct_case_chain_held_off, "chained, interrupts held off across low wraps")

#endif /* UTIM_TEST_CT_CASES_H */
