//===- gpu_kernel_emitter.h - A fused kernel as GPU kernels ---------------===//
//
// The GPU form of a KernelSpec: each phase becomes one or two `ptx_kernel` functions, built
// from the same element emitter and accumulators as the host's phase functions. Every kernel
// of a spec takes the same parameters, so one launch routine serves all of them:
//   (ptr buffer_0 .. buffer_{B-1}, i64 extent_0 .. extent_{E-1}, ptr error,
//    i64 splits, i64 chunk, ptr partials)
// Buffers are 16-byte aligned (the memory pool's blocks are).
//
//  - Store phases: a grid-stride loop over the phase's elements, each thread doing `vector`
//    consecutive elements of a row at a time (16-byte loads and stores when the row length
//    allows, checked at run time), then a scalar tail.
//  - Reduce phases: the reduced range of each row is cut into `splits` chunks of `chunk`
//    positions (blockIdx.y picks one). kRows kernels (the innermost axis is reduced) give
//    each row a block whose threads stride along it and merge their states with warp
//    shuffles and shared memory; kColumns kernels (the innermost axis is kept) give each row
//    a thread, so neighbouring threads read neighbouring addresses. With one split a row's
//    result is stored at once; otherwise each chunk's state goes to `partials` and the
//    combine kernel merges the chunks of a row in order: the same bits on every run.
//  - Row-local specs (softmax, layernorm) also get one kernel doing every phase of a row with
//    one block, the row held in registers when it fits, so it is read from DRAM once
//    (codegen/gpu_row_kernel.h).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_GPU_KERNEL_EMITTER_H_
#define GPUC_CODEGEN_GPU_KERNEL_EMITTER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/kernel_spec.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

/// How the runtime launches one phase.
struct GpuPhaseLaunch {
  enum class Kind : uint8_t { kStore, kReduceRows, kReduceColumns };
  Kind kind = Kind::kStore;
  std::string kernel;          // the phase's kernel
  std::string combine_kernel;  // reduce phases: merges the partial states of several splits
  /// Store phases: elements per thread step; block-per-row reductions: elements per load
  /// (used when the row length and the chunk are multiples of it).
  int vector = 1;
  /// Reduce phases: bytes of partial state per row and split.
  int64_t state_bytes = 0;
};

struct GpuKernelLayout {
  std::vector<GpuPhaseLaunch> phases;  // one per KernelSpec phase
  /// Row-local specs: one kernel running every phase, a block per row (used when there are
  /// rows enough to fill the device; the phases' own kernels otherwise).
  std::string row_local_kernel;
  bool reports_errors = false;  // a take member may report an index out of bounds
};

/// Threads per block of every kernel; reduce kernels assume it (their shared memory holds
/// one state per warp).
inline constexpr int kGpuBlockThreads = 256;

/// Reductions over the innermost axis whose rows are at most this long run a thread per row
/// (chosen at run time from the extents): a block per row would pay a block-wide merge, two
/// barriers, for a handful of elements. The n-body's r^2 = sum(d * d, -1) over [n, n, 3] ran
/// 100x slower as 4M block merges of three elements.
inline constexpr int64_t kGpuThreadRowLimit = 32;

/// The data layout of nvptx64, for modules emitted before the target machine is known.
inline constexpr const char* kNvptxDataLayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

/// The kernels' module (target-neutral apart from NVVM intrinsics) and their launch layout,
/// or Unimplemented naming what has no GPU lowering.
struct GpuEmitOptions {
  /// f32/f16/bf16 math functions in double, bit-identical to the interpreter (else in
  /// float, through libdevice's float functions; see ValueLowering).
  bool exact_math = false;
  /// Block-per-row reductions over trailing axes read 16 bytes per load when the row length
  /// and the chunk allow it (GPUC_GPU_VECTOR_REDUCTIONS=0 turns it off: a full f32 sum on
  /// the H200 ran at 3358 GB/s without, 4245 with; bench/results/2026-12-03b-gpu).
  bool vector_reductions = true;
};

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitGpuKernel(const KernelSpec& spec,
                                                            llvm::LLVMContext& context,
                                                            GpuKernelLayout* layout,
                                                            const GpuEmitOptions& options = {});

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_GPU_KERNEL_EMITTER_H_
