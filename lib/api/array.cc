//===- array.cc - The Array handle: queries, reads, operators -------------===//
#include <cstring>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gpuc/array.h"
#include "gpuc/elementwise.h"
#include "gpuc/manipulation.h"
#include "ir/copy_bytes.h"
#include "ir/printer.h"
#include "ir/wide_value.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/eval/evaluator.h"

namespace gpuc {

using detail::ImplOf;

Array::Array() = default;
Array::~Array() = default;
// A copy or move carries the value only, never where an assignment to a subscript writes.
Array::Array(const Array& other) : impl_(other.impl_) {}
Array::Array(Array&& other) noexcept : impl_(std::move(other.impl_)) {}
Array& Array::operator=(const Array& other) & {
  impl_ = other.impl_;
  subscripted_from_ = nullptr;
  subscript_.reset();
  return *this;
}
Array& Array::operator=(Array&& other) & noexcept {
  impl_ = std::move(other.impl_);
  subscripted_from_ = nullptr;
  subscript_.reset();
  return *this;
}
Array::Array(std::shared_ptr<detail::ArrayImpl> impl) : impl_(std::move(impl)) {}

Operand::Operand(const Array& array, std::source_location site)
    : array_(array.impl()), site_(site) {}

DType Array::dtype() const { return detail::FromIr(ImplOf(*this, "dtype").node->dtype()); }
const Shape& Array::shape() const { return ImplOf(*this, "shape").shape; }
int Array::ndim() const { return static_cast<int>(shape().size()); }
int64_t Array::size() const { return ImplOf(*this, "size").node->shape().num_elements(); }
int64_t Array::nbytes() const { return size() * itemsize(dtype()); }
int64_t Array::dim(int64_t axis) const {
  return shape()[detail::NormalizeAxisOrThrow("dim", axis, ndim())];
}
bool Array::is_evaluated() const { return ImplOf(*this, "is_evaluated").evaluated(); }

Array& Array::eval() {
  detail::EvaluateArrays({&ImplOf(*this, "eval")});
  return *this;
}

void Array::copy_to(void* dst, int64_t capacity) const {
  detail::ArrayImpl& impl = ImplOf(*this, "copy_to");
  const int64_t bytes = nbytes();
  if (capacity < bytes) {
    detail::ThrowInvalid(absl::StrCat("copy_to: ", impl.node->type().ToString(), " needs ", bytes,
                                      " bytes, the destination holds ", capacity));
  }
  detail::EvaluateForRead(impl, "copy_to");
  if (bytes > 0) ir::CopyBytes(dst, impl.host_tensor().data(), static_cast<size_t>(bytes));
}

void Array::copy_converted(DType as, void* dst, int64_t capacity) const {
  Array converted = detail::Cast(*this, as);
  detail::ArrayImpl& impl = ImplOf(converted, "to_host");
  detail::EvaluateForRead(impl, "to_host");
  const int64_t bytes = impl.host_tensor().size_in_bytes();
  if (bytes > capacity) detail::ThrowInvalid("to_host: internal size mismatch");
  if (bytes > 0) std::memcpy(dst, impl.host_tensor().data(), static_cast<size_t>(bytes));
}

void Array::copy_item(DType as, void* dst) const {
  detail::ArrayImpl& self = ImplOf(*this, "item");
  if (size() != 1) {
    detail::ThrowInvalid(
        absl::StrCat("item: only an array of one element converts to a scalar, "
                     "got ",
                     self.node->type().ToString()));
  }
  Array converted = detail::Cast(*this, as);
  detail::ArrayImpl& impl = ImplOf(converted, "item");
  detail::EvaluateForRead(impl, "item");
  std::memcpy(dst, impl.host_tensor().data(), static_cast<size_t>(itemsize(as)));
}

namespace {

std::string FormatElement(ir::DType dtype, const std::byte* p) {
  const ir::WideValue v = ir::LoadElement(dtype, p);
  switch (v.domain) {
    case ir::DTypeKind::kBool:
      return v.b ? "True" : "False";
    case ir::DTypeKind::kSigned:
      return absl::StrCat(v.i);
    case ir::DTypeKind::kUnsigned:
      return absl::StrCat(v.u);
    case ir::DTypeKind::kFloat:
      return ir::PrintDouble(v.f);
    case ir::DTypeKind::kComplex: {
      std::string imag = ir::PrintDouble(v.c.imag());
      if (imag[0] != '-') imag = "+" + imag;
      return absl::StrCat("(", ir::PrintDouble(v.c.real()), imag, "j)");
    }
  }
  return "?";
}

// Nested brackets, one level per axis, as Python prints nested lists.
void FormatAxis(const ir::HostTensor& t, int axis, int64_t& flat, std::string& out) {
  const ir::Shape& shape = t.shape();
  if (axis == shape.rank()) {
    out += FormatElement(t.dtype(), t.element(flat++));
    return;
  }
  out += "[";
  for (int64_t i = 0; i < shape[axis]; ++i) {
    if (i > 0) out += ", ";
    FormatAxis(t, axis + 1, flat, out);
  }
  out += "]";
}

}  // namespace

std::string Array::to_string() const {
  detail::ArrayImpl& impl = ImplOf(*this, "to_string");
  detail::EvaluateForRead(impl, "to_string");
  std::string out;
  int64_t flat = 0;
  FormatAxis(impl.host_tensor(), 0, flat, out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Array& a) { return os << a.to_string(); }

std::string Scalar::to_string() const {
  switch (kind_) {
    case Kind::kBool:
      return int_ ? "True" : "False";
    case Kind::kInt:
      return absl::StrCat(int_);
    case Kind::kUInt:
      return absl::StrCat(uint_);
    case Kind::kFloat:
      return ir::PrintDouble(complex_.real());
    case Kind::kComplex:
      return absl::StrCat("(", ir::PrintDouble(complex_.real()), "+",
                          ir::PrintDouble(complex_.imag()), "j)");
  }
  return "?";
}

Array Array::astype(DType dtype) const { return gpuc::astype(*this, dtype); }
Array Array::reshape(const Shape& shape) const { return gpuc::reshape(*this, shape); }
Array Array::transpose() const { return gpuc::transpose(*this); }
Array Array::transpose(const std::vector<int64_t>& axes) const {
  return gpuc::transpose(*this, axes);
}
Array Array::flatten() const { return gpuc::ravel(*this); }

Array Array::operator-() const { return negative(*this); }
Array Array::operator~() const { return invert(*this); }
Array Array::operator!() const { return logical_not(*this); }

Array& Array::compound_assign(Array (*op)(const Operand&, const Operand&), const char* name,
                              const Operand& other) {
  detail::ScopedRecordingSite site(other.site());
  detail::ArrayImpl& self = ImplOf(*this, name);
  Array result = op(*this, other);
  if (result.shape() != self.shape) {
    detail::ThrowInvalid(
        absl::StrCat(name, ": the result shape ", ir::Shape(result.shape()).ToString(),
                     " differs from the assigned array's ", self.node->type().ToString()));
  }
  const ir::DType from = detail::ToIr(result.dtype());
  const ir::DType to = self.node->dtype();
  if (from != to && !ir::CanCast(from, to, ir::Casting::kSameKind)) {
    detail::ThrowInvalid(absl::StrCat(name, ": cannot cast the result from ",
                                      ir::DTypeNumpyName(from), " to ", ir::DTypeNumpyName(to),
                                      " with casting rule 'same_kind'"));
  }
  *this = detail::Cast(result, detail::FromIr(to));
  return *this;
}

Array& Array::operator+=(const Operand& o) & { return compound_assign(add, "+=", o); }
void Array::operator+=(const Operand& o) && { compound_write(add, "+=", o); }
Array& Array::operator-=(const Operand& o) & { return compound_assign(subtract, "-=", o); }
void Array::operator-=(const Operand& o) && { compound_write(subtract, "-=", o); }
Array& Array::operator*=(const Operand& o) & { return compound_assign(multiply, "*=", o); }
void Array::operator*=(const Operand& o) && { compound_write(multiply, "*=", o); }
Array& Array::operator/=(const Operand& o) & { return compound_assign(divide, "/=", o); }
void Array::operator/=(const Operand& o) && { compound_write(divide, "/=", o); }
Array& Array::operator%=(const Operand& o) & { return compound_assign(mod, "%=", o); }
void Array::operator%=(const Operand& o) && { compound_write(mod, "%=", o); }
Array& Array::operator&=(const Operand& o) & { return compound_assign(bitwise_and, "&=", o); }
void Array::operator&=(const Operand& o) && { compound_write(bitwise_and, "&=", o); }
Array& Array::operator|=(const Operand& o) & { return compound_assign(bitwise_or, "|=", o); }
void Array::operator|=(const Operand& o) && { compound_write(bitwise_or, "|=", o); }
Array& Array::operator^=(const Operand& o) & { return compound_assign(bitwise_xor, "^=", o); }
void Array::operator^=(const Operand& o) && { compound_write(bitwise_xor, "^=", o); }
Array& Array::operator<<=(const Operand& o) & { return compound_assign(left_shift, "<<=", o); }
void Array::operator<<=(const Operand& o) && { compound_write(left_shift, "<<=", o); }
Array& Array::operator>>=(const Operand& o) & { return compound_assign(right_shift, ">>=", o); }
void Array::operator>>=(const Operand& o) && { compound_write(right_shift, ">>=", o); }

Array operator+(const Operand& a, const Operand& b) { return add(a, b); }
Array operator-(const Operand& a, const Operand& b) { return subtract(a, b); }
Array operator*(const Operand& a, const Operand& b) { return multiply(a, b); }
Array operator/(const Operand& a, const Operand& b) { return divide(a, b); }
Array operator%(const Operand& a, const Operand& b) { return mod(a, b); }
Array operator&(const Operand& a, const Operand& b) { return bitwise_and(a, b); }
Array operator|(const Operand& a, const Operand& b) { return bitwise_or(a, b); }
Array operator^(const Operand& a, const Operand& b) { return bitwise_xor(a, b); }
Array operator<<(const Operand& a, const Operand& b) { return left_shift(a, b); }
Array operator>>(const Operand& a, const Operand& b) { return right_shift(a, b); }
Array operator==(const Operand& a, const Operand& b) { return equal(a, b); }
Array operator!=(const Operand& a, const Operand& b) { return not_equal(a, b); }
Array operator<(const Operand& a, const Operand& b) { return less(a, b); }
Array operator<=(const Operand& a, const Operand& b) { return less_equal(a, b); }
Array operator>(const Operand& a, const Operand& b) { return greater(a, b); }
Array operator>=(const Operand& a, const Operand& b) { return greater_equal(a, b); }

}  // namespace gpuc
