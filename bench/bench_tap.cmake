# TAP output for the behaviour checks of utim-bench run by ctest in script
# mode (bench_check.cmake, bench_native_check.cmake): check(<var> <what>)
# records one check, tap_finish() prints "N passed, N failed" and fails the
# script when any check failed.
set(n 0)
set(passed 0)
set(failed 0)
macro(check cond_var what)
  math(EXPR n "${n} + 1")
  if(${cond_var})
    math(EXPR passed "${passed} + 1")
    message("ok ${n} - ${what}")
  else()
    math(EXPR failed "${failed} + 1")
    message("not ok ${n} - ${what}")
  endif()
endmacro()

macro(tap_finish)
  message("${passed} passed, ${failed} failed")
  if(failed GREATER 0)
    message(FATAL_ERROR "${failed} check(s) failed")
  endif()
endmacro()
