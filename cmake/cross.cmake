# Cross build of one Cortex-M board (included by the top-level CMakeLists.txt
# when CMAKE_CROSSCOMPILING, i.e. with cmake/arm-none-eabi.cmake).
#
# Reads boards/<board>/board.cmake (CPU, drivers, interrupt lines, QEMU
# machine); the board and driver targets themselves are defined in boards/
# and drivers/. Defines:
#   utim_sizes_probe         tests/checks/cm4_sizes.c for this CPU (sizeof report)
#   utim_add_firmware(<target> SOURCES <files...> LIBS <libraries...>)
#                            an .elf linked with the board, its map file next to it
#   utim_add_qemu_test(<name> <firmware target> <timeout s> [REPEAT_OF <test>])
#                            a ctest running the firmware under QEMU (tools/qemu-run.sh)
#   test size_<board>        the size report (cmake/size_report.cmake)
#
# Cache variables: UTIM_BOARD (folder of boards/ with a board.cmake),
# UTIM_BOARD_C (instance table; default boards/<board>/board.c, whose folder
# also gives board.h), UTIM_QEMU_ICOUNT_SHIFT, UTIM_QEMU_TIMEOUT.

set(UTIM_BOARD "" CACHE STRING "Board of the cross build (a folder of boards/)")
if(NOT UTIM_BOARD OR NOT EXISTS ${utim_SOURCE_DIR}/boards/${UTIM_BOARD}/board.cmake)
  file(GLOB _boards RELATIVE ${utim_SOURCE_DIR}/boards ${utim_SOURCE_DIR}/boards/*/board.cmake)
  list(TRANSFORM _boards REPLACE "/board.cmake$" "")
  list(JOIN _boards ", " _boards)
  message(FATAL_ERROR "cross build: set UTIM_BOARD to a folder of boards/ with a board.cmake "
    "(${_boards}), e.g. cmake --preset mps2-an385")
endif()
include(${utim_SOURCE_DIR}/boards/${UTIM_BOARD}/board.cmake)
if(NOT UTIM_CPU STREQUAL UTIM_BOARD_CPU)
  message(FATAL_ERROR "UTIM_CPU=${UTIM_CPU} but board ${UTIM_BOARD} is a ${UTIM_BOARD_CPU}")
endif()
# The shared code of the board's architecture (boards/<arch>): cortexm unless
# the board says otherwise; it must match the toolchain's.
if(NOT DEFINED UTIM_BOARD_ARCH)
  set(UTIM_BOARD_ARCH cortexm)
endif()
if(UTIM_BOARD_ARCH STREQUAL "riscv")
  set(_tc_arch riscv)
else()
  set(_tc_arch arm)
endif()
if(NOT CMAKE_SYSTEM_PROCESSOR STREQUAL _tc_arch)
  message(FATAL_ERROR "board ${UTIM_BOARD} is ${UTIM_BOARD_ARCH}, but the toolchain builds for "
    "${CMAKE_SYSTEM_PROCESSOR}: use its preset (cmake --preset ${UTIM_BOARD})")
endif()
if(UTIM_BOARD_ARCH STREQUAL "cortexm" AND NOT UTIM_BOARD_NUM_IRQ MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "boards/${UTIM_BOARD}/board.cmake: set UTIM_BOARD_NUM_IRQ to the number of "
    "external interrupt lines of the vector table (e.g. 32)")
endif()

set(UTIM_BOARD_C ${utim_SOURCE_DIR}/boards/${UTIM_BOARD}/board.c CACHE FILEPATH
  "Instance table of the board (its folder also holds board.h)")
set(UTIM_QEMU_ICOUNT_SHIFT 0 CACHE STRING
  "qemu -icount shift: one instruction is 2^N ns of virtual time (firmware and runner agree)")
set(UTIM_QEMU_TIMEOUT 150 CACHE STRING "Wall-clock limit of one QEMU run, seconds")
# The emulator of the board (qemu-system-arm unless its board.cmake names another).
if(NOT DEFINED UTIM_BOARD_QEMU)
  set(UTIM_BOARD_QEMU qemu-system-arm)
endif()
find_program(UTIM_QEMU_SYSTEM ${UTIM_BOARD_QEMU})

# The drivers (utim_drv_<driver>) are defined in drivers/, the board
# (utim_board_<board>) in boards/<arch>/: each target in one place.
set(_board_lib utim_board_${UTIM_BOARD})
set(UTIM_BOARD_DRIVER_TARGETS)
foreach(drv IN LISTS UTIM_BOARD_DRIVERS)
  list(APPEND UTIM_BOARD_DRIVER_TARGETS utim_drv_${drv})
endforeach()

# utim_add_mcu_board(<architecture sources...>), called by boards/<arch>/:
# utim_board_<board> from the board's folder (board.c, or UTIM_BOARD_C, and
# every other .c there), the architecture's shared sources given here (paths
# relative to boards/<arch>), the bare-metal boards' shared code (boards/mcu)
# and the board's drivers, linked with the board's linker.ld, which includes
# boards/<arch>/sections.ld.
function(utim_add_mcu_board)
  set(b ${utim_SOURCE_DIR}/boards/${UTIM_BOARD})
  set(arch ${CMAKE_CURRENT_SOURCE_DIR})
  get_filename_component(board_h_dir ${UTIM_BOARD_C} DIRECTORY)
  file(GLOB board_src CONFIGURE_DEPENDS ${b}/*.c)
  list(REMOVE_ITEM board_src ${b}/board.c)
  utim_add_board(${UTIM_BOARD}
    SOURCES ${UTIM_BOARD_C} ${board_src} ${ARGN} ${utim_SOURCE_DIR}/boards/mcu/sleep_mcu.c
    DRIVERS ${UTIM_BOARD_DRIVERS}
    INCLUDE ${board_h_dir} ${b} ${arch} ${utim_SOURCE_DIR}/boards/mcu)
  target_link_options(utim_board_${UTIM_BOARD}_lib INTERFACE -T ${b}/linker.ld -L ${arch})
  set_property(TARGET utim_board_${UTIM_BOARD}_lib APPEND PROPERTY INTERFACE_LINK_DEPENDS
    ${b}/linker.ld ${arch}/sections.ld)
endfunction()

# ---- sizeof of the instance types for this CPU (read back with nm)
add_library(utim_sizes_probe OBJECT ${utim_SOURCE_DIR}/tests/checks/cm4_sizes.c)
target_include_directories(utim_sizes_probe PRIVATE ${utim_SOURCE_DIR}/include)

# utim_add_firmware(<target> SOURCES <files...> LIBS <libraries...>):
# <target>.elf plus <target>.elf.map, linked with the board (one link group
# with the core and the drivers, see cmake/utim.cmake).
function(utim_add_firmware tgt)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS")
  add_executable(${tgt} ${arg_SOURCES})
  set_target_properties(${tgt} PROPERTIES SUFFIX .elf)
  # The firmware's own libraries first: they call into the board and the core.
  target_link_libraries(${tgt} PRIVATE ${arg_LIBS} utim_board_${UTIM_BOARD})
  target_link_options(${tgt} PRIVATE "-Wl,-Map=$<TARGET_FILE:${tgt}>.map")
  add_custom_command(TARGET ${tgt} POST_BUILD
    COMMAND ${CMAKE_SIZE} $<TARGET_FILE:${tgt}> VERBATIM)
endfunction()

# utim_add_qemu_test(<name> <firmware target> <timeout s> [REPEAT_OF <test>])
# Runs the firmware on the board's QEMU machine; the output goes to ctest and
# to logs/<name>.log. With REPEAT_OF, the run must reproduce that test's log
# byte for byte (determinism check) and runs after it.
function(utim_add_qemu_test name fw timeout)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "REPEAT_OF" "")
  set(log ${utim_BINARY_DIR}/logs/${name}.log)
  set(cmd bash ${utim_SOURCE_DIR}/tools/qemu-run.sh --qemu "${UTIM_QEMU_SYSTEM}"
    --machine ${UTIM_BOARD_QEMU_MACHINE} --shift ${UTIM_QEMU_ICOUNT_SHIFT}
    --timeout ${timeout} --log ${log})
  foreach(a IN LISTS UTIM_BOARD_QEMU_ARGS)
    list(APPEND cmd --qemu-arg ${a})
  endforeach()
  if(arg_REPEAT_OF)
    list(APPEND cmd --expect ${utim_BINARY_DIR}/logs/${arg_REPEAT_OF}.log)
  endif()
  add_test(NAME ${name} COMMAND ${cmd} $<TARGET_FILE:${fw}>)
  # ctest's own limit sits above the runner's, so the runner reports a hang.
  math(EXPR ctest_timeout "${timeout} + 30")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ctest_timeout} LABELS "qemu;${UTIM_BOARD}")
  if(arg_REPEAT_OF)
    set_tests_properties(${name} PROPERTIES DEPENDS ${arg_REPEAT_OF})
  endif()
endfunction()

# ---- size report: core and each driver, before and after --gc-sections
set(UTIM_SIZE_REPORT_FIRMWARE "" CACHE INTERNAL "")
# utim_add_size_report(<firmware> [NAME <suffix>] [LIBS <layer targets>]):
# test size_<board><suffix>, report reports/size_<board><suffix>.txt; LIBS
# adds layers above the core (utim_tm) as components of their own.
function(utim_add_size_report fw)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME" "LIBS")
  set(sfx "${arg_NAME}")
  set(libs)
  foreach(t utim_core ${UTIM_BOARD_DRIVER_TARGETS} ${arg_LIBS})
    list(APPEND libs "$<TARGET_FILE:${t}>")
  endforeach()
  string(REPLACE ";" "," libs "${libs}")
  add_test(NAME size_${UTIM_BOARD}${sfx}
    COMMAND ${CMAKE_COMMAND} -DSIZE=${CMAKE_SIZE} -DNM=${CMAKE_NM} -DBOARD=${UTIM_BOARD}
      -DCPU=${UTIM_CPU} "-DLIBS=${libs}" "-DMAP=$<TARGET_FILE:${fw}>.map"
      "-DELF=$<TARGET_FILE:${fw}>" "-DPROBE=$<TARGET_OBJECTS:utim_sizes_probe>"
      -DOUT=${utim_BINARY_DIR}/reports/size_${UTIM_BOARD}${sfx}.txt
      -P ${utim_SOURCE_DIR}/cmake/size_report.cmake)
  set_tests_properties(size_${UTIM_BOARD}${sfx} PROPERTIES LABELS "size;${UTIM_BOARD}" TIMEOUT 60)
endfunction()
