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
#include "lib/api/recorder.h"
#include "lib/api/subscript.h"

namespace gpuc {
namespace detail {
namespace {

struct Range {
  int64_t start, stop, step;
};

/// Python's slice.indices(extent), in the IR's normalized form.
Range NormalizeSlice(const char* op, const Slice& s, int64_t extent, int axis) {
  if (s.step == 0) ThrowInvalid(absl::StrCat(op, ": slice step of axis ", axis, " is 0"));
  const bool forward = s.step > 0;
  const int64_t lower = forward ? 0 : -1;
  const int64_t upper = forward ? extent : extent - 1;
  auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t x = *v < 0 ? *v + extent : *v;
    return std::min(std::max(x, lower), upper);
  };
  // A step as long as the axis or longer selects the start alone, as any such step does;
  // clamping it keeps the length and index arithmetic (start + i * step, (stop - start +
  // step - 1) / step) clear of overflow for steps like INT64_MAX or INT64_MIN.
  const int64_t longest = std::max<int64_t>(extent, 1);
  const int64_t step = forward ? std::min(s.step, longest) : std::max(s.step, -longest);
  return {clamp(s.start, forward ? 0 : extent - 1), clamp(s.stop, forward ? extent : -1), step};
}

}  // namespace

ResolvedSubscript ResolveSubscript(const char* op, const Shape& shape,
                                   const std::vector<Index>& indices) {
  const int rank = static_cast<int>(shape.size());
  int consumed = 0, ellipses = 0;
  for (const Index& i : indices) {
    if (i.kind() == Index::Kind::kInteger || i.kind() == Index::Kind::kSlice) ++consumed;
    if (i.kind() == Index::Kind::kEllipsis) ++ellipses;
  }
  if (ellipses > 1) ThrowInvalid(absl::StrCat(op, ": an index can only have a single ellipsis"));
  if (consumed > rank) {
    ThrowInvalid(absl::StrCat(op, ": too many indices for an array of shape ",
                              ir::Shape(shape).ToString(), ": ", consumed, " were given"));
  }
  // The ellipsis, or else the end, stands for full slices of the axes not indexed.
  int missing = rank - consumed;
  std::vector<Index> expanded;
  expanded.reserve(indices.size() + missing);
  for (const Index& i : indices) {
    if (i.kind() != Index::Kind::kEllipsis) {
      expanded.push_back(i);
      continue;
    }
    for (; missing > 0; --missing) expanded.push_back(colon);
  }
  for (; missing > 0; --missing) expanded.push_back(colon);

  ResolvedSubscript r;
  for (std::vector<int64_t>* v : {&r.start, &r.stop, &r.step, &r.region, &r.result}) {
    v->reserve(expanded.size());
  }
  int axis = 0;
  for (const Index& i : expanded) {
    if (i.kind() == Index::Kind::kNewAxis) {
      r.result.push_back(1);
      continue;
    }
    const int64_t extent = shape[axis];
    if (i.kind() == Index::Kind::kInteger) {
      int64_t k = i.integer();
      if (k < -extent || k >= extent) {
        ThrowInvalid(absl::StrCat(op, ": index ", k, " is out of bounds for axis ", axis,
                                  " with size ", extent));
      }
      if (k < 0) k += extent;
      r.start.push_back(k);
      r.stop.push_back(k + 1);
      r.step.push_back(1);
      r.region.push_back(1);
      r.identity = r.identity && extent == 1;
    } else {
      Range range = NormalizeSlice(op, i.slice(), extent, axis);
      r.start.push_back(range.start);
      r.stop.push_back(range.stop);
      r.step.push_back(range.step);
      const int64_t length = ir::SliceLength(range.start, range.stop, range.step);
      r.identity = r.identity && range.step == 1 && range.start == 0 && length == extent;
      r.region.push_back(length);
      r.result.push_back(length);
    }
    ++axis;
  }
  return r;
}

}  // namespace detail

Array Array::index(const std::vector<Index>& indices) const {
  detail::ResolvedSubscript r = detail::ResolveSubscript("index", shape(), indices);
  Array sliced = *this;
  if (!r.identity) {
    ir::Attributes attrs;
    attrs.Set("start", std::move(r.start));
    attrs.Set("stop", std::move(r.stop));
    attrs.Set("step", std::move(r.step));
    sliced = detail::Record(ir::OpCode::kSlice, {*this}, std::move(attrs));
  }
  return detail::Reshaped(sliced, r.result);
}

}  // namespace gpuc
