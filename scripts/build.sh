#!/usr/bin/env bash
# build.sh — install what the build needs, configure and build gpuc.
#
#   scripts/build.sh [BUILD_DIR] [extra CMake arguments...]
#
# BUILD_DIR defaults to build/. Uses Ninja with as many jobs as there are cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true
./scripts/install-deps.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
