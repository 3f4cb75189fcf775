//===- elementwise_api.cc - The elementwise functions of gpuc/elementwise.h ===//
#include "absl/strings/str_cat.h"
#include "gpuc/elementwise.h"
#include "lib/api/recorder.h"

namespace gpuc {

using ir::OpCode;

#define GPUC_UNARY(name, op)                              \
  Array name(const Array& x, std::source_location site) { \
    detail::ScopedRecordingSite scope(site);              \
    return detail::Record(OpCode::op, {x});               \
  }
GPUC_UNARY(negative, kNeg)
GPUC_UNARY(abs, kAbs)
GPUC_UNARY(absolute, kAbs)
GPUC_UNARY(conj, kConj)
GPUC_UNARY(conjugate, kConj)
GPUC_UNARY(real, kReal)
GPUC_UNARY(imag, kImag)
GPUC_UNARY(sign, kSign)
GPUC_UNARY(square, kSquare)
GPUC_UNARY(reciprocal, kReciprocal)
GPUC_UNARY(logical_not, kLogicalNot)
GPUC_UNARY(invert, kInvert)
GPUC_UNARY(bitwise_not, kInvert)
GPUC_UNARY(exp, kExp)
GPUC_UNARY(exp2, kExp2)
GPUC_UNARY(expm1, kExpm1)
GPUC_UNARY(log, kLog)
GPUC_UNARY(log2, kLog2)
GPUC_UNARY(log10, kLog10)
GPUC_UNARY(log1p, kLog1p)
GPUC_UNARY(sqrt, kSqrt)
GPUC_UNARY(rsqrt, kRsqrt)
GPUC_UNARY(cbrt, kCbrt)
GPUC_UNARY(sin, kSin)
GPUC_UNARY(cos, kCos)
GPUC_UNARY(tan, kTan)
GPUC_UNARY(arcsin, kAsin)
GPUC_UNARY(arccos, kAcos)
GPUC_UNARY(arctan, kAtan)
GPUC_UNARY(sinh, kSinh)
GPUC_UNARY(cosh, kCosh)
GPUC_UNARY(tanh, kTanh)
GPUC_UNARY(arcsinh, kAsinh)
GPUC_UNARY(arccosh, kAcosh)
GPUC_UNARY(arctanh, kAtanh)
GPUC_UNARY(erf, kErf)
GPUC_UNARY(erfc, kErfc)
GPUC_UNARY(floor, kFloor)
GPUC_UNARY(ceil, kCeil)
GPUC_UNARY(round, kRound)
GPUC_UNARY(rint, kRound)
GPUC_UNARY(trunc, kTrunc)
GPUC_UNARY(isnan, kIsNan)
GPUC_UNARY(isinf, kIsInf)
GPUC_UNARY(isfinite, kIsFinite)
#undef GPUC_UNARY

Array positive(const Array& x, std::source_location site) {
  detail::ScopedRecordingSite scope(site);
  if (x.dtype() == bool_) {
    detail::ThrowInvalid("positive: not supported for bool, as in NumPy");
  }
  return x;
}

#define GPUC_BINARY(name, op) \
  Array name(const Operand& a, const Operand& b) { return detail::Binary(OpCode::op, a, b); }
GPUC_BINARY(add, kAdd)
GPUC_BINARY(subtract, kSub)
GPUC_BINARY(multiply, kMul)
GPUC_BINARY(divide, kDiv)
GPUC_BINARY(true_divide, kDiv)
GPUC_BINARY(floor_divide, kFloorDivide)
GPUC_BINARY(mod, kMod)
GPUC_BINARY(remainder, kMod)
GPUC_BINARY(power, kPow)
GPUC_BINARY(equal, kEq)
GPUC_BINARY(not_equal, kNe)
GPUC_BINARY(less, kLt)
GPUC_BINARY(less_equal, kLe)
GPUC_BINARY(greater, kGt)
GPUC_BINARY(greater_equal, kGe)
GPUC_BINARY(logical_and, kLogicalAnd)
GPUC_BINARY(logical_or, kLogicalOr)
GPUC_BINARY(logical_xor, kLogicalXor)
GPUC_BINARY(bitwise_and, kBitwiseAnd)
GPUC_BINARY(bitwise_or, kBitwiseOr)
GPUC_BINARY(bitwise_xor, kBitwiseXor)
GPUC_BINARY(left_shift, kShiftLeft)
GPUC_BINARY(right_shift, kShiftRight)
GPUC_BINARY(maximum, kMaximum)
GPUC_BINARY(minimum, kMinimum)
GPUC_BINARY(fmax, kFmax)
GPUC_BINARY(fmin, kFmin)
GPUC_BINARY(arctan2, kAtan2)
#undef GPUC_BINARY

Array where(const Operand& condition, const Operand& x, const Operand& y) {
  detail::ScopedRecordingSite site(condition.site());
  Array cond = condition.is_scalar() ? detail::Constant(condition.scalar(), bool_)
                                     : detail::Cast(Array(condition.array_impl()), bool_);
  std::vector<Array> values = detail::ResolveOperands(OpCode::kWhere, {&x, &y});
  return detail::Record(OpCode::kWhere, {cond, values[0], values[1]});
}

Array clip(const Operand& a, const Operand& lo, const Operand& hi) {
  detail::ScopedRecordingSite site(a.site());
  std::vector<Array> v = detail::ResolveOperands(OpCode::kMaximum, {&a, &lo, &hi});
  return detail::Record(OpCode::kMinimum, {detail::Record(OpCode::kMaximum, {v[0], v[1]}), v[2]});
}

Array astype(const Array& x, DType dtype) { return detail::Cast(x, dtype); }

}  // namespace gpuc
