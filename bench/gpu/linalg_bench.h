//===- linalg_bench.h - Dense solvers on the GPU ---------------------------===//
//
// bench_gpu --linalg [--quick]: issue 33's dense routines through the public API (cuSOLVER
// underneath on the GPU): solve, inv, cholesky, eigh and det at n = 1024 and 4096 (f64 and
// f32) and batched 256 x 64 x 64, each timed cold and warm (TimeApiCall), one JSON line each;
// bench/gpu/linalg_peers.py times CuPy and torch on the same problems.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_GPU_LINALG_BENCH_H_
#define GPUC_BENCH_GPU_LINALG_BENCH_H_

namespace gpuc::bench {

void RunLinalgWorkloads(bool quick);

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_GPU_LINALG_BENCH_H_
