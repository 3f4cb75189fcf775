//===- gpu_launch.h - Grid shapes of the GPU kernels ----------------------===//
//
// How many blocks each kind of GPU kernel gets (codegen/gpu_kernel_emitter.h describes the
// kernels), and how a reduction's rows are split: enough blocks to fill every SM several times,
// a grid-stride loop past that, and for reductions with few rows the reduced range cut into
// chunks that each give a thread at least a few dozen elements. Pure arithmetic on the sizes
// and the device's SM count, so the choices are deterministic (the same bits on every run of
// the same sizes on the same device) and testable without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_LAUNCH_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_LAUNCH_H_

#include <cstdint>

#include "codegen/gpu_kernel_emitter.h"

namespace gpuc::detail {

/// The largest gridDim.y, which carries the split.
inline constexpr int64_t kMaxSplits = 65535;

/// Blocks of a store phase over `elements`, `vector` elements per thread step.
int64_t StoreBlocks(int64_t elements, int vector, int64_t multiprocessors);

/// Blocks of a grid-stride loop with a thread per row (thread-per-row reductions and their
/// combine kernels).
int64_t ThreadPerRowBlocks(int64_t rows, int64_t multiprocessors);

/// Blocks of the row-local kernel (a block per row), or 0 when the rows are too few to fill
/// the device and the phase kernels should run instead.
int64_t RowLocalBlocks(int64_t rows, int64_t multiprocessors);

/// Blocks of a reduce phase's combine kernel: a block per row for block-per-row phases, a
/// thread per row for thread-per-row ones (as the kernel was emitted).
int64_t CombineBlocks(const codegen::GpuPhaseLaunch& phase, int64_t rows, int64_t multiprocessors);

struct ReduceLaunch {
  int64_t blocks = 1;  // gridDim.x
  int64_t splits = 1;  // gridDim.y: chunks of each row's reduced range
  int64_t chunk = 0;   // positions per split; a multiple of the launch's vector width
};

/// The grid of a reduce phase with `rows` kept rows of `count` reduced positions each.
/// splits * chunk covers count, and no split is empty.
ReduceLaunch ChooseReduceLaunch(const codegen::GpuPhaseLaunch& phase, int64_t rows, int64_t count,
                                int64_t multiprocessors);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_LAUNCH_H_
