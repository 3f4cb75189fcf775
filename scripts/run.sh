#!/usr/bin/env bash
# run.sh — the main job: build gpuc and run a real pipeline through it.
#
# Parses, verifies and prints the softmax example, then runs it on seeded random inputs and
# prints a summary of the result. Until the compiled back ends land, --run executes on the
# reference interpreter (the host); `gpuc --info` says which targets exist.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build
gpuc=build/bin/gpuc
"$gpuc" --info
for example in examples/*.gir; do
  echo "== $example"
  "$gpuc" "$example" --emit=ir
  "$gpuc" "$example" --run --inputs=random --seed=0
done
# The same workloads written against the C++ Array API (docs/api.md); each checks its result.
for example in build/examples/api/example_*; do
  echo "== $example"
  "$example"
done
