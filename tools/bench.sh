#!/usr/bin/env bash
# The main job of utim: build the host preset and run the benchmarks.
#
# Installs what is missing (tools/deps.sh), builds preset `host`, then runs
# each benchmark of `benches` below with build/host/bench/utim-bench: the
# table goes to the terminal, the JSON to results/<name>.json. Extra
# arguments are passed to every benchmark run (e.g. --long).
#
# Usage: bash tools/bench.sh [args for utim-bench...]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=tools/deps.sh
source "$root/tools/deps.sh"

# The benchmarks, in the order they run: adding one is one word here.
benches=(
  ops
)

utim_install_deps
cmake --preset host </dev/null
cmake --build --preset host -j "${UTIM_JOBS:-2}" </dev/null

bench_bin="$root/build/host/bench/utim-bench"
results="$root/results"
mkdir -p "$results"

# One measurement per benchmark: the table goes to the terminal and the same
# result, as JSON, to results/<name>.json.
for name in "${benches[@]}"; do
  echo "==== bench $name"
  "$bench_bin" "$name" --json-out "$results/$name.json" "$@" </dev/null
  echo "==== bench $name: JSON in results/$name.json"
done
