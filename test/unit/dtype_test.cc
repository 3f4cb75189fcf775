//===- dtype_test.cc - Promotion and casting against NumPy's tables -------===//
#include "ir/dtype.h"

#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "test/unit/test_util.h"

namespace gpuc::ir {
namespace {

DType D(const std::string& name) {
  std::optional<DType> d = ParseDType(name);
  EXPECT_TRUE(d.has_value()) << name;
  return d.value_or(DType::kBool);
}

TEST(DType, PromoteTypesMatchesNumpyForAllPairs) {
  nlohmann::json table = test::LoadFixture("promotion.json")["promote"];
  ASSERT_EQ(table.size(), 14u * 14u);
  for (auto& [key, value] : table.items()) {
    std::vector<std::string> pair = absl::StrSplit(key, ',');
    EXPECT_EQ(DTypeName(PromoteTypes(D(pair[0]), D(pair[1]))), value.get<std::string>())
        << "promote_types(" << key << ")";
  }
}

TEST(DType, CanCastMatchesNumpyForAllPairsAndKinds) {
  nlohmann::json table = test::LoadFixture("promotion.json")["can_cast"];
  ASSERT_EQ(table.size(), 14u * 14u * 4u);
  for (auto& [key, value] : table.items()) {
    std::vector<std::string> parts = absl::StrSplit(key, ',');
    EXPECT_EQ(CanCast(D(parts[0]), D(parts[1]), *ParseCasting(parts[2])), value.get<bool>())
        << "can_cast(" << key << ")";
  }
}

TEST(DType, WeakScalarPromotionMatchesNep50) {
  nlohmann::json table = test::LoadFixture("promotion.json")["weak"];
  for (auto& [key, value] : table.items()) {
    std::vector<std::string> parts = absl::StrSplit(key, ',');
    WeakScalar kind = parts[1] == "int"     ? WeakScalar::kInt
                      : parts[1] == "float" ? WeakScalar::kFloat
                                            : WeakScalar::kComplex;
    EXPECT_EQ(DTypeName(PromoteWithWeakScalar(D(parts[0]), kind)), value.get<std::string>()) << key;
  }
}

TEST(DType, Nep50Examples) {
  // uint8 array + 300 is an error (NumPy 2 raises OverflowError); + 255 fits.
  absl::Status overflow = CheckWeakIntFits(300, DType::kUInt8);
  EXPECT_FALSE(overflow.ok());
  EXPECT_NE(overflow.message().find("300"), std::string::npos);
  EXPECT_NE(overflow.message().find("uint8"), std::string::npos);
  EXPECT_TRUE(CheckWeakIntFits(255, DType::kUInt8).ok());
  EXPECT_FALSE(CheckWeakIntFits(-1, DType::kUInt64).ok());
  EXPECT_TRUE(CheckWeakIntFits(-128, DType::kInt8).ok());
  EXPECT_FALSE(CheckWeakIntFits(-129, DType::kInt8).ok());
  EXPECT_TRUE(CheckWeakIntFits(1 << 20, DType::kFloat16).ok());  // floats take any int
  // int32 scalar-array + 5j -> complex128; float32 + 1j -> complex64; int8 + 1.5 -> float64.
  EXPECT_EQ(PromoteWithWeakScalar(DType::kInt32, WeakScalar::kComplex), DType::kComplex128);
  EXPECT_EQ(PromoteWithWeakScalar(DType::kFloat32, WeakScalar::kComplex), DType::kComplex64);
  EXPECT_EQ(PromoteWithWeakScalar(DType::kInt8, WeakScalar::kFloat), DType::kFloat64);
  EXPECT_EQ(PromoteWithWeakScalar(DType::kFloat16, WeakScalar::kFloat), DType::kFloat16);
}

TEST(DType, BFloat16PromotesLikeFloat16WithIntegers) {
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kInt8), DType::kBFloat16);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kUInt8), DType::kBFloat16);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kInt16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kInt32), DType::kFloat64);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kBool), DType::kBFloat16);
  EXPECT_EQ(PromoteTypes(DType::kBFloat16, DType::kComplex64), DType::kComplex64);
  EXPECT_FALSE(CanCast(DType::kBFloat16, DType::kFloat16, Casting::kSafe));
  EXPECT_TRUE(CanCast(DType::kBFloat16, DType::kFloat16, Casting::kSameKind));
  EXPECT_EQ(PromoteWithWeakScalar(DType::kBFloat16, WeakScalar::kComplex), DType::kComplex64);
}

TEST(DType, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    EXPECT_EQ(ParseDType(DTypeName(d)), d);
    EXPECT_EQ(ParseDType(DTypeNumpyName(d)), d);
  }
  EXPECT_FALSE(ParseDType("f31").has_value());
}

}  // namespace
}  // namespace gpuc::ir
