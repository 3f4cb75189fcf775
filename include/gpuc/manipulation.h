//===- gpuc/manipulation.h - Views and data movement ----------------------===//
//
// Reshaping, reordering, slicing and joining. Arrays are values (gpuc/array.h), so a "view" is
// a recorded node that the compiler fuses into its consumers rather than an alias.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_MANIPULATION_H_
#define GPUC_MANIPULATION_H_

#include <source_location>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

Array reshape(const Array& a, const Shape& shape);
Array ravel(const Array& a);
Array transpose(const Array& a);
Array transpose(const Array& a, const std::vector<int64_t>& axes);
Array swapaxes(const Array& a, int64_t axis1, int64_t axis2);
Array moveaxis(const Array& a, int64_t source, int64_t destination);
Array moveaxis(const Array& a, const std::vector<int64_t>& source,
               const std::vector<int64_t>& destination);
Array expand_dims(const Array& a, int64_t axis);
Array expand_dims(const Array& a, const std::vector<int64_t>& axes);
/// Removes every unit axis, or the given ones (which must have extent 1).
Array squeeze(const Array& a);
Array squeeze(const Array& a, const std::vector<int64_t>& axes);
Array broadcast_to(const Array& a, const Shape& shape);
/// Elements of `a` at `indices` (integers; negative count from the end) along `axis`, or of the
/// flattened array. An index out of range is an error when the array is evaluated.
// take checks its indices when it is evaluated; `site` (left to its default) lets that error
// name the line that called take.
Array take(const Array& a, const Array& indices,
           std::source_location site = std::source_location::current());
Array take(const Array& a, const Array& indices, int64_t axis,
           std::source_location site = std::source_location::current());
/// Joins along an existing axis. Arrays of different dtypes are promoted as NumPy does.
Array concatenate(const std::vector<Array>& arrays, int64_t axis = 0);
/// Joins along a new axis.
Array stack(const std::vector<Array>& arrays, int64_t axis = 0);
/// Reverses the order along every axis, or along the given ones.
Array flip(const Array& a);
Array flip(const Array& a, const std::vector<int64_t>& axes);
/// Constant padding: `pad_width[i] = {before, after}` for axis i (one pair for every axis, or a
/// single pair used for all).
Array pad(const Array& a, const std::vector<std::pair<int64_t, int64_t>>& pad_width,
          Scalar value = 0);
/// Repeats the whole array `reps[i]` times along axis i (NumPy's rules for unequal lengths).
Array tile(const Array& a, const std::vector<int64_t>& reps);
/// Repeats each element `repeats` times along `axis`, or of the flattened array.
Array repeat(const Array& a, int64_t repeats);
Array repeat(const Array& a, int64_t repeats, int64_t axis);

}  // namespace gpuc

#endif  // GPUC_MANIPULATION_H_
