//===- array_index_writes_test.cc - at(idx), at(mask) and counting: errors -===//
//
// The values are checked against NumPy in api_fixtures_test.cc (at_*, bincount_*,
// histogram_*, searchsorted_*, digitize_*); here: every mistake is a gpuc::Error that names
// the op and the shapes or dtypes, data-dependent ones at evaluation, and the arrays stay
// usable afterwards.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

#include "absl/strings/match.h"
#include "gpuc/gpuc.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

using test::ErrorOf;

void ExpectContainsAll(const std::string& error, std::initializer_list<const char*> parts) {
  for (const char* p : parts) EXPECT_TRUE(absl::StrContains(error, p)) << p << " in: " << error;
}

TEST(ArrayIndexWrites, ReadingThroughAMaskSaysWhatToWriteInstead) {
  Array a = arange(6.0).reshape({2, 3});
  Array mask = a > 2.0;
  ExpectContainsAll(ErrorOf([&] { a.at(mask).get(); }), {"get", "a[mask]", "(2,3)", "where"});
  EXPECT_EQ(a.at(mask).set(0.0).to_host<double>(), (std::vector<double>{0, 1, 2, 0, 0, 0}));
}

TEST(ArrayIndexWrites, AMaskMustMatchTheLeadingAxes) {
  Array a = arange(6.0).reshape({2, 3});
  Array wrong = array({true, false, true});
  ExpectContainsAll(ErrorOf([&] { a.at(wrong).set(1.0); }),
                    {"set", "dimension 0", "dimension is 2", "boolean dimension is 3"});
  Array value = array(std::vector<double>{1, 2});
  ExpectContainsAll(ErrorOf([&] { a.at(a > 1.0).set(value); }),
                    {"set", "could not broadcast", "(2,)", "(2,3)"});
  EXPECT_EQ(a.to_host<double>()[5], 5.0);
}

TEST(ArrayIndexWrites, IndexArraysMustBeIntegersAndCombinersCastSameKind) {
  Array a = arange(4);  // int64
  ExpectContainsAll(ErrorOf([&] { a.at(array(std::vector<double>{0.5})).set(1); }),
                    {"set", "integers or bool", "float64"});
  Array idx = array(std::vector<int64_t>{1, 1});
  ExpectContainsAll(ErrorOf([&] { a.at(idx).add(0.5); }), {"add", "float64", "int64", "same_kind"});
  ExpectContainsAll(ErrorOf([&] { a.at(idx).divide(2); }), {"divide", "same_kind"});
  EXPECT_EQ(a.at(idx).add(2).to_host<int64_t>(), (std::vector<int64_t>{0, 5, 2, 3}));
}

TEST(ArrayIndexWrites, AnOutOfRangeIndexIsAnEvaluationErrorAndArraysStayUsable) {
  Array a = arange(4.0);
  Array bad = array(std::vector<int64_t>{0, 4});
  Array updated = a.at(bad).add(1.0);
  ExpectContainsAll(ErrorOf([&] { updated.eval(); }),
                    {"scatter", "index 4", "out of bounds", "size 4"});
  // Negative indices count from the end, as NumPy's.
  EXPECT_EQ(a.at(array(std::vector<int64_t>{-1, -1})).add(1.0).to_host<double>(),
            (std::vector<double>{0, 1, 2, 5}));
}

TEST(Counting, BincountChecksItsInputAndRejectsNegativesAtEvaluation) {
  ExpectContainsAll(ErrorOf([] {
                      bincount(zeros({2, 2}, int64), 3);
                    }),
                    {"bincount", "1-D", "(2,2)"});
  ExpectContainsAll(ErrorOf([] { bincount(zeros({2}), 3); }), {"bincount", "integers", "float64"});
  Array x = array(std::vector<int64_t>{0, 2, -1});
  // The errors speak of bincount and its x, not of the scatter it records.
  const std::string negative = ErrorOf([&] { bincount(x, 3).eval(); });
  ExpectContainsAll(negative, {"bincount", "x holds -1", "must not be negative"});
  EXPECT_EQ(negative.find("scatter"), std::string::npos) << negative;
  Array big = array(std::vector<int64_t>{0, 3});
  ExpectContainsAll(ErrorOf([&] { bincount(big, 3).eval(); }),
                    {"bincount", "x holds 3", "[0, 3)", "length 3"});
  ExpectContainsAll(ErrorOf([&] { bincount(big, zeros({3}), 4); }),
                    {"bincount", "weights", "(3,)", "(2,)"});
  EXPECT_EQ(bincount(array(std::vector<int64_t>{1, 1, 2}), 4).to_host<int64_t>(),
            (std::vector<int64_t>{0, 2, 1, 0}));
}

TEST(Counting, WeightedHistogramsHaveNumpysBits) {
  // Over four of NumPy's 65536-element blocks: its sums run per block, so one sequential
  // pass over all the weights differs in 12 of the 13 bins (test/fixtures/api/
  // make_histogram_weights_fixture.py has the inputs' formulas and NumPy's counts).
  const nlohmann::json fixture = test::LoadFixture("api/histogram_weights.json");
  const int64_t n = fixture["n"].get<int64_t>(), bins = fixture["bins"].get<int64_t>();
  const double lo = fixture["range"][0].get<double>(), hi = fixture["range"][1].get<double>();
  const Array i = arange(n);
  const Array x = ((i * 7919) % 10007).astype(float64) / 1000.0 - 5.0;
  const Array w = ((i * 104729) % 1009).astype(float64) / 10.0 - 50.0;
  const Array wi = (i * 104729) % 1009 - 500;
  auto hex = [&](const char* name) {
    std::vector<double> v;
    for (const auto& h : fixture[name])
      v.push_back(std::strtod(h.get<std::string>().c_str(), nullptr));
    return v;
  };
  EXPECT_EQ(histogram(x, bins, lo, hi, w).counts.to_host<double>(), hex("f64"));
  const Histogram f32 = histogram(x, bins, lo, hi, w.astype(float32));
  EXPECT_EQ(f32.counts.dtype(), float32);
  std::vector<double> want32 = hex("f32");
  std::vector<float> want32f(want32.begin(), want32.end());
  EXPECT_EQ(f32.counts.to_host<float>(), want32f);
  EXPECT_EQ(histogram(x, bins, lo, hi, wi).counts.to_host<int64_t>(),
            fixture["i64"].get<std::vector<int64_t>>());
  // Weights must have x's shape and be real.
  ExpectContainsAll(ErrorOf([&] { histogram(x, bins, lo, hi, w(Slice(0, 5))); }),
                    {"histogram", "weights", "(5,)", "(200003,)"});
  ExpectContainsAll(ErrorOf([&] { histogram(x, bins, lo, hi, w.astype(complex128)); }),
                    {"histogram", "complex128"});
}

TEST(Counting, AutodetectedHistogramRangesAreNumpys) {
  // make_histogram_auto_fixture.py: NumPy 1.24's counts and edges for the data's own range.
  const nlohmann::json fixture = test::LoadFixture("api/histogram_auto.json");
  const int64_t n = fixture["n"].get<int64_t>();
  const Array i = arange(n);
  const Array x64 = ((i * 7919) % 10007).astype(float64) / 1000.0 - 5.0;
  const std::vector<std::pair<std::string, Array>> inputs = {{"f64", x64},
                                                             {"f32", x64.astype(float32)},
                                                             {"i64", (i * 7919) % 10007 - 3000},
                                                             {"same", full({7}, 2.5)},
                                                             {"empty", zeros({0})}};
  auto hexes = [](const nlohmann::json& list) {
    std::vector<double> v;
    for (const auto& h : list) v.push_back(std::strtod(h.get<std::string>().c_str(), nullptr));
    return v;
  };
  for (const auto& [name, x] : inputs) {
    for (int64_t bins : {13, 64}) {
      SCOPED_TRACE(absl::StrCat(name, " bins=", bins));
      const nlohmann::json& want = fixture[absl::StrCat(name, "_", bins)];
      const Histogram h = histogram(x, bins);
      EXPECT_EQ(h.counts.to_host<int64_t>(), want["counts"].get<std::vector<int64_t>>());
      EXPECT_EQ(h.edges.astype(float64).to_host<double>(), hexes(want["edges"]));
      EXPECT_EQ(dtype_name(h.edges.dtype()), want["edges_dtype"].get<std::string>());
    }
    SCOPED_TRACE(absl::StrCat(name, " weighted"));
    const Array w = (arange(x.size()) % 7).astype(float64) - 2.5;
    EXPECT_EQ(histogram(x, 13, w).counts.to_host<double>(),
              hexes(fixture[absl::StrCat(name, "_weighted")]));
  }
  // NumPy: "autodetected range of [nan, nan] is not finite".
  ExpectContainsAll(ErrorOf([&] {
                      histogram(array(std::vector<double>{1.0, std::nan("")}), 4);
                    }),
                    {"histogram", "autodetected range", "not finite"});
}

TEST(Counting, HistogramAndSearchsortedErrorsNameTheirArguments) {
  Array x = arange(5.0);
  ExpectContainsAll(ErrorOf([&] { histogram(x, 0, 0.0, 1.0); }), {"histogram", "bins", "0"});
  ExpectContainsAll(ErrorOf([&] { histogram(x, 3, 2.0, 1.0); }), {"histogram", "range"});
  ExpectContainsAll(ErrorOf([&] {
                      searchsorted(x.reshape({5, 1}), 1.0);
                    }),
                    {"searchsorted", "1-D", "(5,1)"});
  ExpectContainsAll(ErrorOf([&] {
                      digitize(x, x.reshape({1, 5}));
                    }),
                    {"digitize", "bins", "(1,5)"});
  // An empty sorted array inserts everything at 0; one element compares once.
  EXPECT_EQ(searchsorted(zeros({0}), x).to_host<int64_t>(), std::vector<int64_t>(5, 0));
  EXPECT_EQ(searchsorted(array(std::vector<double>{2.0}), x, Side::kRight).to_host<int64_t>(),
            (std::vector<int64_t>{0, 0, 1, 1, 1}));
}

TEST(Counting, SearchsortedOverALongArrayMatchesABinarySearch) {
  // 1000 sorted values: ten halving steps, each a gather, fused into one kernel.
  std::vector<double> sorted(1000);
  for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = 0.5 * static_cast<double>(i / 3);
  std::vector<double> probes;
  for (int i = -3; i < 340; ++i) probes.push_back(0.25 * i);
  const std::vector<int64_t> left =
      searchsorted(array(sorted), array(probes), Side::kLeft).to_host<int64_t>();
  const std::vector<int64_t> right =
      searchsorted(array(sorted), array(probes), Side::kRight).to_host<int64_t>();
  for (size_t i = 0; i < probes.size(); ++i) {
    EXPECT_EQ(left[i], std::lower_bound(sorted.begin(), sorted.end(), probes[i]) - sorted.begin())
        << probes[i];
    EXPECT_EQ(right[i], std::upper_bound(sorted.begin(), sorted.end(), probes[i]) - sorted.begin())
        << probes[i];
  }
}

TEST(ArrayIndexWritesTest, AddAtWithRepeatedIndicesSumsInNumPysOrderForEachTypedPath) {
  // The typed add path of the scatter (f64, f32, int64, int32) against a plain loop: repeated
  // indices all add, float sums in order, integers wrap.
  const std::vector<int64_t> idx = {3, 0, 3, 7, 3, 0, 9, 7};
  const std::vector<double> vals = {0.1, 1e8, 0.2, -3.5, 0.3, 1.0, 2.5, 1e-8};
  for (DType dtype : {float64, float32}) {
    Array base = array<double>(std::vector<double>(10, 1.0)).astype(dtype);
    Array got = base.at(array(idx)).add(array(vals).astype(dtype));
    std::vector<double> want(10, 1.0);
    if (dtype == float32) {
      std::vector<float> w(10, 1.0f);
      for (size_t k = 0; k < idx.size(); ++k) w[idx[k]] += static_cast<float>(vals[k]);
      for (int i = 0; i < 10; ++i) want[i] = w[i];
    } else {
      for (size_t k = 0; k < idx.size(); ++k) want[idx[k]] += vals[k];
    }
    EXPECT_EQ(got.to_host<double>(), want) << dtype_name(dtype);
  }
  const int64_t big = std::numeric_limits<int64_t>::max();
  Array wrapped =
      array<int64_t>({big, 0}).at(array<int64_t>({0, 0, 1})).add(array<int64_t>({1, 1, -5}));
  EXPECT_EQ(wrapped.to_host<int64_t>(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min() + 1, -5}));
  Array small =
      array<int32_t>({2147483647, 7}).at(array<int64_t>({0, 1, 1})).add(array<int32_t>({1, 3, 4}));
  EXPECT_EQ(small.to_host<int32_t>(), (std::vector<int32_t>{-2147483647 - 1, 14}));
}

}  // namespace
}  // namespace gpuc
