/**
 * @file bench_ops_nop.c
 * @brief `ops` loops on the NOP driver.
 *
 * Why a translation-unit-local driver copy and not -flto: the uAPI's
 * delegations only fold to direct calls when the compiler sees the instance
 * and the driver struct it points to. UTIM_NOP_DRIVER_DEFINE() gives this
 * file its own `static const` copy of the NOP driver struct (the same seven
 * external functions), so `utim_read(&nop_ct)` compiles to
 * `call utim_nop_read` with any optimising compiler, on the host and on MCU
 * toolchains alike. -flto would also do it, but only when every library is
 * built with it, and whether it folds is then up to the linker plugin.
 */
#include "utim_bench.h"
#include "utim_nop.h"

UTIM_NOP_DRIVER_DEFINE(nop_drv_ct);
UTIM_NOP_INSTANCE_DEFINE(nop_ct, &nop_drv_ct, 64, 4, "NOP64-CT");

/* The run-time path uses the shared instance, behind a volatile pointer. */
static const utim_periph_t *volatile nop_rt = &utim_nop64;

BENCH_OPS_DEFINE(nop, "nop", &nop_ct, nop_drv_ct, nop_rt);
