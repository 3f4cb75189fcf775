//===- host_tensor.h - A dense array in host memory -----------------------===//
//
// The interpreter's values, the CLI's inputs and outputs and the front end's host buffers: a
// dtype, a shape and contiguous row-major bytes. float16/bfloat16 are raw 16-bit patterns,
// complex values (re, im) pairs.
//
// A HostTensor is a handle: copies share the bytes (as NumPy arrays share a buffer), so passing
// one to the interpreter or into a front-end array costs no copy. Clone() copies the bytes.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_HOST_TENSOR_H_
#define GPUC_IR_HOST_TENSOR_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "ir/copy_bytes.h"
#include "ir/host_blocks.h"
#include "ir/node.h"

namespace gpuc::ir {

class HostTensor {
 public:
  HostTensor() = default;
  /// Zero-filled storage for `type`; the shape must have passed ValidateShape.
  explicit HostTensor(TensorType type)
      : type_(std::move(type)),
        size_in_bytes_(type_.shape.num_elements() * DTypeSize(type_.dtype)),
        bytes_(std::make_shared<std::byte[]>(static_cast<size_t>(size_in_bytes_))) {}

  /// Storage for `type` whose bytes are left unset, for outputs a kernel overwrites whole:
  /// zero-filling them first would cost a pass over memory as large as the kernel's own.
  static HostTensor Uninitialized(TensorType type) {
    HostTensor t;
    t.size_in_bytes_ = type.shape.num_elements() * DTypeSize(type.dtype);
    t.type_ = std::move(type);
    t.bytes_ = AllocateHostBlock(static_cast<size_t>(t.size_in_bytes_));
    return t;
  }

  /// Storage owned elsewhere (an imported DLPack tensor): `data` holds num_elements * itemsize
  /// bytes, row-major and suitably aligned, and stays valid while `owner` lives.
  static HostTensor Wrap(TensorType type, std::byte* data, std::shared_ptr<const void> owner) {
    HostTensor t;
    t.size_in_bytes_ = type.shape.num_elements() * DTypeSize(type.dtype);
    t.type_ = std::move(type);
    t.bytes_ = std::shared_ptr<std::byte[]>(std::move(owner), data);
    t.wrapped_ = true;
    return t;
  }

  /// The same bytes seen as `type` (of the same size in bytes): an output written in place.
  HostTensor SharingStorage(TensorType type) const {
    HostTensor t = *this;
    t.type_ = std::move(type);
    return t;
  }

  /// A copy with its own bytes.
  HostTensor Clone() const {
    HostTensor copy = Uninitialized(type_);  // every byte is copied over
    if (size_in_bytes_ > 0) CopyBytes(copy.data(), data(), static_cast<size_t>(size_in_bytes_));
    return copy;
  }

  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int64_t num_elements() const { return type_.shape.num_elements(); }
  int64_t size_in_bytes() const { return size_in_bytes_; }

  std::byte* data() const { return bytes_.get(); }
  /// Whether this tensor is the only owner of its bytes, which it allocated itself (not a
  /// view of another tensor's storage, of an arena or of memory imported through DLPack):
  /// evaluation may then write into them in place once nothing else reads them.
  bool OwnsStorageAlone() const { return !wrapped_ && bytes_ && bytes_.use_count() == 1; }
  std::byte* element(int64_t i) const { return bytes_.get() + i * DTypeSize(type_.dtype); }

  /// Typed view of the storage; T must match the dtype's layout (uint16_t for f16/bf16).
  template <typename T>
  T* data_as() const {
    return reinterpret_cast<T*>(bytes_.get());
  }

 private:
  TensorType type_;
  int64_t size_in_bytes_ = 0;
  std::shared_ptr<std::byte[]> bytes_;
  bool wrapped_ = false;  // storage owned elsewhere (Wrap)
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_HOST_TENSOR_H_
