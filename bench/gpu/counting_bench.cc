//===- counting_bench.cc - Scans, scatters, sorts and counting, timed ------===//
#include "bench/gpu/counting_bench.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/gpu/bench_util.h"
#include "gpuc/gpuc.h"

namespace gpuc::bench {

void RunCountingWorkloads(bool quick) {
  random::Generator rng(35);
  const int64_t scan_n = int64_t{1} << (quick ? 24 : 28);
  const int64_t count_n = int64_t{1} << (quick ? 22 : 26);
  const int64_t rows = int64_t{1} << (quick ? 20 : 24);
  const int64_t sort_n = int64_t{1} << (quick ? 22 : 26);
  const int64_t unique_n = int64_t{1} << (quick ? 20 : 24);
  const int64_t median_n = quick ? 1024 : 4096;
  {
    Array x = rng.uniform({scan_n}, -1.0, 1.0, float32).eval();
    TimeApiCall(absl::StrCat("cumsum_f32_2^", quick ? 24 : 28), [&] { return cumsum(x); });
  }
  {
    Array w = rng.uniform({count_n}, 0.0, 1.0, float32).eval();
    for (int64_t bins : {int64_t{1000}, int64_t{1000000}}) {
      Array idx = rng.integers(0, bins, {count_n}, int32).eval();
      TimeApiCall(absl::StrCat("bincount_2^", quick ? 22 : 26, "_into_", bins, "_weighted_f32"),
                  [&] { return bincount(idx, w, bins); });
      TimeApiCall(absl::StrCat("bincount_2^", quick ? 22 : 26, "_into_", bins),
                  [&] { return bincount(idx, bins); });
    }
  }
  {
    Array points = rng.normal({rows, 16}, 0.0, 1.0, float32).eval();
    Array labels = rng.integers(0, 64, {rows}, int64).eval();
    Array sums = zeros({64, 16}, float32).eval();
    TimeApiCall(absl::StrCat("add_at_2^", quick ? 20 : 24, "x16_into_64_f32"),
                [&] { return sums.at(labels).add(points); });
  }
  {
    Array keys = rng.uniform({sort_n}, -1.0, 1.0, float32).eval();
    Array values = rng.integers(0, 1 << 30, {sort_n}, int32).eval();
    const std::string size = absl::StrCat("2^", quick ? 22 : 26);
    TimeApiCall("sort_f32_" + size, [&] { return sort(keys); });
    TimeApiCall("argsort_f32_" + size, [&] { return argsort(keys); });
    TimeApiCall("sort_pairs_f32_i32_" + size, [&] { return take(values, argsort(keys)); });
    Array ints = rng.integers(-(1 << 30), 1 << 30, {sort_n}, int32).eval();
    TimeApiCall("sort_i32_" + size, [&] { return sort(ints); });
  }
  {
    Array x = rng.integers(0, 1 << 20, {unique_n}, int32).eval();
    // unique's result size depends on the values: its call reads back, so it is timed whole.
    TimeApiCall(absl::StrCat("unique_i32_2^", quick ? 20 : 24), [&] { return unique(x); });
  }
  {
    Array x = rng.uniform({median_n, median_n}, 0.0, 1.0, float32).eval();
    TimeApiCall(absl::StrCat("median_rows_", median_n, "x", median_n, "_f32"),
                [&] { return median(x, 1); });
  }
}

}  // namespace gpuc::bench
