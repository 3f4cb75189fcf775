//===- gpu_row_kernel.h - A row-local spec as one kernel, a block per row --===//
//
// Softmax, layernorm and every other row-local spec (each phase works on the rows of its own
// reductions, over trailing axes) get, besides their phases' kernels, one kernel that runs
// every phase of a row with one block, rows striding over the grid.
//
// When a row fits, each thread first loads its share of the row's inputs into registers
// (16-byte loads of consecutive elements; element by element only where the inputs allow
// no wider load, as for complex128) and every phase works on those registers: the row is
// read from memory once, as the peers' softmax kernels do. A row too long for the registers (more
// than kCachedBytesPerThread bytes of inputs per thread) takes the other path, where each phase
// reads the row again (from L1/L2, mostly); so does a row whose length is not a multiple
// of the load width. The choice is made per launch from the row length, so one kernel
// serves every size.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_GPU_ROW_KERNEL_H_
#define GPUC_CODEGEN_GPU_ROW_KERNEL_H_

#include <string>

#include "codegen/kernel_spec.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

/// Register bytes of cached row inputs a thread may hold (16 registers): f32 rows of up to
/// 4096 elements with 256 threads, f64 rows of up to 2048. Twice that measured slower on
/// the H200 for 4096-element rows: a kernel's registers are those of its largest path, and
/// 80 instead of 64 per thread leaves 3 blocks per SM instead of 4 (176 with an extra
/// element-by-element path: 1 block, half the bandwidth of reading each row three times).
inline constexpr int64_t kCachedBytesPerThread = 64;

/// Adds the row kernel of `spec` to `module` as `name`; returns "" or what has no lowering.
std::string EmitRowLocalKernel(const KernelSpec& spec, llvm::Module& module,
                               const std::string& name);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_GPU_ROW_KERNEL_H_
