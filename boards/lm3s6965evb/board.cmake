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
# counter is SysTick, whose wrap (2^24 cycles, 1.3 s at 12.5 MHz) is too slow
# for the time line's wrap test and which leaves nothing to be the alarm; the
# GPTMs' time-outs are modelled but their counters cannot be read
# (boards/lm3s6965evb/board.h).
set(UTIM_BOARD_SLEEP OFF)
# One timer in the table under QEMU (SysTick): no stress or cmsis firmware, which time
# one instance against another (bench/mcu). The ops firmware measures the GPTM driver
# against SysTick (bench/mcu/ops_lm3s6965evb.c).
set(UTIM_BOARD_TWO_TIMERS OFF)
