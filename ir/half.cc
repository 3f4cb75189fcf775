//===- half.cc - float16 and bfloat16 bit conversions ---------------------===//
#include "ir/half.h"

#include <bit>
#include <cmath>

namespace gpuc::ir {
namespace {

/// Rounds a finite double to a binary float format with `mantissa_bits` stored fraction bits
/// and exponent bias `bias` (maximum biased exponent `max_exp` before infinity), returning the
/// 16-bit pattern. Handles subnormals, overflow to infinity and ties to even.
uint16_t RoundToSmallFloat(double value, int mantissa_bits, int exponent_bits) {
  uint64_t bits = std::bit_cast<uint64_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 63) << 15);
  int bias = (1 << (exponent_bits - 1)) - 1;
  uint16_t inf = static_cast<uint16_t>(((1u << exponent_bits) - 1) << mantissa_bits);
  if (std::isnan(value)) {
    // A quiet NaN that keeps the sign, as hardware conversions do.
    return static_cast<uint16_t>(sign | inf | (1u << (mantissa_bits - 1)));
  }
  double magnitude = std::fabs(value);
  if (std::isinf(value)) return sign | inf;
  if (magnitude == 0.0) return sign;
  int exponent;
  std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
  int unbiased = exponent - 1;       // magnitude = 1.x * 2^unbiased
  int min_normal = 1 - bias;
  // The spacing of representable values around `magnitude`: normal numbers keep
  // `mantissa_bits` fraction bits; below the normal range the spacing is fixed.
  int quantum_exp = (unbiased < min_normal ? min_normal : unbiased) - mantissa_bits;
  double scaled = std::ldexp(magnitude, -quantum_exp);  // exact: only the exponent changes
  double rounded = std::nearbyint(scaled);              // ties to even (default rounding mode)
  // `rounded` counts quanta; rebuild the pattern from it.
  uint64_t q = static_cast<uint64_t>(rounded);
  int e = quantum_exp + mantissa_bits;        // exponent of the leading bit when normal
  if (q >= (uint64_t{2} << mantissa_bits)) {  // rounding carried into the next binade
    q >>= 1;
    e += 1;
  }
  if (q < (uint64_t{1} << mantissa_bits)) {  // subnormal (or rounded to zero)
    return static_cast<uint16_t>(sign | q);
  }
  int biased = e + bias;
  if (biased >= (1 << exponent_bits) - 1) return sign | inf;
  uint64_t fraction = q - (uint64_t{1} << mantissa_bits);
  return static_cast<uint16_t>(sign | (biased << mantissa_bits) | fraction);
}

double SmallFloatToDouble(uint16_t bits, int mantissa_bits, int exponent_bits) {
  int bias = (1 << (exponent_bits - 1)) - 1;
  bool negative = bits >> 15;
  int biased = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1);
  uint32_t fraction = bits & ((1u << mantissa_bits) - 1);
  double magnitude;
  if (biased == (1 << exponent_bits) - 1) {
    magnitude = fraction ? std::nan("") : INFINITY;
  } else if (biased == 0) {
    magnitude = std::ldexp(static_cast<double>(fraction), 1 - bias - mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(fraction | (1u << mantissa_bits)),
                           biased - bias - mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

uint16_t DoubleToHalfBits(double value) { return RoundToSmallFloat(value, 10, 5); }
double HalfBitsToDouble(uint16_t bits) { return SmallFloatToDouble(bits, 10, 5); }
uint16_t DoubleToBFloat16Bits(double value) { return RoundToSmallFloat(value, 7, 8); }
double BFloat16BitsToDouble(uint16_t bits) { return SmallFloatToDouble(bits, 7, 8); }

}  // namespace gpuc::ir
