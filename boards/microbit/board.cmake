# The BBC micro:bit (Nordic nRF51822, Cortex-M0) as QEMU models it.
# Read by the top-level CMakeLists.txt in a cross build (UTIM_BOARD=microbit).
set(UTIM_BOARD_CPU cortex-m0)
# External interrupt lines of the vector table (boards/cortexm/startup.c): the
# nRF51's 32 (TIMER0 = 8, TIMER1 = 9, TIMER2 = 10: base >> 12 & 31).
set(UTIM_BOARD_NUM_IRQ 32)
# Drivers linked into this board's firmware (folders of drivers/).
set(UTIM_BOARD_DRIVERS nrf51_timer)
# qemu-system-arm -M <machine>
set(UTIM_BOARD_QEMU_MACHINE microbit)
# Extra qemu-system-arm arguments: none (the firmware fits the real 16 KB of RAM).
set(UTIM_BOARD_QEMU_ARGS)
