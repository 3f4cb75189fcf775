#!/usr/bin/env bash
# run_host.sh — the host back end's benchmarks with one and with every thread, side by side
# with the plain C++ loop in the same run. Results go to bench/results/DATE-host/.
#
#   bench/run_host.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=bench/results/$(date +%Y-%m-%d)-host
mkdir -p "$out"
lscpu | grep -E "Model name|^CPU\(s\)|L2|L3" > "$out/machine.txt"
for threads in 1 "$(nproc)"; do
  GPUC_NUM_THREADS=$threads "$build/bench/bench_host" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/threads-$threads.json" \
    --benchmark_out_format=json | tee "$out/threads-$threads.txt"
done
