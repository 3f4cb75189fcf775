//===- gpuc/counting.h - Counting and searching: bincount, histogram, ... --===//
//
// NumPy's counting and binary-search functions over lazy arrays. A lazy array's shape is
// known when it is recorded, so where NumPy's output length depends on the data (bincount's
// max(x) + 1) the length is an argument here; histogram's range is one, or is read from the
// data (two numbers read back, its shape does not depend on them).
// All of them fuse: searchsorted and digitize are branch-free binary searches (one gather
// per halving step) inside one elementwise kernel; bincount and histogram end in a scatter
// whose repeated indices accumulate.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_COUNTING_H_
#define GPUC_COUNTING_H_

#include <cstdint>
#include <source_location>

#include "gpuc/array.h"

namespace gpuc {

/// counts[i] = how many elements of the 1-D integer (or bool) array `x` equal i, for
/// 0 <= i < length: np.bincount(x, minlength=length) when every x < length. An element
/// outside [0, length) is an error when the result is evaluated (NumPy would lengthen the
/// result; a lazy array cannot). int64.
Array bincount(const Array& x, int64_t length,
               std::source_location site = std::source_location::current());
/// The same with `weights` (x's shape) summed instead of counting ones: float64, as NumPy's.
Array bincount(const Array& x, const Array& weights, int64_t length,
               std::source_location site = std::source_location::current());

/// np.histogram(x, bins, range=(lo, hi)): `bins` equal bins over [lo, hi] of the flattened
/// x, the last bin closed; elements outside the range (and NaNs) are not counted. counts is
/// int64[bins]; edges has bins + 1 values, float64 (x's dtype when x is a float array), the
/// same values and the same bin of every element as NumPy's.
struct Histogram {
  Array counts;
  Array edges;
};
Histogram histogram(const Array& x, int64_t bins, double lo, double hi);
/// np.histogram(x, bins, range=(lo, hi), weights=weights): each element adds its weight
/// (weights has x's shape; real dtypes) instead of one. counts has the weights' dtype and
/// NumPy's bits: its sums run in float64 over blocks of 65536 elements in x's order, each
/// block's rounded to the weights' dtype and added in turn, as NumPy 1.24 computes them.
Histogram histogram(const Array& x, int64_t bins, double lo, double hi, const Array& weights);
/// np.histogram(x, bins) and np.histogram(x, bins, weights=weights): the range NumPy
/// autodetects, x's minimum and maximum (widened by 0.5 each way when they are equal; (0, 1)
/// for an empty x). They are computed where x lives and read back (two numbers) to place the
/// edges; a range that is not finite (a NaN or an infinity in x) is an error, as NumPy's.
Histogram histogram(const Array& x, int64_t bins);
Histogram histogram(const Array& x, int64_t bins, const Array& weights);

enum class Side : uint8_t { kLeft, kRight };
/// np.searchsorted(a, v, side): for each element of v, where it would be inserted into the
/// sorted 1-D array `a` to keep it sorted (kLeft: before equal elements, kRight: after).
/// Compared in the promoted dtype; NaNs sort last, as in NumPy. int64, v's shape. `a` must be
/// sorted (as for NumPy, an unsorted `a` gives meaningless positions, not an error).
Array searchsorted(const Array& a, const Operand& v, Side side = Side::kLeft);
/// np.digitize(x, bins, right): the bin of each x for monotonically increasing or decreasing
/// `bins` (1-D). NumPy raises for non-monotonic bins; here they give meaningless bins.
Array digitize(const Operand& x, const Array& bins, bool right = false);

}  // namespace gpuc

#endif  // GPUC_COUNTING_H_
