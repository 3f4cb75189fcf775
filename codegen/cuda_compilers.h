//===- cuda_compilers.h - NVRTC and nvJitLink, resolved at run time -------===//
//
// The CUDA C++ compiler (NVRTC) and the device linker (nvJitLink) are opened as the runtime
// opens the vendor libraries: dlopen of the versioned soname, one table of entry points,
// loaded once per process. They are code generation's tools (codegen/cuda_source_compiler.h,
// user_function.h), not the runtime's, and need no GPU or driver, so user kernels compile
// and link on a machine without one; only launching needs the device.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CODEGEN_CUDA_COMPILERS_H_
#define GPUC_CODEGEN_CUDA_COMPILERS_H_

#include <nvJitLink.h>
#include <nvrtc.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuc::codegen {

#define GPUC_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)               \
  X(nvrtcGetErrorString)        \
  X(nvrtcCreateProgram)         \
  X(nvrtcDestroyProgram)        \
  X(nvrtcCompileProgram)        \
  X(nvrtcGetProgramLogSize)     \
  X(nvrtcGetProgramLog)         \
  X(nvrtcGetPTXSize)            \
  X(nvrtcGetPTX)                \
  X(nvrtcGetCUBINSize)          \
  X(nvrtcGetCUBIN)              \
  X(nvrtcGetLTOIRSize)          \
  X(nvrtcGetLTOIR)              \
  X(nvrtcAddNameExpression)     \
  X(nvrtcGetLoweredName)

struct Nvrtc {
#define GPUC_COMPILER_MEMBER(name) decltype(&::name) name = nullptr;
  GPUC_NVRTC_FUNCTIONS(GPUC_COMPILER_MEMBER)
  int major = 0, minor = 0;
};

/// nvJitLink.h maps each name to a versioned entry point (nvJitLinkCreate calls
/// __nvJitLinkCreate_13_0); the table holds the versioned ones, which later 13.x libraries
/// keep exporting.
#define GPUC_NVJITLINK_FUNCTIONS(X)     \
  X(__nvJitLinkCreate_13_0)             \
  X(__nvJitLinkDestroy_13_0)            \
  X(__nvJitLinkAddData_13_0)            \
  X(__nvJitLinkComplete_13_0)           \
  X(__nvJitLinkGetLinkedCubinSize_13_0) \
  X(__nvJitLinkGetLinkedCubin_13_0)     \
  X(__nvJitLinkGetErrorLogSize_13_0)    \
  X(__nvJitLinkGetErrorLog_13_0)        \
  X(nvJitLinkVersion)

struct NvJitLink {
  GPUC_NVJITLINK_FUNCTIONS(GPUC_COMPILER_MEMBER)
#undef GPUC_COMPILER_MEMBER
  unsigned major = 0, minor = 0;
};

/// The execution options' vendor_libraries (GPUC_VENDOR_LIBRARIES=0 turns these off too),
/// applied before the first load.
void SetCudaCompilersEnabled(bool enabled);

/// The loaded library, or Unavailable with the one-line reason. Loaded once; thread-safe.
absl::StatusOr<const Nvrtc*> GetNvrtc();
absl::StatusOr<const NvJitLink*> GetNvJitLink();

/// Ok on success; otherwise an error naming the call and the library's result code.
absl::Status NvrtcStatus(nvrtcResult result, absl::string_view call);
absl::Status NvJitLinkStatus(nvJitLinkResult result, absl::string_view call);

/// "NVRTC 13.0, nvJitLink 13.0" or each one's reason, for `gpuc --info`.
std::string DescribeCudaCompilers();

}  // namespace gpuc::codegen

#endif  // GPUC_CODEGEN_CUDA_COMPILERS_H_
