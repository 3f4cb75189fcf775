//===- sorting_api.cc - sort, argsort, median, quantile, unique -----------===//
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/evaluation.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "gpuc/sorting.h"
#include "ir/wide_value.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/setitem.h"

namespace gpuc {
namespace {

// `a` and the axis an op works along: the flattened array's only axis for std::nullopt.
std::pair<Array, int64_t> Line(const char* op, const Array& a, std::optional<int64_t> axis) {
  detail::ImplOf(a, op);
  if (!axis) return {a.ndim() == 1 ? a : ravel(a), 0};
  if (a.ndim() == 0) {
    detail::ThrowInvalid(absl::StrCat(op, ": axis ", *axis,
                                      " is out of bounds for a 0-d array (pass no axis to use the "
                                      "flattened array)"));
  }
  return {a, detail::NormalizeAxisOrThrow(op, *axis, a.ndim())};
}

// A sort along `axis`, or with `kth` (increasing positions) a partition at them.
Array SortOp(ir::OpCode op, const Array& a, int64_t axis, std::vector<int64_t> kth = {}) {
  ir::Attributes attrs;
  attrs.Set("axis", axis);
  if (!kth.empty()) attrs.Set("kth", std::move(kth));
  return detail::Record(op, {a}, std::move(attrs));
}

// The positions a statistic reads, increasing and unique, with the last one (where NaNs sort)
// for the NaN check, as NumPy partitions for its median and quantiles.
std::vector<int64_t> Positions(std::vector<int64_t> kth, int64_t n) {
  kth.push_back(n - 1);
  std::sort(kth.begin(), kth.end());
  kth.erase(std::unique(kth.begin(), kth.end()), kth.end());
  return kth;
}

// a[..., lo:hi, ...] along `axis`, or a[..., k, ...] (the axis dropped).
Array Along(const Array& a, int64_t axis, int64_t lo, int64_t hi) {
  std::vector<Index> at(static_cast<size_t>(a.ndim()), colon);
  at[axis] = Slice(lo, hi);
  return a.index(at);
}
Array At(const Array& a, int64_t axis, int64_t k) {
  std::vector<Index> at(static_cast<size_t>(a.ndim()), colon);
  at[axis] = k;
  return a.index(at);
}

bool IsInexact(DType d) {
  const ir::DTypeKind k = ir::KindOf(detail::ToIr(d));
  return k == ir::DTypeKind::kFloat || k == ir::DTypeKind::kComplex;
}

// NaN where the sorted line ends in a NaN (NaNs sort last), as NumPy's NaN check.
Array NanWhereTheLineHasOne(const Array& sorted, int64_t axis, const Array& value) {
  if (!IsInexact(sorted.dtype()) || sorted.shape()[axis] == 0) return value;
  const Array last = At(sorted, axis, sorted.shape()[axis] - 1);
  return where(isnan(last), std::numeric_limits<double>::quiet_NaN(), value);
}

// Where one q of np.quantile's "linear" method reads a sorted line of n >= 1 values, as NumPy
// 1.24's _quantile computes it: the virtual index q (n - 1), its floor and the next position
// (both the last past the end, where gamma counts from -1).
struct QuantilePlace {
  int64_t prev, next;
  double gamma;
};
QuantilePlace PlaceOf(double q, int64_t n) {
  const double v = q * static_cast<double>(n - 1);
  QuantilePlace p{static_cast<int64_t>(std::floor(v)), 0, 0.0};
  p.next = p.prev + 1;
  p.gamma = v - static_cast<double>(p.prev);
  if (v >= static_cast<double>(n - 1)) {
    p.prev = p.next = n - 1;
    p.gamma = v + 1.0;
  }
  return p;
}

// The value there, interpolated as NumPy's _lerp: a + (b - a) gamma, or b - (b - a)(1 - gamma)
// from gamma >= 0.5; b - a in the input dtype, the rest in float64 (complex128), since gamma
// is a float64 array there.
Array LinearQuantile(const Array& sorted, int64_t axis, const QuantilePlace& p) {
  const DType wide =
      ir::KindOf(detail::ToIr(sorted.dtype())) == ir::DTypeKind::kComplex ? complex128 : float64;
  const Array a = At(sorted, axis, p.prev), b = At(sorted, axis, p.next);
  const Array diff = (b - a).astype(wide);
  const Array value =
      p.gamma >= 0.5 ? b.astype(wide) - diff * (1.0 - p.gamma) : a.astype(wide) + diff * p.gamma;
  return NanWhereTheLineHasOne(sorted, axis, value);
}

std::vector<Array> Quantiles(const char* op, const Array& a, const std::vector<double>& q,
                             std::optional<int64_t> axis, double scale) {
  auto [line, ax] = Line(op, a, axis);
  if (line.dtype() == bool_) {
    detail::ThrowInvalid(absl::StrCat(op,
                                      ": bool arrays are not supported (NumPy's linear "
                                      "interpolation subtracts them); cast them first"));
  }
  for (double x : q) {
    if (!(x >= 0.0 && x <= scale)) {
      detail::ThrowInvalid(absl::StrCat(op, ": q must be in [0, ", scale, "], got ", x));
    }
  }
  if (line.shape()[ax] == 0) {
    detail::ThrowInvalid(absl::StrCat(op, ": the array has no elements along axis ", ax, " (",
                                      detail::NumpyShapeText(line.shape()), ")"));
  }
  const int64_t n = line.shape()[ax];
  std::vector<QuantilePlace> places;
  std::vector<int64_t> positions;
  for (double x : q) {
    places.push_back(PlaceOf(x / scale, n));  // percentile: q / 100, as NumPy
    positions.push_back(places.back().prev);
    positions.push_back(places.back().next);
  }
  // Only the positions read (and the last, for NaNs) need their sorted values: a partition.
  const Array sorted = SortOp(ir::OpCode::kSort, line, ax, Positions(positions, n));
  std::vector<Array> values;
  for (const QuantilePlace& p : places) values.push_back(LinearQuantile(sorted, ax, p));
  return values;
}

}  // namespace

Array sort(const Array& a, std::optional<int64_t> axis) {
  auto [line, ax] = Line("sort", a, axis);
  return SortOp(ir::OpCode::kSort, line, ax);
}

Array argsort(const Array& a, std::optional<int64_t> axis) {
  auto [line, ax] = Line("argsort", a, axis);
  return SortOp(ir::OpCode::kArgSort, line, ax);
}

namespace {

// np.partition's and np.argpartition's check and kth (a negative one counts from the end).
Array PartitionOp(const char* name, ir::OpCode op, const Array& a, int64_t kth, int64_t axis) {
  auto [line, ax] = Line(name, a, axis);
  const int64_t n = line.shape()[ax];
  if (kth < -n || kth >= n) {
    detail::ThrowInvalid(absl::StrCat(name, ": kth ", kth, " is out of bounds for ", n,
                                      " elements along axis ", ax));
  }
  return SortOp(op, line, ax, {kth < 0 ? kth + n : kth});
}

}  // namespace

Array partition(const Array& a, int64_t kth, int64_t axis) {
  return PartitionOp("partition", ir::OpCode::kSort, a, kth, axis);
}

Array argpartition(const Array& a, int64_t kth, int64_t axis) {
  return PartitionOp("argpartition", ir::OpCode::kArgSort, a, kth, axis);
}

Array median(const Array& a, std::optional<int64_t> axis) {
  auto [line, ax] = Line("median", a, axis);
  const int64_t n = line.shape()[ax];
  // Only the middle one or two positions (and the last, for NaNs) need their sorted values.
  const Array sorted =
      n == 0 ? sort(line, ax)
             : SortOp(ir::OpCode::kSort, line, ax, Positions({(n - 1) / 2, n / 2}, n));
  // np.median takes np.mean of the middle one or two elements: its dtype rules and its sum.
  const Array middle = mean(Along(sorted, ax, (n - 1) / 2, n / 2 + 1), {ax});
  return NanWhereTheLineHasOne(sorted, ax, middle);
}

Array quantile(const Array& a, double q, std::optional<int64_t> axis) {
  return Quantiles("quantile", a, {q}, axis, 1.0)[0];
}
Array quantile(const Array& a, const std::vector<double>& q, std::optional<int64_t> axis) {
  return stack(Quantiles("quantile", a, q, axis, 1.0), 0);
}
Array percentile(const Array& a, double q, std::optional<int64_t> axis) {
  return Quantiles("percentile", a, {q}, axis, 100.0)[0];
}
Array percentile(const Array& a, const std::vector<double>& q, std::optional<int64_t> axis) {
  return stack(Quantiles("percentile", a, q, axis, 100.0), 0);
}

UniqueAll unique_all(const Array& a) {
  detail::ImplOf(a, "unique");
  const Array flat = ravel(a);
  const int64_t n = flat.size();
  UniqueAll out;
  if (n == 0) {
    out.values = flat;
    out.indices = zeros({0}, int64);
    out.inverse = zeros(a.shape(), int64);
    out.counts = zeros({0}, int64);
    return out;
  }
  // Everything but the number of distinct values is computed where the array lives: the sort,
  // where each value starts, and the scatters below. Only that number (the results' size) is
  // read back.
  const Array order = argsort(flat, 0);
  const Array sorted = take(flat, order);
  // A new value starts where an element differs from the one before; every NaN (they sort
  // last) is one value, starting at the first (NumPy's equal_nan).
  Array starts_here = ones({1}, bool_);
  if (n > 1) {
    const Array current = sorted(Slice(1, none)), previous = sorted(Slice(0, -1));
    Array differs = current != previous;
    if (ir::IsInexact(detail::ToIr(a.dtype()))) {
      differs = differs & logical_not(isnan(current) & isnan(previous));
    }
    starts_here = concatenate({starts_here, differs});
  }
  const Array group = cumsum(starts_here, 0) - 1;  // each sorted element's value, from 0
  const Array count_array = sum(starts_here);
  gpuc::eval({order, sorted, group, count_array});
  const int64_t count = count_array.item<int64_t>();
  // A value's first position in sorted order: the least position of its group.
  const Array starts = full({count}, n, int64).at(group).min(arange(int64_t{0}, n, 1, int64));
  out.values = take(sorted, starts);
  out.indices = take(order, starts);  // the stable sort keeps the first occurrence first
  out.counts = concatenate({starts(Slice(1, none)), full({1}, n, int64)}) - starts;
  out.inverse = zeros({n}, int64).at(order).set(group).reshape(a.shape());
  return out;
}

Array unique(const Array& a) { return unique_all(a).values; }

}  // namespace gpuc
