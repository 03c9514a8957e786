# The API reference (docs/Doxyfile over include/utim), run by ctest as `cmake -P`:
#   cmake -DDOXYGEN=<doxygen or empty> -DSRC=<source root> -DOUT=<output dir> -P api_docs.cmake
# Doxygen runs with every warning an error (an undocumented public symbol, a
# broken command): the check fails on any, and when doxygen is missing.
# Output: OUT/html/index.html.
cmake_minimum_required(VERSION 3.20)
if(NOT DOXYGEN OR NOT EXISTS "${DOXYGEN}")
  message(FATAL_ERROR "doxygen was not found when the build was configured, so the API "
    "reference cannot be checked. Install it (tools/test.sh does): apt-get install doxygen, "
    "then re-run cmake.")
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(ENV{UTIM_DOCS_OUT} "${OUT}")
execute_process(COMMAND "${DOXYGEN}" docs/Doxyfile WORKING_DIRECTORY "${SRC}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}/html/index.html")
  message("${out}${err}")
  message("not ok - API reference: doxygen found problems (fix the headers' comments)")
  message("0 passed, 1 failed")
  message(FATAL_ERROR "doxygen exit ${rc}")
endif()
message("ok - API reference: ${OUT}/html/index.html, no warning")
message("1 passed, 0 failed")
