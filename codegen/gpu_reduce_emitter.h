//===- gpu_reduce_emitter.h - Reduce phases as GPU kernels ----------------===//
//
// A reduce phase of a KernelSpec as a partial kernel (a block per row when the innermost
// axis is reduced: threads stride along the row and merge by warp shuffles and shared memory;
// a thread per row otherwise; blockIdx.y picks a chunk of the reduced range) and a combine
// kernel that merges a row's chunks in order, plus the block-wide reduction of one row that
// the row-local kernel runs (codegen/gpu_kernel_emitter.h has the whole picture).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_GPU_REDUCE_EMITTER_H_
#define GPUC_CODEGEN_GPU_REDUCE_EMITTER_H_

#include <functional>
#include <string>
#include <vector>

#include "codegen/gpu_kernel_builder.h"
#include "codegen/gpu_kernel_emitter.h"

namespace gpuc::codegen {

/// Adds `phase`'s partial kernel (named phase.function_name) and its combine kernel to
/// `module` and fills `launch`; returns "" or what has no lowering.
std::string EmitReducePhase(const KernelSpec& spec, const Phase& phase, llvm::Module& module,
                            GpuPhaseLaunch& launch);

/// Adds the row elements at the given full indices and reduced positions to the reductions.
using AddRowElements =
    std::function<void(const std::vector<Index>&, const std::vector<llvm::Value*>&)>;
/// Calls its argument for each of the calling thread's elements of a row (the row kernel's
/// cached path, whose inputs are already in registers and seeded into the emitter).
using RowElementFeeder = std::function<void(const AddRowElements&)>;

/// Emits into `k`'s kernel the reductions of `phase` over row `row` by the whole block,
/// stored by thread 0 and visible to every thread of the block afterwards; returns "" or
/// what has no lowering. Each thread reads its share of the row from memory, or, given
/// `feeder`, adds the elements the feeder hands it.
std::string EmitBlockRowReduction(const KernelSpec& spec, const Phase& phase, llvm::Module& module,
                                  KernelBuilder& k, llvm::Value* row,
                                  const RowElementFeeder* feeder = nullptr);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_GPU_REDUCE_EMITTER_H_
