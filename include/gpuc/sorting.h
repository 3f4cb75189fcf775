//===- gpuc/sorting.h - Sorting, order statistics and unique values -------===//
//
// NumPy's sort, argsort, partition, median, quantile/percentile and unique over lazy arrays.
// Sorts are stable (NumPy's kind="stable") in NumPy's order: NaNs last, complex numbers
// lexicographically with their NaN classes after (ir/sort_order.h). A sort is a kernel
// boundary; the order statistics fuse around it (the middle elements, the interpolation, the
// NaN check). unique's length depends on the data, so it evaluates its input (as reading
// data does) and returns evaluated arrays.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_SORTING_H_
#define GPUC_SORTING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

/// np.sort(a, axis=axis, kind="stable"); std::nullopt sorts the flattened array.
Array sort(const Array& a, std::optional<int64_t> axis = -1);
/// np.argsort(a, axis=axis, kind="stable"): int64 positions, equal values in input order.
Array argsort(const Array& a, std::optional<int64_t> axis = -1);

/// np.partition(a, kth, axis): the element at kth is the one a sort puts there, those before
/// it are not greater, those after not smaller. gpuc returns the sorted line, which is such a
/// partition (NumPy's order of the other elements is its algorithm's, and differs).
Array partition(const Array& a, int64_t kth, int64_t axis = -1);
/// np.argpartition: the positions of partition's result (here argsort's).
Array argpartition(const Array& a, int64_t kth, int64_t axis = -1);

/// np.median(a, axis): the mean of the middle one or two values of each sorted line (NumPy's
/// dtype: float64 for integers and bool, the float dtype otherwise); NaN where the line
/// holds a NaN. std::nullopt: over the flattened array.
Array median(const Array& a, std::optional<int64_t> axis = std::nullopt);

/// np.quantile(a, q, axis) with NumPy's default method ("linear"): the value at q * (n - 1)
/// of each sorted line, interpolated as NumPy's _lerp does (bit for bit); float64 for real
/// input (as NumPy 1.24 gives even for float32), complex128 for complex; NaN where the line
/// holds a NaN. Each q in [0, 1]. With several q the result has q's axis first.
Array quantile(const Array& a, double q, std::optional<int64_t> axis = std::nullopt);
Array quantile(const Array& a, const std::vector<double>& q,
               std::optional<int64_t> axis = std::nullopt);
/// np.percentile: quantile of q / 100 (q in [0, 100]).
Array percentile(const Array& a, double q, std::optional<int64_t> axis = std::nullopt);
Array percentile(const Array& a, const std::vector<double>& q,
                 std::optional<int64_t> axis = std::nullopt);

/// np.unique(a, return_index=True, return_inverse=True, return_counts=True) (NumPy 2's
/// unique_all): the sorted distinct values of the flattened array, NaNs counted as one
/// (equal_nan), the first position of each, each element's position in `values` (in a's shape), and
/// how often each occurs. Evaluates `a`; the results are evaluated. int64 positions and counts.
struct UniqueAll {
  Array values;
  Array indices;
  Array inverse;
  Array counts;
};
UniqueAll unique_all(const Array& a);
/// np.unique(a): unique_all(a).values.
Array unique(const Array& a);

}  // namespace gpuc

#endif  // GPUC_SORTING_H_
