//===- user_function.h - A user element operation as a linked device function ===//
//
// How a user_elementwise node (ir/user_kernel_semantics.h) joins a fused GPU kernel: the
// kernel's LLVM IR calls `gpuc_user_<hash>_<k>(inputs..., i)`, an external function per output
// k, and NVRTC compiles the user's operation into those functions as relocatable device code.
// nvJitLink links the kernel's PTX with that object into the cubin. The operation is one
// inlined helper; the exported functions take and return only 32/64-bit integers, float and
// double (bool and small integers widen to int, f16 and bf16 travel as float), so both
// compilers agree on the call ABI.
//
// What it costs against an op gpuc emits itself: one call per element (its arguments pass in
// registers; nvJitLink does not inline across the PTX/object boundary), and the call keeps
// the kernel's loop from being unrolled across elements. Memory traffic, which bounds an
// elementwise chain, is the same: the operands and the result never leave registers.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_USER_FUNCTION_H_
#define GPUC_CODEGEN_USER_FUNCTION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda_source_compiler.h"
#include "codegen/kernel_cache.h"
#include "codegen/kernel_spec.h"
#include "ir/user_kernel_semantics.h"

namespace gpuc::codegen {

/// "gpuc_user_<16 hex digits>_<output>": the hash covers everything the code depends on.
std::string UserFunctionSymbol(const ir::UserElementwise& kernel, int output);

/// The CUDA C++ translation unit defining the function of every output.
struct UserFunctionSource {
  std::string text;
  /// The line of `text` where the user's operation starts (for error messages).
  int operation_line = 0;
};
UserFunctionSource BuildUserFunctionSource(const ir::UserElementwise& kernel);

/// The C++ type the user's code sees for `dtype` ("float", "__half", "unsigned char").
std::string UserCType(ir::DType dtype);

/// Compiles `kernel`'s functions for `arch` as relocatable code (through `cache` when given).
/// A compile error names the kernel and the line of the operation.
absl::StatusOr<CompiledCuda> CompileUserFunction(const ir::UserElementwise& kernel,
                                                 const std::string& arch, DiskCache* cache);

/// Whether the kernel calls user functions.
bool UsesUserFunctions(const KernelSpec& spec);

/// Links the kernel's PTX with the user functions it calls into one cubin for `arch`.
absl::StatusOr<std::string> LinkWithUserFunctions(const KernelSpec& spec, const std::string& ptx,
                                                  const std::string& arch, DiskCache* cache);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_USER_FUNCTION_H_
