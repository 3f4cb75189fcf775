//===- host_tensor.h - A dense array in host memory -----------------------===//
//
// The interpreter's values and the CLI's inputs and outputs: a dtype, a shape and contiguous
// row-major bytes. float16/bfloat16 are raw 16-bit patterns, complex values (re, im) pairs.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_HOST_TENSOR_H_
#define GPUC_IR_HOST_TENSOR_H_

#include <cstddef>
#include <cstring>
#include <vector>

#include "ir/node.h"

namespace gpuc::ir {

class HostTensor {
 public:
  HostTensor() = default;
  /// Zero-filled storage for `type`; the shape must have passed ValidateShape.
  explicit HostTensor(TensorType type)
      : type_(std::move(type)),
        bytes_(static_cast<size_t>(type_.shape.num_elements() * DTypeSize(type_.dtype))) {}

  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int64_t num_elements() const { return type_.shape.num_elements(); }
  int64_t size_in_bytes() const { return static_cast<int64_t>(bytes_.size()); }

  std::byte* data() { return bytes_.data(); }
  const std::byte* data() const { return bytes_.data(); }
  std::byte* element(int64_t i) { return bytes_.data() + i * DTypeSize(type_.dtype); }
  const std::byte* element(int64_t i) const { return bytes_.data() + i * DTypeSize(type_.dtype); }

  /// Typed view of the storage; T must match the dtype's layout (uint16_t for f16/bf16).
  template <typename T>
  T* data_as() {
    return reinterpret_cast<T*>(bytes_.data());
  }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(bytes_.data());
  }

 private:
  TensorType type_;
  std::vector<std::byte> bytes_;
};

}  // namespace gpuc::ir

#endif  // GPUC_IR_HOST_TENSOR_H_
