//===- plan_cache_test.cc - Plans found again by graph structure ----------===//
//
// A loop that records the same step over new arrays must find the step's plan instead of
// planning again, and a graph that merely looks similar (other wiring, other constants,
// other shapes) must never run a plan made for another: every reuse here is also checked
// against values computed without gpuc.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "gpuc/gpuc.h"
#include "ir/structural_key.h"
#include "lib/eval/plan_cache.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

std::vector<double> RandomValues(int64_t n, uint32_t seed) { return test::UniformDoubles(n, seed); }

class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_plan_cache_capacity(256);
    clear_plan_cache();
  }
  void TearDown() override { set_plan_cache_capacity(256); }
};

TEST_F(PlanCacheTest, ALoopOfTheSameStepPlansItOnce) {
  const int64_t n = 12, steps = 30;
  std::vector<double> want = RandomValues(n * n, 1);
  Array a = array(want).reshape({n, n});
  Array b = a + 0.0;  // same values, another array
  eval({a, b});
  clear_plan_cache();
  std::vector<double> next = want;
  for (int64_t t = 0; t < steps; ++t) {
    // A Jacobi step writing the interior, as a user writes it.
    Slice in(1, -1), up(0, -2), down(2, none);
    b(in, in) = (a(up, in) + a(down, in) + a(in, up) + a(in, down)) * 0.25;
    b.eval();
    std::swap(a, b);
    for (int64_t i = 1; i + 1 < n; ++i) {
      for (int64_t j = 1; j + 1 < n; ++j) {
        next[i * n + j] = (want[(i - 1) * n + j] + want[(i + 1) * n + j] + want[i * n + j - 1] +
                           want[i * n + j + 1]) *
                          0.25;
      }
    }
    std::swap(want, next);
  }
  const std::vector<double> got = a.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-12) << i;
  const PlanCacheStats stats = plan_cache_stats();
  // The first step plans; every later one finds it, the reading evaluation included.
  EXPECT_EQ(stats.misses, 1);
  EXPECT_EQ(stats.hits, steps - 1);
}

TEST_F(PlanCacheTest, SharedOperandsAreNotConfusedWithDistinctOnes) {
  // a * a and a * b have the same ops and types; only the wiring differs.
  Array a = array(RandomValues(8, 2));
  Array b = array(RandomValues(8, 3));
  const std::vector<double> av = a.to_host<double>(), bv = b.to_host<double>();
  std::vector<double> square = (a * a).to_host<double>();
  std::vector<double> product = (a * b).to_host<double>();
  for (size_t i = 0; i < av.size(); ++i) {
    EXPECT_DOUBLE_EQ(square[i], av[i] * av[i]);
    EXPECT_DOUBLE_EQ(product[i], av[i] * bv[i]);
  }
  EXPECT_EQ(plan_cache_stats().misses, 2);
}

TEST_F(PlanCacheTest, ScalarValuesAreArgumentsWhileShapesAndDtypesAreStructure) {
  Array a = array(RandomValues(6, 4));
  const std::vector<double> av = a.to_host<double>();
  for (double c : {2.0, 3.0, -7.25}) {
    const std::vector<double> got = (a * c).to_host<double>();
    for (size_t i = 0; i < av.size(); ++i) EXPECT_DOUBLE_EQ(got[i], av[i] * c);
  }
  EXPECT_EQ(plan_cache_stats().misses, 1);  // one plan, run with three values
  EXPECT_EQ(plan_cache_stats().hits, 2);
  // gpuc::scalar is a value too, and so is an integer scalar.
  for (int64_t c : {5, 9}) {
    const std::vector<double> got = (a * gpuc::scalar(c)).to_host<double>();
    for (size_t i = 0; i < av.size(); ++i) EXPECT_DOUBLE_EQ(got[i], av[i] * static_cast<double>(c));
  }
  EXPECT_EQ(plan_cache_stats().misses, 2);
  // x * 1 is x: the plan specializes on the values a rewrite depends on.
  const std::vector<double> same = (a * 1.0).to_host<double>();
  EXPECT_EQ(same, av);
  EXPECT_EQ(plan_cache_stats().misses, 3);
  const std::vector<double> longer = (array(RandomValues(7, 5)) * 2.0).to_host<double>();
  EXPECT_EQ(longer.size(), 7u);
  const std::vector<double> narrow = (a.astype(float32) * 2.0).to_host<double>();
  for (size_t i = 0; i < av.size(); ++i) {
    EXPECT_FLOAT_EQ(static_cast<float>(narrow[i]), static_cast<float>(av[i]) * 2.0f);
  }
  EXPECT_EQ(plan_cache_stats().misses, 5);
}

TEST_F(PlanCacheTest, TheCapacityBoundsTheEntriesAndZeroTurnsItOff) {
  Array a = array(RandomValues(4, 6));
  // One recording site for all: the site is part of the structure; the length changes it.
  auto shifted = [&](int64_t n) { return (a(Slice(0, n)) + 2.5).eval(); };
  set_plan_cache_capacity(2);
  for (int64_t n : {1, 2, 3, 4}) shifted(n);
  EXPECT_EQ(plan_cache_stats().entries, 2);
  shifted(4);  // the most recent one is still held
  EXPECT_EQ(plan_cache_stats().hits, 1);
  set_plan_cache_capacity(0);
  EXPECT_EQ(plan_cache_stats().entries, 0);
  const std::vector<double> got = shifted(4).to_host<double>();
  EXPECT_DOUBLE_EQ(got[0], a.to_host<double>()[0] + 2.5);
  EXPECT_EQ(plan_cache_stats().entries, 0);
  const std::string error = test::ErrorOf([] { set_plan_cache_capacity(-1); });
  EXPECT_TRUE(absl::StrContains(error, "set_plan_cache_capacity")) << error;
  EXPECT_TRUE(absl::StrContains(error, "-1")) << error;
}

TEST_F(PlanCacheTest, AnEvaluationErrorFromACachedPlanStillNamesTheOpAndLeavesArraysUsable) {
  Array values = array(RandomValues(5, 7));
  Array good = array(std::vector<int64_t>{0, 4, 2});
  Array bad = array(std::vector<int64_t>{0, 9, 2});
  values.eval();
  auto gather = [&](const Array& indices) { return take(values, indices).eval(); };
  EXPECT_EQ(gather(good).to_host<double>().size(), 3u);
  const std::string error = test::ErrorOf([&] { gather(bad); });
  EXPECT_TRUE(absl::StrContains(error, "take")) << error;
  EXPECT_TRUE(absl::StrContains(error, "plan_cache_test.cc")) << error;
  EXPECT_EQ(plan_cache_stats().hits, 1);  // the failing graph had the good one's structure
  EXPECT_EQ(gather(good).to_host<double>()[1], values.to_host<double>()[4]);
}

TEST(StructuralKey, IgnoresBindingsAndNamesButNotWiring) {
  const ir::TensorType f32{ir::DType::kFloat32, ir::Shape({4})};
  auto graph_of = [&](bool shared, const std::string& name) {
    ir::NodeRef x = ir::Node::Create(ir::OpCode::kParameter, f32, {}, {}, name + "x");
    ir::NodeRef y = ir::Node::Create(ir::OpCode::kParameter, f32, {}, {}, name + "y");
    ir::NodeRef sum = ir::Node::Create(ir::OpCode::kAdd, f32, {x, shared ? x : y}, {}, name);
    return ir::Graph::FromResults("g", {x, y}, {sum});
  };
  EXPECT_EQ(ir::StructuralKey(graph_of(false, "p")), ir::StructuralKey(graph_of(false, "q")));
  EXPECT_NE(ir::StructuralKey(graph_of(false, "p")), ir::StructuralKey(graph_of(true, "p")));
}

TEST(PlanCacheDetail, CachedGraphsHoldNoUsersStorage) {
  Array a = array(RandomValues(4, 8));
  ir::NodeRef bound = ir::Node::CreateBound(
      {ir::DType::kFloat64, ir::Shape({4})},
      std::make_shared<detail::Buffer>(ir::HostTensor({ir::DType::kFloat64, ir::Shape({4})})));
  ir::NodeRef neg = ir::Node::Create(ir::OpCode::kNeg, bound->type(), {bound}, {}, "", "x.cc:3");
  ir::Graph graph = ir::Graph::FromResults("g", {bound}, {neg});
  ir::Graph unbound = detail::WithUnboundParameters(graph);
  ASSERT_EQ(unbound.params.size(), 1u);
  EXPECT_EQ(unbound.params[0]->binding(), nullptr);
  EXPECT_EQ(unbound.params[0]->type(), bound->type());
  ASSERT_EQ(unbound.results.size(), 1u);
  EXPECT_EQ(unbound.results[0]->operands()[0], unbound.params[0]);
  EXPECT_EQ(unbound.results[0]->location(), "x.cc:3");
  EXPECT_EQ(ir::StructuralKey(unbound), ir::StructuralKey(graph));
}

}  // namespace
}  // namespace gpuc
