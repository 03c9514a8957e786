#!/usr/bin/env bash
# The main job of utim: build the host preset and run the benchmarks.
#
# Installs what is missing (tools/deps.sh), builds preset `host`, then runs
# each benchmark of `benches` below with build/host/bench/utim-bench: the
# table goes to the terminal, the JSON to results/<name>.json. Progress lines
# appear on stderr when it is a terminal.
#
# Default run: about 3.5 minutes once built (ops ~5 s, tm ~25 s, stress ~30 s native +
# ~10 s sim, clock ~60 s: its background drift measurement of utim_now()
# against CLOCK_MONOTONIC_RAW runs for one minute, sleep ~20 s, timeout ~30 s
# with cyclictest, the sim timeout matrix, cmsis ~5 s, ops and cmsis as
# firmware of microbit and mps2-an385, ops on lm3s6965evb and on the RISC-V
# virt machine (RV32, RV64), under QEMU (builds ~1 min each the first time),
# the HTM's FPGA
# cost with yosys ~1.5 min); then results/report.html (tools/report.py).
# --long: more runs and samples everywhere (about 10 minutes); --only: a
# subset (the report is still written, from every results/*.json there is).
#
# Usage: bash tools/bench.sh [--long] [--only NAME[,NAME...]] [-h|--help]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# The benchmarks, in the order they run: adding one is one word here.
benches=(
  ops
  tm
  stress
  stress_sim
  clock
  sleep
  timeout
  timeout_sim
  cmsis
)

# What runs besides them: the firmware benchmarks under QEMU and the HTM's synthesis.
others=(firmware htm_synth)

usage() {
  cat <<EOF
usage: bash tools/bench.sh [--long] [--only NAME[,NAME...]] [-h|--help]

The main job of utim: installs what is missing (Debian packages), builds the
host preset, runs the benchmarks side by side in one run (tables on the
terminal, JSON in results/<name>.json), then writes results/report.html.
About 3.5 minutes; the first run also installs and builds.

options:
  --long         more runs and samples everywhere (about 10 minutes)
  --only LIST    run only these, comma-separated, of:
                 ${benches[*]} ${others[*]}
                 (firmware: ops, cmsis and timeout as firmware of the QEMU
                 boards; htm_synth: the hardware time manager with yosys);
                 the report is written from every results/*.json present
  -h, --help     show this help

Each benchmark alone, with its own options: build/host/bench/utim-bench
<command> --help (after a first run has built it).
EOF
}

# Fails (exit 2) naming what was wrong; nothing is installed or built before.
bad_usage() {
  echo "bench.sh: $1; see 'bash tools/bench.sh --help'" >&2
  exit 2
}

long=0
only=()
while (($# > 0)); do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --long) long=1 ;;
    --only | --only=*)
      if [[ $1 == --only=* ]]; then
        list=${1#--only=}
      else
        (($# > 1)) || bad_usage "option '--only' needs a value: a comma-separated list of benchmarks"
        shift
        list=$1
      fi
      # read drops a trailing empty field: look for an empty name first.
      [[ ! $list =~ (^|,)(,|$) ]] || bad_usage "an empty name in --only '$list'"
      IFS=, read -r -a names <<<"$list"
      for n in "${names[@]}"; do
        [[ " ${benches[*]} ${others[*]} " == *" $n "* ]] ||
          bad_usage "unknown benchmark '$n' in --only (one of: ${benches[*]} ${others[*]})"
        only+=("$n")
      done
      ;;
    *) bad_usage "unknown argument '$1'" ;;
  esac
  shift
done

# Whether benchmark (or group) $1 runs in this invocation.
wanted() {
  ((${#only[@]} == 0)) || [[ " ${only[*]} " == *" $1 "* ]]
}

# shellcheck source=tools/deps.sh
source "$root/tools/deps.sh"

# Per-benchmark command and arguments. clock: the drift over one minute in
# every run (utim-bench's own default is 10 s). stress: 15 s per run on the
# native board (real time; 60 s with --long), and stress_sim the same
# command on the sim board (virtual time, every simulated timer). --long:
# `ops` and `tm` have no --long, more runs / rounds is what makes their
# medians steadier. sleep and timeout also print cyclictest-style
# histograms (200 one-us buckets); timeout_sim is the frequency x timeout
# matrix on the sim board (virtual time).
bench_args() {
  local a="$1"
  case "$1" in
    clock) a="$a --drift-seconds 60" ;;
    stress) a="$a --duration $((long ? 60 : 15))" ;;
    stress_sim) a="stress --board sim --duration $((long ? 20 : 5))" ;;
    sleep | timeout) a="$a --histogram 200" ;;
    timeout_sim) a="timeout --board sim --histogram 10" ;;
    cmsis) a="$a --samples $((long ? 2000 : 500))" ;;
  esac
  if ((long)); then
    case "$1" in
      ops) a="$a --runs 61" ;;
      tm) a="$a --rounds 21" ;;
      stress | stress_sim | cmsis) ;;
      *) a="$a --long" ;;
    esac
  fi
  echo "$a"
}

utim_install_deps
host_wanted=0
for name in "${benches[@]}"; do
  if wanted "$name"; then
    host_wanted=1
  fi
done
if ((host_wanted)); then
  cmake --preset host </dev/null
  cmake --build --preset host -j "${UTIM_JOBS:-2}" </dev/null
fi

bench_bin="$root/build/host/bench/utim-bench"
# Debian's python3 (where python3-matplotlib is installed), else the first in PATH.
py=/usr/bin/python3
[[ -x $py ]] || py=python3
results="$root/results"
mkdir -p "$results"

# One measurement per benchmark: the table goes to the terminal and the same
# result, as JSON, to results/<name>.json.
# A benchmark that fails (non-zero exit: stress saw an early or lost
# callback, timeout could not measure a row, ...) does not stop the others:
# it is named at the end, and the run exits non-zero after the report.
start=$SECONDS
failed=()
for name in "${benches[@]}"; do
  wanted "$name" || continue
  read -r -a args <<<"$(bench_args "$name")"
  echo "==== bench $name"
  t0=$SECONDS
  rc=0
  "$bench_bin" "${args[@]}" --json-out "$results/$name.json" </dev/null || rc=$?
  if ((rc == 0)); then
    echo "==== bench $name: JSON in results/$name.json ($((SECONDS - t0)) s)"
  else
    echo "==== bench $name: FAILED (exit $rc, $((SECONDS - t0)) s); see its output above" >&2
    failed+=("$name")
  fi
done

firmware_benches() {
  # The same `ops` measurement as firmware of the Cortex-M boards under QEMU
  # (instructions, -icount): results/ops_<board>.json, for the report's
  # per-board figure (uTimer Fig. 6); the CMSIS-RTOS2 layer's instructions
  # against the time manager (results/cmsis_<board>.json, its table printed);
  # and the timeout matrix on the micro:bit.
  for board in microbit mps2-an385; do
    echo "==== bench ops and cmsis on $board (firmware under QEMU)"
    t0=$SECONDS
    cmake --preset "$board" </dev/null >/dev/null
    cmake --build --preset "$board" -j "${UTIM_JOBS:-2}" --target "bench_ops_$board" \
      "bench_cmsis_$board" </dev/null >/dev/null
    ctest --preset "$board" -R "^bench_(ops|cmsis)_$board\$" </dev/null >/dev/null
    grep -h '^{"benchmark":"ops"' "build/$board/logs/bench_ops_$board.log" >"$results/ops_$board.json"
    grep -h '^{"benchmark":"cmsis"' "build/$board/logs/bench_cmsis_$board.log" \
      >"$results/cmsis_$board.json"
    grep -h '^# ' "build/$board/logs/bench_cmsis_$board.log"
    echo "==== bench ops and cmsis on $board: JSON in results/{ops,cmsis}_$board.json ($((SECONDS - t0)) s)"
  done
  # The `ops` firmware alone on the Stellaris board (its GPTM driver) and on the
  # RISC-V virt machine, RV32 and RV64 (one board, riscv-virt, two presets):
  # results/ops_<preset>.json. Each entry is preset:board.
  for pb in lm3s6965evb:lm3s6965evb virt-rv32:riscv-virt virt-rv64:riscv-virt; do
    preset=${pb%%:*}
    board=${pb#*:}
    echo "==== bench ops on $preset (firmware under QEMU)"
    t0=$SECONDS
    cmake --preset "$preset" </dev/null >/dev/null
    cmake --build --preset "$preset" -j "${UTIM_JOBS:-2}" --target "bench_ops_$board" \
      </dev/null >/dev/null
    ctest --preset "$preset" -R "^bench_ops_$board\$" </dev/null >/dev/null
    grep -h '^{"benchmark":"ops"' "build/$preset/logs/bench_ops_$board.log" \
      >"$results/ops_$preset.json"
    echo "==== bench ops on $preset: JSON in results/ops_$preset.json ($((SECONDS - t0)) s)"
  done
  # The timeout matrix as firmware (the micro:bit: the board with compare channels).
  echo "==== bench timeout on microbit (firmware under QEMU)"
  cmake --build --preset microbit -j "${UTIM_JOBS:-2}" --target bench_timeout_microbit </dev/null >/dev/null
  ctest --preset microbit -R '^bench_timeout_microbit$' </dev/null >/dev/null
  grep -h '^{"benchmark":"timeout"' build/microbit/logs/bench_timeout_microbit.log \
    >"$results/timeout_microbit.json"
  echo "==== bench timeout on microbit: JSON in results/timeout_microbit.json"
}

htm_synth_bench() {
  # The hardware time manager's FPGA cost (paper Fig. 5), with yosys.
  echo "==== htm_synth (yosys)"
  t0=$SECONDS
  "$py" tools/htm_synth.py --json-out "$results/htm_synth.json" </dev/null
  echo "==== htm_synth: JSON in results/htm_synth.json ($((SECONDS - t0)) s)"
}

if wanted firmware; then
  firmware_benches
fi
if wanted htm_synth; then
  htm_synth_bench
fi
echo "==== all benchmarks: $((SECONDS - start)) s"

# The report: one page with the figures of everything above.
"$py" tools/report.py --results "$results" --out "$results/report.html"
echo "==== report: $results/report.html"
if ((${#failed[@]} > 0)); then
  echo "bench.sh: failed: ${failed[*]} (their messages are above)" >&2
  exit 1
fi
