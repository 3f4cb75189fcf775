//===- cuda_source_compiler.h - Users' CUDA C++ through NVRTC -------------===//
//
// User kernels (gpuc/raw_kernel.h) are CUDA C++ compiled by NVRTC for one real architecture:
// a cubin the driver loads without a JIT, plus the PTX, which names every kernel's parameters
// (codegen/kernel_signature.h reads them to check launch arguments). gpuc's device headers
// (gpuc/array_view.cuh) are handed to NVRTC in memory, so no install path matters; the CUDA
// toolkit's include directory is on the search path for <cuda_fp16.h> and friends.
//
// Results go to the disk kernel cache keyed by the source, the options, the name expressions,
// the architecture, the output kind and NVRTC's version: a second process compiles nothing.
// NVRTC and the cache work without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_CUDA_SOURCE_COMPILER_H_
#define GPUC_CODEGEN_CUDA_SOURCE_COMPILER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "codegen/kernel_cache.h"

namespace gpuc::codegen {

struct CudaSourceOptions {
  /// A real architecture ("sm_90"): NVRTC then emits a cubin beside the PTX.
  std::string arch = "sm_90";
  /// Passed to NVRTC after gpuc's own (-arch, -std=c++17 unless given, -I for the toolkit).
  std::vector<std::string> options;
  /// Template instantiations and other names to keep and resolve (nvrtcAddNameExpression).
  std::vector<std::string> name_expressions;
  /// Relocatable device code (-rdc=true): the cubin is an object for nvJitLink to link with
  /// other code, not a loadable module.
  bool relocatable = false;
};

struct CompiledCuda {
  std::string cubin;
  std::string ptx;
  /// (name expression, lowered (mangled) name) in the order given.
  std::vector<std::pair<std::string, std::string>> lowered_names;
  /// NVRTC's warnings (empty when it had nothing to say).
  std::string log;
  bool from_disk_cache = false;
};

/// Counters of one process, for tests and `gpuc --stats`.
struct CudaSourceStats {
  int64_t compiles = 0;
  int64_t disk_hits = 0;
  int64_t compile_microseconds = 0;
};
CudaSourceStats GetCudaSourceStats();

/// Compiles `source` (named `program_name` in NVRTC's messages, "kernel.cu" style). Errors:
/// InvalidArgument with the first error's line and NVRTC's whole log; Unavailable without
/// NVRTC. `cache` may be null (no disk cache).
absl::StatusOr<CompiledCuda> CompileCudaSource(absl::string_view source,
                                               absl::string_view program_name,
                                               const CudaSourceOptions& options, DiskCache* cache);

/// "line 3: error: identifier \"y\" is undefined" from NVRTC's log of `program_name`, or the
/// log's first line when no line is named.
std::string FirstCompileError(absl::string_view log, absl::string_view program_name);

/// The CUDA toolkit's include directory (CudaToolkitRoot()'s, the build's, /usr/local/cuda),
/// or empty when none has cuda_fp16.h.
std::string CudaIncludeDirectory();

/// gpuc's device headers, as (include name, text).
const std::vector<std::pair<std::string, std::string>>& GpucDeviceHeaders();

/// Links relocatable objects and PTX into one loadable cubin for `arch` with nvJitLink.
/// Errors carry nvJitLink's log.
struct LinkInput {
  enum class Kind { kPtx, kCubin } kind;
  std::string data;
  std::string name;
};
absl::StatusOr<std::string> LinkDeviceCode(const std::vector<LinkInput>& inputs,
                                           absl::string_view arch);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_CUDA_SOURCE_COMPILER_H_
