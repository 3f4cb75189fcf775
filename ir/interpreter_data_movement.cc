//===- interpreter_data_movement.cc - Data movement nodes -----------------===//
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_kernels.h"
#include "ir/type_inference.h"
#include "ir/wide_value.h"

namespace gpuc::ir::interp {
namespace {

/// The "value" of constant and pad (the verifier has checked that it is a number).
WideValue ScalarAttr(const Node& node) {
  return ScalarAttribute(node.attrs()).value_or(WideValue::Signed(0));
}

void CopyElement(HostTensor& out, int64_t to, const HostTensor& in, int64_t from) {
  std::memcpy(out.element(to), in.element(from), DTypeSize(in.dtype()));
}

}  // namespace

HostTensor EvalDataMovementNode(const Node& node, const Operands& operands) {
  HostTensor out(node.type());
  const Shape& shape = node.shape();
  const int rank = shape.rank();
  std::vector<int64_t> index(rank);
  const Attributes& attrs = node.attrs();

  switch (node.op()) {
    case OpCode::kReshape:
      std::memcpy(out.data(), operands[0]->data(), out.size_in_bytes());
      return out;
    case OpCode::kConstant: {
      WideValue value = ScalarAttr(node);
      for (int64_t i = 0; i < out.num_elements(); ++i)
        StoreElement(node.dtype(), out.element(i), value);
      return out;
    }
    case OpCode::kConcatenate: {
      const int64_t axis = *attrs.Get<int64_t>("axis");
      for (int64_t i = 0; i < out.num_elements(); ++i) {
        UnflattenIndex(i, shape, absl::MakeSpan(index));
        int64_t along = index[axis];
        for (const HostTensor* t : operands) {
          if (along < t->shape()[axis]) {
            index[axis] = along;
            CopyElement(out, i, *t, BroadcastOffset(index, t->shape()));
            break;
          }
          along -= t->shape()[axis];
        }
      }
      return out;
    }
    case OpCode::kUpdateSlice: {
      std::memcpy(out.data(), operands[0]->data(), out.size_in_bytes());
      const HostTensor& value = *operands[1];
      const auto& start = *attrs.Get<std::vector<int64_t>>("start");
      const auto& step = *attrs.Get<std::vector<int64_t>>("step");
      const std::vector<int64_t> strides = ContiguousStrides(shape);
      for (int64_t i = 0; i < value.num_elements(); ++i) {
        UnflattenIndex(i, value.shape(), absl::MakeSpan(index));
        int64_t offset = 0;
        for (int k = 0; k < rank; ++k) offset += (start[k] + index[k] * step[k]) * strides[k];
        CopyElement(out, offset, value, i);
      }
      return out;
    }
    default:
      break;
  }

  // The remaining ops map each output index to at most one input element.
  const HostTensor& in = operands.empty() ? out : *operands[0];
  std::vector<int64_t> in_strides = ContiguousStrides(in.shape());
  WideValue pad_value = ScalarAttr(node);
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    UnflattenIndex(i, shape, absl::MakeSpan(index));
    switch (node.op()) {
      case OpCode::kBroadcastTo:
        CopyElement(out, i, in, BroadcastOffset(index, in.shape()));
        break;
      case OpCode::kTranspose: {
        // Output axis k reads input axis perm[k].
        const auto& perm = *attrs.Get<std::vector<int64_t>>("perm");
        int64_t offset = 0;
        for (int k = 0; k < rank; ++k) offset += index[k] * in_strides[perm[k]];
        CopyElement(out, i, in, offset);
        break;
      }
      case OpCode::kSlice: {
        const auto& start = *attrs.Get<std::vector<int64_t>>("start");
        const auto& step = *attrs.Get<std::vector<int64_t>>("step");
        int64_t offset = 0;
        for (int k = 0; k < rank; ++k) offset += (start[k] + index[k] * step[k]) * in_strides[k];
        CopyElement(out, i, in, offset);
        break;
      }
      case OpCode::kPad: {
        const auto& low = *attrs.Get<std::vector<int64_t>>("low");
        int64_t offset = 0;
        bool inside = true;
        for (int k = 0; k < rank && inside; ++k) {
          int64_t source = index[k] - low[k];
          inside = source >= 0 && source < in.shape()[k];
          offset += source * in_strides[k];
        }
        if (inside) {
          CopyElement(out, i, in, offset);
        } else {
          StoreElement(node.dtype(), out.element(i), pad_value);
        }
        break;
      }
      case OpCode::kIota:
        StoreElement(node.dtype(), out.element(i),
                     WideValue::Signed(index[*attrs.Get<int64_t>("axis")]));
        break;
      default:
        break;
    }
  }
  return out;
}

absl::StatusOr<HostTensor> EvalTakeNode(const Node& node, const HostTensor& data,
                                        const HostTensor& indices) {
  HostTensor out(node.type());
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  const int64_t extent = data.shape()[axis];
  int64_t inner = 1;
  for (int i = axis + 1; i < data.shape().rank(); ++i) inner *= data.shape()[i];
  const int64_t count = indices.num_elements();
  const int64_t outer = count * inner == 0 ? 0 : out.num_elements() / (count * inner);
  for (int64_t k = 0; k < count; ++k) {
    WideValue v = LoadElement(indices.dtype(), indices.element(k));
    // uint64 indices past int64's range are out of bounds anyway.
    int64_t index = v.domain == DTypeKind::kUnsigned
                        ? (v.u > static_cast<uint64_t>(extent) ? extent : static_cast<int64_t>(v.u))
                        : v.i;
    if (index < -extent || index >= extent) {
      return absl::OutOfRangeError(absl::StrCat("take: index ", index,
                                                " is out of bounds for axis ", axis, " with size ",
                                                extent, " of ", data.type().ToString()));
    }
    if (index < 0) index += extent;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        CopyElement(out, (o * count + k) * inner + in, data, (o * extent + index) * inner + in);
      }
    }
  }
  return out;
}

}  // namespace gpuc::ir::interp
