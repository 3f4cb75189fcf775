//===- gpu_kernel_compile.cc - NVPTX compilers and compiled kernels -------===//
#include "lib/backend/cuda/gpu_executor_impl.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/user_function.h"
#include "lib/backend/cuda/gpu_kernel_entry.h"

namespace gpuc::detail {

namespace {

/// "exp, mul, add": what a kernel computes, for fault messages.
std::string DescribeMembers(const codegen::KernelSpec& spec) {
  std::vector<std::string> ops;
  for (const ir::Node* m : spec.members) {
    if (ops.size() == 12) {
      ops.push_back("...");
      break;
    }
    ops.push_back(std::string(ir::OpName(m->op())));
  }
  return absl::StrJoin(ops, ", ");
}

}  // namespace

codegen::GpuCompileOptions GpuCompileOptionsFor(const exec::Options& options,
                                                const runtime::CudaDeviceProperties* device) {
  codegen::GpuCompileOptions gpu;
  gpu.arch = !options.gpu_arch.empty() ? options.gpu_arch
             : device ? codegen::ArchForComputeCapability(device->compute_capability_major,
                                                          device->compute_capability_minor)
                      : "sm_90";
  gpu.fast_math = options.fast_math;
  gpu.exact_math = options.exact_gpu_math;
  gpu.vector_reductions = options.gpu_vector_reductions;
  return gpu;
}

absl::StatusOr<GpuCodegen*> GpuExecutor::Impl::CodegenFor(const exec::Options& options) {
  const codegen::GpuCompileOptions gpu = GpuCompileOptionsFor(options, &device->properties());
  const std::string key =
      absl::StrCat(gpu.arch, gpu.fast_math ? " fast" : "", gpu.exact_math ? " exact" : "",
                   gpu.vector_reductions ? "" : " scalar-reduce");
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<GpuCodegen>& codegen = codegens[key];
  if (!codegen) {
    absl::StatusOr<std::unique_ptr<codegen::NvptxCompiler>> compiler =
        codegen::NvptxCompiler::Create(gpu);
    if (!compiler.ok()) {
      codegens.erase(key);
      return compiler.status();
    }
    codegen = std::make_unique<GpuCodegen>();
    codegen->compiler = *std::move(compiler);
    codegen->cache =
        std::make_unique<exec::CompileCache<GpuKernel>>(codegen->compiler->target_id());
  }
  return codegen.get();
}

absl::StatusOr<std::shared_ptr<const GpuKernel>> GpuExecutor::Impl::GetOrCompile(
    const codegen::KernelSpec& spec, const exec::Options& options) {
  absl::StatusOr<GpuCodegen*> codegen = CodegenFor(options);
  if (!codegen.ok()) return codegen.status();
  codegen::NvptxCompiler& compiler = *(*codegen)->compiler;
  codegen::DiskCache* disk = exec::DiskCacheFor(options);
  // The artifact is the cubin with its launch layout (gpu_kernel_entry.h).
  auto compile = [&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<codegen::GpuCompiledKernel> ptx = codegen::CompileGpuKernel(spec, compiler);
    if (!ptx.ok()) return ptx.status();
    // A kernel calling user CUDA C++ links NVRTC's object for it with nvJitLink; every
    // other kernel goes through the driver's linker.
    absl::StatusOr<std::string> linked =
        codegen::UsesUserFunctions(spec)
            ? codegen::LinkWithUserFunctions(spec, ptx->ptx, compiler.options().arch, disk)
            : runtime::CompilePtxToCubin(*device, ptx->ptx);
    if (!linked.ok()) {
      if (codegen::UsesUserFunctions(spec)) return linked.status();
      return absl::InternalError(absl::StrCat("the driver rejected the PTX of ", spec.name, ": ",
                                              linked.status().message()));
    }
    return SerializeGpuKernelEntry(ptx->layout, *linked);
  };
  auto load = [&](const std::string& entry) -> absl::StatusOr<std::unique_ptr<GpuKernel>> {
    std::optional<std::pair<codegen::GpuKernelLayout, std::string>> parsed =
        ParseGpuKernelEntry(entry, spec);
    if (!parsed) {
      return absl::DataLossError(absl::StrCat("a malformed kernel entry for ", spec.name));
    }
    auto kernel = std::make_unique<GpuKernel>();
    kernel->layout = std::move(parsed->first);
    absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module =
        runtime::CudaModule::LoadCubin(*device, parsed->second);
    if (!module.ok()) return module.status();
    kernel->module = *std::move(module);
    const std::string members = DescribeMembers(spec);
    for (const codegen::GpuPhaseLaunch& p : kernel->layout.phases) {
      absl::StatusOr<runtime::CudaKernel> k = kernel->module->GetKernel(p.kernel);
      if (!k.ok()) return k.status();
      k->name = absl::StrCat(p.kernel, " (", members, ")");
      kernel->kernels.push_back(*k);
      runtime::CudaKernel combine;
      if (p.kind != codegen::GpuPhaseLaunch::Kind::kStore) {
        absl::StatusOr<runtime::CudaKernel> c = kernel->module->GetKernel(p.combine_kernel);
        if (!c.ok()) return c.status();
        combine = *c;
        combine.name = absl::StrCat(p.combine_kernel, " (", members, ")");
      }
      kernel->combines.push_back(combine);
    }
    if (!kernel->layout.row_local_kernel.empty()) {
      absl::StatusOr<runtime::CudaKernel> k =
          kernel->module->GetKernel(kernel->layout.row_local_kernel);
      if (!k.ok()) return k.status();
      k->name = absl::StrCat(kernel->layout.row_local_kernel, " (", members, ")");
      kernel->rows = *k;
    }
    return kernel;
  };
  return (*codegen)->cache->GetOrCompile(spec.key_text, disk, compile, load);
}

}  // namespace gpuc::detail
