//===- device.h - Device selection and the per-device CUDA state ----------===//
//
// A device is "host" or "cuda:N". GPUC_DEVICE=cuda:N|host chooses the default; without it the
// default is cuda:0 where a driver and device exist, else the host. A CudaDevice holds what is
// per device: the primary context, the properties read once, and the memory pools (device and
// pinned host). CudaDevice objects live for the whole process.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_DEVICE_H_
#define GPUC_RUNTIME_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "runtime/memory_pool.h"

namespace gpuc::runtime {

enum class DeviceKind { kHost, kCuda };

struct DeviceSpec {
  DeviceKind kind = DeviceKind::kHost;
  int ordinal = 0;
  std::string ToString() const;
  friend bool operator==(const DeviceSpec&, const DeviceSpec&) = default;
};

/// Parses "host", "cuda" (cuda:0) or "cuda:N".
absl::StatusOr<DeviceSpec> ParseDeviceSpec(absl::string_view text);

/// The default device: `requested` if not empty (the execution options' device, from
/// GPUC_DEVICE; an invalid value is an error), else cuda:0 when a driver and device exist,
/// else host.
absl::StatusOr<DeviceSpec> DefaultDeviceSpec(absl::string_view requested);

class CudaDevice {
 public:
  /// The device for ordinal `n`, created on first use (retains the primary context).
  static absl::StatusOr<CudaDevice*> Get(int ordinal);

  const CudaDriver& driver() const { return *driver_; }
  int ordinal() const { return properties_.ordinal; }
  CUcontext context() const { return context_; }
  const CudaDeviceProperties& properties() const { return properties_; }
  /// Device memory: every buffer, workspace and staging area on the device.
  MemoryPool& memory_pool() { return *memory_pool_; }
  /// Page-locked host memory, for asynchronous copies.
  MemoryPool& pinned_pool() { return *pinned_pool_; }
  /// Makes the primary context current on the calling thread.
  absl::Status MakeCurrent() const;
  /// Ok for CUDA_SUCCESS; else an error naming the call.
  absl::Status Check(CUresult result, absl::string_view call) const {
    return CudaStatus(*driver_, result, call);
  }

 private:
  CudaDevice() = default;

  const CudaDriver* driver_ = nullptr;
  CUcontext context_ = nullptr;
  CudaDeviceProperties properties_;
  std::unique_ptr<MemoryPool> memory_pool_;
  std::unique_ptr<MemoryPool> pinned_pool_;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_DEVICE_H_
