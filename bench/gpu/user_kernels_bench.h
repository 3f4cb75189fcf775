//===- user_kernels_bench.h - Users' CUDA kernels, timed ------------------===//
//
// Issue 9's figures (bench_gpu --user-kernels): a 2^28 f32 chain with a user elementwise
// operation inside, fused (gpuc), against the same chain in gpuc's own ops; and the cold NVRTC
// compile and warm disk-cache load of a RawKernel, in fresh processes. bench/gpu/
// user_kernel_peers.py times CuPy on the same chain and source.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_BENCH_GPU_USER_KERNELS_BENCH_H_
#define GPUC_BENCH_GPU_USER_KERNELS_BENCH_H_

#include <string>

#include "lib/backend/cuda/gpu_executor.h"

namespace gpuc::bench {

void RunUserKernelWorkloads(detail::GpuExecutor& gpu, bool quick);

/// Runs `self --raw-kernel-compile-once cold|warm` against a fresh cache directory.
void RunRawKernelCompileTimes();
/// The child's half: compile the benchmark's RawKernel, launch it once, report both times.
void RawKernelCompileOnce(const std::string& phase);

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_GPU_USER_KERNELS_BENCH_H_
