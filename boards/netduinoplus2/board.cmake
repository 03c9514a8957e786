# The Netduino Plus 2 (STM32F405RG, Cortex-M4F) as QEMU models it.
# Read by the top-level CMakeLists.txt in a cross build (UTIM_BOARD=netduinoplus2).
set(UTIM_BOARD_CPU cortex-m4)
# External interrupt lines of the vector table (boards/cortexm/startup.c): 96 as
# in QEMU's NVIC (the STM32F405 uses 82; TIM2 = 28, TIM3 = 29, TIM4 = 30, TIM5 = 50).
set(UTIM_BOARD_NUM_IRQ 96)
# Drivers linked into this board's firmware (folders of drivers/).
set(UTIM_BOARD_DRIVERS systick stm32_gptim)
# qemu-system-arm -M <machine>
set(UTIM_BOARD_QEMU_MACHINE netduinoplus2)
# Extra qemu-system-arm arguments: none.
set(UTIM_BOARD_QEMU_ARGS)
# No precise-sleep port (tests/sleep): it needs a timer interrupt at a known
# time (a compare, or an overflow of a written counter) for its alarm and to
# extend its time line, and QEMU 7.2 models no compare on TIM2..TIM5 and
# fires their update interrupt at the wrong time (boards/netduinoplus2/board.h).
set(UTIM_BOARD_SLEEP OFF)
