//===- creation.cc - Making arrays (gpuc/creation.h) ----------------------===//
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc {
namespace {

using ir::OpCode;

Array Iota(DType dtype, const Shape& shape, int64_t axis) {
  ir::Attributes attrs;
  attrs.Set("axis", axis);
  return detail::Record(OpCode::kIota, {}, std::move(attrs),
                        ir::TensorType{detail::ToIr(dtype), detail::ToIrShape(shape)});
}

void CheckShape(const char* op, const Shape& shape) {
  if (absl::Status s = ir::ValidateShape(detail::ToIrShape(shape)); !s.ok()) {
    detail::ThrowInvalid(absl::StrCat(op, ": ", s.message()));
  }
}

double AsDouble(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::kBool:
    case Scalar::Kind::kInt:
      return static_cast<double>(s.int_value());
    case Scalar::Kind::kUInt:
      return static_cast<double>(s.uint_value());
    case Scalar::Kind::kFloat:
      return s.float_value();
    case Scalar::Kind::kComplex:
      break;
  }
  detail::ThrowInvalid("arange: complex bounds are not supported");
}

}  // namespace

Array from_host(const void* data, DType dtype, int64_t count, const Shape& shape) {
  CheckShape("from_host", shape);
  ir::TensorType type{detail::ToIr(dtype), detail::ToIrShape(shape)};
  if (type.shape.num_elements() != count) {
    detail::ThrowInvalid(absl::StrCat("from_host: ", count, " elements do not fill shape ",
                                      type.shape.ToString(), " (", type.shape.num_elements(),
                                      " elements)"));
  }
  if (count > 0 && data == nullptr) detail::ThrowInvalid("from_host: null data pointer");
  ir::HostTensor tensor(type);
  if (tensor.size_in_bytes() > 0) {
    std::memcpy(tensor.data(), data, static_cast<size_t>(tensor.size_in_bytes()));
  }
  return Array(detail::MakeEvaluated(std::move(tensor)));
}

Array scalar(Scalar value, std::optional<DType> dtype) {
  return detail::Constant(value, dtype.value_or(detail::DefaultDType(value)));
}

Array full(const Shape& shape, Scalar value, std::optional<DType> dtype) {
  CheckShape("full", shape);
  return detail::Constant(value, dtype.value_or(detail::DefaultDType(value)), shape);
}
Array zeros(const Shape& shape, DType dtype) { return full(shape, 0, dtype); }
Array ones(const Shape& shape, DType dtype) { return full(shape, 1, dtype); }
Array empty(const Shape& shape, DType dtype) { return full(shape, 0, dtype); }

Array zeros_like(const Array& a, std::optional<DType> dtype) {
  return zeros(a.shape(), dtype.value_or(a.dtype()));
}
Array ones_like(const Array& a, std::optional<DType> dtype) {
  return ones(a.shape(), dtype.value_or(a.dtype()));
}
Array full_like(const Array& a, Scalar value, std::optional<DType> dtype) {
  return full(a.shape(), value, dtype.value_or(a.dtype()));
}
Array empty_like(const Array& a, std::optional<DType> dtype) {
  return empty(a.shape(), dtype.value_or(a.dtype()));
}

Array arange(Scalar stop) { return arange(0, stop, 1); }

Array arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype) {
  auto is_int = [](const Scalar& s) {
    return s.kind() == Scalar::Kind::kInt || s.kind() == Scalar::Kind::kUInt ||
           s.kind() == Scalar::Kind::kBool;
  };
  const bool integral = is_int(start) && is_int(stop) && is_int(step);
  const DType out = dtype.value_or(integral ? int64 : float64);
  const double b = AsDouble(start), e = AsDouble(stop), s = AsDouble(step);
  if (s == 0) detail::ThrowInvalid("arange: step must not be zero");
  int64_t n = 0;
  if (integral) {
    const int64_t bi = start.int_value(), ei = stop.int_value(), si = step.int_value();
    n = si > 0 ? (ei > bi ? (ei - bi + si - 1) / si : 0) : (bi > ei ? (bi - ei - si - 1) / -si : 0);
  } else {
    // An infinite step from a finite start takes one step at most (NumPy: arange(0, 5, inf)
    // is [0.]); the division would say 0.
    const double length = std::isinf(s) && std::isfinite(b) && std::isfinite(e)
                              ? ((e - b) * s > 0 ? 1.0 : 0.0)
                              : std::ceil((e - b) / s);
    // NaN or infinite bounds or step give no length (NumPy: "arange: cannot compute length");
    // casting such a double to an integer would be undefined.
    if (!std::isfinite(length)) {
      detail::ThrowInvalid(absl::StrCat("arange: cannot compute the length of arange(", b, ", ", e,
                                        ", ", s, "): a bound or the step is NaN or infinite"));
    }
    n = static_cast<int64_t>(std::max(0.0, length));
  }
  CheckShape("arange", {n});
  // NumPy computes start + i * step in the result dtype's precision class; float64 then a
  // cast gives the same values for every dtype that holds them.
  const DType compute = integral ? int64 : float64;
  Array i = Iota(compute, {n}, 0);
  // With an infinite step there is at most the start (0 * inf would be NaN).
  Array values = integral        ? i * step.int_value() + start.int_value()
                 : std::isinf(s) ? i * 0.0 + b
                                 : i * s + b;
  return astype(values, out);
}

Array linspace(double start, double stop, int64_t num, bool endpoint, DType dtype) {
  if (num < 0) detail::ThrowInvalid(absl::StrCat("linspace: num must be >= 0, got ", num));
  const int64_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  Array i = Iota(float64, {num}, 0);
  Array values = i * step + start;
  // As NumPy: the last value is exactly `stop`, whatever the rounding of start + i * step.
  if (endpoint && num > 1) values = where(i == static_cast<double>(num - 1), stop, values);
  return astype(values, dtype);
}

Array eye(int64_t n, std::optional<int64_t> m, int64_t k, DType dtype) {
  const int64_t cols = m.value_or(n);
  if (n < 0 || cols < 0) {
    detail::ThrowInvalid(absl::StrCat("eye: negative dimensions ", n, " x ", cols));
  }
  Array rows = Iota(int64, {n, cols}, 0);
  Array columns = Iota(int64, {n, cols}, 1);
  return astype(rows + k == columns, dtype);
}

Array identity(int64_t n, DType dtype) { return eye(n, n, 0, dtype); }

}  // namespace gpuc
