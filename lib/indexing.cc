//===- indexing.cc - Array::index: integers, slices, newaxis, ellipsis ----===//
//
// A subscript becomes one slice node (integers select a length-1 range) and one reshape that
// drops the integer-indexed axes and inserts the new ones; either is skipped when it would be
// the identity.
//
//===----------------------------------------------------------------------===//
#include "absl/strings/str_cat.h"
#include "gpuc/array.h"
#include "ir/type_inference.h"
#include "lib/recorder.h"

namespace gpuc {
namespace {

struct Range {
  int64_t start, stop, step;
};

/// Python's slice.indices(extent), in the IR's normalized form.
Range NormalizeSlice(const Slice& s, int64_t extent, int axis) {
  if (s.step == 0) detail::ThrowInvalid(absl::StrCat("index: slice step of axis ", axis, " is 0"));
  const bool forward = s.step > 0;
  const int64_t lower = forward ? 0 : -1;
  const int64_t upper = forward ? extent : extent - 1;
  auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t x = *v < 0 ? *v + extent : *v;
    return std::min(std::max(x, lower), upper);
  };
  return {clamp(s.start, forward ? 0 : extent - 1), clamp(s.stop, forward ? extent : -1), s.step};
}

}  // namespace

Array Array::index(const std::vector<Index>& indices) const {
  const Shape& shape = this->shape();
  const int rank = ndim();
  int consumed = 0, ellipses = 0;
  for (const Index& i : indices) {
    if (i.kind() == Index::Kind::kInteger || i.kind() == Index::Kind::kSlice) ++consumed;
    if (i.kind() == Index::Kind::kEllipsis) ++ellipses;
  }
  if (ellipses > 1) detail::ThrowInvalid("index: an index can only have a single ellipsis");
  if (consumed > rank) {
    detail::ThrowInvalid(absl::StrCat("index: too many indices for an array of shape ",
                                      ir::Shape(shape).ToString(), ": ", consumed, " were given"));
  }
  // The ellipsis, or else the end, stands for full slices of the axes not indexed.
  int missing = rank - consumed;
  std::vector<Index> expanded;
  for (const Index& i : indices) {
    if (i.kind() != Index::Kind::kEllipsis) {
      expanded.push_back(i);
      continue;
    }
    for (; missing > 0; --missing) expanded.push_back(colon);
  }
  for (; missing > 0; --missing) expanded.push_back(colon);

  std::vector<int64_t> start, stop, step;
  Shape result;
  bool identity_slice = true;
  int axis = 0;
  for (const Index& i : expanded) {
    if (i.kind() == Index::Kind::kNewAxis) {
      result.push_back(1);
      continue;
    }
    const int64_t extent = shape[axis];
    if (i.kind() == Index::Kind::kInteger) {
      int64_t k = i.integer();
      if (k < -extent || k >= extent) {
        detail::ThrowInvalid(
            absl::StrCat("index: ", k, " is out of bounds for axis ", axis, " with size ", extent));
      }
      if (k < 0) k += extent;
      start.push_back(k);
      stop.push_back(k + 1);
      step.push_back(1);
      identity_slice = identity_slice && extent == 1;
    } else {
      Range r = NormalizeSlice(i.slice(), extent, axis);
      start.push_back(r.start);
      stop.push_back(r.stop);
      step.push_back(r.step);
      const int64_t length = ir::SliceLength(r.start, r.stop, r.step);
      identity_slice = identity_slice && r.step == 1 && r.start == 0 && length == extent;
      result.push_back(length);
    }
    ++axis;
  }
  Array sliced = *this;
  if (!identity_slice) {
    ir::Attributes attrs;
    attrs.Set("start", start);
    attrs.Set("stop", stop);
    attrs.Set("step", step);
    sliced = detail::Record(ir::OpCode::kSlice, {*this}, std::move(attrs));
  }
  return detail::Reshaped(sliced, result);
}

}  // namespace gpuc
