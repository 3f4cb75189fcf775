#!/usr/bin/env bash
# run.sh — the main job: build gpuc and run a real pipeline through it.
#
# For every example: parse and verify it, print its fused kernels, run it compiled through
# LLVM on the host (on seeded random inputs) and check the result's summary against the
# reference interpreter's; then the C++ API examples, which check themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build
gpuc=build/bin/gpuc
"$gpuc" --info
for example in examples/*.gir; do
  echo "== $example"
  "$gpuc" "$example" --emit=fused
  "$gpuc" "$example" --run --inputs=random --seed=0 --stats | tee /tmp/gpuc-run-host.txt
  "$gpuc" "$example" --run --target=interp --inputs=random --seed=0 > /tmp/gpuc-run-interp.txt
  # Same values, digit for digit (the first lines name the target, the last the statistics).
  diff <(sed -n '2,$p' /tmp/gpuc-run-host.txt | grep -v '^host:') \
       <(sed -n '2,$p' /tmp/gpuc-run-interp.txt)
done
# The same workloads written against the C++ Array API (docs/api.md); each checks its result.
for example in build/examples/api/example_*; do
  echo "== $example"
  "$example"
done
