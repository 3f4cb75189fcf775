//===- buffer.cc - The stored value of an evaluated array -----------------===//
#include "lib/exec/buffer.h"

namespace gpuc::exec {

absl::StatusOr<const ir::HostTensor*> Buffer::Host() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!host_) {
    absl::StatusOr<ir::HostTensor> downloaded = Download(*device_);
    if (!downloaded.ok()) return downloaded.status();
    host_ = *std::move(downloaded);
  }
  return &*host_;
}

absl::StatusOr<DeviceTensor> Buffer::OnDevice(runtime::CudaDevice& device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!device_) {
    absl::StatusOr<DeviceTensor> uploaded = Upload(device, *host_);
    if (!uploaded.ok()) return uploaded.status();
    device_ = *std::move(uploaded);
  }
  return *device_;
}

void Buffer::DiscardHostCopy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (device_) host_.reset();
}

absl::StatusOr<std::vector<ir::HostTensor>> HostValuesOf(absl::Span<const BufferRef> buffers) {
  std::vector<ir::HostTensor> values;
  values.reserve(buffers.size());
  for (const BufferRef& b : buffers) {
    absl::StatusOr<const ir::HostTensor*> host = b->Host();
    if (!host.ok()) return host.status();
    values.push_back(**host);
  }
  return values;
}

std::vector<BufferRef> BuffersOf(std::vector<ir::HostTensor> tensors) {
  std::vector<BufferRef> buffers;
  buffers.reserve(tensors.size());
  for (ir::HostTensor& t : tensors) buffers.push_back(std::make_shared<const Buffer>(std::move(t)));
  return buffers;
}

bool Buffer::HostOnlyAndUnshared() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return host_ && !device_ && host_->OwnsStorageAlone();
}

bool Buffer::OnDeviceAndUnshared() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_ && device_->storage && device_->storage.use_count() == 1 &&
         device_->address == device_->storage->address();
}

}  // namespace gpuc::exec
