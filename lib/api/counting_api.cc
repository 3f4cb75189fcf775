//===- counting_api.cc - bincount, histogram, searchsorted, digitize ------===//
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "gpuc/counting.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/evaluation.h"
#include "gpuc/manipulation.h"
#include "gpuc/reductions.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/setitem.h"

namespace gpuc {
namespace {

/// scatter-add of `values` into zeros(length) at `x`, with no wrapping of negative indices;
/// `api` names the public function in evaluation errors ("" for internal indices).
Array ScatterAddInto(int64_t length, const Array& x, const Array& values, const char* api = "") {
  ir::Attributes attrs;
  attrs.Set("axis", int64_t{0});
  attrs.Set("combiner", std::string("add"));
  attrs.Set("wrap", false);
  if (*api != '\0') attrs.Set("api", std::string(api));
  return detail::Record(ir::OpCode::kScatter, {zeros({length}, values.dtype()), x, values},
                        std::move(attrs));
}

Array CheckedBinIndices(const char* op, const Array& x, int64_t length) {
  detail::ImplOf(x, op);
  if (x.ndim() != 1) {
    detail::ThrowInvalid(
        absl::StrCat(op, ": x must be 1-D, not of shape ", detail::NumpyShapeText(x.shape())));
  }
  const ir::DType d = detail::ToIr(x.dtype());
  if (!ir::IsInteger(d) && d != ir::DType::kBool) {
    detail::ThrowInvalid(absl::StrCat(op, ": x must be integers, not ", ir::DTypeNumpyName(d),
                                      " (NumPy: Cannot cast array data according to 'safe')"));
  }
  if (length < 0) {
    detail::ThrowInvalid(absl::StrCat(op, ": length must be non-negative, got ", length));
  }
  return d == ir::DType::kBool ? x.astype(int64) : x;
}

}  // namespace

Array bincount(const Array& x, int64_t length, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array indices = CheckedBinIndices("bincount", x, length);
  return ScatterAddInto(length, indices, ones(x.shape(), int64), "bincount");
}

Array bincount(const Array& x, const Array& weights, int64_t length, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  const Array indices = CheckedBinIndices("bincount", x, length);
  detail::ImplOf(weights, "bincount");
  if (weights.shape() != x.shape()) {
    detail::ThrowInvalid(
        absl::StrCat("bincount: weights of shape ", detail::NumpyShapeText(weights.shape()),
                     " must have the shape of x, ", detail::NumpyShapeText(x.shape())));
  }
  if (ir::IsComplex(detail::ToIr(weights.dtype()))) {
    detail::ThrowInvalid("bincount: weights cannot be complex (NumPy casts them to float64)");
  }
  return ScatterAddInto(length, indices, weights.astype(float64), "bincount");
}

namespace {

// np.histogram's bin of each element of the flattened x over `bins` equal bins of [lo, hi],
// or `bins` for an element outside the range (it counts nowhere), and the edges.
struct Binned {
  Array index;
  Array edges;
};

// `range_dtype`: the dtype NumPy holds the range's ends in — float64 for a range given as
// numbers, x's own for a range autodetected from float x (np.float32 minimum and maximum),
// which rounds linspace's step to it.
Binned BinOf(const Array& x, int64_t bins, double lo, double hi, DType range_dtype = float64) {
  detail::ImplOf(x, "histogram");
  if (bins < 1) {
    detail::ThrowInvalid(absl::StrCat("histogram: bins must be positive, got ", bins));
  }
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) {
    detail::ThrowInvalid(absl::StrCat("histogram: the range (", lo, ", ", hi,
                                      ") must be finite with lo <= hi (NumPy: max must be "
                                      "larger than min in range parameter)"));
  }
  if (ir::IsComplex(detail::ToIr(x.dtype()))) {
    detail::ThrowInvalid("histogram: x cannot be complex");
  }
  // NumPy widens an empty range by half a unit each way.
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  // NumPy's computation step for step (lib/histograms.py, uniform bins): the bin from
  // (a - lo) * norm, then corrected by one against the edges themselves, so every element
  // lands in the bin whose edges hold it.
  const DType bin_dtype = ir::IsFloat(detail::ToIr(x.dtype())) ? x.dtype() : float64;
  const Array a = x.reshape({x.size()});
  Array edges = linspace(lo, hi, bins + 1, true, float64).astype(bin_dtype);
  if (range_dtype != float64) {
    // numpy.linspace with ends of range_dtype (NEP 50): every step in that dtype — the step
    // (hi - lo) / bins, then k * step + lo — and the last edge hi itself.
    const Array first = full({}, lo, range_dtype), last = full({}, hi, range_dtype);
    const Array delta = last - first;
    const Array step = delta / static_cast<int64_t>(bins);
    const Array k = arange(int64_t{0}, bins + 1, 1, range_dtype);
    const Array y = where(step == 0, k / static_cast<int64_t>(bins) * delta, k * step) + first;
    edges = where(arange(bins + 1) == bins, last, y).astype(bin_dtype);
  }
  const Array keep = (a >= lo) & (a <= hi);
  const Array t = a.astype(bin_dtype);
  const double norm = static_cast<double>(bins) / (hi - lo);  // a float64 scalar in NumPy
  Array index = ((t - lo).astype(float64) * norm).astype(int64);
  index = where(keep, index, 0);  // elements outside the range take no part
  index = where(index == bins, bins - 1, index);
  index = where(t < take(edges, index), index - 1, index);
  index =
      where((t >= take(edges, clip(index + 1, 0, bins))) & (index != bins - 1), index + 1, index);
  // Elements not kept go to an extra bin past the end, dropped from the counts.
  index = where(keep, clip(index, 0, bins - 1), bins);
  return {index, edges};
}

// NumPy's histogram walks x in blocks of this many elements (lib/histograms.py's BLOCK),
// adding each block's weighted bincount into the result: the block is part of the order the
// weights are summed in.
constexpr int64_t kNumpyHistogramBlock = 65536;

}  // namespace

namespace {

Histogram HistogramIn(const Array& x, int64_t bins, double lo, double hi, DType range_dtype) {
  Binned b = BinOf(x, bins, lo, hi, range_dtype);
  Array counts = ScatterAddInto(bins + 1, b.index, ones({x.size()}, int64))(Slice(0, bins));
  return {counts, b.edges};
}

Histogram WeightedHistogramIn(const Array& x, int64_t bins, double lo, double hi,
                              const Array& weights, DType range_dtype) {
  Binned b = BinOf(x, bins, lo, hi, range_dtype);
  detail::ImplOf(weights, "histogram");
  if (weights.shape() != x.shape()) {
    detail::ThrowInvalid(
        absl::StrCat("histogram: weights of shape ", detail::NumpyShapeText(weights.shape()),
                     " should have the shape of x, ", detail::NumpyShapeText(x.shape())));
  }
  const ir::DType w = detail::ToIr(weights.dtype());
  if (w == ir::DType::kBool || ir::IsComplex(w)) {
    detail::ThrowInvalid(absl::StrCat("histogram: weights of dtype ", ir::DTypeNumpyName(w),
                                      " are not supported (real numbers only)"));
  }
  // Each block's sums as np.bincount makes them (float64, in x's order), then rounded to the
  // weights' dtype and added block after block in it, as NumPy's `n += bincount(...)`.
  const int64_t n = x.size();
  const int64_t blocks =
      std::max<int64_t>(1, (n + kNumpyHistogramBlock - 1) / kNumpyHistogramBlock);
  const Array block = floor_divide(arange(n), kNumpyHistogramBlock);
  const Array slot = block * (bins + 1) + b.index;
  const Array sums = ScatterAddInto(blocks * (bins + 1), slot, weights.reshape({n}).astype(float64))
                         .reshape({blocks, bins + 1})(colon, Slice(0, bins))
                         .astype(weights.dtype());
  Array counts = zeros({bins}, weights.dtype());
  for (int64_t k = 0; k < blocks; ++k) counts = counts + sums(k);
  return {counts, b.edges};
}

// np.histogram's autodetected range: x's minimum and maximum as float64, (0, 1) when x is
// empty; an error when either is not finite.
std::pair<double, double> AutodetectedRange(const Array& x) {
  detail::ImplOf(x, "histogram");
  if (ir::IsComplex(detail::ToIr(x.dtype())))
    detail::ThrowInvalid("histogram: x cannot be complex");
  if (x.size() == 0) return {0.0, 1.0};
  const Array lo = min(x).astype(float64), hi = max(x).astype(float64);
  gpuc::eval({lo, hi});
  const double first = lo.item<double>(), last = hi.item<double>();
  if (!std::isfinite(first) || !std::isfinite(last)) {
    detail::ThrowInvalid(
        absl::StrCat("histogram: autodetected range of [", first, ", ", last, "] is not finite"));
  }
  return {first, last};
}

// The dtype NumPy holds an autodetected range in: x's when x is float (its min and max are
// scalars of it), else float64.
DType AutodetectedRangeDType(const Array& x) {
  return ir::IsFloat(detail::ToIr(x.dtype())) ? x.dtype() : float64;
}

}  // namespace

Histogram histogram(const Array& x, int64_t bins, double lo, double hi) {
  return HistogramIn(x, bins, lo, hi, float64);
}

Histogram histogram(const Array& x, int64_t bins, double lo, double hi, const Array& weights) {
  return WeightedHistogramIn(x, bins, lo, hi, weights, float64);
}

Histogram histogram(const Array& x, int64_t bins) {
  const auto [lo, hi] = AutodetectedRange(x);
  return HistogramIn(x, bins, lo, hi, AutodetectedRangeDType(x));
}

Histogram histogram(const Array& x, int64_t bins, const Array& weights) {
  const auto [lo, hi] = AutodetectedRange(x);
  return WeightedHistogramIn(x, bins, lo, hi, weights, AutodetectedRangeDType(x));
}

Array searchsorted(const Array& a, const Operand& v, Side side) {
  detail::ImplOf(a, "searchsorted");
  if (a.ndim() != 1) {
    detail::ThrowInvalid(absl::StrCat("searchsorted: a must be 1-D, not of shape ",
                                      detail::NumpyShapeText(a.shape())));
  }
  const Operand sorted_operand(a);
  std::vector<Array> both = detail::ResolveOperands(ir::OpCode::kLt, {&sorted_operand, &v});
  const DType common = detail::FromIr(
      ir::PromoteTypes(detail::ToIr(both[0].dtype()), detail::ToIr(both[1].dtype())));
  if (ir::IsComplex(detail::ToIr(common))) {
    detail::ThrowInvalid("searchsorted: complex values are not supported");
  }
  const Array sorted = both[0].astype(common);
  const Array values = both[1].astype(common);
  const int64_t n = sorted.size();
  if (n == 0) return zeros(values.shape(), int64);
  // NumPy's order: NaN after everything. x before y when x < y, or y is NaN and x is not.
  const bool floats = ir::IsFloat(detail::ToIr(common));
  auto before = [&](const Array& x, const Array& y) {
    return floats ? (x < y) | (isnan(y) & !isnan(x)) : x < y;
  };
  // Whether the answer lies past position i: a[i] < v (left), or a[i] <= v (right).
  auto past = [&](const Array& at) {
    const Array element = take(sorted, at);
    return side == Side::kLeft ? before(element, values) : !before(values, element);
  };
  // A branch-free lower bound: the halving steps depend only on n, so each is one gather and
  // a select, and the whole search fuses into one kernel.
  Array base = zeros(values.shape(), int64);
  for (int64_t len = n; len > 1; len -= len / 2) {
    const Array candidate = base + len / 2;
    base = where(past(candidate), candidate, base);
  }
  return base + past(base).astype(int64);
}

Array digitize(const Operand& x, const Array& bins, bool right) {
  detail::ImplOf(bins, "digitize");
  if (bins.ndim() != 1) {
    detail::ThrowInvalid(absl::StrCat("digitize: bins must be 1-D, not of shape ",
                                      detail::NumpyShapeText(bins.shape())));
  }
  const Side side = right ? Side::kLeft : Side::kRight;
  const int64_t n = bins.size();
  const Array increasing = searchsorted(bins, x, side);
  if (n < 2) return increasing;
  const Array reversed = bins(Slice(none, none, -1));
  const Array decreasing = n - searchsorted(reversed, x, side);
  // NumPy's test: decreasing when every step goes down (and one strictly); for monotonic
  // bins the first and last compare the same way.
  return where(bins(n - 1) < bins(0), decreasing, increasing);
}

}  // namespace gpuc
