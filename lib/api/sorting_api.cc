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
  const Array order = argsort(flat, 0);
  const Array sorted = take(flat, order);
  gpuc::eval({order, sorted});
  const ir::HostTensor& s = detail::ImplOf(sorted, "unique").host_tensor();
  const ir::HostTensor& p = detail::ImplOf(order, "unique").host_tensor();
  const ir::DType dtype = s.dtype();
  const int64_t n = s.num_elements();
  const int64_t* perm = reinterpret_cast<const int64_t*>(p.data());
  auto is_nan = [&](const ir::WideValue& v) {
    return (v.domain == ir::DTypeKind::kFloat && std::isnan(v.f)) ||
           (v.domain == ir::DTypeKind::kComplex &&
            (std::isnan(v.c.real()) || std::isnan(v.c.imag())));
  };
  auto equal = [](const ir::WideValue& x, const ir::WideValue& y) {
    switch (x.domain) {
      case ir::DTypeKind::kBool:
        return x.b == y.b;
      case ir::DTypeKind::kSigned:
        return x.i == y.i;
      case ir::DTypeKind::kUnsigned:
        return x.u == y.u;
      case ir::DTypeKind::kFloat:
        return x.f == y.f;
      default:
        return x.c == y.c;
    }
  };
  // A new value starts where an element differs from the one before; every NaN (they sort
  // last) is one value, starting at the first (NumPy's equal_nan).
  std::vector<int64_t> starts;
  ir::WideValue previous;
  bool in_nans = false;
  for (int64_t i = 0; i < n; ++i) {
    const ir::WideValue v = ir::LoadElement(dtype, s.element(i));
    const bool nan = is_nan(v);
    if (i == 0 || (nan && !in_nans) || (!nan && !equal(v, previous))) starts.push_back(i);
    in_nans = in_nans || nan;
    previous = v;
  }
  const int64_t count = static_cast<int64_t>(starts.size());
  ir::HostTensor values(ir::TensorType{dtype, ir::Shape({count})});
  std::vector<int64_t> indices(starts.size()), counts(starts.size()),
      inverse(static_cast<size_t>(n));
  for (int64_t u = 0; u < count; ++u) {
    const int64_t begin = starts[u], end = u + 1 < count ? starts[u + 1] : n;
    std::memcpy(values.element(u), s.element(begin), static_cast<size_t>(ir::DTypeSize(dtype)));
    indices[u] = perm[begin];  // the stable sort keeps the first occurrence first
    counts[u] = end - begin;
    for (int64_t i = begin; i < end; ++i) inverse[perm[i]] = u;
  }
  UniqueAll out;
  out.values = Array(detail::MakeEvaluated(std::move(values)));
  out.indices = array(indices);
  out.inverse = array(inverse, a.shape());
  out.counts = array(counts);
  return out;
}

Array unique(const Array& a) { return unique_all(a).values; }

}  // namespace gpuc
