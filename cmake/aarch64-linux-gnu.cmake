# CMake toolchain file: Linux on aarch64, cross-built with Debian's
# gcc-aarch64-linux-gnu / g++-aarch64-linux-gnu, its programs run on this
# machine under qemu-user (qemu-aarch64 with the cross libc's sysroot).
#
# The native board then reads CNTVCT_EL0 and CNTFRQ_EL0 as emulated by QEMU
# (user-mode emulation lets EL0 read the virtual counter), and the time-source
# selection runs on the aarch64 path, instead of only being compiled.
# ctest runs every test program through CMAKE_CROSSCOMPILING_EMULATOR.
#
# What user-mode emulation cannot show: timing. The emulated CPU runs many
# times slower than the real one, its counter is the host's clock scaled to
# CNTFRQ, and every system call is the host kernel's: cost and latency
# figures of this build say nothing about an aarch64 machine.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

find_program(UTIM_AARCH64_CC aarch64-linux-gnu-gcc)
find_program(UTIM_AARCH64_CXX aarch64-linux-gnu-g++)
find_program(UTIM_QEMU_AARCH64 qemu-aarch64)
if(NOT UTIM_AARCH64_CC OR NOT UTIM_AARCH64_CXX OR NOT UTIM_QEMU_AARCH64)
  message(FATAL_ERROR "aarch64 cross build: apt-get install gcc-aarch64-linux-gnu "
    "g++-aarch64-linux-gnu qemu-user (tools/test.sh installs them)")
endif()
set(CMAKE_C_COMPILER ${UTIM_AARCH64_CC})
set(CMAKE_CXX_COMPILER ${UTIM_AARCH64_CXX})

set(UTIM_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "The cross libc (libc6-dev-arm64-cross)")
set(CMAKE_CROSSCOMPILING_EMULATOR ${UTIM_QEMU_AARCH64} -L ${UTIM_AARCH64_SYSROOT})

set(CMAKE_FIND_ROOT_PATH ${UTIM_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
