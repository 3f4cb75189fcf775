//===- gpu_source_module.h - gpuc's own CUDA C++ kernels, compiled and loaded ===//
//
// The scatter, scan, sort and linalg helper kernels (gpu_scatter.h, gpu_scan.h, gpu_sort.h,
// gpu_solver.h) are CUDA C++ that NVRTC compiles
// per instantiation into the disk kernel cache, then loaded as a cubin on the device: one
// way to do both, errors prefixed with the instantiation's key.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_SOURCE_MODULE_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_SOURCE_MODULE_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/module.h"

namespace gpuc::detail {

/// `source` compiled for `arch` (one rounding per operation: no contraction into fma) and
/// loaded on `device`. `key` names the instantiation in errors.
absl::StatusOr<std::unique_ptr<runtime::CudaModule>> LoadSourceModule(
    runtime::CudaDevice& device, const std::string& source, absl::string_view program_name,
    absl::string_view key, const std::string& arch);

/// Each named kernel of `module` into its slot, or the first one's lookup error.
absl::Status FindKernels(
    const runtime::CudaModule& module,
    std::initializer_list<std::pair<const char*, runtime::CudaKernel*>> kernels);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_SOURCE_MODULE_H_
