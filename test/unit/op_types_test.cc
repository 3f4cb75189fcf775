//===- op_types_test.cc - Result dtypes of every op against NumPy ---------===//
#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "ir/type_inference.h"
#include "test/unit/test_util.h"

namespace gpuc::ir {
namespace {

/// The result dtype gpuc infers for `op` on 1-D operands of these dtypes, or "error".
std::string InferredDType(OpCode op, const std::vector<DType>& dtypes) {
  std::vector<TensorType> operands;
  for (DType d : dtypes) operands.push_back(TensorType{d, Shape{2}});
  absl::StatusOr<TensorType> t = InferResultType(op, operands, {}, std::nullopt);
  return t.ok() ? std::string(DTypeName(t->dtype)) : "error";
}

/// Where gpuc deliberately differs from NumPy 1.24's result dtype (docs/ir.md explains each).
bool IsDocumentedDifference(const std::string& key) {
  // np.round of a bool array falls back to rint (float16); gpuc rounds bool like the integers.
  return key == "round,bool";
}

TEST(OpTypes, UnaryResultDTypesMatchNumpy) {
  nlohmann::json table = test::LoadFixture("op_dtypes.json")["unary"];
  int checked = 0;
  for (auto& [key, value] : table.items()) {
    if (IsDocumentedDifference(key)) continue;
    std::vector<std::string> parts = absl::StrSplit(key, ',');
    std::string expected = value.is_null() ? "error" : value.get<std::string>();
    EXPECT_EQ(InferredDType(*ParseOpName(parts[0]), {*ParseDType(parts[1])}), expected) << key;
    ++checked;
  }
  EXPECT_GT(checked, 400);
}

TEST(OpTypes, BinaryResultDTypesMatchNumpyForAllPairs) {
  nlohmann::json table = test::LoadFixture("op_dtypes.json")["binary"];
  int checked = 0;
  for (auto& [key, value] : table.items()) {
    if (IsDocumentedDifference(key)) continue;
    std::vector<std::string> parts = absl::StrSplit(key, ',');
    std::string expected = value.is_null() ? "error" : value.get<std::string>();
    EXPECT_EQ(InferredDType(*ParseOpName(parts[0]), {*ParseDType(parts[1]), *ParseDType(parts[2])}),
              expected)
        << key;
    ++checked;
  }
  EXPECT_GT(checked, 5000);
}

TEST(OpTypes, ReductionAccumulatorsFollowNumpy) {
  auto sum_of = [](DType d) {
    return InferResultType(OpCode::kReduceSum, {TensorType{d, Shape{4}}},
                           {{"axes", std::vector<int64_t>{0}}}, std::nullopt)
        ->dtype;
  };
  EXPECT_EQ(sum_of(DType::kInt8), DType::kInt64);
  EXPECT_EQ(sum_of(DType::kBool), DType::kInt64);
  EXPECT_EQ(sum_of(DType::kUInt16), DType::kUInt64);
  EXPECT_EQ(sum_of(DType::kFloat16), DType::kFloat16);
  EXPECT_EQ(sum_of(DType::kComplex64), DType::kComplex64);
}

TEST(OpTypes, EveryOpIsInTheTableOnce) {
  for (OpCode op : AllOps()) {
    EXPECT_EQ(ParseOpName(OpName(op)), op) << OpName(op);
  }
  EXPECT_EQ(GetOpInfo(OpCode::kConcatenate).arity, kVariadic);
  EXPECT_EQ(GetOpInfo(OpCode::kMatmul).kind, OpKind::kLibrary);
  EXPECT_EQ(GetOpInfo(OpCode::kExp).cost, CostClass::kExpensive);
}

}  // namespace
}  // namespace gpuc::ir
