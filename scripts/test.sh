#!/usr/bin/env bash
# test.sh — build gpuc and run every test: GoogleTest unit tests and the lit suite, via ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build
ctest --test-dir build --output-on-failure -j "$(nproc)"
