//===- gpu_row_kernel.h - A row-local spec as one kernel, a block per row --===//
//
// Softmax, layernorm and every other row-local spec (each phase works on the rows of its own
// reductions, over trailing axes) get, besides their phases' kernels, one kernel that runs
// every phase of a row with one block, rows striding over the grid.
//
// When a row fits, each thread first loads its share of the row's inputs into registers
// (16-byte loads of consecutive elements where the row length allows, else element by
// element) and every phase works on those registers: the row is read from memory once, as
// the peers' hand-tuned softmax kernels do. A row too long for the registers (more than
// kCachedBytesPerThread bytes of inputs per thread) takes the other path, where each phase
// reads the row again (from L1/L2, mostly). The choice is made per launch from the row
// length, so one kernel serves every size.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_GPU_ROW_KERNEL_H_
#define GPUC_CODEGEN_GPU_ROW_KERNEL_H_

#include <string>

#include "codegen/kernel_spec.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

/// Register bytes of cached row inputs a thread may hold (32 registers): f32 rows of up to
/// 8192 elements with 256 threads, f64 rows of up to 4096.
inline constexpr int64_t kCachedBytesPerThread = 128;

/// Adds the row kernel of `spec` to `module` as `name`; returns "" or what has no lowering.
std::string EmitRowLocalKernel(const KernelSpec& spec, llvm::Module& module,
                               const std::string& name);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_GPU_ROW_KERNEL_H_
