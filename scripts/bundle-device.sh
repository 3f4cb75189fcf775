#!/usr/bin/env bash
# bundle-device.sh — build gpuc for the GPU machine and pack it for the device tool's `carry`.
#
# Builds with GPUC_STATIC_DEPS (LLVM, GoogleTest and the C++ runtime static) into build-device/,
# then packs bin/, lib/libgpuc.so.0 and the shared libraries the GPU machine lacks (Abseil, OpenBLAS and its Fortran runtime,
# SuperLU) into
# carry/gpuc-device.tar.gz. On the device:  tar xzf carry/gpuc-device.tar.gz -C /tmp
# and run /tmp/gpuc-device/bin/gpuc (the $ORIGIN run path finds the libraries).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build-device -DGPUC_STATIC_DEPS=ON -DGPUC_BUILD_BENCH=ON
stage=$(mktemp -d)/gpuc-device
mkdir -p "$stage/bin" "$stage/lib"
cp build-device/bin/gpuc build-device/test/unit/gpuc_unit_tests build-device/test/gpu/gpuc_gpu_tests \
  build-device/test/gpu/gpuc_gpu_fault_test \
  build-device/bench/bench_pool build-device/bench/bench_ir build-device/bench/bench_runtime \
  build-device/bench/bench_host build-device/bench/bench_gpu build-device/bench/science_heat2d build-device/bench/science_cg build-device/bench/science_jacobi3d \
  build-device/bench/science_shallow_water build-device/bench/science_monte_carlo \
  build-device/bench/science_kmeans build-device/bench/science_nbody \
  build-device/bench/bench_loops build-device/bench/bench_solvers build-device/examples/api/example_heat_equation "$stage/bin/"
# Executables ask for the SONAME (libgpuc.so.0); the file under that name, not the symlink.
cp -L build-device/lib/libgpuc.so.0 "$stage/lib/"
# Every Abseil (and Benchmark) library the binaries need, found by the loader here.
for binary in "$stage"/bin/* "$stage"/lib/libgpuc.so.0; do ldd "$binary"; done |
  awk '/libabsl|libbenchmark|libopenblas|libgfortran|libquadmath/ {print $3}' | sort -u | xargs -r cp -L -t "$stage/lib/"
# SuperLU (spsolve) is opened at run time, so ldd does not list it: it and the BLAS shim it
# needs (which loads the OpenBLAS above) go along too.
cp -L /usr/lib/x86_64-linux-gnu/libsuperlu.so.5 /usr/lib/x86_64-linux-gnu/libblas.so.3 "$stage/lib/"
strip --strip-unneeded "$stage"/bin/* "$stage"/lib/*
mkdir -p carry
tar czf carry/gpuc-device.tar.gz -C "$(dirname "$stage")" gpuc-device
ls -l carry/gpuc-device.tar.gz
