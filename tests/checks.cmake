# Build and lint checks, included by tests/CMakeLists.txt.
#
# Always:
#   cortex_m4_sizes    public headers compile for Cortex-M4; instance/driver sizes
#   template_compiles  the template driver and an example instance compile for Cortex-M4
#   api_docs           the API reference (doxygen, docs/Doxyfile) with warnings as errors
#   tools_cli          --help and argument errors of tools/test.sh and tools/bench.sh
# With UTIM_LINT:
#   clang_format, clang_tidy, cppcheck
#
# A check whose tool is missing at configure time still exists and fails,
# saying what to install: a check that cannot run must never pass.

set(UTIM_CHECKS_DIR ${CMAKE_CURRENT_LIST_DIR}/checks)
set(UTIM_CHECKS_OUT ${CMAKE_CURRENT_BINARY_DIR}/checks)

# ---- Cortex-M4 checks
find_program(UTIM_ARM_GCC arm-none-eabi-gcc)
find_program(UTIM_ARM_NM arm-none-eabi-nm)
foreach(what sizes template)
  if(what STREQUAL "sizes")
    set(name cortex_m4_sizes)
  else()
    set(name template_compiles)
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DWHAT=${what} "-DARM_GCC=${UTIM_ARM_GCC}"
      "-DARM_NM=${UTIM_ARM_NM}" "-DSRC=${utim_SOURCE_DIR}" "-DOUT=${UTIM_CHECKS_OUT}/${what}"
      -P ${UTIM_CHECKS_DIR}/cm4_check.cmake)
  set_tests_properties(${name} PROPERTIES LABELS "check" TIMEOUT 120)
endforeach()

# ---- the API reference: build/<preset>/docs/html/index.html
find_program(UTIM_DOXYGEN doxygen)
add_test(NAME api_docs
  COMMAND ${CMAKE_COMMAND} "-DDOXYGEN=${UTIM_DOXYGEN}" "-DSRC=${utim_SOURCE_DIR}"
    "-DOUT=${utim_BINARY_DIR}/docs" -P ${UTIM_CHECKS_DIR}/api_docs.cmake)
set_tests_properties(api_docs PROPERTIES LABELS "check" TIMEOUT 300)

# ---- the README's two commands: --help, and wrong arguments refused before any work
find_program(UTIM_BASH bash REQUIRED)
add_test(NAME tools_cli
  COMMAND ${UTIM_BASH} ${UTIM_CHECKS_DIR}/tools_cli.sh ${utim_SOURCE_DIR})
set_tests_properties(tools_cli PROPERTIES LABELS "check" TIMEOUT 120)

# ---- lint
if(UTIM_LINT)
  find_program(UTIM_CLANG_FORMAT clang-format)
  find_program(UTIM_CLANG_TIDY clang-tidy)
  find_program(UTIM_CPPCHECK cppcheck)
  foreach(tool clang-format clang-tidy cppcheck)
    if(tool STREQUAL "clang-format")
      set(exe "${UTIM_CLANG_FORMAT}")
    elseif(tool STREQUAL "clang-tidy")
      set(exe "${UTIM_CLANG_TIDY}")
    else()
      set(exe "${UTIM_CPPCHECK}")
    endif()
    string(REPLACE "-" "_" name "${tool}")
    add_test(NAME ${name}
      COMMAND ${CMAKE_COMMAND} -DWHAT=${tool} "-DTOOL=${exe}" "-DSRC=${utim_SOURCE_DIR}"
        "-DBIN=${utim_BINARY_DIR}" -P ${UTIM_CHECKS_DIR}/lint.cmake)
    set_tests_properties(${name} PROPERTIES LABELS "lint" TIMEOUT 900)
  endforeach()
endif()
