//===- device_tensor.cc - Arrays in device memory -------------------------===//
#include "lib/exec/device_tensor.h"

#include <atomic>

namespace gpuc::exec {
namespace {

std::atomic<int64_t> g_uploads{0};
std::atomic<int64_t> g_downloads{0};

}  // namespace

absl::StatusOr<std::shared_ptr<DeviceStorage>> DeviceStorage::Allocate(runtime::CudaDevice& device,
                                                                       runtime::CudaStream& stream,
                                                                       size_t bytes) {
  absl::StatusOr<uint64_t> address = device.memory_pool().Allocate(bytes, stream.id());
  if (!address.ok()) return address.status();
  return std::shared_ptr<DeviceStorage>(new DeviceStorage(&device, *address));
}

DeviceStorage::~DeviceStorage() {
  // Stream-ordered: the pool hands the block out again only to work queued after this.
  (void)device_->memory_pool().Free(address_);
}

absl::StatusOr<DeviceTensor> Upload(runtime::CudaDevice& device, const ir::HostTensor& tensor) {
  absl::StatusOr<runtime::CudaStream*> stream = runtime::CurrentStream(device);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<std::shared_ptr<DeviceStorage>> storage =
      DeviceStorage::Allocate(device, **stream, static_cast<size_t>(tensor.size_in_bytes()));
  if (!storage.ok()) return storage.status();
  if (tensor.size_in_bytes() > 0) {
    if (absl::Status c = (*stream)->CopyHostToDevice((*storage)->address(), tensor.data(),
                                                     tensor.size_in_bytes());
        !c.ok()) {
      return c;
    }
  }
  g_uploads.fetch_add(1, std::memory_order_relaxed);
  return DeviceTensor{tensor.type(), *storage, (*storage)->address()};
}

absl::StatusOr<ir::HostTensor> Download(const DeviceTensor& tensor) {
  if (!tensor.storage) {
    if (tensor.size_in_bytes() > 0)
      return absl::InternalError("Download: a device tensor without storage");
    return ir::HostTensor::Uninitialized(tensor.type);
  }
  absl::StatusOr<runtime::CudaStream*> stream = runtime::CurrentStream(tensor.storage->device());
  if (!stream.ok()) return stream.status();
  ir::HostTensor host = ir::HostTensor::Uninitialized(tensor.type);
  if (host.size_in_bytes() > 0) {
    if (absl::Status c =
            (*stream)->CopyDeviceToHost(host.data(), tensor.address, host.size_in_bytes());
        !c.ok()) {
      return c;
    }
  }
  if (absl::Status c = (*stream)->Synchronize(); !c.ok()) return c;
  g_downloads.fetch_add(1, std::memory_order_relaxed);
  return host;
}

TransferCounts Transfers() {
  return {g_uploads.load(std::memory_order_relaxed), g_downloads.load(std::memory_order_relaxed)};
}

}  // namespace gpuc::exec
