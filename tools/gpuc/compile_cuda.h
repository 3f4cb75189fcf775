//===- compile_cuda.h - gpuc --compile-cuda: a RawModule's source, offline -===//
#ifndef GPUC_TOOLS_GPUC_COMPILE_CUDA_H_
#define GPUC_TOOLS_GPUC_COMPILE_CUDA_H_

#include "absl/status/status.h"
#include "tools/gpuc/options.h"

namespace gpuc::tool {

/// Compiles options.input_path with NVRTC (as a RawModule would, through the disk cache) and
/// prints where the cubin came from, each kernel's signature and the lowered name expressions.
absl::Status CompileCudaFile(const Options& options);

}  // namespace gpuc::tool

#endif  // GPUC_TOOLS_GPUC_COMPILE_CUDA_H_
