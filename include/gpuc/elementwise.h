//===- gpuc/elementwise.h - Elementwise functions -------------------------===//
//
// Every elementwise op of the IR, by NumPy's name. Binary functions broadcast their operands
// and promote their dtypes as NumPy 2 does (C++ scalars are weak, see gpuc/array.h); unary
// functions pick NumPy's loop (exp of an int8 array is float16, of an int32 array float64).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_ELEMENTWISE_H_
#define GPUC_ELEMENTWISE_H_

#include <source_location>

#include "gpuc/array.h"

namespace gpuc {

// The function tables (clang-format would reflow them).
// clang-format off
#define GPUC_UNARY_FUNCTIONS(X) \
  X(negative) \
  X(positive) \
  X(abs) \
  X(conj) \
  X(conjugate) \
  X(real) \
  X(imag) \
  X(absolute) \
  X(sign) \
  X(square) \
  X(reciprocal) \
  X(logical_not) \
  X(invert) \
  X(bitwise_not) \
  X(exp) \
  X(exp2) \
  X(expm1) \
  X(log) \
  X(log2) \
  X(log10) \
  X(log1p) \
  X(sqrt) \
  X(rsqrt) \
  X(cbrt) \
  X(sin) \
  X(cos) \
  X(tan) \
  X(arcsin) \
  X(arccos) \
  X(arctan) \
  X(sinh) \
  X(cosh) \
  X(tanh) \
  X(arcsinh) \
  X(arccosh) \
  X(arctanh) \
  X(erf) \
  X(erfc) \
  X(floor) \
  X(ceil) \
  X(round) \
  X(rint) \
  X(trunc) \
  X(isnan) \
  X(isinf) \
  X(isfinite)

#define GPUC_BINARY_FUNCTIONS(X) \
  X(add) \
  X(subtract) \
  X(multiply) \
  X(divide) \
  X(true_divide) \
  X(floor_divide) \
  X(mod) \
  X(remainder) \
  X(power) \
  X(equal) \
  X(not_equal) \
  X(less) \
  X(less_equal) \
  X(greater) \
  X(greater_equal) \
  X(logical_and) \
  X(logical_or) \
  X(logical_xor) \
  X(bitwise_and) \
  X(bitwise_or) \
  X(bitwise_xor) \
  X(left_shift) \
  X(right_shift) \
  X(maximum) \
  X(minimum) \
  X(fmax) \
  X(fmin) \
  X(arctan2)
// clang-format on
// The trailing site argument (left to its default) lets errors name the caller's line.
#define GPUC_DECLARE_UNARY(name) \
  Array name(const Array& x, std::source_location site = std::source_location::current());
#define GPUC_DECLARE_BINARY(name) Array name(const Operand& a, const Operand& b);
GPUC_UNARY_FUNCTIONS(GPUC_DECLARE_UNARY)
GPUC_BINARY_FUNCTIONS(GPUC_DECLARE_BINARY)
#undef GPUC_DECLARE_UNARY
#undef GPUC_DECLARE_BINARY

/// `x` where `condition` (a bool array) holds, `y` elsewhere; all three broadcast.
Array where(const Operand& condition, const Operand& x, const Operand& y);
/// minimum(maximum(a, lo), hi), keeping a's dtype when the bounds are weak scalars.
Array clip(const Operand& a, const Operand& lo, const Operand& hi);
/// Converts to `dtype` with NumPy's unsafe casting (floats to integers truncate toward zero and
/// saturate; gpuc defines what NumPy leaves undefined, see docs/ir.md).
Array astype(const Array& x, DType dtype);

}  // namespace gpuc

#endif  // GPUC_ELEMENTWISE_H_
