//===- compile_cuda.cc - gpuc --compile-cuda: a RawModule's source, offline ===//
#include "tools/gpuc/compile_cuda.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "codegen/cuda_source_compiler.h"
#include "codegen/kernel_cache.h"
#include "codegen/kernel_signature.h"
#include "lib/exec/options.h"
#include "lib/exec/target.h"

namespace gpuc::tool {

absl::Status CompileCudaFile(const Options& options) {
  std::ifstream in(options.input_path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", options.input_path, "'"));
  std::ostringstream source;
  source << in.rdbuf();
  codegen::CudaSourceOptions compile;
  exec::Options exec_options = exec::Options::FromEnvironment();
  exec_options.gpu_arch = options.arch;
  compile.arch = exec::GpuArchitecture(exec_options);
  compile.options = options.nvrtc_options;
  compile.name_expressions = options.name_expressions;
  codegen::DiskCache cache(exec_options.cache_directory, exec_options.cache_max_bytes);
  absl::StatusOr<codegen::CompiledCuda> compiled =
      codegen::CompileCudaSource(source.str(), options.input_path, compile, &cache);
  if (!compiled.ok()) return compiled.status();
  std::cout << options.input_path << ": "
            << (compiled->from_disk_cache ? "cubin from the disk cache" : "compiled by NVRTC")
            << " for " << compile.arch << ", " << compiled->cubin.size() << " bytes\n";
  if (!compiled->log.empty()) std::cout << "NVRTC log:\n" << compiled->log << "\n";
  absl::StatusOr<std::vector<codegen::KernelSignature>> kernels =
      codegen::ParseKernelSignatures(compiled->ptx);
  if (!kernels.ok()) return kernels.status();
  for (const codegen::KernelSignature& kernel : *kernels) {
    std::cout << "kernel " << kernel.name << ": " << codegen::DescribeSignature(kernel) << "\n";
  }
  for (const auto& [expression, lowered] : compiled->lowered_names) {
    std::cout << "name expression " << expression << " -> " << lowered << "\n";
  }
  if (!options.output_path.empty()) {
    std::ofstream out(options.output_path, std::ios::binary);
    out.write(compiled->cubin.data(), static_cast<std::streamsize>(compiled->cubin.size()));
    if (!out) return absl::InternalError(absl::StrCat("cannot write '", options.output_path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace gpuc::tool
