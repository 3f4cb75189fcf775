//===- gpu_source_module.cc - gpuc's own CUDA C++ kernels, compiled and loaded ===//
#include "lib/backend/cuda/gpu_source_module.h"

#include "absl/strings/str_cat.h"
#include "codegen/cuda_source_compiler.h"
#include "lib/exec/compile_cache.h"
#include "lib/exec/current_options.h"

namespace gpuc::detail {

absl::StatusOr<std::unique_ptr<runtime::CudaModule>> LoadSourceModule(
    runtime::CudaDevice& device, const std::string& source, absl::string_view program_name,
    absl::string_view key, const std::string& arch) {
  codegen::CudaSourceOptions compile;
  compile.arch = arch;
  compile.options = {"--fmad=false"};
  absl::StatusOr<codegen::CompiledCuda> compiled = codegen::CompileCudaSource(
      source, program_name, compile, exec::DiskCacheFor(exec::CurrentOptions()));
  if (!compiled.ok()) {
    return absl::Status(compiled.status().code(),
                        absl::StrCat(key, ": ", compiled.status().message()));
  }
  return runtime::CudaModule::LoadCubin(device, compiled->cubin);
}

absl::Status FindKernels(
    const runtime::CudaModule& module,
    std::initializer_list<std::pair<const char*, runtime::CudaKernel*>> kernels) {
  for (const auto& [name, slot] : kernels) {
    absl::StatusOr<runtime::CudaKernel> k = module.GetKernel(name);
    if (!k.ok()) return k.status();
    *slot = *std::move(k);
  }
  return absl::OkStatus();
}

}  // namespace gpuc::detail
