// The public Array API: recording, NEP 50 typing, evaluation, errors (expected values are
// NumPy 2's, worked out by hand for these small inputs).
#include <cmath>
#include <limits>

#include "gpuc/gpuc.h"
#include "gtest/gtest.h"
#include "ir/philox.h"

namespace gpuc {
namespace {

TEST(ArrayApi, Nep50WeakScalarsGiveNumpyDtypes) {
  Array u8 = array<uint8_t>({1, 2, 250});
  EXPECT_EQ((u8 + 3).dtype(), uint8);
  EXPECT_EQ((u8 + 1.5).dtype(), float64);
  EXPECT_THROW(u8 + 300, Error);  // 300 does not fit uint8
  EXPECT_EQ((u8 < 300).to_host<uint8_t>(), (std::vector<uint8_t>{1, 1, 1}));
  Array i32 = array<int32_t>({1, 2});
  EXPECT_EQ((i32 + std::complex<double>(0, 5)).dtype(), complex128);
  Array f32 = array<float>({1, 2});
  EXPECT_EQ((f32 + 0.5).dtype(), float32);
  EXPECT_EQ((f32 + std::complex<double>(0, 1)).dtype(), complex64);
  EXPECT_EQ((u8 + 3).to_host<int64_t>(), (std::vector<int64_t>{4, 5, 253}));
}

TEST(ArrayApi, BroadcastOuterProductAndReductions) {
  Array x = arange(3).astype(float64);
  Array y = array<double>({1, 10});
  Array outer = x.reshape({3, 1}) * y;
  ASSERT_EQ(outer.shape(), (Shape{3, 2}));
  EXPECT_EQ(outer.to_host<double>(), (std::vector<double>{0, 0, 1, 10, 2, 20}));
  EXPECT_EQ(sum(outer, 0).to_host<double>(), (std::vector<double>{3, 30}));
  EXPECT_EQ(sum(outer, {0, 1}).item<double>(), 33);
  EXPECT_DOUBLE_EQ(mean(outer).item<double>(), 5.5);
  EXPECT_DOUBLE_EQ(var(outer, -1, 1).to_host<double>()[1], 40.5);
  Array i8 = array<int8_t>({100, 100, 100});
  EXPECT_EQ(sum(i8).dtype(), int64);
  EXPECT_EQ(sum(i8).item<int64_t>(), 300);
  EXPECT_EQ(cumsum(array<int32_t>({1, 2, 3})).to_host<int64_t>(), (std::vector<int64_t>{1, 3, 6}));
}

TEST(ArrayApi, NanWinsMaxAndArgmax) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Array a = array<double>({1, nan, 3, nan});
  EXPECT_TRUE(std::isnan(max(a).item<double>()));
  EXPECT_EQ(argmax(a).item<int64_t>(), 1);
}

TEST(ArrayApi, SlicesAndViewsFollowPython) {
  Array a = arange(12).reshape({3, 4});
  EXPECT_EQ(a(1).to_host<int64_t>(), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(a(colon, Slice(none, none, -2)).to_host<int64_t>(),
            (std::vector<int64_t>{3, 1, 7, 5, 11, 9}));
  EXPECT_EQ(a(ellipsis, -1).to_host<int64_t>(), (std::vector<int64_t>{3, 7, 11}));
  EXPECT_EQ(a.T()(0).to_host<int64_t>(), (std::vector<int64_t>{0, 4, 8}));
  EXPECT_EQ(flip(a, {0})(0).to_host<int64_t>(), (std::vector<int64_t>{8, 9, 10, 11}));
  EXPECT_EQ(take(a, array<int64_t>({-1, 0}), 1).to_host<int64_t>(),
            (std::vector<int64_t>{3, 0, 7, 4, 11, 8}));
  EXPECT_EQ(repeat(array<int64_t>({1, 2}), 2).to_host<int64_t>(),
            (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tile(array<int64_t>({1, 2}), {2}).to_host<int64_t>(),
            (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(stack({arange(2), arange(2)}, 1).shape(), (Shape{2, 2}));
  EXPECT_THROW(a(3), Error);
}

TEST(ArrayApi, CompoundAssignmentRebindsAndChecksSameKind) {
  Array a = array<int64_t>({1, 2});
  Array view = a(Slice(0, 1));
  a += 1;
  EXPECT_EQ(a.to_host<int64_t>(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(view.to_host<int64_t>(), (std::vector<int64_t>{1}));  // values, not aliases
  EXPECT_THROW(a /= 2, Error);
  EXPECT_EQ(a.to_host<int64_t>(), (std::vector<int64_t>{2, 3}));  // still usable
}

TEST(ArrayApi, ErrorsNameTheOpShapesAndDtypes) {
  Array a = zeros({2, 3});
  Array b = zeros({4});
  try {
    (void)(a + b);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2,3]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sum(a + 1).item<double>(), 6);  // the process and the arrays stay usable
}

TEST(ArrayApi, ReadingDataIsLoggedAndEvalMaterializes) {
  clear_eval_log();
  Array a = arange(4) * 2;
  EXPECT_FALSE(a.is_evaluated());
  (void)a.to_host<int64_t>();
  ASSERT_FALSE(eval_log().empty());
  EXPECT_EQ(eval_log().back().reason, EvalRecord::Reason::kRead);
  Array b = a + 1;
  eval({b});
  EXPECT_TRUE(b.is_evaluated());
}

TEST(ArrayApi, DeepGraphsAreCutAtTheDepthLimit) {
  AutoEvalLimits saved = auto_eval_limits();
  set_auto_eval_limits({64, 1 << 20});
  clear_eval_log();
  Array x = zeros({3});
  // An evaluated operand: a C++ scalar recorded at the loop's site would end each iteration
  // as a loop step (ArrayApi.ALoopWithoutEvalRunsOnePlanPerStep).
  Array one = ones({3});
  one.eval();
  for (int i = 0; i < 200; ++i) x = x + one;
  EXPECT_EQ(x.to_host<double>(), (std::vector<double>{200, 200, 200}));
  int cuts = 0;
  for (const EvalRecord& r : eval_log()) cuts += r.reason == EvalRecord::Reason::kDepthLimit;
  EXPECT_EQ(cuts, 3);
  set_auto_eval_limits(saved);
}

TEST(ArrayApi, CompileTracesOncePerSignature) {
  auto f = compile([](Array x, Array y) { return exp(x) * y + 1; });
  Array r1 = f(zeros({2}), ones({2}));
  Array r2 = f(ones({2}), ones({2}));
  EXPECT_EQ(r1.to_host<double>(), (std::vector<double>{2, 2}));
  EXPECT_NEAR(r2.to_host<double>()[0], std::exp(1.0) + 1, 1e-12);
  EXPECT_EQ(f.stats().traces, 1);
  (void)f(zeros({3}), ones({3}));
  EXPECT_EQ(f.stats().traces, 2);
  EXPECT_EQ(f.stats().calls, 3);
}

TEST(ArrayApi, PhiloxMatchesThePublishedKnownAnswers) {
  // Random123's kat_vectors for philox4x32-10.
  EXPECT_EQ(ir::Philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (ir::PhiloxCounter{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  random::Generator g(7), h(7);
  Array u = g.uniform({1000});
  EXPECT_EQ(u.to_host<double>(), h.uniform({1000}).to_host<double>());
  EXPECT_GE(min(u).item<double>(), 0.0);
  EXPECT_LT(max(u).item<double>(), 1.0);
  EXPECT_NEAR(mean(u).item<double>(), 0.5, 0.05);
  Array k = g.integers(-3, 4, {500});
  EXPECT_EQ(min(k).item<int64_t>(), -3);
  EXPECT_EQ(max(k).item<int64_t>(), 3);
}

}  // namespace
}  // namespace gpuc
