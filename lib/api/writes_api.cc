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
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/setitem.h"
#include "lib/api/subscript.h"

namespace gpuc::detail {

std::string NumpyShapeText(const Shape& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ","), shape.size() == 1 ? ",)" : ")");
}

Array SetItemValue(const char* op, const Operand& value, DType dtype) {
  if (!value.is_scalar()) return Cast(Array(value.array_impl()), dtype);
  const Scalar& s = value.scalar();
  const ir::DType target = ToIr(dtype);
  const bool integral = s.kind() == Scalar::Kind::kInt || s.kind() == Scalar::Kind::kUInt;
  if (integral && ir::IsInteger(target)) {
    const bool huge = s.kind() == Scalar::Kind::kUInt &&
                      s.uint_value() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    absl::Status fits = huge ? (target == ir::DType::kUInt64
                                    ? absl::OkStatus()
                                    : absl::InvalidArgumentError(absl::StrCat(
                                          "integer scalar ", s.uint_value(),
                                          " is out of bounds for ", ir::DTypeNumpyName(target))))
                             : ir::CheckWeakIntFits(s.kind() == Scalar::Kind::kInt
                                                        ? s.int_value()
                                                        : static_cast<int64_t>(s.uint_value()),
                                                    target);
    if (!fits.ok()) ThrowInvalid(absl::StrCat(op, ": ", fits.message()));
    return Constant(s, dtype);
  }
  return Cast(Constant(s, DefaultDType(s)), dtype);
}

Array BroadcastForSetItem(const char* op, Array v, const Shape& target, const Shape& whole) {
  const Shape original = v.shape();
  // NumPy drops leading unit axes of a value with more axes than the target has.
  size_t extra = original.size() > target.size() ? original.size() - target.size() : 0;
  for (size_t k = 0; k < extra; ++k) {
    if (original[k] != 1) extra = 0;
  }
  if (extra > 0) v = Reshaped(v, Shape(original.begin() + extra, original.end()));
  if (!ir::BroadcastsTo(ir::Shape(v.shape()), ir::Shape(target))) {
    ThrowInvalid(absl::StrCat(op, ": could not broadcast input array from shape ",
                              NumpyShapeText(original), " into shape ", NumpyShapeText(target),
                              " (the region of ", NumpyShapeText(whole), ")"));
  }
  return Broadcast(v, target);
}

void CheckSameKindWriteBack(const char* op, DType combined, DType dtype) {
  const ir::DType from = ToIr(combined);
  const ir::DType to = ToIr(dtype);
  if (from != to && !ir::CanCast(from, to, ir::Casting::kSameKind)) {
    ThrowInvalid(absl::StrCat(op, ": cannot cast the result from ", ir::DTypeNumpyName(from),
                              " to ", ir::DTypeNumpyName(to), " with casting rule 'same_kind'"));
  }
}

void CheckCombinedWriteBack(const char* op, const Array& combined, const Shape& region,
                            DType dtype) {
  if (combined.shape() != region) {
    ThrowInvalid(absl::StrCat(op, ": non-broadcastable output operand with shape ",
                              NumpyShapeText(region), " doesn't match the broadcast shape ",
                              NumpyShapeText(combined.shape())));
  }
  CheckSameKindWriteBack(op, combined.dtype(), dtype);
}

}  // namespace gpuc::detail

namespace gpuc {

IndexedUpdate::IndexedUpdate(Array base, std::vector<Index> indices)
    : base_(std::move(base)), indices_(std::move(indices)) {}

IndexedUpdate::IndexedUpdate(Array base, Array index)
    : base_(std::move(base)), array_index_(std::move(index)) {}

IndexedUpdate Array::at(const Array& index) const { return IndexedUpdate(*this, index); }

Array IndexedUpdate::get() const { return array_index_ ? get_by_array() : base_.index(indices_); }

Array IndexedUpdate::set(const Operand& value) const { return write("set", value); }

Array IndexedUpdate::write(const char* op, const Operand& value) const {
  if (array_index_) return write_by_array(op, nullptr, value);
  detail::ScopedRecordingSite site(value.site());
  detail::ImplOf(base_, op);
  detail::ResolvedSubscript r = detail::ResolveSubscript(op, base_.shape(), indices_);
  Array v = detail::SetItemValue(op, value, base_.dtype());
  v = detail::Reshaped(detail::BroadcastForSetItem(op, v, r.result, base_.shape()), r.region);
  if (r.identity) return v;
  int64_t elements = 1;
  for (int64_t d : r.region) elements *= d;
  if (elements == 0) return base_;
  ir::Attributes attrs;
  attrs.Set("start", std::move(r.start));
  attrs.Set("stop", std::move(r.stop));
  attrs.Set("step", std::move(r.step));
  return detail::Record(ir::OpCode::kUpdateSlice, {base_, v}, std::move(attrs));
}

Array IndexedUpdate::combine(Array (*op)(const Operand&, const Operand&), const char* name,
                             const Operand& value) const {
  if (array_index_) return write_by_array(name, op, value);
  detail::ScopedRecordingSite site(value.site());
  const Array region = get();
  const Array combined = op(region, value);
  detail::CheckCombinedWriteBack(name, combined, region.shape(), base_.dtype());
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
