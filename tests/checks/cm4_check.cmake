# Cortex-M4 build checks, run by ctest as `cmake -P` (see tests/checks.cmake).
#
#   -DWHAT=sizes     compile cm4_sizes.c with every public header force-included,
#                    each public header also on its own; report the type sizes
#   -DWHAT=template  compile the template driver and an example instance of it
#   -DARM_GCC=...    arm-none-eabi-gcc (empty when configure did not find it)
#   -DARM_NM=...     arm-none-eabi-nm
#   -DSRC=...        source root;  -DOUT=... scratch directory
#
# Fails (non-zero exit) on any compile error, any warning, or a missing
# cross compiler: a size check that cannot run must not pass.
cmake_minimum_required(VERSION 3.20)

if(NOT ARM_GCC OR NOT EXISTS "${ARM_GCC}")
  message(FATAL_ERROR
    "arm-none-eabi-gcc was not found when the build was configured, so the Cortex-M4 check "
    "cannot run. Install it (tools/test.sh does): "
    "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi, then re-run cmake.")
endif()

set(flags -mcpu=cortex-m4 -mthumb -Os -std=c11 -Wall -Wextra -Werror -Wshadow
  -Wstrict-prototypes -Wmissing-prototypes -ffreestanding)
file(MAKE_DIRECTORY "${OUT}")

# cm4_compile(<what, for the messages> <source> <object> <extra flags...>)
function(cm4_compile label src obj)
  execute_process(
    COMMAND "${ARM_GCC}" ${flags} ${ARGN} -c "${src}" -o "${obj}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "not ok: ${label} does not compile for Cortex-M4:\n${out}${err}")
  endif()
  message(STATUS "ok: ${label} compiles for Cortex-M4")
endfunction()

if(WHAT STREQUAL "sizes")
  file(GLOB headers "${SRC}/include/utim/*.h")
  if(NOT headers)
    message(FATAL_ERROR "no public headers found in ${SRC}/include/utim")
  endif()
  # Each header on its own: public headers must be self-contained.
  set(empty "${OUT}/empty.c")
  file(WRITE "${empty}" "/* each public header is force-included here on its own */\n")
  set(force)
  foreach(h IN LISTS headers)
    get_filename_component(name "${h}" NAME_WE)
    cm4_compile("include/utim/${name}.h on its own" "${empty}" "${OUT}/hdr_${name}.o"
      -I "${SRC}/include" -include "${h}")
    list(APPEND force -include "${h}")
  endforeach()
  # All of them together, with the size assertions.
  cm4_compile("tests/checks/cm4_sizes.c with every public header" "${SRC}/tests/checks/cm4_sizes.c"
    "${OUT}/cm4_sizes.o" -I "${SRC}/include" ${force})

  execute_process(COMMAND "${ARM_NM}" -S "${OUT}/cm4_sizes.o"
    RESULT_VARIABLE rc OUTPUT_VARIABLE syms ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "arm-none-eabi-nm failed: ${err}")
  endif()
  string(REPLACE "\n" ";" lines "${syms}")
  set(found 0)
  foreach(line IN LISTS lines)
    # "<address> <size> R utim_sizeof_<type>", hexadecimal
    if(line MATCHES "^[0-9a-fA-F]+ ([0-9a-fA-F]+) [A-Za-z] utim_sizeof_([a-z_]+)$")
      math(EXPR bytes "0x${CMAKE_MATCH_1}")
      message(STATUS "Cortex-M4 sizeof(utim_${CMAKE_MATCH_2}_t) = ${bytes} bytes")
      math(EXPR found "${found} + 1")
    endif()
  endforeach()
  if(found EQUAL 0)
    message(FATAL_ERROR "no utim_sizeof_* symbols found in cm4_sizes.o:\n${syms}")
  endif()
  message(STATUS "ok: sizeof(utim_periph_t) <= 12 and sizeof(utim_driver_t) <= 28 on Cortex-M4")
elseif(WHAT STREQUAL "template")
  set(inc -I "${SRC}/include" -I "${SRC}/drivers/template")
  cm4_compile("drivers/template/utim_template.c" "${SRC}/drivers/template/utim_template.c"
    "${OUT}/utim_template.o" ${inc})
  cm4_compile("tests/checks/template_instance.c (README example)"
    "${SRC}/tests/checks/template_instance.c" "${OUT}/template_instance.o" ${inc})
else()
  message(FATAL_ERROR "cm4_check.cmake: unknown WHAT='${WHAT}'")
endif()
