//===- device_tensor.h - Arrays in device memory --------------------------===//
//
// The value a CUDA executable reads and writes: a dense row-major array in a block of the
// device's memory pool, returned to the pool when its last owner lets go. Transfers between
// host and device are here too, on the calling thread's current stream, counted for the
// back end's statistics; a download synchronizes, so an asynchronous fault is reported there
// with the kernels that ran last.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_DEVICE_TENSOR_H_
#define GPUC_LIB_EXEC_DEVICE_TENSOR_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "ir/host_tensor.h"
#include "runtime/device.h"
#include "runtime/stream.h"

namespace gpuc::exec {

/// A block of the device pool, returned to it when the last owner lets go.
class DeviceStorage {
 public:
  static absl::StatusOr<std::shared_ptr<DeviceStorage>> Allocate(runtime::CudaDevice& device,
                                                                 runtime::CudaStream& stream,
                                                                 size_t bytes);
  ~DeviceStorage();
  uint64_t address() const { return address_; }
  runtime::CudaDevice& device() const { return *device_; }

 private:
  DeviceStorage(runtime::CudaDevice* device, uint64_t address)
      : device_(device), address_(address) {}
  runtime::CudaDevice* device_;
  uint64_t address_;
};

/// A dense row-major array in device memory.
struct DeviceTensor {
  ir::TensorType type;
  std::shared_ptr<DeviceStorage> storage;  // keeps `address` valid
  uint64_t address = 0;
  int64_t size_in_bytes() const { return type.shape.num_elements() * ir::DTypeSize(type.dtype); }
};

/// Copies `tensor` into a new block of `device`'s pool on the current stream.
absl::StatusOr<DeviceTensor> Upload(runtime::CudaDevice& device, const ir::HostTensor& tensor);
/// Waits for the current stream and copies `tensor` out.
absl::StatusOr<ir::HostTensor> Download(const DeviceTensor& tensor);

/// Transfers so far in this process.
struct TransferCounts {
  int64_t uploads = 0;
  int64_t downloads = 0;
};
TransferCounts Transfers();

}  // namespace gpuc::exec

#endif  // GPUC_LIB_EXEC_DEVICE_TENSOR_H_
