//===- manipulation_api.cc - Views and data movement of gpuc/manipulation.h =//
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "lib/api/recorder.h"

namespace gpuc {
namespace {

using ir::OpCode;

std::string ShapeText(const Shape& s) { return ir::Shape(s).ToString(); }

Array Transposed(const Array& a, const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity && static_cast<int>(perm.size()) == a.ndim()) return a;
  ir::Attributes attrs;
  attrs.Set("perm", perm);
  return detail::Record(OpCode::kTranspose, {a}, std::move(attrs));
}

DType ResultTypeOf(const std::vector<Array>& arrays) {
  ir::DType d = detail::ToIr(arrays[0].dtype());
  for (const Array& a : arrays) d = ir::PromoteTypes(d, detail::ToIr(a.dtype()));
  return detail::FromIr(d);
}

}  // namespace

Array reshape(const Array& a, const Shape& shape) {
  Shape resolved = shape;
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0)
        detail::ThrowInvalid("reshape: can only specify one unknown dimension (-1)");
      unknown = static_cast<int>(i);
    } else if (shape[i] < 0) {
      detail::ThrowInvalid(absl::StrCat("reshape: negative extent in ", ShapeText(shape)));
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || a.size() % known != 0) {
      detail::ThrowInvalid(absl::StrCat("reshape: cannot reshape an array of size ", a.size(),
                                        " into shape ", ShapeText(shape)));
    }
    resolved[unknown] = a.size() / known;
  }
  return detail::Reshaped(a, resolved);
}

Array ravel(const Array& a) { return detail::Reshaped(a, {a.size()}); }

Array transpose(const Array& a) {
  std::vector<int64_t> perm(a.ndim());
  std::iota(perm.rbegin(), perm.rend(), 0);
  return Transposed(a, perm);
}

Array transpose(const Array& a, const std::vector<int64_t>& axes) {
  if (static_cast<int>(axes.size()) != a.ndim()) {
    detail::ThrowInvalid(absl::StrCat("transpose: axes [", absl::StrJoin(axes, ","),
                                      "] don't match an array of shape ", ShapeText(a.shape())));
  }
  std::vector<int64_t> perm;
  for (int64_t axis : axes)
    perm.push_back(detail::NormalizeAxisOrThrow("transpose", axis, a.ndim()));
  return Transposed(a, perm);
}

Array swapaxes(const Array& a, int64_t axis1, int64_t axis2) {
  std::vector<int64_t> perm(a.ndim());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[detail::NormalizeAxisOrThrow("swapaxes", axis1, a.ndim())],
            perm[detail::NormalizeAxisOrThrow("swapaxes", axis2, a.ndim())]);
  return Transposed(a, perm);
}

Array moveaxis(const Array& a, int64_t source, int64_t destination) {
  return moveaxis(a, std::vector<int64_t>{source}, std::vector<int64_t>{destination});
}

Array moveaxis(const Array& a, const std::vector<int64_t>& source,
               const std::vector<int64_t>& destination) {
  if (source.size() != destination.size()) {
    detail::ThrowInvalid("moveaxis: source and destination must have the same number of axes");
  }
  // NumPy's algorithm: the axes not moved keep their order; the moved ones are inserted at
  // their destinations in increasing destination order.
  std::vector<int64_t> src = detail::NormalizeAxesOrThrow("moveaxis", source, a.ndim());
  std::vector<std::pair<int64_t, int64_t>> moves;
  for (size_t i = 0; i < source.size(); ++i) {
    moves.emplace_back(detail::NormalizeAxisOrThrow("moveaxis", destination[i], a.ndim()),
                       detail::NormalizeAxisOrThrow("moveaxis", source[i], a.ndim()));
  }
  std::vector<int64_t> dst;
  for (const auto& m : moves) dst.push_back(m.first);
  detail::NormalizeAxesOrThrow("moveaxis", dst, a.ndim());  // rejects repeated destinations
  std::vector<int64_t> order;
  for (int64_t i = 0; i < a.ndim(); ++i) {
    if (!std::binary_search(src.begin(), src.end(), i)) order.push_back(i);
  }
  std::sort(moves.begin(), moves.end());
  for (const auto& [to, from] : moves) order.insert(order.begin() + to, from);
  return Transposed(a, order);
}

Array expand_dims(const Array& a, int64_t axis) {
  return expand_dims(a, std::vector<int64_t>{axis});
}

Array expand_dims(const Array& a, const std::vector<int64_t>& axes) {
  const int out_rank = a.ndim() + static_cast<int>(axes.size());
  std::vector<int64_t> at = detail::NormalizeAxesOrThrow("expand_dims", axes, out_rank);
  Shape shape;
  size_t next = 0;
  for (int i = 0; i < out_rank; ++i) {
    if (std::binary_search(at.begin(), at.end(), i)) {
      shape.push_back(1);
    } else {
      shape.push_back(a.shape()[next++]);
    }
  }
  return detail::Reshaped(a, shape);
}

Array squeeze(const Array& a) {
  Shape shape;
  for (int64_t d : a.shape()) {
    if (d != 1) shape.push_back(d);
  }
  return detail::Reshaped(a, shape);
}

Array squeeze(const Array& a, const std::vector<int64_t>& axes) {
  std::vector<int64_t> drop = detail::NormalizeAxesOrThrow("squeeze", axes, a.ndim());
  Shape shape;
  for (int i = 0; i < a.ndim(); ++i) {
    if (!std::binary_search(drop.begin(), drop.end(), i)) {
      shape.push_back(a.shape()[i]);
    } else if (a.shape()[i] != 1) {
      detail::ThrowInvalid(absl::StrCat("squeeze: axis ", i, " of ", ShapeText(a.shape()),
                                        " has extent ", a.shape()[i], ", not 1"));
    }
  }
  return detail::Reshaped(a, shape);
}

Array broadcast_to(const Array& a, const Shape& shape) { return detail::Broadcast(a, shape); }

Array take(const Array& a, const Array& indices, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  return take(ravel(a), indices, 0);
}

Array take(const Array& a, const Array& indices, int64_t axis, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  ir::Attributes attrs;
  attrs.Set("axis", detail::NormalizeAxisOrThrow("take", axis, a.ndim()));
  return detail::Record(OpCode::kTake, {a, indices}, std::move(attrs));
}

Array concatenate(const std::vector<Array>& arrays, int64_t axis) {
  if (arrays.empty()) detail::ThrowInvalid("concatenate: needs at least one array");
  for (const Array& a : arrays) {
    if (a.ndim() == 0) detail::ThrowInvalid("concatenate: 0-d arrays cannot be concatenated");
  }
  const int64_t along = detail::NormalizeAxisOrThrow("concatenate", axis, arrays[0].ndim());
  if (arrays.size() == 1) return arrays[0];
  const DType dtype = ResultTypeOf(arrays);
  std::vector<Array> inputs;
  for (const Array& a : arrays) inputs.push_back(astype(a, dtype));
  ir::Attributes attrs;
  attrs.Set("axis", along);
  return detail::Record(OpCode::kConcatenate, inputs, std::move(attrs));
}

Array stack(const std::vector<Array>& arrays, int64_t axis) {
  if (arrays.empty()) detail::ThrowInvalid("stack: needs at least one array");
  const int64_t along = detail::NormalizeAxisOrThrow("stack", axis, arrays[0].ndim() + 1);
  std::vector<Array> expanded;
  for (const Array& a : arrays) {
    if (a.shape() != arrays[0].shape()) {
      detail::ThrowInvalid(absl::StrCat("stack: all arrays must have the same shape, got ",
                                        ShapeText(arrays[0].shape()), " and ",
                                        ShapeText(a.shape())));
    }
    expanded.push_back(expand_dims(a, along));
  }
  return concatenate(expanded, along);
}

Array flip(const Array& a) {
  std::vector<int64_t> axes(a.ndim());
  std::iota(axes.begin(), axes.end(), 0);
  return flip(a, axes);
}

Array flip(const Array& a, const std::vector<int64_t>& axes) {
  std::vector<int64_t> flipped = detail::NormalizeAxesOrThrow("flip", axes, a.ndim());
  if (flipped.empty()) return a;
  std::vector<int64_t> start, stop, step;
  for (int i = 0; i < a.ndim(); ++i) {
    const int64_t d = a.shape()[i];
    if (std::binary_search(flipped.begin(), flipped.end(), i)) {
      start.push_back(d - 1);
      stop.push_back(-1);
      step.push_back(-1);
    } else {
      start.push_back(0);
      stop.push_back(d);
      step.push_back(1);
    }
  }
  ir::Attributes attrs;
  attrs.Set("start", start);
  attrs.Set("stop", stop);
  attrs.Set("step", step);
  return detail::Record(OpCode::kSlice, {a}, std::move(attrs));
}

Array pad(const Array& a, const std::vector<std::pair<int64_t, int64_t>>& pad_width, Scalar value) {
  const size_t rank = static_cast<size_t>(a.ndim());
  if (pad_width.size() != rank && pad_width.size() != 1) {
    detail::ThrowInvalid(absl::StrCat("pad: ", pad_width.size(),
                                      " (before, after) pairs for an "
                                      "array of shape ",
                                      ShapeText(a.shape())));
  }
  std::vector<int64_t> low, high;
  for (size_t i = 0; i < rank; ++i) {
    const auto& [before, after] = pad_width.size() == 1 ? pad_width[0] : pad_width[i];
    low.push_back(before);
    high.push_back(after);
  }
  ir::Attributes attrs;
  attrs.Set("low", low);
  attrs.Set("high", high);
  attrs.Set("value", detail::ScalarAttrValue(value));
  return detail::Record(OpCode::kPad, {a}, std::move(attrs));
}

Array tile(const Array& a, const std::vector<int64_t>& reps) {
  for (int64_t r : reps) {
    if (r < 0) detail::ThrowInvalid(absl::StrCat("tile: negative repetition count ", r));
  }
  const size_t rank = std::max(reps.size(), static_cast<size_t>(a.ndim()));
  // NumPy pads the shorter of the two with leading ones.
  std::vector<int64_t> r(rank - reps.size(), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  Shape s(rank - a.ndim(), 1);
  s.insert(s.end(), a.shape().begin(), a.shape().end());
  // (s0, s1) -> (1, s0, 1, s1) -> broadcast (r0, s0, r1, s1) -> (r0 s0, r1 s1).
  Shape interleaved, repeated, result;
  for (size_t i = 0; i < rank; ++i) {
    interleaved.insert(interleaved.end(), {1, s[i]});
    repeated.insert(repeated.end(), {r[i], s[i]});
    result.push_back(r[i] * s[i]);
  }
  return detail::Reshaped(detail::Broadcast(detail::Reshaped(a, interleaved), repeated), result);
}

Array repeat(const Array& a, int64_t repeats) { return repeat(ravel(a), repeats, 0); }

Array repeat(const Array& a, int64_t repeats, int64_t axis) {
  if (repeats < 0) detail::ThrowInvalid(absl::StrCat("repeat: negative count ", repeats));
  const int64_t along = detail::NormalizeAxisOrThrow("repeat", axis, a.ndim());
  // (.., d, ..) -> (.., d, 1, ..) -> broadcast (.., d, n, ..) -> (.., d n, ..).
  Shape unit = a.shape(), repeated = a.shape(), result = a.shape();
  unit.insert(unit.begin() + along + 1, 1);
  repeated.insert(repeated.begin() + along + 1, repeats);
  result[along] *= repeats;
  return detail::Reshaped(detail::Broadcast(detail::Reshaped(a, unit), repeated), result);
}

}  // namespace gpuc
