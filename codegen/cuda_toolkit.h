//===- cuda_toolkit.h - Where the CUDA toolkit's files are ----------------===//
//
// Code generation reads two things from the CUDA toolkit: libdevice (linked into every GPU
// kernel) and the headers NVRTC compiles users' kernels against. Where the toolkit lives is
// an execution option (lib/exec/options.h: $CUDA_HOME, else $CUDA_PATH, else
// /usr/local/cuda), set here before code is generated; codegen reads no environment itself.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_CUDA_TOOLKIT_H_
#define GPUC_CODEGEN_CUDA_TOOLKIT_H_

#include <string>

namespace gpuc::codegen {

/// The toolkit's root directory ("/usr/local/cuda" until set).
std::string CudaToolkitRoot();
void SetCudaToolkitRoot(const std::string& root);

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_CUDA_TOOLKIT_H_
