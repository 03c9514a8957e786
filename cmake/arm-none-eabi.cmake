# CMake toolchain file: arm-none-eabi-gcc (Debian gcc-arm-none-eabi +
# libnewlib-arm-none-eabi) for the Cortex-M boards run under QEMU.
#
# Set UTIM_BOARD (a folder of boards/ with a board.cmake, e.g. mps2-an385) and
# UTIM_CPU (e.g. cortex-m3); the board presets in CMakePresets.json do both.
#
# Everything builds at -Os with one section per function and per object, and
# links with --gc-sections against newlib-nano, without newlib's start files
# (the board's startup code is the entry point) and without any syscall layer,
# so an accidental printf() is a link error rather than a silent semihosting call.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(UTIM_CPU "cortex-m3" CACHE STRING "-mcpu of the cross build")
# try_compile() re-reads this file in a fresh project: hand the CPU through.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES UTIM_CPU)
# No linker script exists for try_compile's probe executable.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

find_program(UTIM_ARM_CC arm-none-eabi-gcc)
if(NOT UTIM_ARM_CC)
  message(FATAL_ERROR "arm-none-eabi-gcc not found: apt-get install gcc-arm-none-eabi "
    "libnewlib-arm-none-eabi (tools/test.sh installs them)")
endif()
set(CMAKE_C_COMPILER ${UTIM_ARM_CC})
set(CMAKE_ASM_COMPILER ${UTIM_ARM_CC})
get_filename_component(_utim_arm_bin ${UTIM_ARM_CC} DIRECTORY)
set(CMAKE_OBJCOPY ${_utim_arm_bin}/arm-none-eabi-objcopy CACHE FILEPATH "objcopy")
set(CMAKE_SIZE ${_utim_arm_bin}/arm-none-eabi-size CACHE FILEPATH "size")

set(CMAKE_C_FLAGS_INIT
  "-mcpu=${UTIM_CPU} -mthumb -ffunction-sections -fdata-sections -fno-common")
set(CMAKE_EXE_LINKER_FLAGS_INIT
  "-mcpu=${UTIM_CPU} -mthumb --specs=nano.specs -nostartfiles -Wl,--gc-sections")
# -Os for every build type comes from the top-level CMakeLists.txt (compile
# options follow the per-configuration flags, so they win): the size report
# and the firmware under test are the same code.

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
