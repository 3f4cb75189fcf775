//===- nvptx_compiler.h - GPU kernels' LLVM IR to PTX ---------------------===//
//
// ARCHITECTURE.md decision 5: triple nvptx64-nvidia-cuda, math from CUDA's libdevice (linked
// only-needed, then internalized so that O3 inlines what is used and drops the rest),
// NVVMReflect through the target machine's pass-builder callbacks, O3, PTX for one sm_
// architecture at one PTX ISA. IEEE by default: precise division and square root, no flush to
// zero, math in the precision the host's lowering chose (f16/bf16/f32 math in double, as the
// interpreter computes it). Fast math is opt-in (GpuCompileOptions::fast_math).
//
// The host lowering's calls are retargeted here: LLVM's math intrinsics that do not select on
// NVPTX (llvm.exp, llvm.sin, ...) and libm calls become libdevice's __nv_* functions, frem
// becomes __nv_fmod (NVPTX's own expansion of frem is not exact), and the support library's
// half/bfloat16 conversions become single cvt instructions.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_NVPTX_COMPILER_H_
#define GPUC_CODEGEN_NVPTX_COMPILER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "codegen/gpu_kernel_emitter.h"
#include "codegen/kernel_spec.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace gpuc::codegen {

struct GpuCompileOptions {
  /// "sm_90"; the device's compute capability where there is one.
  std::string arch = "sm_90";
  /// PTX ISA version times 10 (80 = PTX 8.0); 0 picks the highest LLVM 19 emits (8.5).
  int ptx_version = 0;
  /// Flush denormals to zero, approximate division, square root and transcendental
  /// functions, reassociation and contraction. Off by default.
  bool fast_math = false;
  /// f32/f16/bf16 math functions in double, bit-identical to the interpreter and the host
  /// (GPUC_GPU_MATH=exact); by default they compute in float through libdevice, within its
  /// documented ulp bounds, as CuPy, JAX and torch do.
  bool exact_math = false;
  /// See GpuEmitOptions::vector_reductions.
  bool vector_reductions = true;
  /// libdevice.10.bc; empty finds it under $CUDA_HOME or /usr/local/cuda.
  std::string libdevice_path;
};

/// "sm_90" for compute capability 9.0.
std::string ArchForComputeCapability(int major, int minor);

class NvptxCompiler {
 public:
  /// Fails when LLVM has no NVPTX target for `options.arch` or libdevice cannot be read.
  static absl::StatusOr<std::unique_ptr<NvptxCompiler>> Create(GpuCompileOptions options);

  /// Everything compiled code depends on beyond the kernel text: arch, ISA, options, LLVM
  /// and libdevice (by size and hash).
  const std::string& target_id() const { return target_id_; }
  const GpuCompileOptions& options() const { return options_; }

  /// Retargets math, links libdevice and runs O3: `module` is then ready for EmitPtx.
  absl::Status Optimize(llvm::Module& module);
  /// PTX text for an optimized module.
  absl::StatusOr<std::string> EmitPtx(llvm::Module& module);

 private:
  GpuCompileOptions options_;
  std::unique_ptr<llvm::TargetMachine> machine_;
  std::string libdevice_bitcode;
  std::string target_id_;
};

/// One fused kernel compiled for the GPU: its PTX and how to launch its phases.
struct GpuCompiledKernel {
  std::string ptx;
  GpuKernelLayout layout;
};

/// EmitGpuKernel, Optimize and EmitPtx; Unimplemented when the kernel has no GPU lowering.
/// `llvm_ir`, when given, receives the module as emitted (before libdevice and O3).
absl::StatusOr<GpuCompiledKernel> CompileGpuKernel(const KernelSpec& spec, NvptxCompiler& compiler,
                                                   std::string* llvm_ir = nullptr);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_NVPTX_COMPILER_H_
