# The mps2-an385 board (ARM MPS2 FPGA image AN385, Cortex-M3) as QEMU models it.
# Read by the top-level CMakeLists.txt in a cross build (UTIM_BOARD=mps2-an385).
set(UTIM_BOARD_CPU cortex-m3)
# External interrupt lines of the vector table (boards/cortexm/startup.c): 32 in
# QEMU's model of the AN385 (CMSDK TIMER0 = 8, TIMER1 = 9, DUALTIMER = 10).
set(UTIM_BOARD_NUM_IRQ 32)
# Drivers linked into this board's firmware (folders of drivers/).
set(UTIM_BOARD_DRIVERS systick cmsdk_timer cmsdk_dualtimer)
# qemu-system-arm -M <machine>
set(UTIM_BOARD_QEMU_MACHINE mps2-an385)
# Extra qemu-system-arm arguments: none.
set(UTIM_BOARD_QEMU_ARGS)
