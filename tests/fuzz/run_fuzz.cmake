# ctest fuzz_uapi: libFuzzer from a fresh copy of the repository's corpus
# (new inputs stay in the build tree) for SECONDS, then report.
#   cmake -DFUZZ=<fuzz_uapi> -DCORPUS=<dir> -DWORK=<dir> -DSECONDS=<n> -P run_fuzz.cmake
# A violation aborts the target: libFuzzer saves the input in WORK as
# crash-* / timeout-*, and this script fails naming it and how to replay it.
if(NOT DEFINED NAME)
  set(NAME fuzz_uapi)
endif()
foreach(v FUZZ CORPUS WORK SECONDS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzz.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus")
file(GLOB inputs "${CORPUS}/*")
file(COPY ${inputs} DESTINATION "${WORK}/corpus")
execute_process(
  COMMAND "${FUZZ}" -max_total_time=${SECONDS} -max_len=512 -timeout=30 -print_final_stats=1
    -artifact_prefix=${WORK}/ "${WORK}/corpus"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# libFuzzer reports on stderr: its seed, progress, the final statistics.
string(REGEX MATCH "INFO: Seed: [0-9]+" seed "${err}")
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${err}")
string(REGEX MATCH "stat::new_units_added: *[0-9]+" added "${err}")
message("${NAME}: ${SECONDS} s, ${seed}, ${runs}, ${added}")
if(NOT rc EQUAL 0)
  file(GLOB found "${WORK}/crash-*" "${WORK}/timeout-*" "${WORK}/oom-*" "${WORK}/leak-*")
  string(REGEX MATCHALL "${NAME}: [^\n]*" what "${err}")
  message("${err}")
  message(FATAL_ERROR "${NAME} found a failing input (exit ${rc}): ${what}\n"
    "saved: ${found}\nreplay: ${FUZZ} <file>; keep it as a regression: copy it to "
    "the target's corpus under a name that says what it shows")
endif()
