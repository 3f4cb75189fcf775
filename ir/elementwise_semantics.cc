//===- elementwise_semantics.cc - What each elementwise op computes -------===//
#include "ir/elementwise_semantics.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

#include "ir/complex_arithmetic.h"
#include "ir/philox.h"

namespace gpuc::ir {
namespace {

using Complex = std::complex<double>;

// ---- Integers. Signed values compute in int64 through uint64 so that overflow wraps instead of
// being undefined; the store to the result dtype then keeps the low bits (NumPy's wrap-around).

int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

/// Floor division as NumPy: rounds toward -inf; x // 0 is 0; INT64_MIN // -1 wraps.
int64_t FloorDivSigned(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return WrapSub(0, a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/// Python's modulo: the sign of the divisor; x % 0 is 0.
int64_t ModSigned(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

uint64_t PowUnsigned(uint64_t base, uint64_t exponent) {
  uint64_t result = 1;
  while (exponent) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

/// NumPy raises for a negative integer exponent; a kernel cannot, so gpuc defines the value
/// 1/base truncated: 1 for base 1, +-1 for base -1, 0 otherwise.
int64_t PowSigned(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) ? -1 : 1;
    return 0;
  }
  return static_cast<int64_t>(
      PowUnsigned(static_cast<uint64_t>(base), static_cast<uint64_t>(exponent)));
}

/// The six comparisons, for any ordered domain (IEEE comparisons for doubles: NaN compares
/// unequal and unordered).
template <typename T>
std::optional<bool> Compare(OpCode op, T a, T b) {
  switch (op) {
    case OpCode::kEq:
      return a == b;
    case OpCode::kNe:
      return a != b;
    case OpCode::kLt:
      return a < b;
    case OpCode::kLe:
      return a <= b;
    case OpCode::kGt:
      return a > b;
    case OpCode::kGe:
      return a >= b;
    default:
      return std::nullopt;
  }
}

/// The ops that mean the same for every exact domain (bool, int64, uint64): comparisons,
/// extrema (no NaN among exact values), bitwise logic and the classification predicates.
template <typename T, typename Make>
std::optional<WideValue> EvalExactCommon(OpCode op, T a, T b, Make make) {
  auto p = [](bool v) { return WideValue::Bool(v); };
  if (std::optional<bool> c = Compare(op, a, b)) return p(*c);
  switch (op) {
    case OpCode::kMaximum:
    case OpCode::kFmax:
      return make(a >= b ? a : b);
    case OpCode::kMinimum:
    case OpCode::kFmin:
      return make(a <= b ? a : b);
    case OpCode::kBitwiseAnd:
      return make(static_cast<T>(a & b));
    case OpCode::kBitwiseOr:
      return make(static_cast<T>(a | b));
    case OpCode::kBitwiseXor:
      return make(static_cast<T>(a ^ b));
    case OpCode::kIsNan:
    case OpCode::kIsInf:
      return p(false);
    case OpCode::kIsFinite:
      return p(true);
    default:
      return std::nullopt;
  }
}

WideValue EvalSigned(OpCode op, int bits, int64_t a, int64_t b) {
  auto s = [](int64_t v) { return WideValue::Signed(v); };
  if (std::optional<WideValue> common = EvalExactCommon(op, a, b, s)) return *common;
  switch (op) {
    case OpCode::kAdd:
      return s(WrapAdd(a, b));
    case OpCode::kSub:
      return s(WrapSub(a, b));
    case OpCode::kMul:
      return s(WrapMul(a, b));
    case OpCode::kFloorDivide:
      return s(FloorDivSigned(a, b));
    case OpCode::kMod:
      return s(ModSigned(a, b));
    case OpCode::kPow:
      return s(PowSigned(a, b));
    case OpCode::kNeg:
      return s(WrapSub(0, a));
    case OpCode::kAbs:
      return s(a < 0 ? WrapSub(0, a) : a);
    case OpCode::kConj:
    case OpCode::kReal:
      return s(a);
    case OpCode::kImag:
      return s(0);
    case OpCode::kSign:
      return s(a > 0 ? 1 : (a < 0 ? -1 : 0));
    case OpCode::kSquare:
      return s(WrapMul(a, a));
    case OpCode::kReciprocal:
      return s(a == 1 ? 1 : (a == -1 ? -1 : 0));
    case OpCode::kRound:
      return s(a);
    case OpCode::kInvert:
      return s(~a);
    // Shifts by a negative count or by the width or more: NumPy gives 0, or -1 when an
    // arithmetic right shift of a negative value runs out of bits.
    case OpCode::kShiftLeft:
      return s(b < 0 || b >= bits ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b));
    case OpCode::kShiftRight:
      return s(b < 0 || b >= bits ? (a < 0 ? -1 : 0) : a >> b);
    default:
      return {};
  }
}

WideValue EvalUnsigned(OpCode op, int bits, uint64_t a, uint64_t b) {
  auto u = [](uint64_t v) { return WideValue::Unsigned(v); };
  if (std::optional<WideValue> common = EvalExactCommon(op, a, b, u)) return *common;
  switch (op) {
    case OpCode::kAdd:
      return u(a + b);
    case OpCode::kSub:
      return u(a - b);
    case OpCode::kMul:
      return u(a * b);
    case OpCode::kFloorDivide:
      return u(b == 0 ? 0 : a / b);
    case OpCode::kMod:
      return u(b == 0 ? 0 : a % b);
    case OpCode::kPow:
      return u(PowUnsigned(a, b));
    case OpCode::kNeg:
      return u(0 - a);
    case OpCode::kAbs:
    case OpCode::kRound:
    case OpCode::kConj:
    case OpCode::kReal:
      return u(a);
    case OpCode::kImag:
      return u(0);
    case OpCode::kSign:
      return u(a > 0 ? 1 : 0);
    case OpCode::kSquare:
      return u(a * a);
    case OpCode::kReciprocal:
      return u(a == 1 ? 1 : 0);
    case OpCode::kInvert:
      return u(~a);
    case OpCode::kShiftLeft:
      return u(b >= static_cast<uint64_t>(bits) ? 0 : a << b);
    case OpCode::kShiftRight:
      return u(b >= static_cast<uint64_t>(bits) ? 0 : a >> b);
    case OpCode::kPhilox:
      return u(PhiloxBits(a, b));
    default:
      return {};
  }
}

WideValue EvalBool(OpCode op, bool a, bool b) {
  auto p = [](bool v) { return WideValue::Bool(v); };
  if (std::optional<WideValue> common = EvalExactCommon(op, a, b, p)) return *common;
  switch (op) {
    case OpCode::kAdd:
      return p(a || b);
    case OpCode::kMul:
      return p(a && b);
    case OpCode::kInvert:
      return p(!a);
    case OpCode::kAbs:
    case OpCode::kConj:
    case OpCode::kReal:
      return p(a);
    case OpCode::kImag:
      return p(false);
    default:
      return {};
  }
}

// ---- Floats, with NumPy's npy_divmod for floor division and modulo.

double FloorDivFloat(double a, double b) {
  if (b == 0) return a / b;  // inf or nan, as NumPy
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return std::copysign(0.0, a / b);
  double floordiv = std::floor(div);
  if (div - floordiv > 0.5) floordiv += 1.0;
  return floordiv;
}

double ModFloat(double a, double b) {
  if (b == 0) return std::fmod(a, b);  // nan
  double mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

double MaxOf(double a, double b) {
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double MinOf(double a, double b) {
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

WideValue EvalFloat(OpCode op, double a, double b) {
  auto f = [](double v) { return WideValue::Float(v); };
  auto p = [](bool v) { return WideValue::Bool(v); };
  if (std::optional<bool> c = Compare(op, a, b)) return p(*c);
  switch (op) {
    case OpCode::kAdd:
      return f(a + b);
    case OpCode::kSub:
      return f(a - b);
    case OpCode::kMul:
      return f(a * b);
    case OpCode::kDiv:
      return f(a / b);
    case OpCode::kFloorDivide:
      return f(FloorDivFloat(a, b));
    case OpCode::kMod:
      return f(ModFloat(a, b));
    case OpCode::kPow:
      return f(std::pow(a, b));
    case OpCode::kNeg:
      return f(-a);
    case OpCode::kAbs:
      return f(std::fabs(a));
    case OpCode::kConj:
    case OpCode::kReal:
      return f(a);
    case OpCode::kImag:
      return f(0.0);
    case OpCode::kSign:
      return f(a > 0 ? 1.0 : (a < 0 ? -1.0 : (a == 0 ? 0.0 : a)));
    case OpCode::kSquare:
      return f(a * a);
    case OpCode::kReciprocal:
      return f(1.0 / a);
    // maximum/minimum propagate NaN; fmax/fmin return the other operand. Zeros of both signs
    // order as in IEEE 754-2019 (maximum(-0.0, 0.0) is 0.0): NumPy leaves that to the SIMD
    // instruction it happens to use, so gpuc fixes the rule its kernels can follow everywhere.
    case OpCode::kMaximum:
      return f(std::isnan(a) ? a : (std::isnan(b) ? b : MaxOf(a, b)));
    case OpCode::kMinimum:
      return f(std::isnan(a) ? a : (std::isnan(b) ? b : MinOf(a, b)));
    case OpCode::kFmax:
      return f(std::isnan(a) ? b : (std::isnan(b) ? a : MaxOf(a, b)));
    case OpCode::kFmin:
      return f(std::isnan(a) ? b : (std::isnan(b) ? a : MinOf(a, b)));
    case OpCode::kExp:
      return f(std::exp(a));
    case OpCode::kExp2:
      return f(std::exp2(a));
    case OpCode::kExpm1:
      return f(std::expm1(a));
    case OpCode::kLog:
      return f(std::log(a));
    case OpCode::kLog2:
      return f(std::log2(a));
    case OpCode::kLog10:
      return f(std::log10(a));
    case OpCode::kLog1p:
      return f(std::log1p(a));
    case OpCode::kSqrt:
      return f(std::sqrt(a));
    case OpCode::kRsqrt:
      return f(1.0 / std::sqrt(a));
    case OpCode::kCbrt:
      return f(std::cbrt(a));
    case OpCode::kSin:
      return f(std::sin(a));
    case OpCode::kCos:
      return f(std::cos(a));
    case OpCode::kTan:
      return f(std::tan(a));
    case OpCode::kAsin:
      return f(std::asin(a));
    case OpCode::kAcos:
      return f(std::acos(a));
    case OpCode::kAtan:
      return f(std::atan(a));
    case OpCode::kAtan2:
      return f(std::atan2(a, b));
    case OpCode::kSinh:
      return f(std::sinh(a));
    case OpCode::kCosh:
      return f(std::cosh(a));
    case OpCode::kTanh:
      return f(std::tanh(a));
    case OpCode::kAsinh:
      return f(std::asinh(a));
    case OpCode::kAcosh:
      return f(std::acosh(a));
    case OpCode::kAtanh:
      return f(std::atanh(a));
    case OpCode::kErf:
      return f(std::erf(a));
    case OpCode::kErfc:
      return f(std::erfc(a));
    case OpCode::kFloor:
      return f(std::floor(a));
    case OpCode::kCeil:
      return f(std::ceil(a));
    case OpCode::kRound:
      return f(std::nearbyint(a));  // half to even in the default mode
    case OpCode::kTrunc:
      return f(std::trunc(a));
    case OpCode::kIsNan:
      return p(std::isnan(a));
    case OpCode::kIsInf:
      return p(std::isinf(a));
    case OpCode::kIsFinite:
      return p(std::isfinite(a));
    default:
      return {};
  }
}

bool HasNan(Complex z) { return std::isnan(z.real()) || std::isnan(z.imag()); }

// NumPy's product in the loop's precision: complex64 parts multiply as floats.
Complex Multiply(DType loop, Complex a, Complex b) {
  if (loop != DType::kComplex64) return NumpyMultiply(a, b);
  const std::complex<float> p = NumpyMultiply(std::complex<float>(a), std::complex<float>(b));
  return {p.real(), p.imag()};
}

WideValue EvalComplex(OpCode op, DType loop, Complex a, Complex b) {
  auto c = [](Complex v) { return WideValue::Complex(v); };
  auto p = [](bool v) { return WideValue::Bool(v); };
  constexpr double kLn2 = std::numbers::ln2;
  switch (op) {
    case OpCode::kAdd:
      return c(a + b);
    case OpCode::kSub:
      return c(a - b);
    case OpCode::kMul:
      return c(Multiply(loop, a, b));
    case OpCode::kDiv:
      return c(a / b);
    case OpCode::kPow:
      return c(b == Complex(0, 0) ? Complex(1, 0) : std::pow(a, b));
    case OpCode::kNeg:
      return c(-a);
    case OpCode::kAbs:
      return WideValue::Float(loop == DType::kComplex64 ? NumpyAbs(std::complex<float>(a))
                                                        : NumpyAbs(a));
    case OpCode::kConj:
      return c(std::conj(a));
    case OpCode::kReal:
      return WideValue::Float(a.real());
    case OpCode::kImag:
      return WideValue::Float(a.imag());
    // NumPy 2: sign(z) = z / |z|, and 0 for 0.
    case OpCode::kSign:
      return c(a == Complex(0, 0) ? a : a / std::abs(a));
    case OpCode::kSquare:
      return c(Multiply(loop, a, a));
    case OpCode::kReciprocal:
      return c(Complex(1, 0) / a);
    case OpCode::kEq:
      return p(a == b);
    case OpCode::kNe:
      return p(a != b);
    case OpCode::kLt:
      return p(ComplexLess(a, b));
    case OpCode::kLe:
      return p(ComplexLess(a, b) || a == b);
    case OpCode::kGt:
      return p(ComplexLess(b, a));
    case OpCode::kGe:
      return p(ComplexLess(b, a) || a == b);
    case OpCode::kMaximum:
      return c(HasNan(a) ? a : (HasNan(b) ? b : (ComplexLess(a, b) ? b : a)));
    case OpCode::kMinimum:
      return c(HasNan(a) ? a : (HasNan(b) ? b : (ComplexLess(b, a) ? b : a)));
    case OpCode::kFmax:
      return c(HasNan(b) ? a : (HasNan(a) ? b : (ComplexLess(a, b) ? b : a)));
    case OpCode::kFmin:
      return c(HasNan(b) ? a : (HasNan(a) ? b : (ComplexLess(b, a) ? b : a)));
    case OpCode::kExp:
      return c(std::exp(a));
    case OpCode::kExp2:
      return c(std::exp(a * kLn2));
    case OpCode::kExpm1:
      return c(std::exp(a) - 1.0);
    case OpCode::kLog:
      return c(std::log(a));
    case OpCode::kLog2:
      return c(std::log(a) / kLn2);
    case OpCode::kLog10:
      return c(std::log10(a));
    case OpCode::kLog1p:
      return c(std::log(1.0 + a));
    case OpCode::kSqrt:
      return c(std::sqrt(a));
    case OpCode::kSin:
      return c(std::sin(a));
    case OpCode::kCos:
      return c(std::cos(a));
    case OpCode::kTan:
      return c(std::tan(a));
    case OpCode::kAsin:
      return c(std::asin(a));
    case OpCode::kAcos:
      return c(std::acos(a));
    case OpCode::kAtan:
      return c(std::atan(a));
    case OpCode::kSinh:
      return c(std::sinh(a));
    case OpCode::kCosh:
      return c(std::cosh(a));
    case OpCode::kTanh:
      return c(std::tanh(a));
    case OpCode::kAsinh:
      return c(std::asinh(a));
    case OpCode::kAcosh:
      return c(std::acosh(a));
    case OpCode::kAtanh:
      return c(std::atanh(a));
    case OpCode::kRound:
      return c({std::nearbyint(a.real()), std::nearbyint(a.imag())});
    case OpCode::kIsNan:
      return p(HasNan(a));
    case OpCode::kIsInf:
      return p(std::isinf(a.real()) || std::isinf(a.imag()));
    case OpCode::kIsFinite:
      return p(std::isfinite(a.real()) && std::isfinite(a.imag()));
    default:
      return {};
  }
}

}  // namespace

bool ComplexLess(Complex a, Complex b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

WideValue EvalElementwise(OpCode op, DType loop, absl::Span<const WideValue> args) {
  // Logical ops read truthiness in any domain.
  switch (op) {
    case OpCode::kLogicalAnd:
      return WideValue::Bool(IsTruthy(args[0]) && IsTruthy(args[1]));
    case OpCode::kLogicalOr:
      return WideValue::Bool(IsTruthy(args[0]) || IsTruthy(args[1]));
    case OpCode::kLogicalXor:
      return WideValue::Bool(IsTruthy(args[0]) != IsTruthy(args[1]));
    case OpCode::kLogicalNot:
      return WideValue::Bool(!IsTruthy(args[0]));
    default:
      break;
  }
  const WideValue& a = args[0];
  const WideValue& b = args.size() > 1 ? args[1] : args[0];
  switch (DomainOf(loop)) {
    case DTypeKind::kBool:
      return EvalBool(op, a.b, b.b);
    case DTypeKind::kSigned:
      return EvalSigned(op, IntegerBits(loop), a.i, b.i);
    case DTypeKind::kUnsigned:
      return EvalUnsigned(op, IntegerBits(loop), a.u, b.u);
    case DTypeKind::kFloat:
      return EvalFloat(op, a.f, b.f);
    case DTypeKind::kComplex:
      return EvalComplex(op, loop, a.c, b.c);
  }
  return {};
}

}  // namespace gpuc::ir
