# Lint checks, run by ctest as `cmake -P` (see tests/checks.cmake).
#
#   -DWHAT=clang-format  clang-format --dry-run --Werror on every .c/.h/.cpp/.hpp
#   -DWHAT=clang-tidy    clang-tidy (root .clang-tidy) on the project's .c files
#                        listed in the build's compile_commands.json
#   -DWHAT=cppcheck      cppcheck on the .c files
#   -DTOOL=...           the tool (empty when configure did not find it)
#   -DSRC=...            source root;  -DBIN=... build directory (clang-tidy)
#
# Files are collected when the test runs, so files added after configuring
# are checked too. Prints one "ok"/"not ok" line per file and a closing
# "N passed, N failed" line; exits non-zero when any file fails.
cmake_minimum_required(VERSION 3.20)

set(dirs include src hw drivers boards bench tests examples)

if(NOT TOOL OR NOT EXISTS "${TOOL}")
  message(FATAL_ERROR
    "${WHAT} was not found when the build was configured, so this lint check cannot run. "
    "Install it (tools/test.sh does): apt-get install ${WHAT}, then re-run cmake.")
endif()

# Print the per-file verdict and the closing line, fail when a file failed.
function(report passed failed)
  message("${passed} passed, ${failed} failed")
  if(NOT failed EQUAL 0)
    message(FATAL_ERROR "${WHAT}: ${failed} file(s) with findings")
  endif()
endfunction()

if(WHAT STREQUAL "clang-format")
  set(globs)
  foreach(d IN LISTS dirs)
    list(APPEND globs "${SRC}/${d}/*.c" "${SRC}/${d}/*.h" "${SRC}/${d}/*.cpp" "${SRC}/${d}/*.hpp")
  endforeach()
  file(GLOB_RECURSE files LIST_DIRECTORIES false ${globs})
  list(SORT files)
  set(passed 0)
  set(failed 0)
  foreach(f IN LISTS files)
    file(RELATIVE_PATH rel "${SRC}" "${f}")
    execute_process(COMMAND "${TOOL}" --dry-run --Werror "${f}"
      WORKING_DIRECTORY "${SRC}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
      math(EXPR passed "${passed} + 1")
      message("ok - ${rel}")
    else()
      math(EXPR failed "${failed} + 1")
      string(REGEX MATCHALL "code should be clang-formatted" hits "${err}")
      list(LENGTH hits n)
      message("not ok - ${rel}: ${n} place(s) not clang-formatted (fix: clang-format -i ${rel})")
      # The first few places, enough to see what is wrong.
      string(SUBSTRING "${err}" 0 1500 head)
      message("${head}")
    endif()
  endforeach()
  report(${passed} ${failed})

elseif(WHAT STREQUAL "clang-tidy")
  set(db "${BIN}/compile_commands.json")
  if(NOT EXISTS "${db}")
    message(FATAL_ERROR "${db} not found: configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON")
  endif()
  file(READ "${db}" json)
  string(JSON count LENGTH "${json}")
  set(files)
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON f GET "${json}" ${i} file)
      file(RELATIVE_PATH rel "${SRC}" "${f}")
      # The project's own sources only: nothing generated under the build tree.
      string(FIND "${f}" "${BIN}/" in_bin)
      if(NOT rel MATCHES "^\\.\\./" AND NOT in_bin EQUAL 0 AND f MATCHES "\\.c$")
        list(APPEND files "${f}")
      endif()
    endforeach()
  endif()
  list(REMOVE_DUPLICATES files)
  list(SORT files)
  if(NOT files)
    message(FATAL_ERROR "no project .c file in ${db}")
  endif()
  set(passed 0)
  set(failed 0)
  foreach(f IN LISTS files)
    file(RELATIVE_PATH rel "${SRC}" "${f}")
    # gcc-only warning flags in the compile database must not turn into errors.
    execute_process(COMMAND "${TOOL}" --quiet -p "${BIN}" "--config-file=${SRC}/.clang-tidy"
      --extra-arg=-Wno-unknown-warning-option "${f}"
      WORKING_DIRECTORY "${SRC}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
      math(EXPR passed "${passed} + 1")
      message("ok - ${rel}")
    else()
      math(EXPR failed "${failed} + 1")
      message("not ok - ${rel}\n${out}${err}")
    endif()
  endforeach()
  report(${passed} ${failed})

elseif(WHAT STREQUAL "cppcheck")
  set(globs)
  set(hglobs)
  foreach(d IN LISTS dirs)
    list(APPEND globs "${SRC}/${d}/*.c")
    list(APPEND hglobs "${SRC}/${d}/*.h")
  endforeach()
  file(GLOB_RECURSE files LIST_DIRECTORIES false ${globs})
  list(SORT files)
  if(NOT files)
    message(FATAL_ERROR "no .c file to check")
  endif()
  # Every directory that holds a header is an include directory, as in the build.
  file(GLOB_RECURSE headers LIST_DIRECTORIES false ${hglobs})
  set(incs)
  foreach(h IN LISTS headers)
    get_filename_component(d "${h}" DIRECTORY)
    list(APPEND incs "-I${d}")
  endforeach()
  list(REMOVE_DUPLICATES incs)
  set(passed 0)
  set(failed 0)
  foreach(f IN LISTS files)
    file(RELATIVE_PATH rel "${SRC}" "${f}")
    execute_process(COMMAND "${TOOL}" --quiet --language=c --std=c11
      --enable=warning,style,performance,portability --error-exitcode=1 --inline-suppr
      -U__cplusplus ${incs} "${f}"
      WORKING_DIRECTORY "${SRC}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
      math(EXPR passed "${passed} + 1")
      message("ok - ${rel}")
    else()
      math(EXPR failed "${failed} + 1")
      message("not ok - ${rel}\n${out}${err}")
    endif()
  endforeach()
  report(${passed} ${failed})

else()
  message(FATAL_ERROR "lint.cmake: unknown WHAT='${WHAT}'")
endif()
