#!/usr/bin/env bash
# device-check.sh — run on the GPU machine over the bundle from scripts/bundle-device.sh.
#
#   device run:  bash scripts/device-check.sh        (with carry: ["carry"])
#
# Unpacks the bundle, prints the device, runs the unit tests, the GPU tests, and
# compute-sanitizer (memcheck and racecheck) over the GPU tests; logs go to $OUT (or ./out).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out}
mkdir -p "$out"
tar xzf carry/gpuc-device.tar.gz -C /tmp
bin=/tmp/gpuc-device/bin
export GPUC_SOURCE_DIR=$PWD
status=0
run() {  # run NAME COMMAND...: log to $out/NAME.log, remember failures
  local name=$1
  shift
  echo "== $name: $*"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 5 "$out/$name.log"
  echo "-> exit $rc"
  [ $rc -eq 0 ] || status=1
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
run info "$bin/gpuc" --info
run unit_tests "$bin/gpuc_unit_tests"
run gpu_tests "$bin/gpuc_gpu_tests"
run gpu_fault_test "$bin/gpuc_gpu_fault_test"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# Two tests make driver calls fail on purpose (an impossible allocation, bad PTX and a missing
# kernel), which memcheck counts as API errors; the sanitizers run every other GPU test.
sanitized=(--gtest_filter=-*OutOfMemory*:*ModuleErrorsAreClear*)
run memcheck "$sanitizer" --tool memcheck --error-exitcode 1 "$bin/gpuc_gpu_tests" "${sanitized[@]}"
run racecheck "$sanitizer" --tool racecheck --error-exitcode 1 "$bin/gpuc_gpu_tests" "${sanitized[@]}"
run bench_pool "$bin/bench_pool" --benchmark_min_time=0.2

run bench_runtime "$bin/bench_runtime" --benchmark_min_time=0.3
exit $status
