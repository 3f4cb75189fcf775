//===- shape.cc - Shapes, strides and NumPy broadcasting ------------------===//
#include "ir/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuc::ir {

int64_t Shape::num_elements() const {
  // A zero extent anywhere makes the product 0; checking first keeps the product of the other
  // (possibly huge) extents from overflowing on the way.
  for (int64_t d : dims_) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::ToString() const { return absl::StrCat("[", absl::StrJoin(dims_, ","), "]"); }

absl::Status ValidateShape(const Shape& shape) {
  if (shape.rank() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank ", shape.rank(), " exceeds the maximum of ", kMaxRank));
  }
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape.dims()) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", shape.ToString(), " has a negative extent"));
    }
    if (d == 0) empty = true;
  }
  if (empty) return absl::OkStatus();
  for (int64_t d : shape.dims()) {
    if (d > kMaxElements / n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", shape.ToString(), " has more than 2^56 elements, the most gpuc supports"));
    }
    n *= d;
  }
  return absl::OkStatus();
}

std::vector<int64_t> ContiguousStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank());
  int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

AxisLines LinesAlong(const Shape& shape, int axis) {
  AxisLines l;
  l.extent = shape[axis];
  for (int i = axis + 1; i < shape.rank(); ++i) l.inner *= shape[i];
  l.outer = l.extent == 0 || l.inner == 0 ? 0 : shape.num_elements() / (l.extent * l.inner);
  return l;
}

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    int ai = a.rank() - rank + i, bi = b.rank() - rank + i;
    int64_t da = ai >= 0 ? a[ai] : 1, db = bi >= 0 ? b[bi] : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(absl::StrCat("shapes ", a.ToString(), " and ", b.ToString(),
                                                     " cannot be broadcast together (axis ",
                                                     i - rank, ": ", da, " vs ", db, ")"));
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes) {
  Shape result;
  for (const Shape& s : shapes) {
    absl::StatusOr<Shape> next = BroadcastShapes(result, s);
    if (!next.ok() && shapes.size() <= 2) return next.status();  // already names both
    if (!next.ok()) {
      std::vector<std::string> all;
      for (const Shape& t : shapes) all.push_back(t.ToString());
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", absl::StrJoin(all, ", "), " cannot be broadcast together"));
    }
    result = *std::move(next);
  }
  return result;
}

bool BroadcastsTo(const Shape& from, const Shape& to) {
  if (from.rank() > to.rank()) return false;
  for (int i = 0; i < from.rank(); ++i) {
    int64_t f = from[from.rank() - 1 - i], t = to[to.rank() - 1 - i];
    if (f != t && f != 1) return false;
  }
  return true;
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of bounds for an array of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

void UnflattenIndex(int64_t flat, const Shape& shape, absl::Span<int64_t> index) {
  for (int i = shape.rank() - 1; i >= 0; --i) {
    int64_t d = shape[i];
    index[i] = d == 0 ? 0 : flat % d;
    flat = d == 0 ? 0 : flat / d;
  }
}

}  // namespace gpuc::ir
