//===- interpreter_data_movement.cc - Data movement nodes -----------------===//
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/copy_bytes.h"
#include "ir/elementwise_semantics.h"
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
      CopyBytes(out.data(), operands[0]->data(), out.size_in_bytes());
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
      CopyBytes(out.data(), operands[0]->data(), out.size_in_bytes());
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

absl::Status IndexOutOfBoundsError(const Node& node, const TensorType& data, int64_t index,
                                   int axis) {
  const int64_t extent = data.shape[axis];
  // A scatter recorded by a public function (bincount) speaks of that function's input.
  if (const std::string* api = node.attrs().Get<std::string>("api")) {
    return absl::OutOfRangeError(absl::StrCat(*api, ": x holds ", index, ", outside [0, ", extent,
                                              "): the counts have length ", extent,
                                              index < 0 ? " and x must not be negative" : ""));
  }
  return absl::OutOfRangeError(absl::StrCat(OpName(node.op()), ": index ", index,
                                            " is out of bounds for axis ", axis, " with size ",
                                            extent, " of ", data.ToString()));
}

namespace {

/// indices[k] as a position along an axis of `extent`: negative ones count from the end when
/// `wrap` is true; anything else outside [0, extent) is an error naming the op.
absl::StatusOr<int64_t> PositionAlongAxis(const Node& node, const HostTensor& data,
                                          const HostTensor& indices, int64_t k, int axis,
                                          bool wrap) {
  const int64_t extent = data.shape()[axis];
  WideValue v = LoadElement(indices.dtype(), indices.element(k));
  // uint64 indices past int64's range are out of bounds anyway.
  int64_t index = v.domain == DTypeKind::kUnsigned
                      ? (v.u > static_cast<uint64_t>(extent) ? extent : static_cast<int64_t>(v.u))
                      : v.i;
  if (index < (wrap ? -extent : 0) || index >= extent) {
    return IndexOutOfBoundsError(node, data.type(), index, axis);
  }
  return index < 0 ? index + extent : index;
}

/// The row-major layout around an axis: take and scatter visit outer x count x inner.
struct AxisLayout {
  int64_t outer = 0, count = 0, inner = 1, extent = 0;
};
AxisLayout LayoutAround(const HostTensor& data, const HostTensor& indices, int axis,
                        int64_t gathered_elements) {
  AxisLayout l;
  l.extent = data.shape()[axis];
  for (int i = axis + 1; i < data.shape().rank(); ++i) l.inner *= data.shape()[i];
  l.count = indices.num_elements();
  l.outer = l.count * l.inner == 0 ? 0 : gathered_elements / (l.count * l.inner);
  return l;
}

}  // namespace

absl::StatusOr<HostTensor> EvalTakeNode(const Node& node, const HostTensor& data,
                                        const HostTensor& indices) {
  HostTensor out(node.type());
  const int axis = static_cast<int>(*node.attrs().Get<int64_t>("axis"));
  const AxisLayout l = LayoutAround(data, indices, axis, out.num_elements());
  for (int64_t k = 0; k < l.count; ++k) {
    absl::StatusOr<int64_t> index = PositionAlongAxis(node, data, indices, k, axis, true);
    if (!index.ok()) return index.status();
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t in = 0; in < l.inner; ++in) {
        CopyElement(out, (o * l.count + k) * l.inner + in, data,
                    (o * l.extent + *index) * l.inner + in);
      }
    }
  }
  return out;
}

absl::StatusOr<HostTensor> EvalScatterNode(const Node& node, const HostTensor& data,
                                           const HostTensor& indices, const HostTensor& values) {
  const Attributes& attrs = node.attrs();
  const int axis = static_cast<int>(*attrs.Get<int64_t>("axis"));
  const bool wrap = attrs.GetBool("wrap", true).value_or(true);
  const std::string& combiner = *attrs.Get<std::string>("combiner");
  const std::optional<OpCode> op = combiner == "set" ? std::nullopt : ParseOpName(combiner);
  const DType loop = values.dtype();
  const AxisLayout l = LayoutAround(data, indices, axis, values.num_elements());
  const bool in_place = attrs.GetBool("in_place", false).value_or(false);
  const bool typed_indices = indices.dtype() == DType::kInt64 || indices.dtype() == DType::kInt32;
  // An index's position along the axis, or -1 when it is out of range.
  auto normalize = [&](int64_t v) {
    if (v < 0 && wrap) v += l.extent;
    return v < 0 || v >= l.extent ? int64_t{-1} : v;
  };
  // `body` over the indices as a typed array (int64 or int32 only).
  auto with_typed_indices = [&](auto body) {
    return indices.dtype() == DType::kInt64
               ? body(reinterpret_cast<const int64_t*>(indices.data()))
               : body(reinterpret_cast<const int32_t*>(indices.data()));
  };
  // np.add.at of the array's own dtype (a histogram, a k-means sum, bincount): a typed loop
  // in the general path's order, so the sums round identically (a float32 sum through double
  // and back rounds as the float32 sum does); integers wrap as NumPy's do, added as unsigned.
  // position(k) gives index k's position, or -1 to stop (false is returned then).
  const bool typed_add = op == OpCode::kAdd && loop == data.dtype() &&
                         (loop == DType::kFloat64 || loop == DType::kFloat32 ||
                          loop == DType::kInt64 || loop == DType::kInt32);
  auto add_at = [&](HostTensor& out, auto position) {
    auto add = [&](auto* target_base, const auto* value_base) {
      for (int64_t o = 0; o < l.outer; ++o) {
        auto* target = target_base + o * l.extent * l.inner;
        const auto* value = value_base + o * l.count * l.inner;
        if (l.inner == 1) {  // scalars per index (bincount, a 1-D add.at): no inner loop
          for (int64_t k = 0; k < l.count; ++k) {
            const int64_t at = position(k);
            if (at < 0) return false;
            target[at] += value[k];
          }
          continue;
        }
        for (int64_t k = 0; k < l.count; ++k) {
          const int64_t at = position(k);
          if (at < 0) return false;
          for (int64_t in = 0; in < l.inner; ++in) {
            target[at * l.inner + in] += value[k * l.inner + in];
          }
        }
      }
      return true;
    };
    switch (loop) {
      case DType::kFloat64:
        return add(reinterpret_cast<double*>(out.data()),
                   reinterpret_cast<const double*>(values.data()));
      case DType::kFloat32:
        return add(reinterpret_cast<float*>(out.data()),
                   reinterpret_cast<const float*>(values.data()));
      case DType::kInt64:
        return add(reinterpret_cast<uint64_t*>(out.data()),
                   reinterpret_cast<const uint64_t*>(values.data()));
      default:
        return add(reinterpret_cast<uint32_t*>(out.data()),
                   reinterpret_cast<const uint32_t*>(values.data()));
    }
  };
  if (!in_place && typed_add && typed_indices) {
    // Into a fresh copy, one pass: a bad index leaves only that copy half written, and the
    // copy is discarded with the error (the general path below reports it). Storing every
    // position first cost a pass over 8 bytes an index (bincount at 10^7).
    HostTensor out = data.Clone();
    const bool added = with_typed_indices([&](const auto* index) {
      return add_at(out, [&](int64_t k) { return normalize(static_cast<int64_t>(index[k])); });
    });
    if (added) return out;
  }
  // Every index is checked before any element is written: a scatter in place (its old value's
  // storage donated, lib/eval/in_place_writes.h) must leave that storage as it was when an
  // index is out of range, so the array it belonged to keeps its values.
  std::vector<int64_t> positions(static_cast<size_t>(l.count));
  // int64 and int32 indices (bincount's, k-means' labels) in a typed loop; the general one
  // below makes the error message when one is out of range.
  const bool checked = typed_indices && with_typed_indices([&](const auto* index) {
                         for (int64_t k = 0; k < l.count; ++k) {
                           positions[k] = normalize(static_cast<int64_t>(index[k]));
                           if (positions[k] < 0) return false;
                         }
                         return true;
                       });
  for (int64_t k = 0; k < l.count && !checked; ++k) {
    absl::StatusOr<int64_t> index = PositionAlongAxis(node, data, indices, k, axis, wrap);
    if (!index.ok()) return index.status();
    positions[k] = *index;
  }
  HostTensor out = in_place ? data.SharingStorage(node.type()) : data.Clone();
  if (!op && loop == out.dtype()) {
    // A plain set of the same dtype: each index's inner run is one copy (the last write to
    // an index wins, as in NumPy's order below).
    const size_t run = static_cast<size_t>(l.inner * DTypeSize(loop));
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t k = 0; k < l.count; ++k) {
        CopyBytes(out.element((o * l.extent + positions[k]) * l.inner),
                  values.element((o * l.count + k) * l.inner), run);
      }
    }
    return out;
  }
  if (typed_add) {
    add_at(out, [&](int64_t k) { return positions[k]; });
    return out;
  }
  // Values in row-major order, so that a repeated index combines in NumPy's order.
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t k = 0; k < l.count; ++k) {
      const int64_t index = positions[k];
      for (int64_t in = 0; in < l.inner; ++in) {
        std::byte* target = out.element((o * l.extent + index) * l.inner + in);
        const WideValue v = LoadElement(loop, values.element((o * l.count + k) * l.inner + in));
        if (!op) {
          StoreElement(out.dtype(), target, v);
          continue;
        }
        const WideValue args[] = {ConvertTo(loop, LoadElement(out.dtype(), target)), v};
        StoreElement(out.dtype(), target, EvalElementwise(*op, loop, args));
      }
    }
  }
  return out;
}

}  // namespace gpuc::ir::interp
