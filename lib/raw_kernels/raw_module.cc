//===- raw_module.cc - What a RawModule and its RawKernels share -----------===//
#include "lib/raw_kernels/raw_module.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/nvptx_compiler.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/exec/compile_cache.h"
#include "lib/exec/target.h"
#include "runtime/cuda_driver.h"

namespace gpuc::detail {
namespace {

/// "scale" from "void scale<float>(float*, int)" or "void ns::scale(float*)".
std::string UnqualifiedName(const std::string& demangled) {
  std::string head = demangled.substr(0, demangled.find('('));
  if (size_t angle = head.find('<'); angle != std::string::npos) head.resize(angle);
  if (size_t space = head.rfind(' '); space != std::string::npos) head = head.substr(space + 1);
  if (size_t colons = head.rfind("::"); colons != std::string::npos) head = head.substr(colons + 2);
  return head;
}

}  // namespace

std::string RawKernelArchitecture() {
  exec::Options options = exec::CurrentOptions();
  options.gpu_arch.clear();  // the device's: the module is loaded there
  return exec::GpuArchitecture(options);
}

absl::StatusOr<std::shared_ptr<RawModuleImpl>> RawModuleImpl::Compile(
    const std::string& source, const std::string& program_name,
    const std::vector<std::string>& options, const std::vector<std::string>& name_expressions) {
  codegen::CudaSourceOptions compile;
  compile.arch = RawKernelArchitecture();
  compile.options = options;
  compile.name_expressions = name_expressions;
  codegen::DiskCache* cache = exec::DiskCacheFor(exec::CurrentOptions());
  absl::StatusOr<codegen::CompiledCuda> compiled =
      codegen::CompileCudaSource(source, program_name, compile, cache);
  if (!compiled.ok()) return compiled.status();
  auto impl = std::make_shared<RawModuleImpl>();
  impl->program_name = program_name;
  impl->compiled = *std::move(compiled);
  impl->kind = Image::kCubin;
  impl->image = impl->compiled.cubin;
  absl::StatusOr<std::vector<codegen::KernelSignature>> signatures =
      codegen::ParseKernelSignatures(impl->compiled.ptx);
  if (!signatures.ok()) return signatures.status();
  impl->signatures = *std::move(signatures);
  return impl;
}

absl::StatusOr<std::shared_ptr<RawModuleImpl>> RawModuleImpl::FromImage(Image kind,
                                                                        std::string image,
                                                                        std::string program_name) {
  auto impl = std::make_shared<RawModuleImpl>();
  impl->program_name = std::move(program_name);
  impl->kind = kind;
  impl->image = std::move(image);
  if (kind == Image::kPtx) {
    impl->compiled.ptx = impl->image;
    absl::StatusOr<std::vector<codegen::KernelSignature>> signatures =
        codegen::ParseKernelSignatures(impl->image);
    if (!signatures.ok()) return signatures.status();
    impl->signatures = *std::move(signatures);
  }
  return impl;
}

absl::StatusOr<std::string> RawModuleImpl::ResolveKernel(const std::string& name) const {
  for (const auto& [expression, lowered] : compiled.lowered_names) {
    if (expression == name) return lowered;
  }
  if (kind == Image::kCubin && signatures.empty()) return name;
  std::vector<std::string> matches;
  for (const codegen::KernelSignature& kernel : signatures) {
    if (kernel.name == name) return name;
    if (UnqualifiedName(kernel.demangled) == name) matches.push_back(kernel.name);
  }
  if (matches.size() == 1) return matches[0];
  std::vector<std::string> known;
  for (const codegen::KernelSignature& kernel : signatures) known.push_back(kernel.demangled);
  if (matches.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        program_name, ": kernel name '", name, "' is ambiguous; it names ",
        absl::StrJoin(matches, ", "), ": pass the instantiation as a name expression"));
  }
  return absl::NotFoundError(absl::StrCat(
      program_name, ": no kernel '", name, "'",
      known.empty() ? std::string(" (it defines no __global__ function)")
                    : absl::StrCat("; its kernels: ", absl::StrJoin(known, "; ")),
      absl::StrContains(name, "<") ? "" : ". A template kernel needs a name expression."));
}

const codegen::KernelSignature* RawModuleImpl::Signature(const std::string& symbol) const {
  for (const codegen::KernelSignature& kernel : signatures) {
    if (kernel.name == symbol) return &kernel;
  }
  return nullptr;
}

absl::StatusOr<runtime::CudaModule*> RawModuleImpl::Loaded() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (loaded_) return loaded_.get();
  absl::StatusOr<GpuExecutor*> executor = GpuExecutor::Get();
  if (!executor.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(program_name, ": cannot launch: no CUDA device is present (",
                     executor.status().message(), "); compiling works without one"));
  }
  absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module =
      kind == Image::kPtx ? runtime::CudaModule::LoadPtx((*executor)->device(), image)
                          : runtime::CudaModule::LoadCubin((*executor)->device(), image);
  if (!module.ok()) {
    return absl::Status(module.status().code(),
                        absl::StrCat(program_name, ": ", module.status().message()));
  }
  loaded_ = *std::move(module);
  return loaded_.get();
}

absl::StatusOr<codegen::KernelSignature> RawModuleImpl::DriverSignature(
    const runtime::CudaKernel& kernel) {
  absl::StatusOr<const runtime::CudaDriver*> driver = runtime::GetCudaDriver();
  if (!driver.ok()) return driver.status();
  codegen::KernelSignature signature;
  signature.name = signature.demangled = kernel.name;
  for (size_t index = 0;; ++index) {
    size_t offset = 0, size = 0;
    if ((*driver)->cuFuncGetParamInfo(kernel.function, index, &offset, &size) != CUDA_SUCCESS) {
      break;  // past the last parameter
    }
    codegen::KernelParameter parameter;
    parameter.size_bytes = static_cast<int>(size);
    parameter.align_bytes = static_cast<int>(size);
    // Only the size is known: "u8" and "b16".."b64" for scalar sizes, "b8" (a struct) else.
    parameter.ptx_type = size == 1                             ? "u8"
                         : size == 2 || size == 4 || size == 8 ? absl::StrCat("b", size * 8)
                                                               : "b8";
    signature.parameters.push_back(parameter);
  }
  return signature;
}

}  // namespace gpuc::detail
