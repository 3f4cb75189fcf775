//===- io_api.cc - .npy files and DLPack (gpuc/io.h) ----------------------===//
#include <dlpack/dlpack.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "gpuc/io.h"
#include "ir/npy.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"
#include "lib/eval/evaluator.h"

namespace gpuc {
namespace {

// kDLBool arrived in DLPack 0.8; Debian's header is 0.6. Producers that know it send 6.
constexpr uint8_t kDLBoolCode = 6;

DLDataType ToDlpackType(ir::DType d) {
  const uint8_t bits = static_cast<uint8_t>(ir::DTypeSize(d) * 8);
  switch (ir::KindOf(d)) {
    case ir::DTypeKind::kBool:
      return {kDLBoolCode, 8, 1};
    case ir::DTypeKind::kSigned:
      return {kDLInt, bits, 1};
    case ir::DTypeKind::kUnsigned:
      return {kDLUInt, bits, 1};
    case ir::DTypeKind::kFloat:
      return {static_cast<uint8_t>(d == ir::DType::kBFloat16 ? kDLBfloat : kDLFloat), bits, 1};
    case ir::DTypeKind::kComplex:
      return {kDLComplex, bits, 1};
  }
  return {kDLFloat, bits, 1};
}

std::optional<ir::DType> FromDlpackType(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  for (int i = 0; i < ir::kNumDTypes; ++i) {
    const ir::DType d = static_cast<ir::DType>(i);
    const DLDataType candidate = ToDlpackType(d);
    if (candidate.code == t.code && candidate.bits == t.bits) return d;
  }
  return std::nullopt;
}

struct ExportContext {
  ir::NodeRef node;  // keeps the buffer alive
  std::vector<int64_t> shape;
};

}  // namespace

Array load(const std::string& path) {
  absl::StatusOr<ir::HostTensor> tensor = ir::LoadNpy(path);
  if (!tensor.ok()) {
    internal::ThrowError(
        absl::Status(tensor.status().code(), absl::StrCat("load: ", tensor.status().message())));
  }
  return Array(detail::MakeEvaluated(*std::move(tensor)));
}

void save(const std::string& path, const Array& a) {
  detail::ArrayImpl& impl = detail::ImplOf(a, "save");
  detail::EvaluateForRead(impl, "save");
  internal::ThrowIfError(ir::SaveNpy(path, impl.host_tensor()));
}

DLManagedTensor* to_dlpack(const Array& a) {
  detail::ArrayImpl& impl = detail::ImplOf(a, "to_dlpack");
  detail::EvaluateForRead(impl, "to_dlpack");
  auto* context = new ExportContext{impl.node, impl.shape};
  auto* out = new DLManagedTensor{};
  const ir::HostTensor& tensor = impl.host_tensor();
  out->dl_tensor.data = tensor.data();
  out->dl_tensor.device = {kDLCPU, 0};
  out->dl_tensor.ndim = static_cast<int32_t>(context->shape.size());
  out->dl_tensor.dtype = ToDlpackType(tensor.dtype());
  out->dl_tensor.shape = context->shape.data();
  out->dl_tensor.strides = nullptr;  // compact row-major
  out->dl_tensor.byte_offset = 0;
  out->manager_ctx = context;
  out->deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
  };
  return out;
}

Array from_dlpack(DLManagedTensor* tensor) {
  if (tensor == nullptr) detail::ThrowInvalid("from_dlpack: null tensor");
  const DLTensor& t = tensor->dl_tensor;
  // Checks first: on an error the caller still owns the tensor.
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost) {
    detail::ThrowInvalid(absl::StrCat("from_dlpack: device type ", t.device.device_type,
                                      " is not host memory; only host tensors are supported "
                                      "until the GPU back end lands"));
  }
  std::optional<ir::DType> dtype = FromDlpackType(t.dtype);
  if (!dtype) {
    detail::ThrowInvalid(absl::StrCat("from_dlpack: unsupported dtype (code ", t.dtype.code,
                                      ", bits ", t.dtype.bits, ", lanes ", t.dtype.lanes, ")"));
  }
  std::vector<int64_t> dims(t.shape, t.shape + t.ndim);
  ir::TensorType type{*dtype, ir::Shape(dims)};
  if (absl::Status s = ir::ValidateShape(type.shape); !s.ok()) {
    detail::ThrowInvalid(absl::StrCat("from_dlpack: ", s.message()));
  }
  const int64_t itemsize = ir::DTypeSize(*dtype);
  std::byte* data = static_cast<std::byte*>(t.data) + t.byte_offset;
  // Compact row-major strides (in elements); extent-1 axes may carry any stride.
  bool compact = true;
  std::vector<int64_t> strides = ir::ContiguousStrides(type.shape);
  if (t.strides != nullptr) {
    for (int i = 0; i < t.ndim; ++i)
      compact = compact && (dims[i] <= 1 || t.strides[i] == strides[i]);
  }
  const bool aligned = reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(itemsize) == 0;
  std::shared_ptr<DLManagedTensor> owner(tensor, [](DLManagedTensor* m) {
    if (m->deleter) m->deleter(m);
  });
  if (compact && aligned) {
    return Array(detail::MakeEvaluated(ir::HostTensor::Wrap(type, data, owner)));
  }
  // Strided or misaligned: one gather into a fresh compact buffer; the producer's is released.
  ir::HostTensor copy(type);
  std::vector<int64_t> index(t.ndim);
  for (int64_t i = 0; i < copy.num_elements(); ++i) {
    ir::UnflattenIndex(i, type.shape, absl::MakeSpan(index));
    int64_t offset = 0;
    for (int k = 0; k < t.ndim; ++k) offset += index[k] * (t.strides ? t.strides[k] : strides[k]);
    std::memcpy(copy.element(i), data + offset * itemsize, static_cast<size_t>(itemsize));
  }
  return Array(detail::MakeEvaluated(std::move(copy)));
}

}  // namespace gpuc
