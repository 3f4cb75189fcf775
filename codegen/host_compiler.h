//===- host_compiler.h - LLVM IR to native code for the host CPU ----------===//
//
// The host target: the native CPU (its own name and features, so the vectorizer uses every
// vector unit it has: with AVX-512, 512-bit loops and libmvec's AVX-512 routines), the O3
// pipeline, and machine code as an object file that the host JIT (runtime/host_jit.h) links
// and the kernel cache stores.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_HOST_COMPILER_H_
#define GPUC_CODEGEN_HOST_COMPILER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace gpuc::codegen {

class HostCompiler {
 public:
  static absl::StatusOr<std::unique_ptr<HostCompiler>> Create();

  /// Triple, CPU, features and LLVM version: what compiled code depends on beyond the kernel.
  const std::string& target_id() const { return target_id_; }

  /// Sets the module's target and runs the O3 pipeline on it.
  void Optimize(llvm::Module& module);
  /// Whether loops over math functions vectorize into glibc's libmvec (loaded at start-up).
  bool vector_math() const { return vector_math_; }
  /// Machine code for an optimized module, as an ELF object.
  absl::StatusOr<std::string> EmitObject(llvm::Module& module);

 private:
  std::unique_ptr<llvm::TargetMachine> machine_;
  std::string target_id_;
  bool vector_math_ = false;
  bool wide_vectors_ = false;  // AVX-512: 512-bit loops and libmvec's 8-double routines
};

/// LLVM's O3 module pipeline for `machine`'s target; the target registers its own passes
/// (NVPTX: NVVMReflect) through the pass builder's callbacks.
/// With `vector_math`, calls of exp, log, sin, cos, pow, ... in vectorized loops become glibc's
/// libmvec routines (`_ZGVdN4v_exp`: AVX2, 4 ulp at most); with `wide_vector_math` also
/// its AVX-512 ones (`_ZGVeN8v_exp`) that the process's libmvec exports.
void RunO3Pipeline(llvm::Module& module, llvm::TargetMachine& machine, bool vector_math = false,
                   bool wide_vector_math = false);

/// The module as LLVM assembly text.
std::string PrintModule(const llvm::Module& module);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_HOST_COMPILER_H_
