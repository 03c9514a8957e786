#!/usr/bin/env bash
# Fuzz the uAPI (tests/fuzz/fuzz_uapi.c), the time manager
# (tests/fuzz/fuzz_tm.c) or the CMSIS-RTOS2 time services
# (tests/fuzz/fuzz_os2.c) on the sim board for as long as asked.
#
# Builds the libFuzzer target in build/fuzz (clang, AddressSanitizer +
# UndefinedBehaviorSanitizer, installing clang when missing) and runs it from
# a copy of the repository's corpus (tests/fuzz/corpus, corpus_tm, corpus_os2). Failing inputs are
# saved in build/fuzz/findings/ and listed at the end with the command that
# replays each; the exit status is non-zero when any was found.
#
# Usage: bash tools/fuzz.sh [--target uapi|tm|os2] [--seconds N] [--jobs J] [--merge] [--replay FILE...]
#   --target T   what to fuzz: uapi (default), tm (the time manager) or os2
#                (the CMSIS-RTOS2 time services)
#   --seconds N  how long to fuzz (default 600); 0 = until interrupted
#   --jobs J     parallel fuzzing processes sharing the corpus (default 1)
#   --merge      afterwards, add the inputs that reach new coverage to
#                the target's corpus (minimised with libFuzzer's -merge=1)
#   --replay     run the given inputs once each (e.g. a saved finding); a
#                failing one prints which invariant broke, where, and when
#   --help       this text
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; }

target=uapi
seconds=600
jobs=1
merge=0
replay=()
while (($# > 0)); do
  case $1 in
    --target)
      [[ ${2:-} == uapi || ${2:-} == tm || ${2:-} == os2 ]] || { echo "fuzz.sh: --target needs uapi, tm or os2, got '${2:-}' (see --help)" >&2; exit 2; }
      target=$2; shift 2 ;;
    --seconds)
      [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seconds needs a number of seconds, got '${2:-}' (see --help)" >&2; exit 2; }
      seconds=$((10#$2)); shift 2 ;;
    --jobs)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs needs a number >= 1, got '${2:-}' (see --help)" >&2; exit 2; }
      jobs=$((10#$2)); shift 2 ;;
    --merge) merge=1; shift ;;
    --replay)
      shift
      (($# > 0)) || { echo "fuzz.sh: --replay needs at least one input file (see --help)" >&2; exit 2; }
      replay=("$@"); set -- ;;
    -h | --help) usage; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# shellcheck source=tools/deps.sh
source "$root/tools/deps.sh"
utim_install_deps

bdir=$root/build/fuzz
cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DUTIM_SANITIZE=ON -DUTIM_FUZZ=ON -DUTIM_LINT=OFF >/dev/null
cmake --build "$bdir" --target "fuzz_$target" -j "$(nproc)" >/dev/null
fuzz=$bdir/tests/fuzz/fuzz_$target
corpus=$root/tests/fuzz/corpus
[[ $target == tm ]] && corpus=$root/tests/fuzz/corpus_tm
[[ $target == os2 ]] && corpus=$root/tests/fuzz/corpus_os2

if ((${#replay[@]} > 0)); then
  exec "$fuzz" -runs=1 "${replay[@]}"
fi

work=$bdir/work_$target
findings=$bdir/findings
rm -rf "$work"
mkdir -p "$work/corpus" "$findings"
cp "$corpus"/* "$work/corpus/"
touch "$work/start"

args=(-max_len=512 -timeout=30 -print_final_stats=1 -artifact_prefix="$findings/")
((seconds > 0)) && args+=(-max_total_time="$seconds")
if ((jobs > 1)); then
  args+=(-jobs="$jobs" -workers="$jobs")
fi
echo "fuzz.sh: fuzzing fuzz_$target for ${seconds}s with $jobs process(es); corpus $work/corpus, findings $findings"
before=$(find "$findings" -type f | wc -l)
rc=0
"$fuzz" "${args[@]}" "$work/corpus" || rc=$?

if ((merge)); then
  echo "fuzz.sh: merging new coverage into $corpus"
  "$fuzz" -merge=1 -max_len=512 "$corpus" "$work/corpus"
fi

mapfile -t found < <(find "$findings" -type f -newer "$work/start" 2>/dev/null | sort)
if ((${#found[@]} > 0 || rc != 0)); then
  echo "fuzz.sh: failing inputs (replay with: bash tools/fuzz.sh --target $target --replay FILE):" >&2
  for f in "${found[@]}"; do echo "  $f" >&2; done
  if ((before > 0)); then
    echo "  (and $before from earlier runs in $findings)" >&2
  fi
  exit 1
fi
echo "fuzz.sh: no failing input"
