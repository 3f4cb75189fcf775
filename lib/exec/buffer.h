//===- buffer.h - The stored value of an evaluated array ------------------===//
//
// What executables take and return: an array's values in host memory, device memory, or
// both. An array computed on the GPU stays there until something reads it on the host (Host
// copies it out once); a host array used by a GPU executable is copied in once (OnDevice)
// and the copy kept. A Buffer is an ir::Binding, so an evaluated array's node carries it.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_BUFFER_H_
#define GPUC_LIB_EXEC_BUFFER_H_

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/host_tensor.h"
#include "ir/node.h"
#include "lib/exec/device_tensor.h"

namespace gpuc::exec {

class Buffer : public ir::Binding {
 public:
  explicit Buffer(ir::HostTensor tensor) : host_(std::move(tensor)) {}
  explicit Buffer(DeviceTensor device) : device_(std::move(device)) {}

  /// The values in host memory (copied from the device on first use; a fault the copy
  /// reports is returned).
  absl::StatusOr<const ir::HostTensor*> Host() const;
  /// The values in `device`'s memory (copied in on first use).
  absl::StatusOr<DeviceTensor> OnDevice(runtime::CudaDevice& device) const;
  const ir::TensorType& type() const { return host_ ? host_->type() : device_->type; }
  /// Forgets the host copy after a user kernel wrote the device copy (gpuc/raw_kernel.h);
  /// the next host read downloads the new values.
  void DiscardHostCopy() const;
  /// Whether only host memory holds the values and this buffer alone owns it: with no other
  /// reference to the buffer either, an executable may write into it (a donated input).
  bool HostOnlyAndUnshared() const;
  /// Whether device memory holds the values and this buffer alone holds that block (the
  /// pool's whole block, no other tensor over it): an evaluation on the GPU may overwrite it
  /// when nothing else holds the buffer (a host copy beside it dies with the buffer).
  bool OnDeviceAndUnshared() const;

 private:
  mutable std::mutex mutex_;
  mutable std::optional<ir::HostTensor> host_;
  mutable std::optional<DeviceTensor> device_;
};

/// A stored value as executables pass it around.
using BufferRef = std::shared_ptr<const Buffer>;

/// The host values of `buffers`, in order (device ones copied out once each).
absl::StatusOr<std::vector<ir::HostTensor>> HostValuesOf(absl::Span<const BufferRef> buffers);
/// Host tensors as buffers, in order.
std::vector<BufferRef> BuffersOf(std::vector<ir::HostTensor> tensors);

}  // namespace gpuc::exec

#endif  // GPUC_LIB_EXEC_BUFFER_H_
