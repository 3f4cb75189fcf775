//===- sort_gpu_test.cc - sort and argsort as GPU kernels ------------------===//
//
// sort and argsort (gpu_sort.h) over every real dtype, along the last axis and a strided one,
// at line lengths that take each path (a thread per line, a block per line, the radix sort
// with one and with many tiles), against the reference interpreter bit for bit: many ties
// (argsort's stability), NaNs (last, their bits kept), -0.0 beside 0.0 in input order, the
// extremes of each integer type. Also: partition, median and unique through the API on the
// device with no step on the host. Skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gpuc/gpuc.h"
#include "ir/interpreter.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "test/gpu/run_on_gpu.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

// `n` draws from a few distinct values (ties), with the dtype's extremes and, for floats,
// NaNs and both zeros among them.
std::vector<double> SortInput(const std::string& dtype, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  const bool is_float = dtype[0] == 'f';
  const bool is_unsigned = dtype[0] == 'u' || dtype == "bool";
  std::uniform_int_distribution<int> pick(is_unsigned ? 0 : -40, 40);
  std::vector<double> x(static_cast<size_t>(n));
  for (double& v : x) v = dtype == "bool" ? pick(rng) % 2 : pick(rng);
  for (size_t i = 0; i < x.size(); ++i) {
    if (is_float) {
      if (i % 11 == 3) x[i] = std::nan("");
      if (i % 13 == 5) x[i] = -0.0;
      if (i % 13 == 6) x[i] = 0.0;
      if (i % 17 == 7) x[i] = x[i] * 1e3 + 0.25;  // values that are not integers
      if (i % 101 == 9) x[i] = -std::numeric_limits<double>::infinity();
    } else if (dtype != "bool" && i % 97 == 1) {
      // The type's extremes (kept within what a double holds exactly).
      const int bits = std::stoi(dtype.substr(1));
      const double top = bits >= 53 ? std::ldexp(1.0, 52) : std::ldexp(1.0, bits - 1) - 1;
      x[i] = is_unsigned ? std::ldexp(1.0, std::min(bits, 52)) - 1 : (i % 2 ? top : -top - 1);
    }
  }
  return x;
}

void CheckSort(detail::GpuExecutor& gpu, const std::string& op, const std::string& dtype,
               const std::vector<int64_t>& shape, int axis, uint32_t seed) {
  const std::string out = op == "argsort" ? "i64" : dtype;
  const std::string dims = absl::StrJoin(shape, ",");
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const std::string text =
      absl::StrCat("func @s(%x: ", dtype, "[", dims, "]) -> (", out, "[", dims, "]) {\n  %s = ", op,
                   " %x {axis = ", axis, "} : ", out, "[", dims, "]\n  return %s\n}\n");
  SCOPED_TRACE(text);
  const ir::Graph graph = test::ParseVerified(text);
  std::vector<ir::HostTensor> args = {
      test::MakeTensor(graph.params[0]->dtype(), SortInput(dtype, n, seed), shape)};
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  const detail::GpuBackendStats before = gpu.stats();
  absl::StatusOr<std::vector<ir::HostTensor>> got = test::RunOnGpu(gpu, graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_EQ(after.sorts - before.sorts, 1);
  EXPECT_EQ(after.library_steps, before.library_steps) << after.last_host_reason;
  EXPECT_EQ(test::CompareTensors((*got)[0], (*want)[0], "exact"), "");
}

TEST(SortGpu, EveryRealDtypeAlongTheLastAxisMatchesTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  uint32_t seed = 70;
  for (const char* op : {"sort", "argsort"}) {
    for (const char* dtype :
         {"bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64"}) {
      CheckSort(gpu, op, dtype, {300, 9}, 1, seed++);    // a thread per line
      CheckSort(gpu, op, dtype, {40, 1000}, 1, seed++);  // a block per line
      CheckSort(gpu, op, dtype, {3, 5000}, 1, seed++);   // radix, two tiles a line
      CheckSort(gpu, op, dtype, {200003}, 0, seed++);    // radix, many tiles, a ragged one
    }
  }
}

TEST(SortGpu, StridedAxesMatchTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  uint32_t seed = 170;
  for (const char* op : {"sort", "argsort"}) {
    CheckSort(gpu, op, "f32", {20, 64, 3}, 0, seed++);
    CheckSort(gpu, op, "f64", {7, 700, 5}, 1, seed++);
    CheckSort(gpu, op, "i32", {9000, 4}, 0, seed++);
    CheckSort(gpu, op, "u8", {2049, 3}, 0, seed++);   // one past the block path's longest line
    CheckSort(gpu, op, "i64", {2048, 2}, 0, seed++);  // the block path's longest line
    CheckSort(gpu, op, "f32", {33, 2}, 0, seed++);    // one past the thread path's longest
  }
}

TEST(SortGpu, APartitionMedianAndUniqueRunOnTheDevice) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const detail::GpuBackendStats before = gpu.stats();
  std::vector<float> v(100001);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& f : v) f = u(rng);
  Array x = array(v);
  std::vector<float> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(median(x).item<float>(), sorted[50000]);
  std::vector<float> parted = partition(x, 777).to_host<float>();
  EXPECT_EQ(parted[777], sorted[777]);
  for (int i = 0; i < 777; ++i) ASSERT_LE(parted[i], sorted[777]) << i;
  Array counts = array(std::vector<int32_t>{5, 3, 5, 5, 9, 3, -1});
  EXPECT_EQ(unique(counts).to_host<int32_t>(), (std::vector<int32_t>{-1, 3, 5, 9}));
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_GE(after.sorts - before.sorts, 3);
  EXPECT_EQ(after.library_steps, before.library_steps) << after.last_host_reason;
}

}  // namespace
}  // namespace gpuc
