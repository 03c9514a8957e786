# The Stellaris LM3S6965 evaluation board (Cortex-M3) as QEMU models it.
# Read by the top-level CMakeLists.txt in a cross build (UTIM_BOARD=lm3s6965evb).
set(UTIM_BOARD_CPU cortex-m3)
# External interrupt lines of the vector table (boards/cortexm/startup.c): the
# 64 of QEMU's model (GPTM Timer 0A = 19, 1A = 21, 2A = 23, 3A = 35).
set(UTIM_BOARD_NUM_IRQ 64)
# Drivers linked into this board's firmware (folders of drivers/).
set(UTIM_BOARD_DRIVERS systick stellaris_gptm)
# qemu-system-arm -M <machine>
set(UTIM_BOARD_QEMU_MACHINE lm3s6965evb)
# Extra qemu-system-arm arguments: none.
set(UTIM_BOARD_QEMU_ARGS)
# No precise-sleep port (tests/sleep): under QEMU the board's only readable
# counter is SysTick (no write, so the time line cannot start near its wrap,
# 1.3 s away), and the alarm would have to be a GPTM time-out, which QEMU 7.2
# under -icount sleep=off does not wake WFI for until the timer's second
# time-out (measured: a WFI armed for 12,500 cycles returns after 25,003; with
# sleep=on after about 12,500): every coarse sleep would end a whole period
# late. Checked with a sleep port built that way (SysTick time line, GPTM 0's
# top as the alarm), which then missed 10 ms sleeps by 9 ms.
set(UTIM_BOARD_SLEEP OFF)
# One timer in the table under QEMU (SysTick): no stress or cmsis firmware, which time
# one instance against another (bench/mcu). The ops firmware measures the GPTM driver
# against SysTick (bench/mcu/ops_lm3s6965evb.c).
set(UTIM_BOARD_TWO_TIMERS OFF)
