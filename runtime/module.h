//===- module.h - Loading PTX and cubin, looking up and launching kernels -===//
//
// A CudaModule is code loaded into a device's context: PTX (JIT-compiled by the driver, with its
// error and info logs captured) or a cubin. Kernels are looked up by name and launched on a
// stream, which remembers the kernel's name for fault messages.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_MODULE_H_
#define GPUC_RUNTIME_MODULE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/device.h"
#include "runtime/stream.h"

namespace gpuc::runtime {

struct CudaKernel {
  CUfunction function = nullptr;
  std::string name;
};

/// A __device__ variable of a module.
struct CudaGlobal {
  uint64_t address = 0;
  size_t bytes = 0;
};

struct LaunchDims {
  unsigned x = 1, y = 1, z = 1;
};

class CudaModule {
 public:
  /// JIT-compiles `ptx` (NUL-terminated text) for the device. A compile error carries the
  /// driver's error log.
  static absl::StatusOr<std::unique_ptr<CudaModule>> LoadPtx(CudaDevice& device,
                                                             const std::string& ptx);
  /// Loads a cubin (or fatbin) image.
  static absl::StatusOr<std::unique_ptr<CudaModule>> LoadCubin(CudaDevice& device,
                                                               const std::string& image);
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  absl::StatusOr<CudaKernel> GetKernel(const std::string& name) const;
  /// A __device__ global by its (mangled, for C++ names) symbol.
  absl::StatusOr<CudaGlobal> GetGlobal(const std::string& name) const;
  /// The driver's info log of the JIT compile (empty for cubins).
  const std::string& jit_info_log() const { return info_log_; }

 private:
  CudaModule(CudaDevice* device, CUmodule module, std::string info_log)
      : device_(device), module_(module), info_log_(std::move(info_log)) {}
  static absl::StatusOr<std::unique_ptr<CudaModule>> Load(CudaDevice& device, const void* image,
                                                          absl::string_view what);

  CudaDevice* device_;
  CUmodule module_;
  std::string info_log_;
};

/// Compiles PTX to a cubin for the device's architecture with the driver's linker (cuLink*), so
/// that a kernel cache can keep the cubin and a later process loads it without a JIT. Errors
/// carry the linker's log.
absl::StatusOr<std::string> CompilePtxToCubin(CudaDevice& device, const std::string& ptx);

/// Launches `kernel` with `args` (pointers to each argument's value, as cuLaunchKernel takes).
absl::Status Launch(CudaStream& stream, const CudaKernel& kernel, LaunchDims grid, LaunchDims block,
                    unsigned dynamic_shared_bytes, void** args);

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_MODULE_H_
