//===- reductions_api.cc - Reductions and scans of gpuc/reductions.h ------===//
#include "absl/strings/str_cat.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "lib/api/recorder.h"

namespace gpuc {
namespace {

using ir::OpCode;

std::vector<int64_t> ResolveAxes(const char* op, const Array& a, const Axes& axes) {
  if (axes.all()) {
    std::vector<int64_t> every(a.ndim());
    for (int i = 0; i < a.ndim(); ++i) every[i] = i;
    return every;
  }
  return detail::NormalizeAxesOrThrow(op, axes.list(), a.ndim());
}

Array Reduce(OpCode op, const Array& a, const std::vector<int64_t>& axes, bool keepdims) {
  ir::Attributes attrs;
  attrs.Set("axes", axes);
  attrs.Set("keepdims", keepdims);
  return detail::Record(op, {a}, std::move(attrs));
}

Array Reduce(OpCode op, const char* name, const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(op, a, ResolveAxes(name, a, axes), keepdims);
}

int64_t ReducedCount(const Array& a, const std::vector<int64_t>& axes) {
  int64_t n = 1;
  for (int64_t axis : axes) n *= a.shape()[axis];
  return n;
}

/// NumPy computes mean and var of integers in float64 and of half floats in float32, then
/// returns float64 and the half type respectively.
DType StatisticsDType(DType in) {
  if (in == float16 || in == bfloat16) return float32;
  if (in == float32 || in == float64 || in == complex64 || in == complex128) return in;
  return float64;
}

DType StatisticsResult(DType in) {
  return (in == float16 || in == bfloat16) ? in : StatisticsDType(in);
}

Array Variance(const char* name, const Array& a, const Axes& axes, int64_t ddof, bool keepdims) {
  const std::vector<int64_t> list = ResolveAxes(name, a, axes);
  const Array x = astype(a, StatisticsDType(a.dtype()));
  const double n = static_cast<double>(ReducedCount(a, list));
  const Array centered = x - Reduce(OpCode::kReduceSum, x, list, true) / n;
  // |d|^2 is real for complex input, as NumPy's var.
  const bool is_complex = x.dtype() == complex64 || x.dtype() == complex128;
  const Array squared = is_complex ? square(abs(centered)) : centered * centered;
  const double divisor = std::max(n - static_cast<double>(ddof), 0.0);
  return Reduce(OpCode::kReduceSum, squared, list, keepdims) / divisor;
}

Array ArgReduce(OpCode op, const char* name, const Array& a, std::optional<int64_t> axis,
                bool keepdims) {
  if (!axis) return Reduce(op, ravel(a), {0}, false);
  if (a.ndim() == 0) {
    detail::ThrowInvalid(absl::StrCat(name, ": axis ", *axis, " is out of bounds for a 0-d array"));
  }
  return Reduce(op, a, {detail::NormalizeAxisOrThrow(name, *axis, a.ndim())}, keepdims);
}

Array Scan(OpCode op, const char* name, const Array& a, std::optional<int64_t> axis) {
  Array in = a;
  int64_t along = 0;
  if (!axis) {
    in = ravel(a);
  } else {
    along = detail::NormalizeAxisOrThrow(name, *axis, a.ndim());
  }
  ir::Attributes attrs;
  attrs.Set("axis", along);
  return detail::Record(op, {in}, std::move(attrs));
}

}  // namespace

Array sum(const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(OpCode::kReduceSum, "sum", a, axes, keepdims);
}
Array prod(const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(OpCode::kReduceProd, "prod", a, axes, keepdims);
}
Array max(const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(OpCode::kReduceMax, "max", a, axes, keepdims);
}
Array min(const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(OpCode::kReduceMin, "min", a, axes, keepdims);
}
Array any(const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(OpCode::kReduceAny, "any", a, axes, keepdims);
}
Array all(const Array& a, const Axes& axes, bool keepdims) {
  return Reduce(OpCode::kReduceAll, "all", a, axes, keepdims);
}

Array mean(const Array& a, const Axes& axes, bool keepdims) {
  const std::vector<int64_t> list = ResolveAxes("mean", a, axes);
  const Array x = astype(a, StatisticsDType(a.dtype()));
  const double n = static_cast<double>(ReducedCount(a, list));
  return astype(Reduce(OpCode::kReduceSum, x, list, keepdims) / n, StatisticsResult(a.dtype()));
}

Array var(const Array& a, const Axes& axes, int64_t ddof, bool keepdims) {
  const Array v = Variance("var", a, axes, ddof, keepdims);
  return (a.dtype() == float16 || a.dtype() == bfloat16) ? astype(v, a.dtype()) : v;
}

Array stddev(const Array& a, const Axes& axes, int64_t ddof, bool keepdims) {
  const Array s = sqrt(Variance("stddev", a, axes, ddof, keepdims));
  return (a.dtype() == float16 || a.dtype() == bfloat16) ? astype(s, a.dtype()) : s;
}

Array argmax(const Array& a) { return ArgReduce(OpCode::kArgMax, "argmax", a, {}, false); }
Array argmin(const Array& a) { return ArgReduce(OpCode::kArgMin, "argmin", a, {}, false); }
Array argmax(const Array& a, int64_t axis, bool keepdims) {
  return ArgReduce(OpCode::kArgMax, "argmax", a, axis, keepdims);
}
Array argmin(const Array& a, int64_t axis, bool keepdims) {
  return ArgReduce(OpCode::kArgMin, "argmin", a, axis, keepdims);
}

Array cumsum(const Array& a) { return Scan(OpCode::kCumSum, "cumsum", a, {}); }
Array cumsum(const Array& a, int64_t axis) { return Scan(OpCode::kCumSum, "cumsum", a, axis); }
Array cumprod(const Array& a) { return Scan(OpCode::kCumProd, "cumprod", a, {}); }
Array cumprod(const Array& a, int64_t axis) { return Scan(OpCode::kCumProd, "cumprod", a, axis); }

}  // namespace gpuc
