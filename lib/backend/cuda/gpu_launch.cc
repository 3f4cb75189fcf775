//===- gpu_launch.cc - Grid shapes of the GPU kernels ---------------------===//
#include "lib/backend/cuda/gpu_launch.h"

#include <algorithm>

namespace gpuc::detail {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Blocks per SM past which a grid-stride loop does the rest: enough resident blocks to hide
/// latency, few enough that a block's set-up is paid rarely.
constexpr int64_t kBlocksPerSm = 16;
/// A split reduction aims at this many blocks per SM in all.
constexpr int64_t kSplitBlocksPerSm = 8;

}  // namespace

int64_t StoreBlocks(int64_t elements, int vector, int64_t multiprocessors) {
  const int64_t steps = CeilDiv(elements, std::max(1, vector));
  return std::clamp<int64_t>(CeilDiv(steps, codegen::kGpuBlockThreads), 1,
                             multiprocessors * kBlocksPerSm);
}

int64_t ThreadPerRowBlocks(int64_t rows, int64_t multiprocessors) {
  return std::clamp<int64_t>(CeilDiv(rows, codegen::kGpuBlockThreads), 1,
                             multiprocessors * kBlocksPerSm);
}

int64_t RowLocalBlocks(int64_t rows, int64_t multiprocessors) {
  if (rows < multiprocessors * 2) return 0;
  return std::min<int64_t>(rows, multiprocessors * kBlocksPerSm);
}

int64_t CombineBlocks(const codegen::GpuPhaseLaunch& phase, int64_t rows, int64_t multiprocessors) {
  if (phase.kind == codegen::GpuPhaseLaunch::Kind::kReduceRows) {
    return std::clamp<int64_t>(rows, 1, multiprocessors * kBlocksPerSm);
  }
  return ThreadPerRowBlocks(rows, multiprocessors);
}

ReduceLaunch ChooseReduceLaunch(const codegen::GpuPhaseLaunch& phase, int64_t rows, int64_t count,
                                int64_t multiprocessors) {
  const int64_t threads = codegen::kGpuBlockThreads;
  const int64_t target = multiprocessors * kSplitBlocksPerSm;
  ReduceLaunch launch;
  if (phase.kind == codegen::GpuPhaseLaunch::Kind::kReduceRows &&
      count <= codegen::kGpuThreadRowLimit) {
    // Short rows: a thread per row, unsplit (the partial kernel takes the same branch).
    launch.blocks = ThreadPerRowBlocks(rows, multiprocessors);
    launch.splits = 1;
  } else if (phase.kind == codegen::GpuPhaseLaunch::Kind::kReduceRows) {
    // A block per row; rows too few to fill the device split their positions over blocks,
    // each split at least 16 elements per thread.
    launch.blocks = std::min<int64_t>(rows, multiprocessors * kBlocksPerSm);
    launch.splits = std::clamp<int64_t>(CeilDiv(count, threads * 16), 1, CeilDiv(target, rows));
  } else {
    // A thread per row; each split at least 64 positions.
    launch.blocks = ThreadPerRowBlocks(rows, multiprocessors);
    launch.splits = std::clamp<int64_t>(CeilDiv(count, 64), 1, CeilDiv(target, launch.blocks));
  }
  launch.splits = std::min(launch.splits, kMaxSplits);
  // Chunks of whole vectors, so that block-per-row reductions keep their 16-byte loads.
  const int64_t vector = std::max(1, phase.vector);
  launch.chunk = std::max<int64_t>(vector, CeilDiv(CeilDiv(count, launch.splits), vector) * vector);
  if (count > 0) launch.splits = CeilDiv(count, launch.chunk);
  return launch;
}

}  // namespace gpuc::detail
