//===- raw_module.h - What a RawModule and its RawKernels share ------------===//
//
// The compiled code of a RawModule (NVRTC's cubin and PTX, or a file's image), the kernels'
// signatures read from the PTX, and the module loaded into the device on first launch.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_RAW_KERNELS_RAW_MODULE_H_
#define GPUC_LIB_RAW_KERNELS_RAW_MODULE_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/cuda_source_compiler.h"
#include "codegen/kernel_signature.h"
#include "runtime/module.h"

namespace gpuc::detail {

struct RawModuleImpl {
  enum class Image { kCubin, kPtx };

  /// Compiles CUDA C++ with NVRTC for the default device's architecture (sm_90 without one),
  /// through the disk cache unless GPUC_DISK_CACHE=0. `what` names the module in errors.
  static absl::StatusOr<std::shared_ptr<RawModuleImpl>> Compile(
      const std::string& source, const std::string& program_name,
      const std::vector<std::string>& options, const std::vector<std::string>& name_expressions);
  /// Wraps a PTX or cubin image read from a file.
  static absl::StatusOr<std::shared_ptr<RawModuleImpl>> FromImage(Image kind, std::string image,
                                                                  std::string program_name);

  /// The PTX symbol of a kernel named by the user: a name expression, the symbol itself, or
  /// the unqualified name of exactly one C++ kernel. For a cubin the name is taken as is.
  absl::StatusOr<std::string> ResolveKernel(const std::string& name) const;
  /// The kernel's signature from the PTX; nothing for a cubin.
  const codegen::KernelSignature* Signature(const std::string& symbol) const;
  /// The module loaded on the default device (loaded on first use); Unavailable without one.
  absl::StatusOr<runtime::CudaModule*> Loaded();
  /// A cubin kernel's signature from the driver (cuFuncGetParamInfo): sizes only.
  absl::StatusOr<codegen::KernelSignature> DriverSignature(const runtime::CudaKernel& kernel);

  std::string program_name;
  Image kind = Image::kCubin;
  std::string image;  // what the driver loads
  codegen::CompiledCuda compiled;
  std::vector<codegen::KernelSignature> signatures;

 private:
  std::mutex mutex_;
  std::unique_ptr<runtime::CudaModule> loaded_;
};

/// The architecture RawModules compile for: the default device's, or sm_90 without one.
std::string RawKernelArchitecture();

}  // namespace gpuc::detail

#endif  // GPUC_LIB_RAW_KERNELS_RAW_MODULE_H_
