#!/usr/bin/env bash
# run.sh — the main job: build gpuc and run a real pipeline through it.
#
# For every example: parse and verify it, print its fused kernels, run it compiled through
# LLVM (on the GPU where there is one, else on the host; seeded random inputs) and check the
# result's summary against the reference interpreter's; then the C++ API examples, which check
# themselves (they evaluate on the GPU where there is one).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build
gpuc=build/bin/gpuc
"$gpuc" --info | tee /tmp/gpuc-info.txt
target=host
if grep -q '^  cuda:0' /tmp/gpuc-info.txt; then target=gpu; fi
for example in examples/*.gir; do
  echo "== $example"
  "$gpuc" "$example" --emit=fused
  # The GPU kernels' launch shapes (PTX needs only the CUDA toolkit, not a device).
  if [ -e "${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc" ]; then
    "$gpuc" "$example" --emit=ptx | grep -E '^// (kernel|phase|every)'
  fi
  # Math in double on the GPU too (GPUC_GPU_MATH=exact), so that the values match the
  # interpreter's digit for digit.
  GPUC_GPU_MATH=exact "$gpuc" "$example" --run --target=$target --inputs=random --seed=0 --stats |
    tee /tmp/gpuc-run.txt
  "$gpuc" "$example" --run --target=interp --inputs=random --seed=0 > /tmp/gpuc-run-interp.txt
  # Same values, digit for digit (the first lines name the target, the last the statistics).
  diff <(sed -n '2,$p' /tmp/gpuc-run.txt | grep -v '^host:\|^gpu:') \
       <(sed -n '2,$p' /tmp/gpuc-run-interp.txt)
done
# The same workloads written against the C++ Array API (docs/api.md); each checks its result.
for example in build/examples/api/example_*; do
  echo "== $example"
  "$example"
done
