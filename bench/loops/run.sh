#!/usr/bin/env bash
# run.sh BENCH_LOOPS [OUT_DIR] — issue 31's loop programs, gpuc and NumPy side by side.
#
# Runs bench_loops with an empty kernel cache (so the first call is cold), saving each
# program's result, then the same programs in NumPy ($PYTHON, else /usr/bin/python3), which checks every
# gpuc result against its own. JSON lines go to OUT_DIR/gpuc.jsonl and OUT_DIR/numpy.jsonl;
# the exit status is NumPy's check. REPEAT (default 5) sets the warm calls timed.
set -euo pipefail
bench=${1:?path to bench_loops}
out=${2:-$(mktemp -d)}
repeat=${REPEAT:-5}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
GPUC_CACHE_DIR=$cache "$bench" --repeat "$repeat" --save "$out" | tee "$out/gpuc.jsonl"
NPY_PROMOTION_STATE=weak "${PYTHON:-/usr/bin/python3}" "$here/numpy_loops.py" --repeat "$repeat" \
  --check "$out" | tee "$out/numpy.jsonl"
exit "${PIPESTATUS[0]}"
