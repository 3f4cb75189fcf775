//===- traced_loops_test.cc - fori_loop and while_loop: a step traced once ===//
//
// Issue 32: a loop whose body is traced once and whose plan runs every step. Every result is
// checked against the same loop on plain C++ values; the body's trace count, the steps that
// wrote in place and the bytes they wrote are counted.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>
#include <cmath>
#include <limits>

#include "gpuc/gpuc.h"
#include "ir/interpreter_kernels.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/host/host_executor.h"
#include "lib/eval/evaluator.h"
#include "lib/eval/loop_api.h"
#include "lib/exec/options.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

// u[0] = sin(0.05 t); u[1:-1] += (dt t) * (u[:-2] - 2 u[1:-1] + u[2:]): the body as a user
// writes it, the index a value.
Array StencilBody(const Array& t, const Array& u0, double dt) {
  Array u = u0;
  u(0) = sin(0.05 * t);
  u(Slice(1, -1)) =
      u(Slice(1, -1)) + dt * t * (u(Slice(0, -2)) - 2.0 * u(Slice(1, -1)) + u(Slice(2, none)));
  return u;
}

void StencilReference(std::vector<double>& u, int64_t first, int64_t end, double dt) {
  for (int64_t t = first; t < end; ++t) {
    u[0] = std::sin(0.05 * static_cast<double>(t));
    std::vector<double> next = u;
    for (size_t i = 1; i + 1 < u.size(); ++i) {
      next[i] = u[i] + dt * static_cast<double>(t) * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    }
    u = next;
  }
}

void ExpectErrorContains(const std::function<void()>& body, const std::string& text) {
  const std::string error = test::ErrorOf(body);
  EXPECT_NE(error.find(text), std::string::npos) << "error: " << error << "\nwanted: " << text;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-13 * (1.0 + std::abs(want[i]))) << "element " << i;
  }
}

TEST(TracedLoopsTest, ForiLoopTracesTheBodyOnceAndMatchesThePlainLoop) {
  const std::vector<double> start = test::UniformDoubles(300, 1);
  const Array initial = array(start);
  const double dt = 0.4 / 200;
  int traced = 0;
  const LoopStats before = loop_stats();
  Array u = fori_loop(
      5, 205,
      [&](const Array& t, const Array& u) {
        ++traced;
        return StencilBody(t, u, dt);
      },
      initial);
  EXPECT_EQ(traced, 1);
  EXPECT_TRUE(u.is_evaluated());
  std::vector<double> want = start;
  StencilReference(want, 5, 205, dt);
  ExpectNear(u.to_host<double>(), want);
  // The caller's array keeps its values: the first step reads it, later steps write the
  // loop's own storage.
  EXPECT_EQ(initial.to_host<double>(), start);
  const LoopStats after = loop_stats();
  EXPECT_EQ(after.loops - before.loops, 1);
  EXPECT_EQ(after.steps - before.steps, 200);
  EXPECT_EQ(after.traces - before.traces, 1);
}

// On the GPU a fori_loop's steps run with no host work each: recorded once, replayed as CUDA
// graphs of many steps (lib/backend/cuda/gpu_device_loop.cc). Trip counts that are odd, even,
// 1, and past one graph's worth of steps all give the plain loop's values. On the host the
// same loops run a step at a time.
TEST(TracedLoopsTest, EveryTripCountGivesThePlainLoopsValuesAndOnTheGpuRunsOnTheDevice) {
  const bool gpu = detail::EvaluationTarget(exec::CurrentOptions()).name() == "gpu";
  const std::vector<double> start = test::UniformDoubles(300, 3);
  const double dt = 0.4 / 700;
  for (int64_t steps : {1, 2, 3, 37, 600}) {
    SCOPED_TRACE(steps);
    const int64_t before = gpu ? (*detail::GpuExecutor::Get())->stats().device_loop_steps : 0;
    Array u = fori_loop(
        7, 7 + steps, [&](const Array& t, const Array& u) { return StencilBody(t, u, dt); },
        array(start));
    std::vector<double> want = start;
    StencilReference(want, 7, 7 + steps, dt);
    ExpectNear(u.to_host<double>(), want);
    if (gpu) {
      EXPECT_EQ((*detail::GpuExecutor::Get())->stats().device_loop_steps - before, steps);
    }
  }
}

TEST(TracedLoopsTest, ALoopCalledAgainFindsItsPlanInThePlanCache) {
  // An outer C++ loop calling an inner fori_loop traces the body every call (it is C++), but
  // plans it once: the second call's step is found by structure.
  clear_plan_cache();
  auto run = [](double shift) {
    return fori_loop(
        0, 10, [&](const Array&, const Array& x) { return x * 0.5 + shift; },
        array<double>({1.0, 2.0}));
  };
  const Array first = run(2.5);  // not 0 or 1, which are structure (docs/science.md)
  const PlanCacheStats after_first = plan_cache_stats();
  const Array second = run(3.0);
  const PlanCacheStats after_second = plan_cache_stats();
  EXPECT_EQ(after_second.misses, after_first.misses);
  EXPECT_GT(after_second.hits, after_first.hits);
  // x_10 = 0.5^10 x_0 + shift (2 - 2 * 0.5^10).
  const double f = std::ldexp(1.0, -10);
  EXPECT_DOUBLE_EQ(first.to_host<double>()[1], 2.0 * f + 2.5 * (2.0 - 2.0 * f));
  EXPECT_DOUBLE_EQ(second.to_host<double>()[0], 1.0 * f + 3.0 * (2.0 - 2.0 * f));
}

TEST(TracedLoopsTest, TheIndexRunsFromLowerToUpperAsAnInt64Value) {
  Array total = fori_loop(
      3, 10, [](const Array& i, const Array& acc) { return acc + i * i; },
      array<int64_t>({100}, Shape{}));
  EXPECT_EQ(total.dtype(), int64);
  EXPECT_EQ(total.item<int64_t>(), 100 + 9 + 16 + 25 + 36 + 49 + 64 + 81);
}

TEST(TracedLoopsTest, SeveralStateArraysCarryTogether) {
  // (a, b) -> (b, a + b): Fibonacci over vectors, and a float state beside it.
  std::vector<Array> out =
      fori_loop(0, 30,
                [](const Array&, const std::vector<Array>& s) {
                  return std::vector<Array>{s[1], s[0] + s[1], s[2] * 0.5};
                },
                {array<int64_t>({0, 2}), array<int64_t>({1, 3}), array<double>({1.0, 3.0})});
  ASSERT_EQ(out.size(), 3u);
  int64_t a0 = 0, b0 = 1, a1 = 2, b1 = 3;
  for (int i = 0; i < 30; ++i) {
    std::tie(a0, b0) = std::make_pair(b0, a0 + b0);
    std::tie(a1, b1) = std::make_pair(b1, a1 + b1);
  }
  EXPECT_EQ(out[0].to_host<int64_t>(), (std::vector<int64_t>{a0, a1}));
  EXPECT_EQ(out[1].to_host<int64_t>(), (std::vector<int64_t>{b0, b1}));
  EXPECT_EQ(out[2].to_host<double>(),
            (std::vector<double>{std::ldexp(1.0, -30), 3 * std::ldexp(1.0, -30)}));
}

TEST(TracedLoopsTest, AnEmptyRangeReturnsTheStateWithoutRunningTheBody) {
  int traced = 0;
  Array s = array<double>({1.5, 2.5});
  Array out = fori_loop(
      4, 4,
      [&](const Array&, const Array& x) {
        ++traced;
        return x + 1.0;
      },
      s * 2.0);
  EXPECT_EQ(traced, 0);
  EXPECT_TRUE(out.is_evaluated());
  EXPECT_EQ(out.to_host<double>(), (std::vector<double>{3.0, 5.0}));
}

TEST(TracedLoopsTest, AScatterAtTheIndexFillsOneRowPerStepInPlace) {
  // Row k of an n x n matrix filled at step k: the functional write form with the index as
  // an array subscript (a C++ subscript would need the index's value while tracing). On the
  // host the scatter writes into the loop's own matrix from the second step: a row a step.
  exec::Options host = exec::CurrentOptions();
  host.backend = "host";
  exec::ScopedOptions scope(host);
  const int64_t n = 64;
  const std::vector<double> row_values = test::UniformDoubles(n, 3);
  const Array row = array(row_values);
  const Array start = zeros({n, n});
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  const LoopStats loops_before = loop_stats();
  Array m = fori_loop(
      0, n, [&](const Array& k, const Array& m) { return m.at(k).set(row * (k + 1)); }, start);
  const std::vector<double> got = m.to_host<double>();
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(got[k * n + j], row_values[j] * static_cast<double>(k + 1)) << k << "," << j;
    }
  }
  EXPECT_EQ(start.to_host<double>(), std::vector<double>(n * n, 0.0));
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  EXPECT_EQ(loop_stats().in_place_steps - loops_before.in_place_steps, n - 1);
  EXPECT_EQ(after.in_place_write_bytes - before.in_place_write_bytes, (n - 1) * n * 8);
}

TEST(TracedLoopsTest, TwoRecurrencesReadingRowKMinusOneOfBothWriteRowKInPlace) {
  // The Thomas algorithm's forward sweep: rows k of cp and dp from rows k - 1 of both, the
  // read of cp[k - 1] feeding both new rows. The reads are of other rows than the writes
  // (k - 1 against k), so both scatters go in place from the second step: a row a step.
  exec::Options host = exec::CurrentOptions();
  host.backend = "host";
  exec::ScopedOptions scope(host);
  const int64_t n = 48, m = 5;
  const std::vector<double> bv = test::UniformDoubles(n * m, 7),
                            dv = test::UniformDoubles(n * m, 8);
  const Array b = array(bv, Shape{n, m}) + 2.0, d = array(dv, Shape{n, m});
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  const LoopStats loops_before = loop_stats();
  std::vector<Array> out =
      fori_loop(1, n,
                [&](const Array& k, const std::vector<Array>& s) {
                  const Array denom = take(b, k, 0) - 0.5 * take(s[0], k - 1, 0);
                  const Array cpk = 1.0 / denom;
                  const Array dpk = (take(d, k, 0) - take(s[1], k - 1, 0)) / denom;
                  return std::vector<Array>{s[0].at(k).set(cpk), s[1].at(k).set(dpk)};
                },
                {zeros({n, m}) + 0.25, zeros({n, m}) + 0.5});
  std::vector<double> cp(n * m, 0.25), dp(n * m, 0.5);
  for (int64_t k = 1; k < n; ++k) {
    for (int64_t j = 0; j < m; ++j) {
      const double denom = (bv[k * m + j] + 2.0) - 0.5 * cp[(k - 1) * m + j];
      cp[k * m + j] = 1.0 / denom;
      dp[k * m + j] = (dv[k * m + j] - dp[(k - 1) * m + j]) / denom;
    }
  }
  EXPECT_EQ(out[0].to_host<double>(), cp);
  EXPECT_EQ(out[1].to_host<double>(), dp);
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  EXPECT_EQ(loop_stats().in_place_steps - loops_before.in_place_steps, n - 2);
  // Two rows of m a step, from the second step on.
  EXPECT_EQ(after.in_place_write_bytes - before.in_place_write_bytes, (n - 2) * 2 * m * 8);
}

TEST(TracedLoopsTest, AReadOfTheWrittenPositionKeepsTheScatterOutOfPlace) {
  // take(s, k + n) is row k again (n rows: k + n wraps to k): the analysis must not take it
  // for another row, or the second scatter would read the first one's result.
  exec::Options host = exec::CurrentOptions();
  host.backend = "host";
  exec::ScopedOptions scope(host);
  const int64_t n = 6;
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  std::vector<Array> out = fori_loop(
      0, n - 1,
      [&](const Array& k, const std::vector<Array>& s) {
        const Array again = take(s[0], k - n, 0);  // row k (negative: counts from the end)
        return std::vector<Array>{s[0].at(k).set(again + 1.0), s[1].at(k).set(again * 2.0)};
      },
      {arange(n).astype(float64), zeros({n})});
  EXPECT_EQ(out[0].to_host<double>(), (std::vector<double>{1, 2, 3, 4, 5, 5}));
  EXPECT_EQ(out[1].to_host<double>(), (std::vector<double>{0, 2, 4, 6, 8, 0}));
  // Only s[1]'s element a step (from the second step) went in place.
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  EXPECT_EQ(after.in_place_write_bytes - before.in_place_write_bytes, (n - 2) * 8);
}

TEST(TracedLoopsTest, AnInPlaceScatterWithAnIndexOutOfRangeWritesNothing) {
  // Every index is checked before the first element is written, so the donated storage (an
  // array's values) is as it was when the scatter fails.
  ir::Attributes attrs;
  attrs.Set("axis", int64_t{0});
  attrs.Set("combiner", std::string("set"));
  attrs.Set("wrap", false);
  attrs.Set("in_place", true);
  const ir::TensorType type{ir::DType::kFloat64, ir::Shape({4})};
  const ir::NodeRef data_node = ir::Node::Create(ir::OpCode::kParameter, type, {}, {});
  const ir::NodeRef index_node = ir::Node::Create(
      ir::OpCode::kParameter, ir::TensorType{ir::DType::kInt64, ir::Shape({2})}, {}, {});
  const ir::NodeRef values_node = ir::Node::Create(
      ir::OpCode::kParameter, ir::TensorType{ir::DType::kFloat64, ir::Shape({2})}, {}, {});
  const ir::NodeRef scatter =
      ir::Node::Create(ir::OpCode::kScatter, type, {data_node, index_node, values_node}, attrs);
  const ir::HostTensor data = test::MakeTensor(ir::DType::kFloat64, {1, 2, 3, 4});
  const ir::HostTensor values = test::MakeTensor(ir::DType::kFloat64, {7, 8});
  const absl::StatusOr<ir::HostTensor> bad = ir::interp::EvalScatterNode(
      *scatter, data, test::MakeTensor(ir::DType::kInt64, {1, 4}), values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("out of bounds"), std::string::npos) << bad.status();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(test::ElementAsDouble(data, i), i + 1.0);
  // In range, it writes into the same storage.
  const absl::StatusOr<ir::HostTensor> good = ir::interp::EvalScatterNode(
      *scatter, data, test::MakeTensor(ir::DType::kInt64, {1, 3}), values);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->data(), data.data());
  EXPECT_EQ(test::ElementAsDouble(data, 1), 7.0);
  EXPECT_EQ(test::ElementAsDouble(data, 3), 8.0);
}

TEST(TracedLoopsTest, ASliceWriteIntoTheStateMovesOnlyItsRegionAfterTheFirstStep) {
  // u[1:-1] = f(u): the stencil writes its interior every step, in place from step 2 (on the
  // host back end, which does in-place writes; the GPU machine's default is the GPU).
  exec::Options host = exec::CurrentOptions();
  host.backend = "host";
  exec::ScopedOptions scope(host);
  const int64_t n = 4096, steps = 50;
  const std::vector<double> start = test::UniformDoubles(n, 4);
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  const LoopStats loops_before = loop_stats();
  Array u = fori_loop(
      0, steps, [](const Array& t, const Array& u) { return StencilBody(t, u, 1e-3); },
      array(start));
  std::vector<double> want = start;
  StencilReference(want, 0, steps, 1e-3);
  ExpectNear(u.to_host<double>(), want);
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  const LoopStats loops_after = loop_stats();
  EXPECT_EQ(loops_after.in_place_steps - loops_before.in_place_steps, steps - 1);
  // Per in-place step: u[0] (one element) and the interior (n - 2), nothing else.
  EXPECT_EQ(after.in_place_write_bytes - before.in_place_write_bytes,
            (steps - 1) * (1 + (n - 2)) * 8);
}

TEST(TracedLoopsTest, TheBodyReadsCapturedArraysAsTheyWereWhenTheLoopStarted) {
  Array w = array<double>({1.0, 2.0, 3.0});
  Array out = fori_loop(
      0, 4, [&](const Array&, const Array& x) { return x * 2.0 + w; }, zeros({3}));
  // x_k = 2 x_{k-1} + w from 0: (2^4 - 1) w.
  EXPECT_EQ(out.to_host<double>(), (std::vector<double>{15.0, 30.0, 45.0}));
}

TEST(TracedLoopsTest, RandomDrawsInsideABodyDifferFromStepToStep) {
  // The body is traced once, but each step's draws mix in a key the loop passes per step.
  random::Generator rng(11);
  const int64_t steps = 6;
  Array rows = fori_loop(
      0, steps, [&](const Array& i, const Array& h) { return h.at(i).set(rng.uniform({8})); },
      zeros({steps, 8}));
  const std::vector<double> v = rows.to_host<double>();
  for (double x : v) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
  for (int64_t a = 0; a < steps; ++a) {
    for (int64_t b = a + 1; b < steps; ++b) {
      EXPECT_NE(std::vector<double>(v.begin() + a * 8, v.begin() + a * 8 + 8),
                std::vector<double>(v.begin() + b * 8, v.begin() + b * 8 + 8))
          << "steps " << a << " and " << b << " drew the same numbers";
    }
  }
  // A while_loop's body too: a sum of independent uniforms, not one draw counted n times.
  std::vector<Array> out =
      while_loop([](const std::vector<Array>& s) { return s[0] < 400; },
                 [&](const std::vector<Array>& s) {
                   return std::vector<Array>{s[0] + 1, s[1] + rng.uniform({}, 0.0, 1.0)};
                 },
                 {array<int64_t>({0}, Shape{}), array<double>({0.0}, Shape{})});
  const double total = out[1].item<double>();
  EXPECT_GT(total, 200.0 - 4 * std::sqrt(400.0 / 12.0));  // mean 200, sd 5.8
  EXPECT_LT(total, 200.0 + 4 * std::sqrt(400.0 / 12.0));
}

TEST(TracedLoopsTest, WhileLoopRunsUntilTheConditionFails) {
  int traced = 0;
  std::vector<Array> out = while_loop(
      [&](const std::vector<Array>& s) {
        ++traced;
        return s[1] < 100.0;
      },
      [&](const std::vector<Array>& s) {
        ++traced;
        return std::vector<Array>{s[0] + 1, s[1] * 2.0};
      },
      {array<int64_t>({0}, Shape{}), array<double>({1.5}, Shape{})});
  EXPECT_EQ(traced, 2);                  // the condition and the body, once each
  EXPECT_EQ(out[0].item<int64_t>(), 7);  // 1.5 * 2^7 = 192 is the first past 100
  EXPECT_EQ(out[1].item<double>(), 192.0);
  // A condition false at the start runs no step.
  Array same = while_loop([](const Array& x) { return x > 10.0; },
                          [](const Array& x) { return x * 0.5; }, array<double>({4.0}, Shape{}));
  EXPECT_EQ(same.item<double>(), 4.0);
}

// The GPU's while_loop (lib/eval/loop_api.h: the body applied only while the condition holds,
// the flag carried, many steps per device loop) gives the host's while_loop's values, its
// random draws included, traces the condition and the body once each, and counts the steps
// the body was applied, not the frozen ones past the end.
TEST(TracedLoopsTest, TheGuardedWhileLoopTheGpuRunsGivesThePlainLoopsValues) {
  int traced = 0;
  const WhileCondition cond = [&](const std::vector<Array>& s) {
    ++traced;
    return s[1] < 100.0;
  };
  // Two generators of one seed: each loop's trace takes the same draws from its own.
  random::Generator rng_guarded(21), rng_plain(21);
  auto body_drawing_from = [&](random::Generator& rng) -> WhileBody {
    return [&](const std::vector<Array>& s) {
      ++traced;
      return std::vector<Array>{s[0] + 1, s[1] * 2.0 + rng.uniform({}, 0.0, 0.5)};
    };
  };
  const std::vector<Array> start = {array<int64_t>({0}, Shape{}), array<double>({1.5}, Shape{})};
  const LoopStats before = loop_stats();
  const std::vector<Array> guarded =
      detail::GuardedWhileLoop(cond, body_drawing_from(rng_guarded), start);
  const LoopStats after = loop_stats();
  EXPECT_EQ(traced, 2);
  const std::vector<Array> plain = while_loop(cond, body_drawing_from(rng_plain), start);
  EXPECT_EQ(guarded[0].item<int64_t>(), plain[0].item<int64_t>());
  EXPECT_EQ(guarded[1].item<double>(), plain[1].item<double>());
  EXPECT_GE(guarded[0].item<int64_t>(), 5);
  EXPECT_EQ(after.steps - before.steps, guarded[0].item<int64_t>());
  // A condition false at the start leaves the state as it was.
  const Array same = detail::GuardedWhileLoop(
      [](const std::vector<Array>& s) { return s[0] > 10.0; },
      [](const std::vector<Array>& s) { return std::vector<Array>{s[0] * 0.5}; },
      {array<double>({4.0}, Shape{})})[0];
  EXPECT_EQ(same.item<double>(), 4.0);
  // Its mistakes are the while_loop's.
  ExpectErrorContains(
      [] {
        detail::GuardedWhileLoop([](const std::vector<Array>& s) { return s[0]; },
                                 [](const std::vector<Array>& s) { return s; },
                                 {array<double>({1.0, 2.0})});
      },
      "while_loop: the condition returned f64[2]; it must return a bool 0-d array");
  ExpectErrorContains(
      [] {
        detail::GuardedWhileLoop(
            [](const std::vector<Array>& s) { return s[0] < 3.0; },
            [](const std::vector<Array>& s) { return std::vector<Array>{s[0].astype(float32)}; },
            {array<double>({1.0}, Shape{})});
      },
      "while_loop: the body returned f32[] for state 0, which is f64[]");
}

TEST(TracedLoopsTest, WhileLoopNewtonIterationConverges) {
  // x <- x - (x^2 - a) / (2x) until |x^2 - a| < 1e-12, elementwise over a vector.
  const std::vector<double> a = {2.0, 10.0, 0.25};
  std::vector<Array> out = while_loop(
      [&](const std::vector<Array>& s) { return max(abs(s[0] * s[0] - array(a))) > 1e-12; },
      [&](const std::vector<Array>& s) {
        return std::vector<Array>{s[0] - (s[0] * s[0] - array(a)) / (2.0 * s[0])};
      },
      {full({3}, 1.0)});
  const std::vector<double> x = out[0].to_host<double>();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(x[i], std::sqrt(a[i]), 1e-12);
}

TEST(TracedLoopsTest, MistakesAreErrorsThatNameTheLoopAndLeaveTheProcessUsable) {
  const Array x = array<double>({1.0, 2.0, 3.0, 4.0});
  ExpectErrorContains(
      [&] {
        fori_loop(
            0, 3, [](const Array&, const Array& s) { return s.astype(float32); }, x);
      },
      "fori_loop: the body returned f32[4] for state 0, which is f64[4]");
  ExpectErrorContains(
      [&] {
        fori_loop(0, 3,
                  [](const Array&, const std::vector<Array>& s) {
                    return std::vector<Array>{s[0], s[0]};
                  },
                  {x});
      },
      "fori_loop: the body returned 2 arrays for a state of 1");
  ExpectErrorContains(
      [&] {
        fori_loop(
            0, 3,
            [](const Array&, const Array& s) {
              const double first = s(0).item<double>();  // a placeholder has no value
              return s + first;
            },
            x);
      },
      "inside fori_loop body");
  ExpectErrorContains(
      [&] {
        fori_loop(
            0, 3,
            [](const Array&, const Array& s) {
              return fori_loop(
                  0, 2, [](const Array&, const Array& y) { return y + 1.0; }, s);
            },
            x);
      },
      "fori_loop: a loop inside a traced function (fori_loop body) is not supported yet");
  ExpectErrorContains(
      [&] { while_loop([](const Array& s) { return s; }, [](const Array& s) { return s; }, x); },
      "while_loop: the condition returned f64[4]; it must return a bool 0-d array");
  ExpectErrorContains([&] { fori_loop(0, 3, ForiBody(), std::vector<Array>{}); },
                      "fori_loop: the state holds no arrays");
  // An evaluation error inside the body names the step and the line that recorded the op.
  ExpectErrorContains(
      [&] {
        fori_loop(
            0, 5,
            [](const Array& i, const Array& s) {
              return s + take(array<double>({1.0, 2.0, 3.0}), i);  // index 3 is out of range
            },
            array<double>({0.0}, Shape{}));
      },
      "fori_loop step 3 (index 3 of [0, 5)): take: index 3 is out of bounds for axis 0 with "
      "size 3 of f64[3] (recorded at ");
  ExpectErrorContains(
      [&] {
        fori_loop(
            0, 5,
            [](const Array& i, const Array& s) {
              return s + take(array<double>({1.0, 2.0}), i);
            },
            array<double>({0.0}, Shape{}));
      },
      "traced_loops_test.cc:");
  // Still usable: the same loop written right runs.
  Array ok = fori_loop(
      0, 3, [](const Array&, const Array& s) { return s + 1.0; }, x);
  EXPECT_EQ(ok.to_host<double>(), (std::vector<double>{4.0, 5.0, 6.0, 7.0}));
}

TEST(TracedLoopsTest, TheInterpreterRunsTheSameLoops) {
  exec::Options interpreted = exec::CurrentOptions();
  interpreted.backend = "interpreter";
  exec::ScopedOptions scope(interpreted);
  const std::vector<double> start = test::UniformDoubles(64, 5);
  Array u = fori_loop(
      0, 20, [](const Array& t, const Array& u) { return StencilBody(t, u, 1e-2); }, array(start));
  std::vector<double> want = start;
  StencilReference(want, 0, 20, 1e-2);
  ExpectNear(u.to_host<double>(), want);
}

}  // namespace
}  // namespace gpuc
