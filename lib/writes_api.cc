//===- writes_api.cc - Writes into arrays: a(i...) = v and a.at(i...) -----===//
//
// A write is a value: a.at(i...).set(v) records update_slice(a, v') and returns the new array,
// and a(i...) = v rebinds a to it. v' is v broadcast to the region (NumPy's setitem rule:
// leading unit axes of v beyond the region's rank may be dropped) and cast to a's dtype as
// NumPy's setitem casts (unsafe, but an integer scalar must fit an integer array). The
// combining forms (add, multiply, ...) compute a(i...) op v as the ufunc would and cast back
// under 'same_kind', as NumPy's a[i] += v does.
//
//===----------------------------------------------------------------------===//
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpuc/array.h"
#include "gpuc/elementwise.h"
#include "ir/dtype.h"
#include "lib/array_impl.h"
#include "lib/recorder.h"
#include "lib/subscript.h"

namespace gpuc {
namespace {

std::string ShapeText(const Shape& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ","), shape.size() == 1 ? ",)" : ")");
}

/// `value` as an array of `dtype`, NumPy setitem's conversion.
Array SetItemValue(const char* op, const Operand& value, DType dtype) {
  if (!value.is_scalar()) return detail::Cast(Array(value.array_impl()), dtype);
  const Scalar& s = value.scalar();
  const ir::DType target = detail::ToIr(dtype);
  const bool integral = s.kind() == Scalar::Kind::kInt || s.kind() == Scalar::Kind::kUInt;
  if (integral && ir::IsInteger(target)) {
    const bool huge = s.kind() == Scalar::Kind::kUInt &&
                      s.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    absl::Status fits = huge ? (target == ir::DType::kUInt64
                                    ? absl::OkStatus()
                                    : absl::InvalidArgumentError(absl::StrCat(
                                          "Python integer ", s.uint_value(), " out of bounds for ",
                                          ir::DTypeNumpyName(target))))
                             : ir::CheckWeakIntFits(s.kind() == Scalar::Kind::kInt
                                                        ? s.int_value()
                                                        : static_cast<int64_t>(s.uint_value()),
                                                    target);
    if (!fits.ok()) detail::ThrowInvalid(absl::StrCat(op, ": ", fits.message()));
    return detail::Constant(s, dtype);
  }
  return detail::Cast(detail::Constant(s, detail::DefaultDType(s)), dtype);
}

}  // namespace

IndexedUpdate::IndexedUpdate(Array base, std::vector<Index> indices)
    : base_(std::move(base)), indices_(std::move(indices)) {}

Array IndexedUpdate::get() const { return base_.index(indices_); }

Array IndexedUpdate::set(const Operand& value) const { return write("set", value); }

Array IndexedUpdate::write(const char* op, const Operand& value) const {
  detail::ScopedRecordingSite site(value.site());
  detail::ImplOf(base_, op);
  const detail::ResolvedSubscript r = detail::ResolveSubscript(op, base_.shape(), indices_);
  Array v = SetItemValue(op, value, base_.dtype());
  // NumPy drops leading unit axes of a value with more axes than the region has.
  Shape dims = v.shape();
  size_t extra = dims.size() > r.result.size() ? dims.size() - r.result.size() : 0;
  for (size_t k = 0; k < extra; ++k) {
    if (dims[k] != 1) extra = 0;
  }
  if (extra > 0) v = detail::Reshaped(v, Shape(dims.begin() + extra, dims.end()));
  if (!ir::BroadcastsTo(ir::Shape(v.shape()), ir::Shape(r.result))) {
    detail::ThrowInvalid(absl::StrCat(
        op, ": could not broadcast input array from shape ",
        ShapeText(value.is_scalar() ? Shape{} : Array(value.array_impl()).shape()), " into shape ",
        ShapeText(r.result), " (the region of ", ShapeText(base_.shape()), ")"));
  }
  v = detail::Reshaped(detail::Broadcast(v, r.result), r.region);
  if (r.identity) return v;
  int64_t elements = 1;
  for (int64_t d : r.region) elements *= d;
  if (elements == 0) return base_;
  ir::Attributes attrs;
  attrs.Set("start", r.start);
  attrs.Set("stop", r.stop);
  attrs.Set("step", r.step);
  return detail::Record(ir::OpCode::kUpdateSlice, {base_, v}, std::move(attrs));
}

Array IndexedUpdate::combine(Array (*op)(const Operand&, const Operand&), const char* name,
                             const Operand& value) const {
  detail::ScopedRecordingSite site(value.site());
  const Array region = get();
  const Array combined = op(region, value);
  if (combined.shape() != region.shape()) {
    detail::ThrowInvalid(absl::StrCat(
        name, ": non-broadcastable output operand with shape ", ShapeText(region.shape()),
        " doesn't match the broadcast shape ", ShapeText(combined.shape())));
  }
  const ir::DType from = detail::ToIr(combined.dtype());
  const ir::DType to = detail::ToIr(base_.dtype());
  if (from != to && !ir::CanCast(from, to, ir::Casting::kSameKind)) {
    detail::ThrowInvalid(absl::StrCat(name, ": cannot cast the result from ",
                                      ir::DTypeNumpyName(from), " to ", ir::DTypeNumpyName(to),
                                      " with casting rule 'same_kind'"));
  }
  return write(name, combined);
}

Array IndexedUpdate::add(const Operand& v) const { return combine(gpuc::add, "add", v); }
Array IndexedUpdate::subtract(const Operand& v) const {
  return combine(gpuc::subtract, "subtract", v);
}
Array IndexedUpdate::multiply(const Operand& v) const {
  return combine(gpuc::multiply, "multiply", v);
}
Array IndexedUpdate::divide(const Operand& v) const { return combine(gpuc::divide, "divide", v); }
Array IndexedUpdate::min(const Operand& v) const { return combine(gpuc::minimum, "min", v); }
Array IndexedUpdate::max(const Operand& v) const { return combine(gpuc::maximum, "max", v); }

Array& Array::written_base(const char* op) const {
  if (subscripted_from_ == nullptr) {
    detail::ThrowInvalid(absl::StrCat(
        op,
        ": assigning to a temporary array changes nothing; assign through a subscript of a "
        "named array (a(i) = v) or rebind one (a = a.at(i).set(v))"));
  }
  return *subscripted_from_;
}

void Array::operator=(const Operand& value) && {
  Array& base = written_base("=");
  base = IndexedUpdate(base, *subscript_).set(value);
}

void Array::compound_write(Array (*op)(const Operand&, const Operand&), const char* name,
                           const Operand& other) {
  Array& base = written_base(name);
  base = IndexedUpdate(base, *subscript_).combine(op, name, other);
}

Array Array::subscript_of_this(std::vector<Index> indices) {
  Array view = index(indices);
  view.subscripted_from_ = this;
  view.subscript_ = std::make_shared<const std::vector<Index>>(std::move(indices));
  return view;
}

}  // namespace gpuc
