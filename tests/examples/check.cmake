# The examples (examples/) built the way a user builds them, run by ctest in
# script mode. Prints TAP lines and "N passed, N failed"; fails when a check fails.
#
#   cmake -DMODE=installed -DSRC=<utim> -DBIN=<utim build> -DWORK=<scratch> -DCC=<compiler>
#         -P check.cmake
#     cmake --install BIN into WORK/prefix; examples/linux configured with
#     find_package(utim) against that prefix, built and run; many_timeouts.c
#     compiled once more with `cc $(pkg-config --cflags --libs utim)` and run.
#   cmake -DMODE=firmware -DSRC=<utim> -DWORK=<scratch> -DEXAMPLE=<dir> -DBOARD=<board>
#         -DMACHINE=<qemu machine> -DQEMU=<qemu-system-arm> -DEXPECT=<regex> -P check.cmake
#     examples/<dir> configured as its own project (utim by add_subdirectory), built,
#     and run under QEMU: exit 0 and its output matching EXPECT.
cmake_minimum_required(VERSION 3.25)
include(${SRC}/bench/bench_tap.cmake)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# run(<what> <command...>): runs it; sets rc and out (stdout + stderr).
macro(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
    WORKING_DIRECTORY "${WORK}")
  set(ok OFF)
  if(rc EQUAL 0)
    set(ok ON)
  endif()
  if(NOT ok)
    message("${out}")
  endif()
  check(ok "${what} (rc=${rc})")
endmacro()

if(MODE STREQUAL "installed")
  set(prefix "${WORK}/prefix")
  run("cmake --install into a temporary prefix" ${CMAKE_COMMAND} --install "${BIN}" --prefix "${prefix}")
  run("examples/linux configures with find_package(utim) from the prefix"
    ${CMAKE_COMMAND} -S "${SRC}/examples/linux" -B "${WORK}/build" -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release)
  run("examples/linux builds" ${CMAKE_COMMAND} --build "${WORK}/build")
  run("periodic_loop runs: 200 wake-ups, none early" "${WORK}/build/periodic_loop" 200)
  message("${out}")
  run("many_timeouts runs: 2000 timers, each once, none early" "${WORK}/build/many_timeouts" 2000)
  message("${out}")
  set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
  execute_process(COMMAND pkg-config --cflags --libs utim RESULT_VARIABLE rc OUTPUT_VARIABLE flags
    ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(ok OFF)
  if(rc EQUAL 0 AND flags MATCHES "-lutim_core")
    set(ok ON)
  endif()
  check(ok "pkg-config --cflags --libs utim (rc=${rc} ${err})")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("many_timeouts.c builds with cc and pkg-config's flags" ${CC} -std=c11 -Wall -Wextra
    -Werror "${SRC}/examples/linux/many_timeouts.c" ${flags} -o "${WORK}/many_timeouts_pc")
  run("... and runs" "${WORK}/many_timeouts_pc" 500)
elseif(MODE STREQUAL "firmware")
  run("examples/${EXAMPLE} configures (utim by add_subdirectory, board ${BOARD})"
    ${CMAKE_COMMAND} -S "${SRC}/examples/${EXAMPLE}" -B "${WORK}/build" -G Ninja
    -DUTIM_DIR=${SRC} -DUTIM_BOARD=${BOARD})
  run("examples/${EXAMPLE} builds" ${CMAKE_COMMAND} --build "${WORK}/build")
  file(GLOB elf "${WORK}/build/*.elf")
  run("it runs under QEMU and exits 0" timeout 60 ${QEMU} -M ${MACHINE} -nographic -monitor none
    -semihosting-config enable=on,target=native -icount shift=0,align=off,sleep=off -kernel ${elf})
  message("${out}")
  set(ok OFF)
  if(out MATCHES "${EXPECT}")
    set(ok ON)
  endif()
  check(ok "its output matches '${EXPECT}'")
else()
  message(FATAL_ERROR "MODE must be installed or firmware")
endif()
tap_finish()
