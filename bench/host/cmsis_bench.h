/**
 * @file cmsis_bench.h
 * @brief Internal interfaces of `utim-bench cmsis`: the instruction counts
 *        of the CMSIS-RTOS2 layer against the time manager called directly
 *        (cmsis_sim.c, in the sim-board helper program, run under callgrind
 *        by the native program) and the Rhealstone-style rows of the POSIX
 *        binding (cmd_cmsis.c).
 */
#ifndef UTIM_BENCH_CMSIS_H
#define UTIM_BENCH_CMSIS_H

/** @brief Calls of each measured function in the callgrind child. */
#define BENCH_CMSIS_CG_CALLS 1000u

/** @brief Kernel ticks a measured osTimerStart() / osDelay() asks for. */
#define BENCH_CMSIS_TICKS 100u

/**
 * @brief The functions the callgrind child runs BENCH_CMSIS_CG_CALLS times
 *        each (one call of the measured operation per run of the function),
 *        in this order: the empty one (the call's own cost), then CMSIS and
 *        direct pairs, then the layer's dispatch functions and the two
 *        user callbacks (per expiry).
 */
#define BENCH_CMSIS_CG_NAMES                                                                       \
  "cmb_cg_empty", "cmb_cg_os2_start", "cmb_cg_tm_start", "cmb_cg_os2_stop", "cmb_cg_tm_stop",      \
      "cmb_cg_os2_delay", "cmb_cg_tm_delay", "cmb_cg_os2_dispatch", "cmb_cg_tm_dispatch",          \
      "on_expiry", "utim_os2_run_deferred", "cmb_os2_cb", "cmb_tm_cb"

/** @brief Indices into BENCH_CMSIS_CG_NAMES. */
enum {
  CMB_EMPTY,
  CMB_OS2_START,
  CMB_TM_START,
  CMB_OS2_STOP,
  CMB_TM_STOP,
  CMB_OS2_DELAY,
  CMB_TM_DELAY,
  CMB_OS2_DISPATCH,
  CMB_TM_DISPATCH,
  CMB_ON_EXPIRY,
  CMB_RUN_DEFERRED,
  CMB_OS2_CB,
  CMB_TM_CB,
  CMB_NNAMES
};

/**
 * @brief The callgrind child of `utim-bench cmsis` (the helper program's
 *        `cmsis --callgrind-child`): runs the functions above on the sim
 *        board, prints nothing. Without --callgrind-child it says to run
 *        `utim-bench cmsis`.
 * @return 0, or 1 after a message
 */
int bench_cmd_cmsis_child(int argc, char **argv);

/** @brief `utim-bench cmsis` (native program). */
int bench_cmd_cmsis(int argc, char **argv);

#endif /* UTIM_BENCH_CMSIS_H */
