//===- half_test.cc - float16 / bfloat16 conversions ----------------------===//
#include "ir/half.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace gpuc::ir {
namespace {

TEST(Half, ExactValuesAndSpecials) {
  EXPECT_EQ(DoubleToHalfBits(1.0), 0x3c00);
  EXPECT_EQ(DoubleToHalfBits(-2.0), 0xc000);
  EXPECT_EQ(DoubleToHalfBits(65504.0), 0x7bff);  // largest finite
  EXPECT_EQ(DoubleToHalfBits(65520.0), 0x7c00);  // rounds up to inf
  EXPECT_EQ(DoubleToHalfBits(65519.99), 0x7bff);
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(1.0, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(3.0, -26)), 0x0001);  // above the tie
  EXPECT_EQ(DoubleToHalfBits(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalfBits(INFINITY), 0x7c00);
  EXPECT_TRUE(std::isnan(HalfBitsToDouble(DoubleToHalfBits(NAN))));
  // 1 + 2^-11 is halfway between 1 and the next half: ties to even (1.0).
  EXPECT_EQ(DoubleToHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(DoubleToHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
}

TEST(Half, EveryPatternRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double h = HalfBitsToDouble(static_cast<uint16_t>(bits));
    double b = BFloat16BitsToDouble(static_cast<uint16_t>(bits));
    if (!std::isnan(h)) {
      EXPECT_EQ(DoubleToHalfBits(h), bits) << std::hex << bits;
    }
    if (!std::isnan(b)) {
      EXPECT_EQ(DoubleToBFloat16Bits(b), bits) << std::hex << bits;
    }
  }
}

TEST(BFloat16, RoundsOnceFromDouble) {
  EXPECT_EQ(DoubleToBFloat16Bits(1.0), 0x3f80);
  EXPECT_EQ(DoubleToBFloat16Bits(3.0e38), 0x7f62);
  EXPECT_EQ(DoubleToBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3f80);  // tie to even
  // Just above the tie: a float32 rounding first would land on the tie and then go to even.
  EXPECT_EQ(DoubleToBFloat16Bits(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3f81);
}

}  // namespace
}  // namespace gpuc::ir
