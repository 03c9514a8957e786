# verilator --lint-only -Wall over hw/htm/htm.v for both architectures and
# the corners of its parameters; run by ctest in script mode:
#   cmake -DRTL=<htm.v> -DVERILATOR=<verilator> -P lint.cmake
# Prints TAP lines and "N passed, N failed"; fails on any warning.
cmake_minimum_required(VERSION 3.20)
set(n 0)
set(failed 0)
foreach(arch 0 1)
  foreach(cfg "1;16" "2;32" "12;64" "64;16" "64;64")
    list(GET cfg 0 tasks)
    list(GET cfg 1 width)
    math(EXPR n "${n} + 1")
    execute_process(COMMAND ${VERILATOR} --lint-only -Wall -GARCH=${arch} -GNTASKS=${tasks}
      -GWIDTH=${width} ${RTL} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0 AND err STREQUAL "")
      message("ok ${n} - ARCH ${arch}, ${tasks} tasks x ${width} bits: lint clean")
    else()
      math(EXPR failed "${failed} + 1")
      message("not ok ${n} - ARCH ${arch}, ${tasks} tasks x ${width} bits:\n${err}")
    endif()
  endforeach()
endforeach()
math(EXPR passed "${n} - ${failed}")
message("${passed} passed, ${failed} failed")
if(failed GREATER 0)
  message(FATAL_ERROR "lint findings")
endif()
