#!/usr/bin/env bash
# Run the differential test (tests/differential) for many seeds in parallel.
#
# Each seed is one run of differential_sim --seed S [--ops K]: the uAPI on
# every sim instance against the reference model. A failing seed is printed
# with the exact command that reproduces it (that run shrinks the failing
# sequence and prints it) and its log is kept; passing logs are deleted.
# Exits 0 when every seed passed, 1 when any failed, 2 on bad usage.
#
# Usage: bash tools/differential.sh [--seeds N] [--jobs J] [--ops K] [--first S] [--bin PATH]
#        bash tools/differential.sh --help
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
me=tools/differential.sh

usage() {
  cat <<EOF
usage: bash $me [--seeds N] [--jobs J] [--ops K] [--first S] [--bin PATH]

Runs the differential test for the seeds S, S+1, ..., S+N-1, J at a time.

  --seeds N    how many seeds (default 16)
  --jobs J     runs at a time (default: the number of CPUs, $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1) here)
  --ops K      operations per run (default: differential_sim's own; see its --help)
  --first S    the first seed (default: chosen at random and printed, so each
               call tries new seeds; give it to repeat a set)
  --bin PATH   the differential_sim to run (default:
               build/host/tests/differential/differential_sim; build it with
               cmake --preset host && cmake --build build/host --target differential_sim)
  --help       this text

Prints one line per seed as it finishes; each failing seed with the command
that reproduces it, and where its log is. Exit status: 0 all passed, 1 some
seed failed, 2 bad usage or no binary.
EOF
}

die_usage() {
  echo "$me: $*" >&2
  echo "Try: bash $me --help" >&2
  exit 2
}

# A whole unsigned decimal number (the seeds' arithmetic is bash's, 63 bits).
is_number() {
  [[ $1 =~ ^[0-9]+$ ]] && ((${#1} <= 18))
}

seeds=16
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
ops=
first=
bin=$root/build/host/tests/differential/differential_sim

while (($# > 0)); do
  case $1 in
    --help | -h)
      usage
      exit 0
      ;;
    --seeds | --jobs | --ops | --first | --bin)
      (($# >= 2)) || die_usage "$1 needs a value"
      case $1 in
        --seeds) seeds=$2 ;;
        --jobs) jobs=$2 ;;
        --ops) ops=$2 ;;
        --first) first=$2 ;;
        --bin) bin=$2 ;;
      esac
      if [[ $1 != --bin ]] && ! is_number "$2"; then
        die_usage "$1 needs a decimal number, got '$2'"
      fi
      shift 2
      ;;
    *)
      die_usage "unknown argument '$1'"
      ;;
  esac
done

# Base 10 from here on: bash reads a leading 0 as octal ("010" is 8, "08" an error).
seeds=$((10#$seeds))
jobs=$((10#$jobs))
[[ -z $first ]] || first=$((10#$first))
[[ -z $ops ]] || ops=$((10#$ops))
((seeds >= 1)) || die_usage "--seeds must be at least 1"
((jobs >= 1)) || die_usage "--jobs must be at least 1"
if [[ ! -x $bin ]]; then
  echo "$me: no differential_sim at $bin" >&2
  echo "Build it: cmake --preset host && cmake --build build/host --target differential_sim" >&2
  echo "(or name another with --bin PATH)" >&2
  exit 2
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

first_note=
if [[ -z $first ]]; then
  first=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  first_note=" (first seed chosen at random; repeat this set with --first $first)"
fi
last=$((first + seeds - 1))

logs=$(mktemp -d "${TMPDIR:-/tmp}/utim-differential.XXXXXX")
pids=()
cleanup() {
  # Interrupted: stop the runs this script started (each job's
  # differential_sim, then the job) and drop the logs of unfinished runs.
  for pid in "${pids[@]}"; do
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  for log in "$logs"/*.log; do
    if [[ -e $log && ! -e ${log%.log}.rc ]]; then
      rm -f "$log"
    fi
  done
  rm -f "$logs"/*.rc
  if ! rmdir "$logs" 2>/dev/null; then
    echo "Logs of the failing runs: $logs"
  fi
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT TERM

# The command line of one seed, exactly as run and as printed.
command_of() {
  local cmd="$bin --seed $1"
  if [[ -n $ops ]]; then
    cmd+=" --ops $ops"
  fi
  echo "$cmd"
}

# One seed: its result goes to $logs/<seed>.rc, its line to stdout in one write.
run_seed() {
  local seed=$1 rc=0 log="$logs/$1.log" cmd
  cmd=$(command_of "$seed")
  # shellcheck disable=SC2086 # the command is words by design (no quoting needed: a path and numbers)
  $cmd >"$log" 2>&1 </dev/null || rc=$?
  echo "$rc" >"$logs/$seed.rc"
  if ((rc == 0)); then
    rm -f "$log"
    printf 'ok    seed %s\n' "$seed"
  else
    local what
    what=$(grep -E '^# (FAIL|HANG) on|^not ok' "$log" | head -n 3 | sed 's/^/        /' || true)
    printf 'FAIL  seed %s (exit %s): %s\n        log: %s\n%s\n' "$seed" "$rc" "$cmd" "$log" "$what"
  fi
}

echo "differential: seeds $first..$last, $jobs at a time, ${ops:-the default number of} operations each$first_note"
echo "binary: $bin"
start=$SECONDS
for ((seed = first; seed <= last; seed++)); do
  while (($(jobs -rp | wc -l) >= jobs)); do
    wait -n || true
  done
  run_seed "$seed" &
  pids+=($!)
done
wait || true
pids=()

failed=()
for ((seed = first; seed <= last; seed++)); do
  rc=$(cat "$logs/$seed.rc" 2>/dev/null || echo missing)
  rm -f "$logs/$seed.rc"
  if [[ $rc != 0 ]]; then
    failed+=("$seed")
  fi
done

echo "==== $seeds seeds in $((SECONDS - start)) s: $((seeds - ${#failed[@]})) passed, ${#failed[@]} failed"
if ((${#failed[@]} > 0)); then
  echo "Reproduce each failing seed with:"
  for seed in "${failed[@]}"; do
    echo "  $(command_of "$seed")"
  done
  echo "Logs of the failing runs: $logs"
  trap - EXIT
  exit 1
fi
trap - EXIT
rmdir "$logs"
