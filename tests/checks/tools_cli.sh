#!/usr/bin/env bash
# The command-line behaviour of the README's two commands (tools/test.sh,
# tools/bench.sh): --help prints the usage and exits 0; a wrong argument or
# setting exits 2 with a message that names it and points to --help. Each
# must answer before anything is installed, configured or built (a mistyped
# option once started the 15-minute test run), so no case may print a line
# of tools/deps.sh ("deps: ...") or of a build ("==== ...").
#
# Usage: bash tests/checks/tools_cli.sh <source dir>
set -uo pipefail

src=${1:?usage: tools_cli.sh <source dir>}
fails=0
n=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# Whether file $2 is what $1 asks: "" empty, "-" anything, else a line
# matching the extended regular expression $1.
matches() {
  case "$1" in
    "") [[ ! -s $2 ]] ;;
    -) true ;;
    *) grep -Eq -- "$1" "$2" ;;
  esac
}

# check NAME RC STDOUT_PATTERN STDERR_PATTERN [ENV=VALUE...] -- COMMAND...
check() {
  local name=$1 want_rc=$2 want_out=$3 want_err=$4
  shift 4
  local envs=()
  while (($# > 0)) && [[ $1 != -- ]]; do
    envs+=("$1")
    shift
  done
  shift
  n=$((n + 1))
  local rc=0
  env ${envs[@]+"${envs[@]}"} timeout 60 "$@" >"$out" 2>"$err" </dev/null || rc=$?
  local why=""
  if ((rc != want_rc)); then
    why="exit $rc, expected $want_rc"
  elif ! matches "$want_out" "$out"; then
    why="stdout is not ${want_out:-empty}"
  elif ! matches "$want_err" "$err"; then
    why="stderr is not ${want_err:-empty}"
  elif grep -Eq '^(deps:|====)' "$out" "$err"; then
    why="it started working (installing or building) before answering"
  fi
  if [[ -n $why ]]; then
    fails=$((fails + 1))
    echo "not ok $n - $name: $why"
    sed 's/^/#   stdout: /' "$out" | head -n 5
    sed 's/^/#   stderr: /' "$err" | head -n 5
  else
    echo "ok $n - $name"
  fi
}

t=("bash" "$src/tools/test.sh")
b=("bash" "$src/tools/bench.sh")
any=-
none=""
check "test.sh --help" 0 '^usage: bash tools/test.sh' "$none" -- "${t[@]}" --help
check "test.sh -h" 0 'UTIM_TEST_PRESETS' "$none" -- "${t[@]}" -h
check "test.sh with an argument" 2 "$none" "unknown argument '--preset'.*--help" -- \
  "${t[@]}" --preset host
check "test.sh with an unknown preset" 2 "$none" "unknown preset 'hots'.*microbit" \
  UTIM_TEST_PRESETS="host hots" -- "${t[@]}"
check "test.sh with no preset" 2 "$none" "names no preset" UTIM_TEST_PRESETS=" " -- "${t[@]}"
check "test.sh with UTIM_JOBS=0" 2 "$none" "UTIM_JOBS needs a number.*got '0'" UTIM_JOBS=0 -- \
  "${t[@]}"
check "test.sh with a bad UTIM_TEST_TIMEOUT" 2 "$none" "UTIM_TEST_TIMEOUT needs.*got '5m'" \
  UTIM_TEST_TIMEOUT=5m -- "${t[@]}"
check "bench.sh --help" 0 '^usage: bash tools/bench.sh' "$none" -- "${b[@]}" --help
check "bench.sh --help lists every benchmark" 0 'ops tm stress stress_sim clock sleep timeout timeout_sim cmsis firmware htm_synth' \
  "$none" -- "${b[@]}" -h
check "bench.sh with an unknown option" 2 "$none" "unknown argument '--rounds'.*--help" -- \
  "${b[@]}" --rounds 3
check "bench.sh --only without a value" 2 "$none" "'--only' needs a value" -- "${b[@]}" --only
check "bench.sh --only with an unknown name" 2 "$none" "unknown benchmark 'tim'.*timeout_sim" -- \
  "${b[@]}" --only tm,tim
check "bench.sh --only with an empty name" 2 "$none" "empty name" -- "${b[@]}" --only=tm,
check "bench.sh --help after a valid option" 0 '^usage:' "$any" -- "${b[@]}" --long --help
check "test.sh with a second argument" 2 "$none" "unexpected argument 'extra'" -- \
  "${t[@]}" "" extra
# Numbers with a leading 0 are decimal (bash read them as octal: 010 seeds
# ran 8, from 64). Not through check(): the run prints its "====" summary.
n=$((n + 1))
bash "$src/tools/differential.sh" --seeds 010 --first 0100 --bin /bin/true >"$out" 2>&1
if grep -q '^differential: seeds 100[.][.]109,' "$out"; then
  echo "ok $n - differential.sh --seeds 010 --first 0100 runs seeds 100..109"
else
  fails=$((fails + 1))
  echo "not ok $n - differential.sh --seeds 010 --first 0100 does not run seeds 100..109"
fi

echo "1..$n"
((fails == 0))
