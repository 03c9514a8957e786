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
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=tools/deps.sh
source "$root/tools/deps.sh"

read -r -a presets <<<"${UTIM_TEST_PRESETS:-host host-asan host-tsan aarch64-linux mps2-an385 microbit netduinoplus2 lm3s6965evb virt-rv32 virt-rv64}"
jobs=${UTIM_JOBS:-2}
# Per-test limit for tests that set none themselves; keeps a hung test from
# eating CI's time.
test_timeout=${UTIM_TEST_TIMEOUT:-300}

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
