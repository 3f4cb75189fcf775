#!/usr/bin/env bash
# test.sh — build gpuc and run every test: GoogleTest unit tests and the lit suite, via ctest;
# then the unit tests under ASan + UBSan and the parser's fuzzer (scripts/test-sanitizers.sh;
# GPUC_SKIP_SANITIZERS=1 skips them for a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build
ctest --test-dir build --output-on-failure -j "$(nproc)"
if [ "${GPUC_SKIP_SANITIZERS:-0}" != 1 ]; then ./scripts/test-sanitizers.sh; fi
