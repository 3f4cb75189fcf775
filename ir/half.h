//===- half.h - float16 and bfloat16 bit conversions ----------------------===//
//
// gpuc stores float16 and bfloat16 as raw 16-bit patterns. These helpers convert between
// those patterns and double with round-to-nearest-even straight from double, so a value is
// rounded once (double -> float -> half would round twice and differ in rare ties).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_HALF_H_
#define GPUC_IR_HALF_H_

#include <cstdint>

namespace gpuc::ir {

uint16_t DoubleToHalfBits(double value);
double HalfBitsToDouble(uint16_t bits);
uint16_t DoubleToBFloat16Bits(double value);
double BFloat16BitsToDouble(uint16_t bits);

}  // namespace gpuc::ir

#endif  // GPUC_IR_HALF_H_
