# CMake toolchain file: riscv64-unknown-elf-gcc (Debian gcc-riscv64-unknown-elf
# + picolibc-riscv64-unknown-elf) for the RISC-V boards run under QEMU.
#
# Set UTIM_BOARD (a folder of boards/ with a board.cmake whose UTIM_BOARD_ARCH
# is riscv, e.g. riscv-virt) and UTIM_CPU (its -march, e.g. rv32imac; the ABI
# follows: ilp32 for RV32, lp64 for RV64); the board presets do both.
#
# As for the Cortex-M boards: -Os, one section per function and object,
# --gc-sections, no start files (boards/riscv/start.S is the entry) and
# picolibc only for what the compiler calls (memcpy, memset); libgcc for the
# 64-bit division of RV32. -misa-spec=2.2 keeps the CSR instructions in the
# base ISA, so the plain -march names the multilib picolibc ships
# (rv32imac/ilp32, rv64imac/lp64); a "_zicsr" suffix would not select it.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv)

set(UTIM_CPU "rv32imac" CACHE STRING "-march of the cross build")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES UTIM_CPU)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

if(UTIM_CPU MATCHES "^rv64")
  set(_utim_abi lp64)
else()
  set(_utim_abi ilp32)
endif()

find_program(UTIM_RISCV_CC riscv64-unknown-elf-gcc)
if(NOT UTIM_RISCV_CC)
  message(FATAL_ERROR "riscv64-unknown-elf-gcc not found: apt-get install gcc-riscv64-unknown-elf "
    "picolibc-riscv64-unknown-elf (tools/test.sh installs them)")
endif()
set(CMAKE_C_COMPILER ${UTIM_RISCV_CC})
set(CMAKE_ASM_COMPILER ${UTIM_RISCV_CC})
get_filename_component(_utim_rv_bin ${UTIM_RISCV_CC} DIRECTORY)
set(CMAKE_OBJCOPY ${_utim_rv_bin}/riscv64-unknown-elf-objcopy CACHE FILEPATH "objcopy")
set(CMAKE_SIZE ${_utim_rv_bin}/riscv64-unknown-elf-size CACHE FILEPATH "size")

set(_utim_rv_arch "-march=${UTIM_CPU} -misa-spec=2.2 -mabi=${_utim_abi} -mcmodel=medany")
set(CMAKE_C_FLAGS_INIT
  "${_utim_rv_arch} --specs=picolibc.specs -ffunction-sections -fdata-sections -fno-common")
set(CMAKE_ASM_FLAGS_INIT "${_utim_rv_arch}")
set(CMAKE_EXE_LINKER_FLAGS_INIT
  "-nostartfiles -Wl,--gc-sections")
# (--specs=picolibc.specs is in the C flags, which CMake also passes to the link.)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
