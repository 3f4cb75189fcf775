//===- gpuc/reductions.h - Reductions and scans ---------------------------===//
//
// NumPy's reductions with its result dtypes: sum and prod of bool or signed integers are int64
// (unsigned: uint64); mean of integers is float64, of float16 float16 (accumulated in float32);
// var and stddev of complex values are real. max/min/argmax/argmin propagate NaN (the first NaN
// wins), and reducing a zero-size axis without an identity (max, argmin, ...) is an error.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_REDUCTIONS_H_
#define GPUC_REDUCTIONS_H_

#include <initializer_list>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

/// The axes a reduction runs over: all of them (the default), one, or a list; negative axes
/// count from the end.
class Axes {
 public:
  Axes() = default;
  template <typename T>
  requires std::is_integral_v<T> Axes(T axis)
      : all_(false), axes_{static_cast<int64_t>(axis)} {}  // NOLINT
  Axes(std::initializer_list<int64_t> axes) : all_(false), axes_(axes) {}
  Axes(std::vector<int64_t> axes) : all_(false), axes_(std::move(axes)) {}  // NOLINT

  bool all() const { return all_; }
  const std::vector<int64_t>& list() const { return axes_; }

 private:
  bool all_ = true;
  std::vector<int64_t> axes_;
};

Array sum(const Array& a, const Axes& axes = {}, bool keepdims = false);
Array prod(const Array& a, const Axes& axes = {}, bool keepdims = false);
Array max(const Array& a, const Axes& axes = {}, bool keepdims = false);
Array min(const Array& a, const Axes& axes = {}, bool keepdims = false);
Array any(const Array& a, const Axes& axes = {}, bool keepdims = false);
Array all(const Array& a, const Axes& axes = {}, bool keepdims = false);
Array mean(const Array& a, const Axes& axes = {}, bool keepdims = false);
/// The variance with `ddof` delta degrees of freedom (divides by n - ddof).
Array var(const Array& a, const Axes& axes = {}, int64_t ddof = 0, bool keepdims = false);
/// NumPy's std (named stddev so that it cannot be mistaken for the namespace).
Array stddev(const Array& a, const Axes& axes = {}, int64_t ddof = 0, bool keepdims = false);

/// The index of the first extreme over the flattened array (an int64 0-d array) ...
Array argmax(const Array& a);
Array argmin(const Array& a);
/// ... or along one axis.
Array argmax(const Array& a, int64_t axis, bool keepdims = false);
Array argmin(const Array& a, int64_t axis, bool keepdims = false);

/// Running sums and products over the flattened array, or along one axis.
Array cumsum(const Array& a);
Array cumsum(const Array& a, int64_t axis);
Array cumprod(const Array& a);
Array cumprod(const Array& a, int64_t axis);

}  // namespace gpuc

#endif  // GPUC_REDUCTIONS_H_
