//===- interpreter_test.cc - The reference interpreter against NumPy ------===//
#include "ir/interpreter.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/verifier.h"
#include "test/unit/test_util.h"

namespace gpuc::ir {
namespace {

using test::CompareTensors;
using test::ElementAsDouble;
using test::MakeTensor;

TEST(Interpreter, MatchesNumpyOnEveryFixtureCase) {
  nlohmann::json cases = test::LoadFixture("graph_cases.json");
  ASSERT_GT(cases.size(), 300u);
  for (const nlohmann::json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    Graph graph = test::ParseVerified(c["gir"].get<std::string>());
    std::vector<HostTensor> inputs;
    for (const nlohmann::json& t : c["inputs"]) inputs.push_back(test::TensorFromJson(t));
    absl::StatusOr<std::vector<HostTensor>> results = Interpret(graph, inputs);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), c["outputs"].size());
    for (size_t i = 0; i < results->size(); ++i) {
      HostTensor expected = test::TensorFromJson(c["outputs"][i]);
      EXPECT_EQ(CompareTensors((*results)[i], expected, c["tolerance"].get<std::string>()), "")
          << c["gir"].get<std::string>();
    }
  }
}

/// Runs a one-op function of 1-D operands and returns the result.
HostTensor RunBinary(const std::string& op, DType in, DType out, const std::vector<double>& a,
                     const std::vector<double>& b) {
  std::string n = std::to_string(a.size());
  std::string ti = std::string(DTypeName(in)) + "[" + n + "]";
  std::string to = std::string(DTypeName(out)) + "[" + n + "]";
  Graph g = test::ParseVerified("func @f(%a: " + ti + ", %b: " + ti + ") -> (" + to +
                                ") {\n  %r = " + op + " %a, %b : " + to + "\n  return %r\n}\n");
  absl::StatusOr<std::vector<HostTensor>> r = Interpret(g, {MakeTensor(in, a), MakeTensor(in, b)});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? (*r)[0] : HostTensor();
}

TEST(Interpreter, FloorDivisionAndModuloSigns) {
  // Python semantics: the quotient rounds toward -inf, the remainder takes the divisor's sign.
  HostTensor q =
      RunBinary("floor_divide", DType::kInt32, DType::kInt32, {7, -7, 7, -7, 5}, {2, 2, -2, -2, 0});
  HostTensor m =
      RunBinary("mod", DType::kInt32, DType::kInt32, {7, -7, 7, -7, 5}, {2, 2, -2, -2, 0});
  std::vector<double> q_want = {3, -4, -4, 3, 0}, m_want = {1, 1, -1, -1, 0};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(ElementAsDouble(q, i), q_want[i]) << i;
    EXPECT_EQ(ElementAsDouble(m, i), m_want[i]) << i;
  }
  HostTensor fm = RunBinary("mod", DType::kFloat64, DType::kFloat64, {-0.0, 5.5, -5.5}, {3, -2, 2});
  EXPECT_TRUE(std::signbit(ElementAsDouble(fm, 0)) == false);  // -0.0 % 3 is +0.0
  EXPECT_EQ(ElementAsDouble(fm, 1), -0.5);
  EXPECT_EQ(ElementAsDouble(fm, 2), 0.5);
}

TEST(Interpreter, IntegerOverflowWraps) {
  HostTensor s = RunBinary("add", DType::kInt8, DType::kInt8, {127, -128}, {1, -1});
  EXPECT_EQ(ElementAsDouble(s, 0), -128);
  EXPECT_EQ(ElementAsDouble(s, 1), 127);
  HostTensor p = RunBinary("mul", DType::kUInt8, DType::kUInt8, {16, 255}, {16, 255});
  EXPECT_EQ(ElementAsDouble(p, 0), 0);
  EXPECT_EQ(ElementAsDouble(p, 1), 1);
  HostTensor d = RunBinary("floor_divide", DType::kInt8, DType::kInt8, {-128}, {-1});
  EXPECT_EQ(ElementAsDouble(d, 0), -128);
}

TEST(Interpreter, NanInfAndSignedZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = INFINITY;
  HostTensor mx =
      RunBinary("maximum", DType::kFloat32, DType::kFloat32, {nan, 1, -0.0}, {1, nan, 0.0});
  EXPECT_TRUE(std::isnan(ElementAsDouble(mx, 0)));
  EXPECT_TRUE(std::isnan(ElementAsDouble(mx, 1)));
  EXPECT_FALSE(std::signbit(ElementAsDouble(mx, 2)));  // IEEE 754-2019: +0 is the larger zero
  HostTensor fx = RunBinary("fmax", DType::kFloat32, DType::kFloat32, {nan, 1}, {1, nan});
  EXPECT_EQ(ElementAsDouble(fx, 0), 1);
  EXPECT_EQ(ElementAsDouble(fx, 1), 1);
  HostTensor dv =
      RunBinary("div", DType::kFloat64, DType::kFloat64, {1, -1, 0, inf}, {0, 0, 0, inf});
  EXPECT_EQ(ElementAsDouble(dv, 0), inf);
  EXPECT_EQ(ElementAsDouble(dv, 1), -inf);
  EXPECT_TRUE(std::isnan(ElementAsDouble(dv, 2)));
  EXPECT_TRUE(std::isnan(ElementAsDouble(dv, 3)));
  HostTensor ml = RunBinary("mul", DType::kFloat64, DType::kFloat64, {-0.0, 0.0}, {5, -5});
  EXPECT_TRUE(std::signbit(ElementAsDouble(ml, 0)));
  EXPECT_TRUE(std::signbit(ElementAsDouble(ml, 1)));
}

TEST(Interpreter, Float32ResultsAreRoundedOnceFromDouble) {
  // 1 + 2^-24 is not representable in f32: it rounds to even (1.0).
  HostTensor r = RunBinary("add", DType::kFloat32, DType::kFloat32, {1.0}, {std::ldexp(1.0, -24)});
  EXPECT_EQ(ElementAsDouble(r, 0), 1.0);
}

TEST(Interpreter, ReturnsParametersAndRepeatedResults) {
  Graph g = test::ParseVerified(
      "func @f(%x: f32[2]) -> (f32[2], f32[2], f32[2]) {\n  %y = neg %x : f32[2]\n"
      "  return %x, %y, %y\n}\n");
  absl::StatusOr<std::vector<HostTensor>> r = Interpret(g, {MakeTensor(DType::kFloat32, {1, -2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(ElementAsDouble((*r)[0], 1), -2);
  EXPECT_EQ(ElementAsDouble((*r)[1], 1), 2);
  EXPECT_EQ(ElementAsDouble((*r)[2], 0), -1);
}

TEST(Interpreter, EmptyAndZeroDimensionalArrays) {
  Graph g = test::ParseVerified(
      "func @f(%x: f32[0,3], %s: f32[]) -> (f32[3], f32[0,3], f32[]) {\n"
      "  %t = reduce_sum %x {axes = [0]} : f32[3]\n  %b = add %x, %s : f32[0,3]\n"
      "  %e = exp %s : f32[]\n  return %t, %b, %e\n}\n");
  HostTensor empty(TensorType{DType::kFloat32, {0, 3}});
  absl::StatusOr<std::vector<HostTensor>> r =
      Interpret(g, {empty, MakeTensor(DType::kFloat32, {0.0}, std::vector<int64_t>{})});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ElementAsDouble((*r)[0], i), 0.0);
  EXPECT_EQ((*r)[1].num_elements(), 0);
  EXPECT_EQ(ElementAsDouble((*r)[2], 0), 1.0);
}

TEST(Interpreter, CastSemanticsAtTheEdges) {
  Graph g = test::ParseVerified(
      "func @f(%x: f64[6]) -> (i8[6], u8[6], bool[6]) {\n  %a = cast %x : i8[6]\n"
      "  %b = cast %x : u8[6]\n  %c = cast %x : bool[6]\n  return %a, %b, %c\n}\n");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  absl::StatusOr<std::vector<HostTensor>> r =
      Interpret(g, {MakeTensor(DType::kFloat64, {300.0, -300.0, nan, -1.7, 0.0, 2.9})});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> i8 = {127, -128, 0, -1, 0, 2}, u8 = {255, 0, 0, 0, 0, 2},
                      b = {1, 1, 1, 1, 0, 1};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(ElementAsDouble((*r)[0], i), i8[i]) << i;
    EXPECT_EQ(ElementAsDouble((*r)[1], i), u8[i]) << i;
    EXPECT_EQ(ElementAsDouble((*r)[2], i), b[i]) << i;
  }
}

TEST(Interpreter, SpmvRejectsBadIndicesWithAClearError) {
  Graph g = test::ParseVerified(
      "func @f(%v: f32[2], %c: i32[2], %o: i32[3], %x: f32[2]) -> (f32[2]) {\n"
      "  %y = spmv %v, %c, %o, %x : f32[2]\n  return %y\n}\n");
  HostTensor values = MakeTensor(DType::kFloat32, {1, 2});
  HostTensor x = MakeTensor(DType::kFloat32, {3, 4});
  absl::StatusOr<std::vector<HostTensor>> bad_column = Interpret(
      g, {values, MakeTensor(DType::kInt32, {0, 5}), MakeTensor(DType::kInt32, {0, 1, 2}), x});
  ASSERT_FALSE(bad_column.ok());
  EXPECT_NE(bad_column.status().message().find("column index 5"), std::string::npos);
  absl::StatusOr<std::vector<HostTensor>> bad_offsets = Interpret(
      g, {values, MakeTensor(DType::kInt32, {0, 1}), MakeTensor(DType::kInt32, {0, 2, 1}), x});
  ASSERT_FALSE(bad_offsets.ok());
  EXPECT_NE(bad_offsets.status().message().find("row_offsets"), std::string::npos);
}

TEST(Interpreter, ArgumentsMustMatchTheSignature) {
  Graph g = test::ParseVerified("func @f(%x: f32[2]) -> (f32[2]) {\n  return %x\n}\n");
  absl::StatusOr<std::vector<HostTensor>> r = Interpret(g, {MakeTensor(DType::kFloat64, {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("f64[2], expected f32[2]"), std::string::npos) << r.status();
  EXPECT_FALSE(Interpret(g, {}).ok());
}

}  // namespace
}  // namespace gpuc::ir
