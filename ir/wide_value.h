//===- wide_value.h - Elements widened for exact reference computation ----===//
//
// The reference interpreter computes every element in a wide domain: bool, int64 for signed
// integers, uint64 for unsigned, double for floats, complex<double> for complex. An element is
// loaded from its storage dtype into that domain, computed on, and stored back with one rounding
// (or two's-complement wrap for integers). The conversions here are gpuc's cast semantics, which
// every backend must match (docs/ir.md, "cast").
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_WIDE_VALUE_H_
#define GPUC_IR_WIDE_VALUE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "ir/attributes.h"
#include "ir/dtype.h"

namespace gpuc::ir {

/// The domain a dtype computes in: bool, signed, unsigned, float or complex.
inline DTypeKind DomainOf(DType d) { return KindOf(d); }

struct WideValue {
  DTypeKind domain = DTypeKind::kBool;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::complex<double> c;

  static WideValue Bool(bool v) {
    WideValue w;
    w.b = v;
    return w;
  }
  static WideValue Signed(int64_t v) {
    WideValue w;
    w.domain = DTypeKind::kSigned;
    w.i = v;
    return w;
  }
  static WideValue Unsigned(uint64_t v) {
    WideValue w;
    w.domain = DTypeKind::kUnsigned;
    w.u = v;
    return w;
  }
  static WideValue Float(double v) {
    WideValue w;
    w.domain = DTypeKind::kFloat;
    w.f = v;
    return w;
  }
  static WideValue Complex(std::complex<double> v) {
    WideValue w;
    w.domain = DTypeKind::kComplex;
    w.c = v;
    return w;
  }
};

/// Reads the element at `p` stored as `dtype`.
WideValue LoadElement(DType dtype, const std::byte* p);
/// Converts `value` to `dtype` and writes it at `p`: rounding to nearest even for floats,
/// wrapping for integers, truncation toward zero with saturation (NaN -> 0) from float to
/// integer, the real part from complex to real, non-zero -> true to bool.
void StoreElement(DType dtype, std::byte* p, const WideValue& value);
/// Converts `value` into `dtype`'s domain, rounded to `dtype` (so an f16 loop sees f16 values).
WideValue ConvertTo(DType dtype, const WideValue& value);

/// The value as a double: 0/1 for bool, the nearest double for integers, the real part of a
/// complex.
double ToDouble(const WideValue& value);

/// Truthiness, as NumPy's logical ops read any dtype (NaN is true).
bool IsTruthy(const WideValue& value);

/// The scalar attribute `value` (of constant and pad) as a wide value, not yet converted to a
/// dtype: 0 when absent, nullopt when it is not a number (the verifier rejects that).
std::optional<WideValue> ScalarAttribute(const Attributes& attrs);

}  // namespace gpuc::ir

#endif  // GPUC_IR_WIDE_VALUE_H_
