#!/usr/bin/env bash
# Run one test firmware of a bare-metal board under QEMU (called by ctest; see
# cmake/cross.cmake, utim_add_qemu_test): qemu-system-arm for the Cortex-M
# boards, the board's own emulator with --qemu (qemu-system-riscv32).
#
#   qemu-run.sh --machine M --shift N --timeout S --log FILE [--qemu EXE]
#               [--qemu-arg ARG]... [--expect FILE] firmware.elf
#
# QEMU runs with deterministic virtual time (-icount shift=N,align=off,
# sleep=off: each instruction is 2^N ns), the board's UART on stdout, and
# semihosting so the firmware ends the run with its status (SYS_EXIT_EXTENDED;
# the RISC-V virt board ends it through its test device instead).
# The output is copied to stdout and to FILE.
#
# Exit status: the firmware's, except
#   - 124 when the run took longer than S seconds (wall clock),
#   - 1 when the firmware exited 0 without printing a closing
#     "N passed, N failed" line (it must never pass by saying nothing),
#   - 1 with --expect when the output differs from FILE (determinism check:
#     a second run of the same firmware must print the same bytes).
set -uo pipefail

qemu=qemu-system-arm
machine=
shift_n=
timeout_s=
log=
expect=
extra=()
while (($# > 1)); do
  case $1 in
    --qemu) qemu=${2:-qemu-system-arm}; shift 2 ;;
    --machine) machine=$2; shift 2 ;;
    --shift) shift_n=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --qemu-arg) extra+=("$2"); shift 2 ;;
    *) echo "qemu-run: unknown option $1" >&2; exit 2 ;;
  esac
done
fw=${1:-}
if [[ -z $machine || -z $shift_n || -z $timeout_s || -z $log || -z $fw ]]; then
  echo "usage: qemu-run.sh --machine M --shift N --timeout S --log FILE [--qemu EXE]" \
    "[--qemu-arg ARG]... [--expect FILE] firmware.elf" >&2
  exit 2
fi
if [[ -z $qemu ]] || ! command -v "$qemu" >/dev/null 2>&1; then
  # A test that cannot run must not pass.
  echo "qemu-run: ${qemu:-the emulator} not found (apt-get install qemu-system-arm or" \
    "qemu-system-misc; tools/test.sh installs them), then re-run cmake" >&2
  exit 1
fi
if [[ -n $expect && ! -f $expect ]]; then
  echo "qemu-run: $expect missing: the run it repeats did not happen (run ctest without -R)" >&2
  exit 1
fi
mkdir -p "$(dirname "$log")"

start=$(date +%s.%N)
# stdin from /dev/null: no terminal, nothing for the UART to receive. The
# monitor is off so nothing but the UART reaches stdout.
timeout -k 5 "$timeout_s" "$qemu" -M "$machine" -nographic -monitor none -serial stdio \
  -icount "shift=$shift_n,align=off,sleep=off" \
  -semihosting-config enable=on,target=native \
  "${extra[@]}" -kernel "$fw" </dev/null | tee "$log"
rc=${PIPESTATUS[0]}
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

# The firmware's last byte may not be a newline (e.g. a crash mid-line).
[[ -s $log && -n $(tail -c 1 "$log") ]] && echo

if ((rc == 124)); then
  echo "qemu-run: $(basename "$fw") on $machine timed out after ${timeout_s}s" >&2
  exit 124
fi
if ((rc == 0)) && ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$log"; then
  echo "qemu-run: exit status 0 but no closing 'N passed, N failed' line" >&2
  rc=1
fi
if [[ -n $expect ]]; then
  if cmp -s "$log" "$expect"; then
    echo "qemu-run: output identical to $(basename "$expect") ($(wc -c <"$log") bytes)"
  else
    echo "qemu-run: output differs from $(basename "$expect") (runs are not deterministic):" >&2
    diff "$expect" "$log" | head -n 20 >&2
    rc=1
  fi
fi
echo "qemu-run: $(basename "$fw") on $machine: exit status $rc, ${secs}s wall clock"
exit "$rc"
