# The examples (examples/) built the way a user builds them, run by ctest in
# script mode. Prints TAP lines and "N passed, N failed"; fails when a check fails.
#
#   cmake -DMODE=installed -DSRC=<utim> -DBIN=<utim build> -DWORK=<scratch> -DCC=<compiler>
#         -DCXX=<C++ compiler> -P check.cmake
#     cmake --install BIN into WORK/prefix; examples/linux configured with
#     find_package(utim) against that prefix, built and run; many_timeouts.c
#     compiled once more with `cc $(pkg-config --cflags --libs utim)` and run; the
#     README's CMake block (around an example) built and run, its C++ block compiled.
#   cmake -DMODE=readme-firmware ... (as firmware, on microbit): the README's firmware block
#     built as written and run under QEMU.
#   cmake -DMODE=firmware -DSRC=<utim> -DWORK=<scratch> -DEXAMPLE=<dir> -DBOARD=<board>
#         -DMACHINE=<qemu machine> -DQEMU=<qemu-system-arm> -DEXPECT=<regex> -P check.cmake
#     examples/<dir> configured as its own project (utim by add_subdirectory), built,
#     and run under QEMU: exit 0 and its output matching EXPECT.
cmake_minimum_required(VERSION 3.25)
include(${SRC}/bench/bench_tap.cmake)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# readme_block(<tag> <var>): the fenced code block that follows the README's
# "<!-- tested: <tag> ... -->" comment, as written.
function(readme_block tag var)
  file(READ "${SRC}/README.md" md)
  string(FIND "${md}" "<!-- tested: ${tag}" at)
  if(at LESS 0)
    message(FATAL_ERROR "README.md has no block marked 'tested: ${tag}'")
  endif()
  string(SUBSTRING "${md}" ${at} -1 md)
  string(FIND "${md}" "```" open)
  string(SUBSTRING "${md}" ${open} -1 md)
  string(FIND "${md}" "\n" eol)
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${md}" ${eol} -1 md)
  string(FIND "${md}" "```" close)
  string(SUBSTRING "${md}" 0 ${close} block)
  set(${var} "${block}" PARENT_SCOPE)
endfunction()

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
  # The targets are the package's components: find_package(... COMPONENTS tm native).
  file(WRITE "${WORK}/comp/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)\n"
    "project(comp C)\nfind_package(utim CONFIG REQUIRED COMPONENTS tm native cmsis_posix)\n")
  run("find_package(utim CONFIG REQUIRED COMPONENTS tm native cmsis_posix)" ${CMAKE_COMMAND}
    -S "${WORK}/comp" -B "${WORK}/comp/build" -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_C_COMPILER=${CC})
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
  # The wheel's geometry (UTIM_TM_WHEEL_BITS / _LEVELS) sets utim_tm_t's size: a program
  # compiled with another than the installed library's must not link (it would share a
  # struct of another size with the library).
  execute_process(COMMAND ${CC} -std=c11 -DUTIM_TM_WHEEL_BITS=4 -DUTIM_TM_WHEEL_LEVELS=6
    "${SRC}/examples/linux/many_timeouts.c" ${flags} -o "${WORK}/many_timeouts_geom"
    RESULT_VARIABLE grc OUTPUT_VARIABLE gout ERROR_VARIABLE gout)
  set(ok OFF)
  if(NOT grc EQUAL 0 AND gout MATCHES "utim_tm_init_4x6")
    set(ok ON)
  endif()
  check(ok "a program compiled with another wheel geometry does not link (rc=${grc})")
  # Every installed header on its own, first in its file (self-contained: every
  # header it includes is installed, nothing it needs comes from the includer),
  # in ISO C11 as a user compiles it: with --cflags alone (--libs' -pthread makes
  # glibc define _POSIX_C_SOURCE, which would hide a header that needs it).
  execute_process(COMMAND pkg-config --cflags utim OUTPUT_VARIABLE cflags
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  file(GLOB_RECURSE headers RELATIVE "${prefix}/include" "${prefix}/include/*.h")
  set(bad "")
  foreach(h IN LISTS headers)
    file(WRITE "${WORK}/hdr/one.c" "#include \"${h}\"\n")
    execute_process(COMMAND ${CC} -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only
      ${cflags} "${WORK}/hdr/one.c" RESULT_VARIABLE hrc OUTPUT_VARIABLE hout ERROR_VARIABLE hout)
    if(NOT hrc EQUAL 0)
      message("${h}:\n${hout}")
      list(APPEND bad "${h}")
    endif()
  endforeach()
  set(ok OFF)
  if(headers AND NOT bad)
    set(ok ON)
  endif()
  list(LENGTH headers nh)
  check(ok "each of the ${nh} installed headers compiles alone (-std=c11 -pedantic) ${bad}")
  # The README's snippets, as written: its CMake block around an example's
  # source (app.c), and its C++ block in a function that gives it `tm` and
  # `ticks`, against the installed headers.
  readme_block(linux-cmake cm)
  file(WRITE "${WORK}/readme/CMakeLists.txt"
    "cmake_minimum_required(VERSION 3.25)\nproject(app C)\n${cm}")
  configure_file("${SRC}/examples/linux/many_timeouts.c" "${WORK}/readme/app.c" COPYONLY)
  run("the README's CMake block configures" ${CMAKE_COMMAND} -S "${WORK}/readme"
    -B "${WORK}/readme/build" -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC})
  run("... builds" ${CMAKE_COMMAND} --build "${WORK}/readme/build")
  run("... and its program runs" "${WORK}/readme/build/app" 200)
  readme_block(cpp cpp)
  file(WRITE "${WORK}/readme/snippet.cpp" "#include \"utim/utim.hpp\"\n"
    "void readme_snippet(utim_tm_t &tm, int &ticks);\n"
    "void readme_snippet(utim_tm_t &tm, int &ticks) {\n${cpp}}\n")
  run("the README's C++ block compiles (g++ -std=c++17, installed headers)" ${CXX} -std=c++17
    -Wall -Wextra -Werror -fsyntax-only -I${prefix}/include "${WORK}/readme/snippet.cpp")
elseif(MODE STREQUAL "readme-firmware")
  # The README's firmware block, as written (its placeholder path replaced by
  # utim's tree), around the micro:bit example's source as main.c.
  readme_block(firmware-cmake cm)
  string(REPLACE "path/to/utim" "${SRC}" cm "${cm}")
  file(WRITE "${WORK}/app/CMakeLists.txt" "${cm}")
  configure_file("${SRC}/examples/microbit_blink/blink.c" "${WORK}/app/main.c" COPYONLY)
  run("the README's firmware block configures" ${CMAKE_COMMAND} -S "${WORK}/app"
    -B "${WORK}/app/build" -G Ninja)
  run("... builds" ${CMAKE_COMMAND} --build "${WORK}/app/build")
  run("... and runs under QEMU" timeout 60 ${QEMU} -M ${MACHINE} -nographic -monitor none
    -semihosting-config enable=on,target=native -icount shift=0,align=off,sleep=off
    -kernel "${WORK}/app/build/app.elf")
  set(ok OFF)
  if(out MATCHES "${EXPECT}")
    set(ok ON)
  endif()
  check(ok "its output matches '${EXPECT}'")
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
