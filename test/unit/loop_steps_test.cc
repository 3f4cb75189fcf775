//===- loop_steps_test.cc - Loops compile once: values are arguments, steps are cuts ===//
//
// Issue 31: a NumPy loop whose scalars, subscripts and slice bounds change every iteration
// must plan and compile by structure (decision 11), and the literal loop with no eval() must
// run one plan per step. Every result here is checked against the same loop on plain doubles.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>
#include <cmath>

#include "gpuc/gpuc.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/host/host_executor.h"
#include "lib/eval/evaluator.h"
#include "lib/exec/options.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

std::vector<double> RandomValues(int64_t n, uint32_t seed) { return test::UniformDoubles(n, seed); }

int LoopStepCuts() {
  int cuts = 0;
  for (const EvalRecord& r : eval_log()) cuts += r.reason == EvalRecord::Reason::kLoopStep;
  return cuts;
}

std::string EvaluationTargetName() {
  return std::string(detail::EvaluationTarget(exec::CurrentOptions()).name());
}

// The writes the evaluation target has done in place so far, and their regions' bytes.
struct InPlaceCounts {
  int64_t writes = 0;
  int64_t bytes = 0;
};
InPlaceCounts InPlaceWritesSoFar() {
  if (EvaluationTargetName() == "gpu") {
    const detail::GpuBackendStats s = (*detail::GpuExecutor::Get())->stats();
    return {s.in_place_writes, s.in_place_write_bytes};
  }
  const detail::HostBackendStats s = detail::HostExecutor::Get().stats();
  return {s.in_place_writes, s.in_place_write_bytes};
}

class LoopStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_plan_cache();
    clear_eval_log();
  }
};

// u[0] = sin(0.05 t); u[1:-1] += (dt t) * (u[:-2] - 2 u[1:-1] + u[2:]), with no eval().
void StencilSteps(Array& u, int64_t first, int64_t steps, double dt) {
  for (int64_t t = first; t < first + steps; ++t) {
    u(0) = std::sin(0.05 * static_cast<double>(t));
    u(Slice(1, -1)) =
        u(Slice(1, -1)) +
        dt * static_cast<double>(t) * (u(Slice(0, -2)) - 2.0 * u(Slice(1, -1)) + u(Slice(2, none)));
  }
}

void StencilReference(std::vector<double>& u, int64_t first, int64_t steps, double dt) {
  for (int64_t t = first; t < first + steps; ++t) {
    u[0] = std::sin(0.05 * static_cast<double>(t));
    std::vector<double> next = u;
    for (size_t i = 1; i + 1 < u.size(); ++i) {
      next[i] = u[i] + dt * static_cast<double>(t) * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    }
    u = next;
  }
}

TEST_F(LoopStepsTest, ALiteralLoopWithoutEvalRunsOnePlanPerStepWhateverItsScalarsDo) {
  const std::vector<double> start = RandomValues(257, 1);
  Array u = array(start);
  std::vector<double> want = start;
  const double dt = 0.4 / 80;
  StencilSteps(u, 0, 40, dt);
  StencilReference(want, 0, 40, dt);
  std::vector<double> got = u.to_host<double>();  // the last step, read
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  const int64_t plans = plan_cache_stats().misses;
  const int64_t compiled = kernel_compile_stats().compiled;
  // Each step is cut when its first statement records again: 39 cuts, then the read.
  EXPECT_GE(LoopStepCuts(), 39);
  // t = 0 and 1 (the values that stay constants), then one plan every step; the read.
  EXPECT_LE(plans, 5);
  StencilSteps(u, 40, 40, dt);
  StencilReference(want, 40, 40, dt);
  got = u.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  EXPECT_EQ(plan_cache_stats().misses, plans) << "40 more steps planned again";
  EXPECT_EQ(kernel_compile_stats().compiled, compiled) << "40 more steps compiled again";
}

TEST_F(LoopStepsTest, EveryKindOfScalarIsAnArgument) {
  const std::vector<double> av = RandomValues(33, 2);
  Array a = array(av);
  for (int k = 2; k < 8; ++k) {
    const double c = 0.37 * k;
    const float f = 1.5f * static_cast<float>(k);
    Array r = a * c + gpuc::scalar(c * c) - static_cast<int64_t>(k) + f;
    const std::vector<double> got = r.to_host<double>();
    for (size_t i = 0; i < av.size(); ++i) {
      EXPECT_DOUBLE_EQ(got[i], av[i] * c + c * c - k + static_cast<double>(f)) << k;
    }
  }
  EXPECT_EQ(plan_cache_stats().misses, 1);
  EXPECT_EQ(plan_cache_stats().hits, 5);
  // An int32 array keeps int32 with a weak integer scalar, and the value is still checked
  // against the dtype at record time (NEP 50).
  Array ints = array(std::vector<int32_t>{1, 2, 3});
  EXPECT_EQ((ints * 7).dtype(), int32);
  EXPECT_THROW((void)(array(std::vector<int8_t>{1}) + 300), Error);
}

TEST_F(LoopStepsTest, AMovingWindowAndAWrittenRowCompileTheirKernelsOnce) {
  const int64_t n = 24, w = 5;
  const std::vector<double> av = RandomValues(n, 3);
  const std::vector<double> bv = RandomValues(n * n, 4);
  Array a = array(av);
  Array grid = array(bv, Shape{n, n});
  std::vector<double> want = bv;
  int64_t compiled_after_two = 0;
  for (int64_t i = 0; i + w <= n; ++i) {
    // A window sum written into row i, from column i on: offsets and extents change.
    Array s = gpuc::sum(a(Slice(i, i + w)) * 2.5);
    grid(i, Slice(i, none)) = grid(i, Slice(i, none)) + s;
    grid.eval();
    double sum = 0;
    for (int64_t k = i; k < i + w; ++k) sum += av[k] * 2.5;
    for (int64_t j = i; j < n; ++j) want[i * n + j] += sum;
    if (i == 2) compiled_after_two = kernel_compile_stats().compiled;
  }
  EXPECT_EQ(kernel_compile_stats().compiled, compiled_after_two)
      << "a new window position compiled a new kernel";
  const std::vector<double> got = grid.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST_F(LoopStepsTest, ACarriedArrayThatIsWrittenButNeverEvaluatedIsCutEveryStep) {
  // A forward sweep over planes, as the Thomas algorithm's: each plane reads the last one.
  const int64_t planes = 12, n = 6;
  const std::vector<double> cv = RandomValues(planes * n, 5);
  Array c = array(cv, Shape{planes, n});
  Array x = gpuc::zeros({planes, n});
  x(0) = c(0);
  std::vector<double> want(cv.begin(), cv.begin() + n);
  want.resize(planes * n);
  for (int64_t k = 1; k < planes; ++k) {
    x(k) = c(k) - 0.5 * x(k - 1);
    for (int64_t j = 0; j < n; ++j) want[k * n + j] = cv[k * n + j] - 0.5 * want[(k - 1) * n + j];
  }
  EXPECT_GE(LoopStepCuts(), planes - 3);
  const std::vector<double> got = x.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST_F(LoopStepsTest, StraightLineCodeAndNestedExpressionsAreNotLoopSteps) {
  Array a = array(RandomValues(16, 6));
  Array b = array(RandomValues(16, 7));
  Array c = array(RandomValues(16, 8));
  // Both subtractions and the addition are recorded at a's column.
  Array y = a - b - c + a * 3.0 - b;
  Array z = (a - b) * (a - c) + y;
  z.eval();
  EXPECT_EQ(LoopStepCuts(), 0);
  const std::vector<double> av = a.to_host<double>(), bv = b.to_host<double>(),
                            cv = c.to_host<double>(), zv = z.to_host<double>();
  for (size_t i = 0; i < av.size(); ++i) {
    const double yi = av[i] - bv[i] - cv[i] + av[i] * 3.0 - bv[i];
    EXPECT_NEAR(zv[i], (av[i] - bv[i]) * (av[i] - cv[i]) + yi, 1e-12);
  }
}

// The host and GPU back ends write an update_slice over storage nothing else sees as a
// region copy.
TEST_F(LoopStepsTest, WritingARowMovesTheRowsBytesNotTheMatrixs) {
  if (EvaluationTargetName() == "interp") {
    GTEST_SKIP() << "in-place writes are done by the host and GPU back ends";
  }
  const int64_t m = 64;
  const std::vector<double> dv = RandomValues(m * m, 9);
  Array data = array(dv, Shape{m, m});
  Array cov = gpuc::zeros({m, m});
  cov.eval();
  const InPlaceCounts before = InPlaceWritesSoFar();
  std::vector<double> want(m * m, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    // Row i from column i on, and column i from row i on, as a covariance fills its triangle.
    Array row = data(i, Slice(i, none)) * 0.5;
    cov(i, Slice(i, none)) = row;
    cov(Slice(i, none), i) = row;
    for (int64_t j = i; j < m; ++j) want[i * m + j] = want[j * m + i] = dv[i * m + j] * 0.5;
  }
  const std::vector<double> got = cov.to_host<double>();
  for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(got[k], want[k]) << k;
  const InPlaceCounts after = InPlaceWritesSoFar();
  // 2 writes a row of m - i elements; the first step's cov was a fresh zeros, written whole.
  const int64_t writes = after.writes - before.writes;
  const int64_t bytes = after.bytes - before.bytes;
  EXPECT_GE(writes, 2 * m - 4);
  EXPECT_LE(bytes, 2 * static_cast<int64_t>(sizeof(double)) * m * (m + 1) / 2);
  EXPECT_GT(bytes, static_cast<int64_t>(sizeof(double)) * m * (m + 1) / 2);
}

// Regions with a step, an integer subscript and three axes are copied in place where a plain
// loop puts them (on the GPU: 2-D copies of rows, or of single elements for a stepped last
// axis, one per index of the axes before).
TEST_F(LoopStepsTest, SteppedAndThreeAxisRegionsAreWrittenInPlaceWhereTheyBelong) {
  if (EvaluationTargetName() == "interp") {
    GTEST_SKIP() << "in-place writes are done by the host and GPU back ends";
  }
  const int64_t d0 = 8, d1 = 16, d2 = 16;
  const std::vector<double> base = RandomValues(d0 * d1 * d2, 21);
  Array a = array(base, Shape{d0, d1, d2}) * 2.0;
  a.eval();  // the evaluation's own storage (host or device), held by `a` alone
  std::vector<double> want(base.size());
  for (size_t k = 0; k < base.size(); ++k) want[k] = base[k] * 2.0;
  const std::vector<double> v1 = RandomValues(4 * 3 * 3, 22), v2 = RandomValues(2 * 6, 23);
  const InPlaceCounts before = InPlaceWritesSoFar();
  a(Slice(0, 4), Slice(1, 7, 2), Slice(2, 5)) = array(v1, Shape{4, 3, 3});
  a.eval();
  a(Slice(1, 3), 5, Slice(0, 16, 3)) = array(v2, Shape{2, 6});
  a.eval();
  const InPlaceCounts after = InPlaceWritesSoFar();
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 3; ++k)
        want[(i * d1 + 1 + 2 * j) * d2 + 2 + k] = v1[(i * 3 + j) * 3 + k];
    }
  }
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t k = 0; k < 6; ++k) want[((1 + i) * d1 + 5) * d2 + 3 * k] = v2[i * 6 + k];
  }
  const std::vector<double> got = a.to_host<double>();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(got[k], want[k]) << k;
  EXPECT_EQ(after.writes - before.writes, 2);
  EXPECT_EQ(after.bytes - before.bytes, (36 + 12) * static_cast<int64_t>(sizeof(double)));
}

// A scatter over storage nothing else sees writes only its indexed elements: a histogram-like
// loop adding into a few bins of a large array each step moves those bins' bytes.
TEST_F(LoopStepsTest, AScatterIntoAnArrayNothingElseSeesWritesOnlyItsElements) {
  if (EvaluationTargetName() != "host") {
    GTEST_SKIP() << "scatters in place are done by the host back end (on the GPU a scatter "
                    "runs on the host, issue 35)";
  }
  const int64_t n = 1 << 16, steps = 20;
  Array bins = gpuc::zeros({n});
  bins.eval();
  std::vector<double> want(n, 0.0);
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  for (int64_t t = 0; t < steps; ++t) {
    const std::vector<int64_t> where = {(t * 7919) % n, (t * 104729) % n, 5};
    Array idx = array(where);
    bins = bins.at(idx).add(static_cast<double>(t) + 0.5);
    for (int64_t w : where) want[w] += static_cast<double>(t) + 0.5;
  }
  const std::vector<double> got = bins.to_host<double>();
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(got[k], want[k]) << k;
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  // Each step after the first adds 3 values in place (the first reads the zeros, whose handle
  // was reassigned only by the step itself: in place too when nothing else holds them).
  EXPECT_GE(after.in_place_writes - before.in_place_writes, steps - 1);
  EXPECT_LE(after.in_place_write_bytes - before.in_place_write_bytes, steps * 3 * 8);
}

// A write whose value reads the region it overwrites is still in place once that value is
// computed: the reads all feed the write, so they happen before it.
TEST_F(LoopStepsTest, AStencilWriteReadingItsOwnRegionIsInPlaceAfterItsValue) {
  if (EvaluationTargetName() != "host") {
    GTEST_SKIP() << "the GPU writes regions over half the array with the fused kernel (fewer "
                    "bytes than computing the region and copying it in)";
  }
  const int64_t n = 4096, steps = 6;
  const std::vector<double> start = RandomValues(n, 13);
  Array u = array(start);
  u.eval();
  std::vector<double> want = start;
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  for (int64_t t = 0; t < steps; ++t) {
    u(Slice(1, -1)) = (u(Slice(0, -2)) + u(Slice(2, none))) * 0.5 - u(Slice(1, -1)) * 0.25;
    u.eval();
    std::vector<double> next = want;
    for (int64_t i = 1; i + 1 < n; ++i)
      next[i] = (want[i - 1] + want[i + 1]) * 0.5 - want[i] * 0.25;
    want = next;
  }
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  EXPECT_EQ(after.in_place_writes - before.in_place_writes, steps);
  EXPECT_EQ(after.in_place_write_bytes - before.in_place_write_bytes,
            steps * (n - 2) * static_cast<int64_t>(sizeof(double)));
  std::vector<double> got = u.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
  // The value is the overlapping region itself, shifted by one (a memmove, not a memcpy).
  u(Slice(1, 9)) = u(Slice(0, 8));
  u(Slice(20, 28)) = u(Slice(21, 29));
  u.eval();
  for (int64_t i = 8; i >= 1; --i) want[i] = want[i - 1];
  for (int64_t i = 20; i < 28; ++i) want[i] = want[i + 1];
  got = u.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
}

// The same stencil as a literal loop with no eval(): each loop-step cut evaluates the
// previous step, whose two writes (the boundary, then the interior over the boundary's
// result) both go in place.
TEST_F(LoopStepsTest, ALiteralStencilLoopWritesBothRegionsInPlace) {
  if (EvaluationTargetName() != "host") {
    GTEST_SKIP() << "the GPU writes regions over half the array with the fused kernel (fewer "
                    "bytes than computing the region and copying it in)";
  }
  const int64_t n = 4096, steps = 12;
  const std::vector<double> start = RandomValues(n, 14);
  Array u = array(start);
  u.eval();
  std::vector<double> want = start;
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  StencilSteps(u, 0, steps, 1e-3);
  StencilReference(want, 0, steps, 1e-3);
  const std::vector<double> got = u.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-13) << i;
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  EXPECT_EQ(after.in_place_writes - before.in_place_writes, 2 * steps);
  EXPECT_EQ(after.in_place_write_bytes - before.in_place_write_bytes,
            steps * (1 + (n - 2)) * static_cast<int64_t>(sizeof(double)));
}

// The op that ends a step may record after the statement took several slices of the carried
// array (subscripts have no recording site of their own): those views are re-pointed at the
// evaluated array, not evaluated as results of the cut, so a step stays one kernel and its
// write.
TEST_F(LoopStepsTest, ViewsTakenBeforeTheCutAreNotStoredAsResults) {
  if (detail::EvaluationTarget(exec::CurrentOptions()).name() != "host") {
    GTEST_SKIP() << "counts the host back end's kernels";
  }
  const int64_t n = 24, steps = 10;
  const std::vector<double> start = RandomValues(n * n, 15);
  Array u = array(start, Shape{n, n});
  u.eval();
  const Slice in(1, -1), lo(0, -2), hi(2, none);
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  for (int64_t t = 0; t < steps; ++t) {
    u(in, in) = (u(lo, in) + u(hi, in) + u(in, lo) + u(in, hi)) * 0.25;
  }
  const std::vector<double> got = u.to_host<double>();
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  std::vector<double> want = start;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<double> next = want;
    for (int64_t i = 1; i + 1 < n; ++i) {
      for (int64_t j = 1; j + 1 < n; ++j) {
        next[i * n + j] = (want[(i - 1) * n + j] + want[(i + 1) * n + j] + want[i * n + j - 1] +
                           want[i * n + j + 1]) *
                          0.25;
      }
    }
    want = next;
  }
  for (size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-14) << k;
  // One fused kernel a step (its write in place; one more in the first step's plan, whose
  // input is a fresh array); before, each of the four slices taken before the cut was stored
  // as a result of its own (five kernels a step).
  EXPECT_LE(after.kernel_runs - before.kernel_runs, steps + 1);
  EXPECT_EQ(after.in_place_writes - before.in_place_writes, steps);
}

// A row-by-row covariance: the next step's `data(colon, i)` and `data(colon, Slice(i, none))`
// are taken before the cut. They view a stored array, so the cut leaves them pending (stored
// as results, each would copy its window), and the matmul reads them where they lie: one
// kernel a step (the division feeding both writes), no copy of the window.
TEST_F(LoopStepsTest, ARowByRowCovarianceCopiesNoWindow) {
  if (EvaluationTargetName() != "host") GTEST_SKIP() << "counts the host back end's kernels";
  const int64_t n = 40, m = 24;
  const std::vector<double> dv = RandomValues(n * m, 31);
  Array data = array(dv, Shape{n, m});
  data.eval();
  Array cov = gpuc::zeros({m, m});
  cov.eval();
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  for (int64_t i = 0; i < m; ++i) {
    Array row = gpuc::matmul(data(colon, i), data(colon, Slice(i, none))) / (n - 1.0);
    cov(i, Slice(i, none)) = row;
    cov(Slice(i, none), i) = row;
  }
  const std::vector<double> got = cov.to_host<double>();
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = i; j < m; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += dv[k * m + i] * dv[k * m + j];
      const double want = sum / (n - 1.0);
      ASSERT_NEAR(got[i * m + j], want, 1e-13) << i << "," << j;
      ASSERT_EQ(got[j * m + i], got[i * m + j]) << j << "," << i;
    }
  }
  EXPECT_LE(after.kernel_runs - before.kernel_runs, m + 1);
  EXPECT_GE(after.in_place_writes - before.in_place_writes, 2 * m - 2);
}

TEST_F(LoopStepsTest, AWriteIsNotInPlaceWhileAnotherHandleStillSeesTheOldValue) {
  Array a = array(RandomValues(32, 10));
  a.eval();
  Array before = a;  // the same values under another name
  const std::vector<double> old = before.to_host<double>();
  a(Slice(0, 4)) = 7.5;
  a.eval();
  EXPECT_EQ(before.to_host<double>(), old);
  const std::vector<double> now = a.to_host<double>();
  for (size_t i = 0; i < now.size(); ++i) EXPECT_EQ(now[i], i < 4 ? 7.5 : old[i]) << i;
  // A view taken before the write keeps the old values too, and a write whose value reads
  // the region it overwrites still reads the old values.
  Array view = a(Slice(8, 12));
  a(Slice(8, 12)) = a(Slice(9, 13)) * 2.0;
  a.eval();
  const std::vector<double> v = view.to_host<double>(), after = a.to_host<double>();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(v[i], old[8 + i]);
    EXPECT_EQ(after[8 + i], now[9 + i] * 2.0);
  }
  // Two writes in one evaluation, the second over a region an earlier-recorded read of the
  // first old value still needs: that read sees the old values.
  Array t = a(Slice(20, 24));
  a(Slice(0, 4)) = 1.5;
  a(Slice(20, 24)) = 5.0;
  Array y = t * 3.0;
  eval({a, y});
  const std::vector<double> yv = y.to_host<double>(), av = a.to_host<double>();
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(yv[i], after[20 + i] * 3.0) << i;
    EXPECT_EQ(av[i], 1.5);
    EXPECT_EQ(av[20 + i], 5.0);
  }
}

TEST_F(LoopStepsTest, AWindowThatMovesButKeepsItsShapePlansOnce) {
  // The host and GPU back ends run a plan at new positions; the interpreter keeps its graph.
  if (detail::EvaluationTarget(exec::CurrentOptions()).name() == "interp") {
    GTEST_SKIP() << "positions are plan values on the host and GPU back ends";
  }
  const int64_t planes = 40, n = 8;
  const std::vector<double> cv = RandomValues(planes * n, 11);
  Array c = array(cv, Shape{planes, n});
  Array x = gpuc::zeros({planes, n});
  x(0) = c(0);
  x.eval();
  std::vector<double> want(cv.begin(), cv.begin() + n);
  want.resize(planes * n);
  int64_t plans_after_three = 0;
  // The last plane is left out: its window would start at 0, which is structure (kernels
  // keep zero offsets literal).
  for (int64_t k = 1; k < planes - 1; ++k) {
    x(k) = c(k) * 0.25 + x(k - 1) * 0.5 + c(Slice(planes - k - 1, planes - k))(0);
    x.eval();
    for (int64_t j = 0; j < n; ++j) {
      want[k * n + j] =
          cv[k * n + j] * 0.25 + want[(k - 1) * n + j] * 0.5 + cv[(planes - k - 1) * n + j];
    }
    if (k == 3) plans_after_three = plan_cache_stats().misses;
  }
  EXPECT_EQ(plan_cache_stats().misses, plans_after_three) << "a new position planned again";
  const std::vector<double> got = x.to_host<double>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST_F(LoopStepsTest, ALoopThatKeepsMakingNewPlansSaysSoOnceWithItsSite) {
  exec::Options options = exec::CurrentOptions();
  options.explain = true;
  exec::ScopedOptions scoped(options);
  Array a = array(RandomValues(64, 12));
  Array total = gpuc::zeros({1});
  testing::internal::CaptureStderr();
  for (int64_t n = 1; n < 20; ++n) {
    Array part = gpuc::sum(a(Slice(0, n))) * 0.5;  // a new shape every step
    total(0) = total(0) + part;
  }
  total.eval();
  const std::string err = testing::internal::GetCapturedStderr();
  size_t reports = 0;
  for (size_t at = err.find("made a new plan"); at != std::string::npos;
       at = err.find("made a new plan", at + 1)) {
    ++reports;
  }
  EXPECT_EQ(reports, 1u) << err;
  EXPECT_NE(err.find("loop_steps_test.cc:"), std::string::npos) << err;
  double want = 0;
  const std::vector<double> av = a.to_host<double>();
  for (int64_t n = 1; n < 20; ++n) {
    for (int64_t k = 0; k < n; ++k) want += av[k] * 0.5;
  }
  EXPECT_NEAR(total.to_host<double>()[0], want, 1e-12);
}

}  // namespace
}  // namespace gpuc
