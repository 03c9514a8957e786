#!/usr/bin/env bash
# The full test run of utim (the README's test command).
#
# Installs what is missing (tools/deps.sh), then configures, builds and runs
# ctest for each preset in UTIM_TEST_PRESETS (default: host host-asan
# host-tsan aarch64-linux mps2-an385 microbit netduinoplus2 lm3s6965evb
# virt-rv32 virt-rv64; host-tsan builds and runs only the native tests, the
# ones with threads, under ThreadSanitizer; aarch64-linux is the host build
# for Linux on aarch64, its tests run under qemu-aarch64; mps2-an385,
# microbit, netduinoplus2 and lm3s6965evb are Cortex-M boards cross-built
# with arm-none-eabi-gcc whose tests run under qemu-system-arm; virt-rv32 and virt-rv64 are QEMU's RISC-V
# virt machine, cross-built with riscv64-unknown-elf-gcc + picolibc, run
# under qemu-system-riscv32/64).
# Every preset runs even when an earlier one failed, so one run shows
# everything. After each preset's ctest, the reports its tests wrote
# (build/<preset>/reports/*.txt: size report, ...) and the closing lines of
# the QEMU runs (build/<preset>/logs/*.log) are printed.
#
# Ends with one line "N passed, N failed": the sum of ctest's results over
# the presets. A failed build adds one failure (its tests that did build
# still run); a preset that does not configure, or whose ctest finds no
# test, counts as one failure. Exits non-zero on any failure.
#
# Usage: bash tools/test.sh            (as root on a fresh Debian machine)
#        UTIM_TEST_PRESETS=host bash tools/test.sh
#        UTIM_TEST_PRESETS="mps2-an385 microbit" bash tools/test.sh
#        bash tools/test.sh --help
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

all_presets="host host-asan host-tsan aarch64-linux mps2-an385 microbit netduinoplus2 lm3s6965evb virt-rv32 virt-rv64"

usage() {
  cat <<EOF
usage: bash tools/test.sh [-h|--help]

The full test run of utim (CI runs it): installs what is missing (Debian
packages), then configures, builds and runs ctest for each preset, prints
each board's size report and QEMU run endings, and ends with one line
"N passed, N failed". Exits non-zero on any failure. About 15 minutes on 2
cores from a fresh clone (package installation included).

environment:
  UTIM_TEST_PRESETS   the presets to run, space-separated (default: all):
                      $all_presets
  UTIM_JOBS           parallel builds and tests (default 2)
  UTIM_TEST_TIMEOUT   seconds a test that sets no limit of its own may take
                      (default 300)

One preset by hand: cmake --preset P && cmake --build --preset P &&
ctest --preset P (see the README, "Build by hand").
EOF
}

# Fails (exit 2) naming what was wrong; nothing is installed or built before.
bad_usage() {
  echo "test.sh: $1; see 'bash tools/test.sh --help'" >&2
  exit 2
}

case "${1-}" in
  "") ;;
  -h | --help)
    usage
    exit 0
    ;;
  *) bad_usage "unknown argument '$1' (presets are chosen with UTIM_TEST_PRESETS)" ;;
esac
(($# <= 1)) || bad_usage "unexpected argument '$2' (presets are chosen with UTIM_TEST_PRESETS)"

read -r -a presets <<<"${UTIM_TEST_PRESETS:-$all_presets}"
((${#presets[@]} > 0)) || bad_usage "UTIM_TEST_PRESETS names no preset (one or more of: $all_presets)"
for preset in "${presets[@]}"; do
  [[ " $all_presets " == *" $preset "* ]] ||
    bad_usage "unknown preset '$preset' in UTIM_TEST_PRESETS (one or more of: $all_presets)"
done
jobs=${UTIM_JOBS:-2}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || bad_usage "UTIM_JOBS needs a number of jobs from 1 up, got '$jobs'"
# Per-test limit for tests that set none themselves; keeps a hung test from
# eating CI's time.
test_timeout=${UTIM_TEST_TIMEOUT:-300}
[[ $test_timeout =~ ^[1-9][0-9]*$ ]] ||
  bad_usage "UTIM_TEST_TIMEOUT needs a number of seconds from 1 up, got '$test_timeout'"

# shellcheck source=tools/deps.sh
source "$root/tools/deps.sh"

utim_install_deps

log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

total_passed=0
total_failed=0
summary=()

for preset in "${presets[@]}"; do
  echo "==== preset $preset: configure"
  if ! cmake --preset "$preset" </dev/null; then
    summary+=("$preset: configure FAILED")
    total_failed=$((total_failed + 1))
    continue
  fi
  echo "==== preset $preset: build"
  # Keep going past a failing target (ninja -k 0): the tests that did build
  # still run, so one broken file does not hide every other result.
  build_failed=0
  if ! cmake --build --preset "$preset" -j "$jobs" -- -k 0 </dev/null; then
    build_failed=1
    echo "==== preset $preset: build FAILED (tests that built still run)"
  fi
  echo "==== preset $preset: ctest"
  # Reports and QEMU logs are this run's only: nothing stale gets printed.
  rm -rf "$root/build/$preset/reports" "$root/build/$preset/logs"
  log="$log_dir/$preset.log"
  rc=0
  ctest --preset "$preset" -j "$jobs" --output-on-failure --no-tests=error \
    --timeout "$test_timeout" </dev/null 2>&1 | tee "$log" || rc=$?
  # ctest's closing count, e.g. "92% tests passed, 1 tests failed out of 12".
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
  if [[ $line =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    failed=${BASH_REMATCH[1]}
    passed=$((BASH_REMATCH[2] - failed))
    if ((rc != 0 && failed == 0)); then
      # ctest failed without a failing test (e.g. a fixture or a crash of ctest itself).
      failed=1
    fi
  else
    passed=0
    failed=1
  fi
  note="ctest exit $rc"
  if ((build_failed)); then
    failed=$((failed + 1))
    note="$note; build FAILED, counted as one more failure"
  fi
  bdir="$root/build/$preset"
  if compgen -G "$bdir/reports/*.txt" >/dev/null; then
    for r in "$bdir"/reports/*.txt; do
      echo "==== preset $preset: report $(basename "$r" .txt)"
      cat "$r"
    done
  fi
  if compgen -G "$bdir/logs/*.log" >/dev/null; then
    echo "==== preset $preset: QEMU runs (closing line of each)"
    for l in "$bdir"/logs/*.log; do
      last=$(grep -E '^[0-9]+ passed, [0-9]+ failed|^Bail out!' "$l" | tail -n 1 || true)
      echo "  $(basename "$l" .log): ${last:-no closing line}"
    done
  fi
  summary+=("$preset: $passed passed, $failed failed ($note)")
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
done

echo "==== summary"
for s in "${summary[@]}"; do
  echo "  $s"
done
echo "$total_passed passed, $total_failed failed"
if ((total_failed != 0)); then
  exit 1
fi
