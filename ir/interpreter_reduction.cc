//===- interpreter_reduction.cc - Reduction nodes -------------------------===//
#include <algorithm>
#include <cmath>
#include <vector>

#include "ir/elementwise_semantics.h"
#include "ir/interpreter_kernels.h"

namespace gpuc::ir::interp {
namespace {

/// The running state of one output element's reduction, in the result's wide domain.
struct Accumulator {
  OpCode op;
  DType dtype;  // result dtype (the accumulator's domain for sum/prod)
  WideValue value;
  int64_t best_index = 0;  // argmin/argmax
  bool has_value = false;

  void Start() {
    has_value = false;
    best_index = 0;
    switch (op) {
      case OpCode::kReduceSum:
        value = ConvertTo(dtype, WideValue::Signed(0));
        break;
      case OpCode::kReduceProd:
        value = ConvertTo(dtype, WideValue::Signed(1));
        break;
      case OpCode::kReduceAny:
        value = WideValue::Bool(false);
        break;
      case OpCode::kReduceAll:
        value = WideValue::Bool(true);
        break;
      default:
        break;
    }
  }

  /// For max and min (not argmax/argmin, whose first extreme stays): +0.0 beats -0.0 in a
  /// max and -0.0 in a min, as IEEE 754-2019's maximum and minimum (and the elementwise ops),
  /// so the result does not depend on the order of the elements and vectorized code and
  /// GPU trees may combine them in any order.
  bool BreaksZeroTie(const WideValue& x, bool want_max) const {
    if (!has_value || x.domain != DTypeKind::kFloat) return false;
    if (op != OpCode::kReduceMax && op != OpCode::kReduceMin) return false;
    if (x.f != 0.0 || value.f != 0.0) return false;
    return want_max ? std::signbit(value.f) && !std::signbit(x.f)
                    : !std::signbit(value.f) && std::signbit(x.f);
  }

  /// Whether `x` should replace the current extreme: NaN wins and the first NaN stays, as in
  /// NumPy's max and argmax.
  bool Replaces(const WideValue& x, bool want_max) const {
    if (!has_value) return true;
    const WideValue& cur = value;
    switch (x.domain) {
      case DTypeKind::kFloat:
        if (std::isnan(cur.f)) return false;
        if (std::isnan(x.f)) return true;
        return want_max ? x.f > cur.f : x.f < cur.f;
      case DTypeKind::kComplex: {
        auto has_nan = [](std::complex<double> z) {
          return std::isnan(z.real()) || std::isnan(z.imag());
        };
        if (has_nan(cur.c)) return false;
        if (has_nan(x.c)) return true;
        return want_max ? ComplexLess(cur.c, x.c) : ComplexLess(x.c, cur.c);
      }
      case DTypeKind::kSigned:
        return want_max ? x.i > cur.i : x.i < cur.i;
      case DTypeKind::kUnsigned:
        return want_max ? x.u > cur.u : x.u < cur.u;
      case DTypeKind::kBool:
        return want_max ? (x.b && !cur.b) : (!x.b && cur.b);
    }
    return false;
  }

  void Add(const WideValue& x, int64_t position) {
    switch (op) {
      case OpCode::kReduceSum:
        value = EvalElementwise(OpCode::kAdd, dtype, {value, ConvertTo(dtype, x)});
        break;
      case OpCode::kReduceProd:
        value = EvalElementwise(OpCode::kMul, dtype, {value, ConvertTo(dtype, x)});
        break;
      case OpCode::kReduceAny:
        value.b = value.b || IsTruthy(x);
        break;
      case OpCode::kReduceAll:
        value.b = value.b && IsTruthy(x);
        break;
      case OpCode::kReduceMax:
      case OpCode::kArgMax:
      case OpCode::kReduceMin:
      case OpCode::kArgMin: {
        bool want_max = op == OpCode::kReduceMax || op == OpCode::kArgMax;
        if (Replaces(x, want_max) || BreaksZeroTie(x, want_max)) {
          value = x;
          best_index = position;
        }
        has_value = true;
        break;
      }
      default:
        break;
    }
  }

  WideValue Result() const {
    if (op == OpCode::kArgMax || op == OpCode::kArgMin) return WideValue::Signed(best_index);
    return value;
  }
};

}  // namespace

HostTensor EvalReductionNode(const Node& node, const HostTensor& input) {
  HostTensor out(node.type());
  const std::vector<int64_t>& axes = *node.attrs().Get<std::vector<int64_t>>("axes");
  const Shape& in_shape = input.shape();
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t a : axes) reduced[a] = true;
  // The kept and reduced sub-shapes; argmin/argmax report the flat index within the reduced
  // sub-shape, in row-major order (for all axes: NumPy's flattened index).
  std::vector<int64_t> kept_dims, reduced_dims;
  std::vector<int64_t> strides = ContiguousStrides(in_shape);
  std::vector<int64_t> kept_strides, reduced_strides;
  for (int i = 0; i < in_shape.rank(); ++i) {
    (reduced[i] ? reduced_dims : kept_dims).push_back(in_shape[i]);
    (reduced[i] ? reduced_strides : kept_strides).push_back(strides[i]);
  }
  Shape kept_shape(kept_dims), reduced_shape(reduced_dims);
  std::vector<int64_t> kept_index(kept_dims.size()), reduced_index(reduced_dims.size());
  Accumulator acc{node.op(), node.dtype(), WideValue()};
  // Input elements are widened as their own dtype; sum/prod convert to the accumulator.
  for (int64_t o = 0; o < kept_shape.num_elements(); ++o) {
    UnflattenIndex(o, kept_shape, absl::MakeSpan(kept_index));
    int64_t base = 0;
    for (size_t k = 0; k < kept_index.size(); ++k) base += kept_index[k] * kept_strides[k];
    acc.Start();
    for (int64_t r = 0; r < reduced_shape.num_elements(); ++r) {
      UnflattenIndex(r, reduced_shape, absl::MakeSpan(reduced_index));
      int64_t offset = base;
      for (size_t k = 0; k < reduced_index.size(); ++k) {
        offset += reduced_index[k] * reduced_strides[k];
      }
      acc.Add(LoadElement(input.dtype(), input.element(offset)), r);
    }
    StoreElement(node.dtype(), out.element(o), acc.Result());
  }
  return out;
}

}  // namespace gpuc::ir::interp
