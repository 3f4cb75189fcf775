//===- gpuc/creation.h - Making arrays -----------------------------------===//
//
// From host memory (always copied, so the caller's buffer may change afterwards) and NumPy's
// constructors. Constants and ranges are recorded as nodes, not filled buffers: zeros(n) * x
// costs no memory for the zeros once fusion lands.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_CREATION_H_
#define GPUC_CREATION_H_

#include <optional>
#include <span>
#include <vector>

#include "gpuc/array.h"

namespace gpuc {

/// Copies `count` elements of `dtype` from `data` into a new array of `shape` (whose element
/// count must be `count`).
Array from_host(const void* data, DType dtype, int64_t count, const Shape& shape);

/// A copy of `values` with `shape`; a 1-D array when the shape is omitted.
template <typename T>
Array array(std::span<const T> values, std::optional<Shape> shape = std::nullopt) {
  static_assert(kIsElementType<T>, "gpuc::array: unsupported element type");
  const int64_t count = static_cast<int64_t>(values.size());
  return from_host(values.data(), dtype_of<T>(), count, shape.value_or(Shape{count}));
}
template <typename T>
Array array(const std::vector<T>& values, std::optional<Shape> shape = std::nullopt) {
  static_assert(!std::is_same_v<T, bool>, "use std::span<const bool> or uint8 for vector<bool>");
  return array(std::span<const T>(values), std::move(shape));
}
template <typename T>
Array array(std::initializer_list<T> values, std::optional<Shape> shape = std::nullopt) {
  return array(std::span<const T>(values.begin(), values.size()), std::move(shape));
}

/// A 0-d array holding `value` with its default dtype (bool, int64, uint64, float64 or
/// complex128), or with `dtype` when given.
Array scalar(Scalar value, std::optional<DType> dtype = std::nullopt);

Array zeros(const Shape& shape, DType dtype = float64);
Array ones(const Shape& shape, DType dtype = float64);
/// Every element `value`; the dtype defaults to the value's (int64 for an int, float64 for a
/// double).
Array full(const Shape& shape, Scalar value, std::optional<DType> dtype = std::nullopt);
/// NumPy leaves empty()'s contents undefined; gpuc's are zeros, so no read is ever of garbage.
Array empty(const Shape& shape, DType dtype = float64);

Array zeros_like(const Array& a, std::optional<DType> dtype = std::nullopt);
Array ones_like(const Array& a, std::optional<DType> dtype = std::nullopt);
Array full_like(const Array& a, Scalar value, std::optional<DType> dtype = std::nullopt);
Array empty_like(const Array& a, std::optional<DType> dtype = std::nullopt);

/// Values start, start + step, ... below stop (above it for a negative step). The dtype
/// defaults as NumPy's: int64 when all three are integers, float64 otherwise.
Array arange(Scalar stop);
Array arange(Scalar start, Scalar stop, Scalar step = 1, std::optional<DType> dtype = std::nullopt);
/// `num` evenly spaced values from start to stop (inclusive unless endpoint is false).
Array linspace(double start, double stop, int64_t num = 50, bool endpoint = true,
               DType dtype = float64);
/// An n×m matrix with ones on diagonal k (k > 0 above the main diagonal).
Array eye(int64_t n, std::optional<int64_t> m = std::nullopt, int64_t k = 0, DType dtype = float64);
Array identity(int64_t n, DType dtype = float64);

}  // namespace gpuc

#endif  // GPUC_CREATION_H_
