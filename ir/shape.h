//===- shape.h - Shapes, strides and NumPy broadcasting -------------------===//
//
// A Shape is the list of extents of an array (row-major, C order). Extents are known when an op
// is recorded (ARCHITECTURE.md decision 2); strides are counted in elements, not bytes.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_SHAPE_H_
#define GPUC_IR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace gpuc::ir {

/// The largest element count gpuc accepts for one array: far beyond any device memory, yet
/// small enough that a byte size (count * 16) and index sums never overflow int64.
inline constexpr int64_t kMaxElements = int64_t{1} << 56;
/// Highest rank gpuc accepts; NumPy's limit is 64 too.
inline constexpr int kMaxRank = 64;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims.begin(), dims.end()) {}
  explicit Shape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int axis) const { return dims_[axis]; }
  int64_t operator[](int axis) const { return dims_[axis]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  /// The extents as a vector, for code that edits them.
  std::vector<int64_t> ToVector() const { return {dims_.begin(), dims_.end()}; }
  /// Product of the extents (1 for a 0-d array). Valid only for shapes that passed
  /// ValidateShape, so it cannot overflow.
  int64_t num_elements() const;

  /// "[2,3]"; "[]" for 0-d.
  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  // Inline up to rank 4: shapes are copied into every node and type a program records, and a
  // heap block per copy was a large part of recording an op.
  absl::InlinedVector<int64_t, 4> dims_;
};

/// Checks that extents are non-negative, the rank is at most kMaxRank and the element count is
/// at most kMaxElements.
absl::Status ValidateShape(const Shape& shape);

/// Row-major strides in elements ({3,1} for [2,3]).
std::vector<int64_t> ContiguousStrides(const Shape& shape);

/// The lines along one axis of a row-major array (what a scan or a sort walks): `outer`
/// blocks of `extent` x `inner` elements; a line's elements are `inner` apart, and line
/// (o, i) starts at o * extent * inner + i. `outer` is 0 for an empty array.
struct AxisLines {
  int64_t extent = 0, inner = 1, outer = 0;
};
AxisLines LinesAlong(const Shape& shape, int axis);

/// NumPy broadcasting of two shapes; the error names both shapes and the first bad axis.
absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b);
/// Broadcasts any number of shapes (the empty list gives a 0-d shape).
absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes);
/// Whether `from` broadcasts to exactly `to` (as np.broadcast_to requires).
bool BroadcastsTo(const Shape& from, const Shape& to);

/// Normalizes a possibly negative axis against `rank`; error if out of range.
absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank);

/// Splits a flat row-major index into per-axis indices.
void UnflattenIndex(int64_t flat, const Shape& shape, absl::Span<int64_t> index);

}  // namespace gpuc::ir

#endif  // GPUC_IR_SHAPE_H_
