#!/usr/bin/env bash
# run.sh — issue 36's host suite: gpuc's programs, then the same programs in NumPy in the same
# run (each result checked against gpuc's up to 10^5 elements), then the table of ratios.
#
#   [REPEAT=N] bench/host/run.sh BENCH_HOST_SUITE [OUT_DIR] [--max-elements N] [--min-time S]
#
# With REPEAT=N, gpuc and NumPy take turns N times and the table keeps each row's fastest
# warm time of either (single rows moved by 20-40% between runs on this VM's shared cores).
set -euo pipefail
bench=$1
out=${2:-$(mktemp -d)}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
: > "$out/gpuc.jsonl"
: > "$out/numpy.jsonl"
status=0
for ((round = 1; round <= ${REPEAT:-1}; round++)); do
  GPUC_CACHE_DIR=$cache "$bench" --save "$out" "$@" | tee -a "$out/gpuc.jsonl"
  NPY_PROMOTION_STATE=weak "${PYTHON:-/usr/bin/python3}" "$here/numpy_suite.py" --check "$out" "$@" |
    tee -a "$out/numpy.jsonl"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
"${PYTHON:-/usr/bin/python3}" "$here/table.py" "$out/gpuc.jsonl" "$out/numpy.jsonl" | tee "$out/table.md"
exit "$status"
