//===- gpu_kernel_entry.h - A GPU kernel in the disk cache ----------------===//
//
// What the disk kernel cache keeps for a GPU kernel: a short text header with the launch
// layout of each phase (kind, vector width, partial-state bytes, and whether there is a
// row-local kernel), then the cubin. A second process loads it without emitting any IR; the
// kernel names follow from the spec. The cache itself checks the key and a checksum.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_KERNEL_ENTRY_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_KERNEL_ENTRY_H_

#include <optional>
#include <string>
#include <utility>

#include "codegen/gpu_kernel_emitter.h"
#include "codegen/kernel_spec.h"

namespace gpuc::detail {

std::string SerializeGpuKernelEntry(const codegen::GpuKernelLayout& layout,
                                    const std::string& cubin);

/// The layout and cubin of an entry for `spec`, or nullopt for a malformed entry or one whose
/// phase count does not match (the caller then compiles again).
std::optional<std::pair<codegen::GpuKernelLayout, std::string>> ParseGpuKernelEntry(
    const std::string& entry, const codegen::KernelSpec& spec);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_KERNEL_ENTRY_H_
