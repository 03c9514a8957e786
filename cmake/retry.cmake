# Run a real-time test up to TRIES times until it passes:
#   cmake -DCMD=<program> [-DTRIES=3] [-DFAIL_NOW_RC=66] [-DRUNNER=<wrapper>] -P cmake/retry.cmake
# RUNNER, when set, starts the program (UTIM_TARGET_RUNNER: the emulator of a
# hosted cross build).
# Used only for tests that run in real time on the host (the native board):
# a shared or virtual machine can stall the interrupt thread for milliseconds,
# which fails a latency bound once; a real defect fails every attempt. Every
# attempt's output is shown, and a failed attempt is announced.
# An attempt that exits with FAIL_NOW_RC fails the test at once: that code is
# ThreadSanitizer's "reported a data race" (TSAN_OPTIONS exitcode=66, preset
# host-tsan), a defect that a lucky second attempt must not hide.
if(NOT DEFINED CMD)
  message(FATAL_ERROR "retry.cmake: -DCMD=<program> missing")
endif()
if(NOT DEFINED TRIES)
  set(TRIES 3)
endif()
foreach(i RANGE 1 ${TRIES})
  execute_process(COMMAND ${RUNNER} ${CMD} RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    if(i GREATER 1)
      message("# passed on attempt ${i} of ${TRIES}")
    endif()
    return()
  endif()
  if(DEFINED FAIL_NOW_RC AND rc EQUAL FAIL_NOW_RC)
    message(FATAL_ERROR "attempt ${i} exited with ${rc}: ThreadSanitizer reported a data race "
                        "(see above); not a timing fluke, so not run again")
  endif()
  message("# attempt ${i} of ${TRIES} failed (exit ${rc}); a real-time test on a shared host, running it again")
endforeach()
message(FATAL_ERROR "failed on all ${TRIES} attempts")
