//===- sorting_test.cc - sort, argsort and what is built on them ----------===//
//
// NumPy's values are in the API fixtures (test/fixtures/api: sort, argsort, median, quantile,
// percentile, unique against NumPy 1.24, NaNs and complex classes included). Here: the
// host's typed, threaded sort against the interpreter's on sizes past one thread's share,
// stability, the partition property, and the errors.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"

#include "gpuc/gpuc.h"
#include "lib/backend/host/host_library_steps.h"
#include "lib/eval/evaluator.h"
#include "lib/exec/options.h"
#include "test/unit/host_check.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

TEST(Sorting, TheHostsThreadedSortAgreesWithTheInterpreterBitForBit) {
  // Many short lines (spread over the pool), one long line, every element kind.
  for (const char* type : {"f32[3000,37]", "f64[200000]", "i16[64,513]", "c64[40,41]",
                           "bf16[7,300]", "u64[5000]", "bool[33,65]"}) {
    const std::string t(type);
    const std::string i64 = "i64" + t.substr(t.find('['));
    for (int axis = 0; axis < (t.find(',') == std::string::npos ? 1 : 2); ++axis) {
      test::ExpectHostMatchesInterpreter(
          absl::StrCat("func @f(%a: ", t, ") -> (", t, ", ", i64,
                       ") {\n  %s = sort %a {axis = ", axis, "} : ", t,
                       "\n  %i = argsort %a {axis = ", axis, "} : ", i64, "\n  return %s, %i\n}\n"),
          7, "exact");
    }
  }
}

// Scans are not sorting, but they are the other order-dependent step issue 35 compiles for
// the host: its typed, threaded cumsum and cumprod against the interpreter's, every
// accumulator dtype, inner and outer axes, sizes past one thread's share.
TEST(Sorting, TheHostsTypedScansAgreeWithTheInterpreter) {
  struct Case {
    const char* in;
    const char* out;
    const char* tolerance;
  };
  for (const Case& c : {Case{"f64[300,700]", "f64", "exact"}, Case{"f32[1000,33]", "f32", "exact"},
                        Case{"i32[64,257]", "i64", "exact"}, Case{"u8[40,50]", "u64", "exact"},
                        Case{"bool[30,70]", "i64", "exact"}, Case{"c64[20,30]", "c64", "exact"},
                        Case{"f16[8,300]", "f16", "exact"}, Case{"i64[200000]", "i64", "exact"}}) {
    const std::string in(c.in), dims = in.substr(in.find('['));
    const std::string out = c.out + dims;
    const bool two_axes = dims.find(',') != std::string::npos;
    for (const char* op : {"cumsum", "cumprod"}) {
      for (int axis = 0; axis < (two_axes ? 2 : 1); ++axis) {
        test::ExpectHostMatchesInterpreter(
            absl::StrCat("func @f(%a: ", in, ") -> (", out, ") {\n  %s = ", op,
                         " %a {axis = ", axis, "} : ", out, "\n  return %s\n}\n"),
            11, c.tolerance);
      }
    }
  }
}

// A float32 cumsum rounds each partial sum to float32, as NumPy's add.accumulate: 2^24 + 1
// rounds back to 2^24 at every step (the interpreter once carried double sums: 2^24 + 2).
TEST(Sorting, AFloat32CumsumRoundsEveryPartialSum) {
  const Array a = array<float>({16777216.0f, 1.0f, 1.0f});
  for (const char* backend : {"", "interpreter"}) {
    exec::Options options = exec::CurrentOptions();
    if (*backend != '\0') options.backend = backend;
    exec::ScopedOptions scoped(options);
    EXPECT_EQ(cumsum(a).to_host<float>(),
              (std::vector<float>{16777216.0f, 16777216.0f, 16777216.0f}))
        << backend;
  }
}

// A step that still runs on the reference interpreter inside a plan is named by --stats
// (InterpretedOpsText); sorts and scans no longer are.
TEST(Sorting, StepsLeftOnTheInterpreterAreNamedAndSortsAndScansAreNotAmongThem) {
  if (detail::EvaluationTarget(exec::CurrentOptions()).name() != "host") {
    GTEST_SKIP() << "counts the host's steps";
  }
  sort(array<double>({2.0, 1.0})).eval();
  cumsum(array<double>({2.0, 1.0})).eval();
  const std::string before = detail::InterpretedOpsText();
  EXPECT_EQ(before.find("sort"), std::string::npos) << before;
  EXPECT_EQ(before.find("cumsum"), std::string::npos) << before;
  bincount(array<int64_t>({1, 2, 2}), 4).eval();  // a scatter-add: not compiled yet
  const std::string after = detail::InterpretedOpsText();
  EXPECT_NE(after.find("scatter x"), std::string::npos) << after;
}

TEST(Sorting, ArgsortIsStableAndPartitionPutsTheKthInPlace) {
  std::vector<int32_t> v(4000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 7919) % 13);
  const std::vector<int64_t> order = argsort(array(v)).to_host<int64_t>();
  for (size_t k = 1; k < order.size(); ++k) {
    const int32_t a = v[order[k - 1]], b = v[order[k]];
    ASSERT_TRUE(a < b || (a == b && order[k - 1] < order[k])) << k;
  }
  const std::vector<double> x = test::UniformDoubles(101, 4);
  const std::vector<double> p = partition(array(x), 40).to_host<double>();
  std::vector<double> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(p[40], sorted[40]);
  for (int k = 0; k < 40; ++k) EXPECT_LE(p[k], p[40]);
  for (int k = 41; k < 101; ++k) EXPECT_GE(p[k], p[40]);
  // argpartition's positions put the same values there (a selection on the host, a full sort
  // on the interpreter: both partitions).
  for (const char* backend : {"", "interpreter"}) {
    exec::Options options = exec::CurrentOptions();
    if (*backend != '\0') options.backend = backend;
    exec::ScopedOptions scoped(options);
    const std::vector<int64_t> at = argpartition(array(x), -61).to_host<int64_t>();
    EXPECT_EQ(x[at[40]], sorted[40]) << backend;
    for (int k = 0; k < 40; ++k) EXPECT_LE(x[at[k]], sorted[40]) << backend;
    for (int k = 41; k < 101; ++k) EXPECT_GE(x[at[k]], sorted[40]) << backend;
  }
}

TEST(Sorting, UniqueOfEmptyScalarNanAndSignedZeroInputsIsNumpys) {
  // np.unique([]) is an empty float64 array; np.unique(np.float32(3)) is [3.].
  EXPECT_EQ(unique(zeros({0})).size(), 0);
  EXPECT_EQ(unique(zeros({0})).dtype(), float64);
  EXPECT_EQ(unique(full({}, 3.0f)).to_host<float>(), std::vector<float>{3.0f});
  // NumPy 1.24, equal_nan: np.unique([nan, 1, nan, -0.0, 0.0], return_index=True,
  // return_inverse=True, return_counts=True) -> [-0., 1., nan], [3, 1, 0], [2, 1, 2, 0, 0],
  // [2, 1, 2]: -0.0 and 0.0 are one value, the first in sorted order keeps its sign.
  const double nan = std::nan("");
  const UniqueAll u = unique_all(array(std::vector<double>{nan, 1, nan, -0.0, 0.0}));
  const std::vector<double> values = u.values.to_host<double>();
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], 0.0);
  EXPECT_TRUE(std::signbit(values[0]));
  EXPECT_EQ(values[1], 1.0);
  EXPECT_TRUE(std::isnan(values[2]));
  EXPECT_EQ(u.indices.to_host<int64_t>(), (std::vector<int64_t>{3, 1, 0}));
  EXPECT_EQ(u.inverse.to_host<int64_t>(), (std::vector<int64_t>{2, 1, 2, 0, 0}));
  EXPECT_EQ(u.counts.to_host<int64_t>(), (std::vector<int64_t>{2, 1, 2}));
  // One distinct value: a count of all, and the inverse keeps the input's shape.
  const UniqueAll one = unique_all(full({2, 3}, 7, int8));
  EXPECT_EQ(one.counts.to_host<int64_t>(), std::vector<int64_t>{6});
  EXPECT_EQ(one.inverse.shape(), (Shape{2, 3}));
  EXPECT_EQ(one.values.dtype(), int8);
}

TEST(Sorting, MistakesAreErrorsNamingTheOp) {
  const Array a = array<double>({3.0, 1.0, 2.0});
  auto error = [](const std::function<void()>& f) { return test::ErrorOf(f); };
  EXPECT_NE(error([&] { sort(array<double>({1.0}, Shape{}), 0); }).find("sort: axis 0"),
            std::string::npos);
  EXPECT_NE(error([&] { argsort(a, 1); }).find("argsort"), std::string::npos);
  EXPECT_NE(error([&] { quantile(a, 1.5); }).find("quantile: q must be in [0, 1], got 1.5"),
            std::string::npos);
  EXPECT_NE(error([&] { percentile(a, -1.0); }).find("percentile: q must be in [0, 100]"),
            std::string::npos);
  EXPECT_NE(error([&] { quantile(zeros({0}), 0.5); }).find("no elements"), std::string::npos);
  EXPECT_NE(error([&] { partition(a, 3); }).find("partition: kth 3 is out of bounds"),
            std::string::npos);
  // The process and the other arrays stay usable.
  EXPECT_EQ(sort(a).to_host<double>(), (std::vector<double>{1.0, 2.0, 3.0}));
  // A 0-d array sorts as the flattened array with no axis given.
  EXPECT_EQ(sort(array<double>({5.0}, Shape{}), std::nullopt).to_host<double>(),
            std::vector<double>{5.0});
}

TEST(Sorting, MedianAndQuantileFuseAroundOneSort) {
  // The order statistics read the sorted array: one sort step and the kernels around it.
  const Array a = array(test::UniformDoubles(3000, 9), Shape{30, 100});
  const Array m = median(a, 1), q = quantile(a, {0.1, 0.9}, 1);
  gpuc::eval({m, q});
  const std::vector<double> mv = m.to_host<double>(), qv = q.to_host<double>();
  for (int r = 0; r < 30; ++r) {
    EXPECT_LE(qv[r], mv[r]);
    EXPECT_GE(qv[30 + r], mv[r]);
  }
}

}  // namespace
}  // namespace gpuc
