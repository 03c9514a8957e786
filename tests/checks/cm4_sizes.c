/**
 * @file cm4_sizes.c
 * @brief Build-time size check of the constant instance types on Cortex-M4.
 *
 * Compiled (never linked) by tests/checks/cm4_check.cmake with
 * arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb, after every public header of
 * include/utim/ was force-included, so it also proves that the headers
 * compile for the 32-bit target. The _Static_asserts are the check; the
 * utim_sizeof_* objects only carry each size into the object's symbol table,
 * where the script reads them back with arm-none-eabi-nm to report them.
 */
#include <stdint.h>

#include "utim/chain.h"
#include "utim/driver.h"
#include "utim/port.h"
#include "utim/tm.h"
#include "utim/utim.h"

/* The promises are about 32-bit targets (cm4_check.cmake, the Cortex-M and
 * RV32 boards); a 64-bit bare-metal build (RV64) only reports its sizes. */
#if UINTPTR_MAX == 0xFFFFFFFFu
_Static_assert(sizeof(void *) == 4u, "Cortex-M4 is a 32-bit target");
_Static_assert(sizeof(utim_periph_t) <= 12u,
               "utim_periph_t must fit in 12 bytes on a 32-bit target");
_Static_assert(sizeof(utim_driver_t) <= 28u,
               "utim_driver_t must fit in 28 bytes on a 32-bit target");
/* driver.h documents the RAM state's size; keep the documentation true. */
_Static_assert(sizeof(utim_state_t) == 48u,
               "utim_state_t is documented as 48 bytes on a 32-bit target");
_Static_assert(sizeof(utim_driver_t) / sizeof(void (*)(void)) <= 7u,
               "a driver has at most seven operations");
/* The time manager's timers are caller-owned, one per timeout: tm.h
 * promises 32 bytes on 32-bit targets. */
_Static_assert(sizeof(utim_tm_timer_t) <= 32u,
               "utim_tm_timer_t must fit in 32 bytes on a 32-bit target");
#endif

/** @brief Its size is sizeof(utim_tm_timer_t). */
const unsigned char utim_sizeof_tm_timer[sizeof(utim_tm_timer_t)] = {0};
/** @brief Its size is sizeof(utim_tm_t): the manager with its wheel (fixed RAM). */
const unsigned char utim_sizeof_tm[sizeof(utim_tm_t)] = {0};
/** @brief Its size is sizeof(utim_periph_t). */
const unsigned char utim_sizeof_periph[sizeof(utim_periph_t)] = {0};
/** @brief Its size is sizeof(utim_driver_t). */
const unsigned char utim_sizeof_driver[sizeof(utim_driver_t)] = {0};
/** @brief Its size is sizeof(utim_dev_t). */
const unsigned char utim_sizeof_dev[sizeof(utim_dev_t)] = {0};
/** @brief Its size is sizeof(utim_state_t) (channel states come on top). */
const unsigned char utim_sizeof_state[sizeof(utim_state_t)] = {0};
/** @brief Its size is sizeof(utim_chan_state_t), RAM per channel. */
const unsigned char utim_sizeof_chan_state[sizeof(utim_chan_state_t)] = {0};
/** @brief Its size is sizeof(utim_clock_desc_t). */
const unsigned char utim_sizeof_clock_desc[sizeof(utim_clock_desc_t)] = {0};
/** @brief Its size is sizeof(utim_chain_cfg_t). */
const unsigned char utim_sizeof_chain_cfg[sizeof(utim_chain_cfg_t)] = {0};
