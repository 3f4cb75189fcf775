//===- kernel_emitter.h - A fused kernel as an LLVM module ----------------===//
//
// Emits one function per phase of a KernelSpec (see Phase for the signature): loops over the
// phase's rows, an inner loop the vectorizer can work on, reductions accumulated in registers
// (float sums in double, reassociable so that they vectorize) and stores of every output.
// The module is target-neutral LLVM IR; host_compiler.h turns it into machine code.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_KERNEL_EMITTER_H_
#define GPUC_CODEGEN_KERNEL_EMITTER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "codegen/kernel_spec.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace gpuc::codegen {

/// The kernel's module, or Unimplemented naming what has no lowering yet (complex
/// products and extrema); the caller then runs the kernel some other way.
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitKernel(const KernelSpec& spec,
                                                         llvm::LLVMContext& context);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_KERNEL_EMITTER_H_
