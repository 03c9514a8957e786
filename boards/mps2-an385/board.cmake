# The mps2-an385 board (ARM MPS2 FPGA image AN385, Cortex-M3) as QEMU models it.
# Read by the top-level CMakeLists.txt in a cross build (UTIM_BOARD=mps2-an385).
set(UTIM_BOARD_CPU cortex-m3)
# Drivers linked into this board's firmware (folders of drivers/).
set(UTIM_BOARD_DRIVERS systick cmsdk_timer cmsdk_dualtimer)
# qemu-system-arm -M <machine>
set(UTIM_BOARD_QEMU_MACHINE mps2-an385)
# Extra qemu-system-arm arguments: none.
set(UTIM_BOARD_QEMU_ARGS)
