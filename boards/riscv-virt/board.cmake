# QEMU's RISC-V "virt" machine, one RV32IMAC or RV64IMAC hart in M-mode (the
# presets virt-rv32 and virt-rv64: the same board, UTIM_CPU picks the width).
# Read by the top-level CMakeLists.txt in a cross build (UTIM_BOARD=riscv-virt).
# Architecture: the shared code in boards/riscv.
set(UTIM_BOARD_ARCH riscv)
# -march of the build (cmake/riscv64-unknown-elf.cmake; ilp32 ABI).
if(UTIM_CPU MATCHES "^rv(32|64)imac$")
  set(UTIM_BOARD_CPU ${UTIM_CPU})
else()
  set(UTIM_BOARD_CPU "rv32imac or rv64imac")
endif()
# Drivers linked into this board's firmware (folders of drivers/).
set(UTIM_BOARD_DRIVERS riscv_mtimer riscv_mcycle)
# The emulator and its -M <machine>.
if(UTIM_CPU MATCHES "^rv64")
  set(UTIM_BOARD_QEMU qemu-system-riscv64)
else()
  set(UTIM_BOARD_QEMU qemu-system-riscv32)
endif()
set(UTIM_BOARD_QEMU_MACHINE virt)
# No firmware (OpenSBI): the image runs in M-mode from the start of RAM.
set(UTIM_BOARD_QEMU_ARGS -bios none)
