# Behaviour checks of utim-bench, run by ctest in script mode:
#   cmake -DBENCH=<path to utim-bench> -DMODE=smoke|cli -DWORKDIR=<scratch directory>
#         [-DCOMMANDS=ops;tm;clock;sleep;timeout;cmsis] -P bench_check.cmake
# smoke: `ops --runs 3 --iterations 1000 --no-callgrind --json` exits 0 and prints one
#        JSON document with every (driver, name, api, instance) row and its fields; the
#        same document goes to --json-out FILE, and `-o -` is stdout.
# cli:   help works and lists every option; for every command in COMMANDS, bad arguments
#        (unknown option, missing or out-of-range value, a value that is an option such as
#        `--json-out --json`) fail with a message naming the option and pointing to --help,
#        and an output file that cannot be written (-o / --json-out in a missing directory)
#        fails before anything is measured: no table on stdout or in the other output file,
#        an existing file left as it was.
# Prints TAP lines and "N passed, N failed"; fails when any check fails. Never checks speed.
cmake_minimum_required(VERSION 3.20)

include(${CMAKE_CURRENT_LIST_DIR}/bench_tap.cmake)

if(NOT WORKDIR)
  message(FATAL_ERROR "WORKDIR must name a scratch directory")
endif()
if(NOT COMMANDS)
  set(COMMANDS ops)
endif()
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")

# run(<args>...): runs utim-bench in WORKDIR; sets rc, out, err.
function(run)
  execute_process(COMMAND ${BENCH} ${ARGN} WORKING_DIRECTORY "${WORKDIR}"
    RESULT_VARIABLE r OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(rc "${r}" PARENT_SCOPE)
  set(out "${o}" PARENT_SCOPE)
  set(err "${e}" PARENT_SCOPE)
endfunction()

# Short settings of each command, so that even a regression that measures stays brief,
# and one of its number options with a value out of range.
set(short_ops --runs 1 --iterations 10 --no-callgrind)
set(num_ops --runs)
set(bad_ops 1001)
set(short_tm --quick --no-callgrind --rounds 1 --max-n 10)
set(num_tm --rounds)
set(bad_tm 0)
set(short_clock --runs 3 --drift-seconds 1)
set(num_clock --runs)
set(bad_clock 2)
set(short_sleep --samples 1)
set(num_sleep --samples)
set(bad_sleep 0)
set(short_timeout --samples 1 --no-cyclictest)
set(num_timeout --samples)
set(bad_timeout 1000001)
set(short_stress --board sim --duration 1 --timer SIM_MTIME64 --api uapi)
set(num_stress --duration)
set(bad_stress 0)
set(opts_ops --runs --iterations --no-callgrind)
set(opts_tm --rounds --seed --max-n --quick --no-callgrind)
set(opts_clock --runs --drift-seconds --long)
set(opts_sleep --samples --long)
set(opts_timeout --samples --long --no-cyclictest)
set(opts_stress --board --api --timer --seed --duration --report-every --limit)
set(short_cmsis --samples 10 --no-callgrind)
set(num_cmsis --samples)
set(bad_cmsis 9)
set(opts_cmsis --samples --seed --no-callgrind)

if(MODE STREQUAL "smoke")
  execute_process(COMMAND ${BENCH} ops --runs 3 --iterations 1000 --no-callgrind --json
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(ok OFF)
  if(rc EQUAL 0)
    set(ok ON)
  endif()
  check(ok "ops --json exits with 0 (rc=${rc} ${err})")

  string(JSON bench ERROR_VARIABLE jerr GET "${out}" benchmark)
  set(ok OFF)
  if(NOT jerr AND bench STREQUAL "ops")
    set(ok ON)
  endif()
  check(ok "output is JSON with benchmark \"ops\" ${jerr}")

  string(JSON cg ERROR_VARIABLE jerr GET "${out}" machine callgrind)
  string(JSON cpu ERROR_VARIABLE jerr2 GET "${out}" machine cpu)
  set(ok OFF)
  if(NOT jerr AND NOT jerr2 AND cg STREQUAL "OFF" AND NOT cpu STREQUAL "")
    set(ok ON)
  endif()
  check(ok "machine has cpu, and callgrind is false with --no-callgrind")

  string(JSON nrows ERROR_VARIABLE jerr LENGTH "${out}" rows)
  set(ok OFF)
  if(NOT jerr AND nrows EQUAL 27)
    set(ok ON)
  endif()
  check(ok "27 rows (4 ops x 3 paths x 2 drivers, and the RIOT shim's read/set/clear on sim), got '${nrows}'")

  set(seen "")
  set(fields_ok ON)
  set(bad "")
  if(NOT jerr AND nrows GREATER 0)
    math(EXPR last "${nrows} - 1")
    foreach(i RANGE ${last})
      foreach(key name api instance driver)
        string(JSON v_${key} ERROR_VARIABLE e GET "${out}" rows ${i} ${key})
        if(e)
          set(fields_ok OFF)
          set(bad "row ${i}: no ${key}")
        endif()
      endforeach()
      if(NOT v_name MATCHES "^(read|write|set|clear)$" OR NOT v_api MATCHES "^(uapi|hapi|riot)$"
         OR NOT v_instance MATCHES "^(compile-time|run-time)$" OR NOT v_driver MATCHES "^(nop|sim)$")
        set(fields_ok OFF)
        set(bad "row ${i}: unexpected ${v_name}/${v_api}/${v_instance}/${v_driver}")
      endif()
      string(JSON t_ns ERROR_VARIABLE e TYPE "${out}" rows ${i} ns)
      string(JSON v_ns ERROR_VARIABLE e2 GET "${out}" rows ${i} ns)
      if(e OR e2 OR NOT t_ns STREQUAL "NUMBER" OR v_ns LESS 0)
        set(fields_ok OFF)
        set(bad "row ${i}: ns is not a number >= 0")
      endif()
      foreach(key instructions extra_instructions)
        string(JSON t ERROR_VARIABLE e TYPE "${out}" rows ${i} ${key})
        if(e OR NOT t STREQUAL "NULL")
          set(fields_ok OFF)
          set(bad "row ${i}: ${key} must be present and null without callgrind")
        endif()
      endforeach()
      string(JSON t ERROR_VARIABLE e TYPE "${out}" rows ${i} tsc_ticks)
      if(e OR NOT t MATCHES "^(NUMBER|NULL)$")
        set(fields_ok OFF)
        set(bad "row ${i}: tsc_ticks must be a number or null")
      endif()
      list(APPEND seen "${v_driver}/${v_name}/${v_api}/${v_instance}")
    endforeach()
  endif()
  check(fields_ok "every row has name, api, instance, driver, ns, tsc_ticks, instructions ${bad}")

  set(all ON)
  set(missing "")
  foreach(d nop sim)
    foreach(op read write set clear)
      foreach(p "uapi/compile-time" "uapi/run-time" "hapi/compile-time")
        if(NOT "${d}/${op}/${p}" IN_LIST seen)
          set(all OFF)
          set(missing "${d}/${op}/${p}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  foreach(op read set clear)
    if(NOT "sim/${op}/riot/run-time" IN_LIST seen)
      set(all OFF)
      set(missing "sim/${op}/riot/run-time")
    endif()
  endforeach()
  check(all "every driver/op/path combination is present, and the RIOT rows ${missing}")

  run(ops --runs 3 --iterations 1000 --no-callgrind --json --json-out ops.json)
  set(stdout_doc "${out}")
  set(ok OFF)
  if(rc EQUAL 0 AND EXISTS "${WORKDIR}/ops.json")
    file(READ "${WORKDIR}/ops.json" filed)
    string(JSON fb ERROR_VARIABLE jerr GET "${filed}" benchmark)
    string(JSON fn ERROR_VARIABLE jerr2 LENGTH "${filed}" rows)
    string(JSON sn ERROR_VARIABLE jerr3 LENGTH "${stdout_doc}" rows)
    if(NOT jerr AND NOT jerr2 AND NOT jerr3 AND fb STREQUAL "ops" AND fn EQUAL sn)
      set(ok ON)
    endif()
  endif()
  check(ok "--json-out FILE holds the same JSON document as stdout (rc=${rc} ${err})")

  run(ops --runs 1 --iterations 10 --no-callgrind --json -o -)
  string(JSON bench ERROR_VARIABLE jerr GET "${out}" benchmark)
  set(ok OFF)
  if(rc EQUAL 0 AND NOT jerr AND bench STREQUAL "ops")
    set(ok ON)
  endif()
  check(ok "-o - writes to stdout (rc=${rc} ${err})")

elseif(MODE STREQUAL "cli")
  execute_process(COMMAND ${BENCH} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
  set(ok OFF)
  if(rc EQUAL 0 AND out MATCHES "ops")
    set(ok ON)
  endif()
  check(ok "--help exits 0 and lists the ops command")

  execute_process(COMMAND ${BENCH} ops --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
  set(ok OFF)
  if(rc EQUAL 0 AND out MATCHES "--no-callgrind" AND out MATCHES "--json")
    set(ok ON)
  endif()
  check(ok "ops --help exits 0 and documents its options")

  foreach(args "--x" "ops;--x" "ops;--runs;0" "ops;--iterations;abc" "ops;--runs" "frobnicate" "")
    execute_process(COMMAND ${BENCH} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(ok OFF)
    if(NOT rc EQUAL 0 AND err MATCHES "^utim-bench: .*see 'utim-bench( ops)? --help'|^usage:"
       AND out STREQUAL "")
      set(ok ON)
    endif()
    check(ok "'utim-bench ${args}' fails with a message on stderr only (rc=${rc})")
  endforeach()

  # A help that cannot be written is an error, as in GNU tools (it exited 0 in silence).
  if(EXISTS /dev/full)
    foreach(args "--help" "ops;--help")
      execute_process(COMMAND ${BENCH} ${args} OUTPUT_FILE /dev/full RESULT_VARIABLE rc
                      ERROR_VARIABLE err)
      set(ok OFF)
      if(rc EQUAL 1 AND err MATCHES "^utim-bench: cannot write the help to stdout: No space left on device\n$")
        set(ok ON)
      endif()
      string(REPLACE ";" " " shown "${args}")
      check(ok "'utim-bench ${shown}' > /dev/full: exit 1 and a message (rc=${rc} ${err})")
    endforeach()
  endif()

  execute_process(COMMAND ${BENCH} --x RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  set(ok OFF)
  if(err STREQUAL "utim-bench: unknown option '--x'; see 'utim-bench --help'\n")
    set(ok ON)
  endif()
  check(ok "unknown option message is exact")

  # Word options: a word not among the choices, and a timer the board does not have.
  if("stress" IN_LIST COMMANDS)
    run(stress --board mars)
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err STREQUAL "utim-bench: option '--board' needs one of sim, native, got 'mars'; see 'utim-bench stress --help'\n")
      set(ok ON)
    endif()
    check(ok "stress --board mars: the choices named (rc=${rc} ${err})")
    run(stress --board sim --timer NOPE --duration 1)
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err MATCHES "^utim-bench: no timer named 'NOPE' on board sim [(]it has: SIM_TIMER16, [A-Z0-9_, ]+[)]; see 'utim-bench stress --help'\n$")
      set(ok ON)
    endif()
    check(ok "stress --timer NOPE: the board's timers listed, nothing measured (rc=${rc} ${err})")
    # A limit below the board's shortest interval: refused up front (every run
    # used to fail with EINVAL).
    run(stress --board native --limit 4 --duration 1)
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err MATCHES "^utim-bench: option '--limit' needs at least 8 on board native")
      set(ok ON)
    endif()
    check(ok "stress --limit 4 on native: the board's minimum named (rc=${rc} ${err})")
    # -o with live reports: the file holds them and the result, no NUL bytes
    # (it was cut to 0 with the stream's position past the reports).
    set(live ${WORKDIR}/stress_live.txt)
    file(REMOVE ${live})
    run(stress --board sim --duration 1 --report-every 100 --timer SIM_TIMER16 -o ${live})
    # CMake's strings end at a NUL: the text read is shorter than the file.
    file(SIZE ${live} size)
    file(READ ${live} body)
    string(LENGTH "${body}" len)
    set(ok OFF)
    if(rc EQUAL 0 AND len EQUAL size AND body MATCHES "after 0[.]1 s")
      set(ok ON)
    endif()
    check(ok "stress -o FILE with live reports: no NUL bytes in the file (rc=${rc})")
  endif()
  # A signal while a child program runs (valgrind under ops, tm and cmsis; cyclictest):
  # passed on to it, its temporary directory removed, the usual exit status. A kill of
  # utim-bench alone used to leave valgrind running and /tmp/utim-bench-cg-* behind.
  # A stand-in valgrind in PATH notes its pid and output file, then sleeps.
  find_program(SH sh)
  if(SH)
    file(MAKE_DIRECTORY "${WORKDIR}/fakevg")
    file(WRITE "${WORKDIR}/fakevg/valgrind"
         "#!/bin/sh\nfor a; do case $a in --callgrind-out-file=*) echo \"\${a#*=}\" >vg.out ;; esac; done\n"
         "echo $$ >vg.pid\nexec sleep 60\n")
    file(CHMOD "${WORKDIR}/fakevg/valgrind" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
    execute_process(COMMAND ${SH} -c [=[
PATH="$1:$PATH" "$2" ops --runs 1 --iterations 10 >/dev/null 2>&1 &
p=$!
i=0
while [ ! -s vg.pid ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $p
wait $p
echo "rc=$?"
if kill -0 "$(cat vg.pid)" 2>/dev/null; then echo "child=running"; kill "$(cat vg.pid)"; else echo "child=gone"; fi
if [ ! -s vg.out ]; then echo "dir=unknown (valgrind not run)"
elif [ -e "$(dirname "$(cat vg.out)")" ]; then echo "dir=left"; rm -rf "$(dirname "$(cat vg.out)")"
else echo "dir=removed"; fi
]=] sh "${WORKDIR}/fakevg" "${BENCH}"
      WORKING_DIRECTORY "${WORKDIR}" OUTPUT_VARIABLE sig_out ERROR_VARIABLE sig_err)
    set(ok OFF)
    if(sig_out STREQUAL "rc=143\nchild=gone\ndir=removed\n")
      set(ok ON)
    endif()
    string(REPLACE "\n" " " sig_out "${sig_out}")
    check(ok "SIGTERM during the callgrind run: valgrind ended, no temporary directory left (${sig_out}${sig_err})")
  endif()
  if("cmsis" IN_LIST COMMANDS)
    run(cmsis --seed 0)
    set(ok OFF)
    if(rc EQUAL 2 AND err MATCHES "option '--seed' needs a number from 1")
      set(ok ON)
    endif()
    check(ok "cmsis --seed 0 refused (xorshift's fixed point; it ran as 1) (rc=${rc} ${err})")
  endif()
  if("timeout" IN_LIST COMMANDS)
    run(timeout --board sim --samples 200000)
    set(ok OFF)
    if(rc EQUAL 2 AND err MATCHES "see 'utim-bench timeout --board sim --help'")
      set(ok ON)
    endif()
    check(ok "timeout --board sim: its own limits and help named (rc=${rc} ${err})")
    run(timeout --board sim --help)
    set(ok OFF)
    if(rc EQUAL 0 AND out MATCHES "default 20, 100 with --long")
      set(ok ON)
    endif()
    check(ok "timeout --board sim --help: its defaults as numbers (it printed 20u, 100u) (rc=${rc})")
  endif()

  foreach(cmd IN LISTS COMMANDS)
    set(short ${short_${cmd}})
    set(hint "; see 'utim-bench ${cmd} --help'\n$")

    run(${cmd} --help)
    set(ok OFF)
    if(rc EQUAL 0 AND out MATCHES "--json" AND out MATCHES "-o, --output FILE"
       AND out MATCHES "--json-out FILE" AND out MATCHES "-h, --help")
      set(ok ON)
      foreach(o IN LISTS opts_${cmd})
        if(NOT out MATCHES "\n  ${o}")
          set(ok OFF)
        endif()
      endforeach()
    endif()
    check(ok "${cmd} --help lists ${opts_${cmd}} and the output options")

    # Unknown option, missing value, value out of range: the option is named, --help pointed to.
    run(${cmd} --x)
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err STREQUAL "utim-bench: unknown option '--x'; see 'utim-bench ${cmd} --help'\n")
      set(ok ON)
    endif()
    check(ok "${cmd} --x: unknown option, named, with the usage hint (rc=${rc} ${err})")

    run(${cmd} ${num_${cmd}})
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err MATCHES "^utim-bench: option '${num_${cmd}}' needs a value.*${hint}")
      set(ok ON)
    endif()
    check(ok "${cmd} ${num_${cmd}} without its value: named, with the usage hint (rc=${rc} ${err})")

    run(${cmd} ${num_${cmd}} ${bad_${cmd}})
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err MATCHES "^utim-bench: option '${num_${cmd}}' needs a number from [0-9]+ to [0-9]+, got '${bad_${cmd}}'${hint}")
      set(ok ON)
    endif()
    check(ok "${cmd} ${num_${cmd}} ${bad_${cmd}}: out of range, named, with the usage hint (rc=${rc} ${err})")

    run(${cmd} ${short} ${num_${cmd}} --json)
    set(ok OFF)
    if(rc EQUAL 2 AND out STREQUAL "" AND err MATCHES "^utim-bench: option '${num_${cmd}}' .*got '--json', which looks like an option${hint}")
      set(ok ON)
    endif()
    check(ok "${cmd} ${num_${cmd}} --json: an option is not taken for the number (rc=${rc} ${err})")

    # An option taken for a file name: refused, and no file named after it.
    foreach(fopt --json-out -o)
      run(${cmd} ${short} ${fopt} --json)
      set(ok OFF)
      if(rc EQUAL 2 AND out STREQUAL "" AND NOT EXISTS "${WORKDIR}/--json"
         AND err MATCHES "^utim-bench: option '(${fopt}|-o/--output)' needs a file name, got '--json', which looks like an option.*${hint}")
        set(ok ON)
      endif()
      check(ok "${cmd} ${fopt} --json: refused before measuring, no file '--json' (rc=${rc} ${err})")
      file(REMOVE "${WORKDIR}/--json")
    endforeach()

    # Output files are opened before measuring: a bad one fails at once, nothing measured.
    run(${cmd} ${short} -o /nonexistent/dir/x)
    string(REGEX MATCHALL "\n" lines "${err}")
    list(LENGTH lines nlines)
    set(ok OFF)
    if(NOT rc EQUAL 0 AND out STREQUAL "" AND nlines EQUAL 1
       AND err MATCHES "^utim-bench: .*'/nonexistent/dir/x' \\(option -o/--output\\).*nothing was measured")
      set(ok ON)
    endif()
    check(ok "${cmd} -o /nonexistent/dir/x: one message naming the file and option, nothing measured (rc=${rc} ${err})")

    run(${cmd} ${short} --json-out /nonexistent/dir/x)
    set(ok OFF)
    if(NOT rc EQUAL 0 AND out STREQUAL ""
       AND err MATCHES "^utim-bench: .*'/nonexistent/dir/x' \\(option --json-out\\).*nothing was measured")
      set(ok ON)
    endif()
    check(ok "${cmd} --json-out /nonexistent/dir/x: fails with no table on stdout (rc=${rc} ${err})")

    run(${cmd} ${short} -o table.txt --json-out /nonexistent/dir/x)
    set(ok OFF)
    if(NOT rc EQUAL 0 AND NOT EXISTS "${WORKDIR}/table.txt")
      set(ok ON)
    endif()
    check(ok "${cmd} -o FILE --json-out /nonexistent/dir/x: FILE is not even created (rc=${rc})")
    file(REMOVE "${WORKDIR}/table.txt")

    file(WRITE "${WORKDIR}/keep.txt" "an earlier result\n")
    run(${cmd} ${short} -o keep.txt --json-out /nonexistent/dir/x)
    file(READ "${WORKDIR}/keep.txt" kept)
    set(ok OFF)
    if(NOT rc EQUAL 0 AND kept STREQUAL "an earlier result\n")
      set(ok ON)
    endif()
    check(ok "${cmd}: an existing -o FILE is left as it was when the run fails (rc=${rc})")

    run(${cmd} ${short} -o same.txt --json-out same.txt)
    set(ok OFF)
    if(NOT rc EQUAL 0 AND NOT EXISTS "${WORKDIR}/same.txt" AND err MATCHES "same file")
      set(ok ON)
    endif()
    check(ok "${cmd} -o F --json-out F: refused before measuring (rc=${rc} ${err})")
  endforeach()
else()
  message(FATAL_ERROR "MODE must be smoke or cli")
endif()

tap_finish()
