//===- scatter_gpu_test.cc - scatter and scans as GPU kernels --------------===//
//
// Every combiner over every dtype the GPU scatter covers (gpu_scatter.h), with repeated,
// negative (wrapped) and int32/uint8 indices, leading and trailing axes around the scattered
// one, against the reference interpreter: exactly where the combiner's result does not depend
// on the order repeated indices apply in, and for float add/sub/mul with integer-valued
// values (exact sums in any order). Also: "set" keeps the last value of a repeated index; an
// index out of range is the interpreter's error; no step runs
// on the host; GPUC_DETERMINISTIC=1 sends an order-dependent float scatter to the host.
// Skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "gpuc/gpuc.h"
#include "ir/interpreter.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/exec/options.h"
#include "test/gpu/run_on_gpu.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

using ir::DType;

struct Case {
  std::string dtype;     // data and values
  std::string combiner;  // set, add, sub, mul, div, minimum, maximum
  std::string index = "i64";
};

// data: dtype[7, 10, 3], scattered along axis 1 at 37 indices (repeats, negatives).
std::string GraphText(const Case& c) {
  return absl::StrCat("func @s(%d: ", c.dtype, "[7,10,3], %i: ", c.index, "[37], %v: ", c.dtype,
                      "[7,37,3]) -> (", c.dtype, "[7,10,3]) {\n",
                      "  %s = scatter %d, %i, %v {axis = 1, combiner = \"", c.combiner,
                      "\"} : ", c.dtype, "[7,10,3]\n  return %s\n}\n");
}

std::vector<double> Draws(int64_t n, double lo, double hi, bool integral, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> out(static_cast<size_t>(n));
  for (double& v : out) v = integral ? std::floor(u(rng)) : u(rng);
  return out;
}

void CheckCase(detail::GpuExecutor& gpu, const Case& c, uint32_t seed) {
  SCOPED_TRACE(GraphText(c));
  const ir::Graph graph = test::ParseVerified(GraphText(c));
  const DType dtype = graph.params[0]->dtype();
  const bool is_float = ir::KindOf(dtype) == ir::DTypeKind::kFloat;
  // Floats: integer values keep sums and products exact in any order (small factors for mul,
  // powers of two for div).
  const bool multiplies = c.combiner == "mul" || c.combiner == "div";
  std::vector<double> data = Draws(7 * 10 * 3, -8, 8, !is_float || c.combiner != "minimum", seed);
  std::vector<double> values =
      multiplies ? Draws(7 * 37 * 3, 0, 3, true, seed + 1)
                 : Draws(7 * 37 * 3, -50, 50,
                         !(is_float && (c.combiner == "set" || c.combiner == "minimum" ||
                                        c.combiner == "maximum")),
                         seed + 1);
  if (c.combiner == "div") {
    for (double& v : values) v = std::ldexp(1.0, static_cast<int>(v) - 1);  // 1/2, 1, 2, 4
  }
  if (is_float && (c.combiner == "minimum" || c.combiner == "maximum")) {
    values[5] = std::nan("");
    values[40] = -0.0;
    values[41] = 0.0;
  }
  std::vector<double> indices = Draws(37, c.index == "u8" ? 0 : -10, 10, true, seed + 2);
  indices[3] = indices[4] = indices[20] = 2;  // repeats for certain
  std::vector<ir::HostTensor> args = {
      test::MakeTensor(dtype, data, std::vector<int64_t>{7, 10, 3}),
      test::MakeTensor(graph.params[1]->dtype(), indices),
      test::MakeTensor(dtype, values, std::vector<int64_t>{7, 37, 3})};
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  const detail::GpuBackendStats before = gpu.stats();
  absl::StatusOr<std::vector<ir::HostTensor>> got = test::RunOnGpu(gpu, graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_EQ(after.scatters - before.scatters, 1);
  EXPECT_EQ(after.library_steps, before.library_steps) << after.last_host_reason;
  EXPECT_EQ(test::CompareTensors((*got)[0], (*want)[0], "exact"), "");
}

TEST(ScatterGpu, EveryCombinerAndDtypeMatchesTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  uint32_t seed = 11;
  for (const char* dtype : {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"}) {
    for (const char* combiner : {"set", "add", "sub", "mul", "minimum", "maximum"}) {
      CheckCase(gpu, {dtype, combiner}, seed++);
    }
  }
  for (const char* dtype : {"f32", "f64"}) CheckCase(gpu, {dtype, "div"}, seed++);
  for (const char* dtype : {"c64", "c128"}) {
    for (const char* combiner : {"set", "add", "sub"}) CheckCase(gpu, {dtype, combiner}, seed++);
  }
  for (const char* dtype : {"bool", "f16", "bf16"}) CheckCase(gpu, {dtype, "set"}, seed++);
  for (const char* index : {"i32", "u8", "i16", "u64"}) {
    CheckCase(gpu, {"f32", "add", index}, seed++);
    CheckCase(gpu, {"i64", "set", index}, seed++);
  }
}

TEST(ScatterGpu, SetKeepsTheLastValueOfARepeatedIndex) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  Array a = arange(int64_t{8}).astype(float32);
  Array idx = array(std::vector<int64_t>{1, 5, 1, 1, -1, 5});
  Array v = array(std::vector<float>{10, 20, 30, 40, 50, 60});
  std::vector<float> got = a.at(idx).set(v).to_host<float>();
  EXPECT_EQ(got, (std::vector<float>{0, 40, 2, 3, 4, 60, 6, 50}));
}

TEST(ScatterGpu, AnIndexOutOfRangeIsTheInterpretersError) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const ir::Graph graph = test::ParseVerified(
      "func @s(%d: f32[5,6], %i: i64[3], %v: f32[3,6]) -> (f32[5,6]) {\n"
      "  %s = scatter %d, %i, %v {axis = 0, combiner = \"add\"} : f32[5,6]\n  return %s\n}\n");
  std::vector<ir::HostTensor> args = {
      test::MakeTensor(DType::kFloat32, Draws(30, -1, 1, false, 3), std::vector<int64_t>{5, 6}),
      test::MakeTensor(DType::kInt64, {1, 7, -9}),
      test::MakeTensor(DType::kFloat32, Draws(18, -1, 1, false, 4), std::vector<int64_t>{3, 6})};
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  absl::StatusOr<std::vector<ir::HostTensor>> got = test::RunOnGpu(gpu, graph, args);
  ASSERT_FALSE(want.ok());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), want.status().message());
}

TEST(ScatterGpu, BincountAndAddAtOfManyRowsRunOnTheDevice) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const detail::GpuBackendStats before = gpu.stats();
  random::Generator rng(5);
  Array x = rng.integers(0, 1000, {1 << 20}, int64);
  std::vector<int64_t> xs = x.to_host<int64_t>();
  std::vector<int64_t> counts = bincount(x, 1000).to_host<int64_t>();
  std::vector<int64_t> want(1000, 0);
  for (int64_t v : xs) ++want[static_cast<size_t>(v)];
  EXPECT_EQ(counts, want);
  // k-means' update: rows added into their centroid's row (integer-valued: exact).
  Array labels = rng.integers(0, 64, {1 << 16}, int32);
  Array points = floor(rng.uniform({1 << 16, 16}, -100.0, 100.0, float32));
  Array sums = zeros({64, 16}, float32).at(labels).add(points);
  std::vector<float> got = sums.to_host<float>();
  std::vector<int32_t> ls = labels.to_host<int32_t>();
  std::vector<float> ps = points.to_host<float>();
  std::vector<double> expect(64 * 16, 0.0);
  for (size_t r = 0; r < ls.size(); ++r) {
    for (int d = 0; d < 16; ++d) expect[ls[r] * 16 + d] += ps[r * 16 + d];
  }
  for (size_t i = 0; i < expect.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(expect[i])) << i;
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_GE(after.scatters - before.scatters, 2);
  EXPECT_EQ(after.library_steps, before.library_steps) << after.last_host_reason;
}

TEST(ScatterGpu, DeterministicModeRunsOrderDependentScattersInNumpysOrder) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  exec::Options options = exec::CurrentOptions();
  options.deterministic = true;
  exec::ScopedOptions scoped(options);
  const detail::GpuBackendStats before = gpu.stats();
  random::Generator rng(9);
  Array w = rng.uniform({4096}, 0.0, 1.0, float32);
  Array idx = rng.integers(0, 7, {4096}, int64);
  std::vector<float> got = zeros({7}, float32).at(idx).add(w).to_host<float>();
  std::vector<float> ws = w.to_host<float>();
  std::vector<int64_t> is = idx.to_host<int64_t>();
  std::vector<float> want(7, 0.0f);
  for (size_t k = 0; k < ws.size(); ++k) want[static_cast<size_t>(is[k])] += ws[k];
  EXPECT_EQ(got, want);  // bit for bit: NumPy's order
  EXPECT_EQ(gpu.stats().scatters, before.scatters);
}

TEST(ScatterGpu, AForiLoopWithAScatterRunsOnTheDevice) {
  // Row k of an n x n matrix set at step k: the scatter is recorded into the device loop (a
  // copy into the next state's buffer, the check, the combine), no step driven from the host.
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const int64_t n = 64;
  const std::vector<double> row_values = test::UniformDoubles(n, 3);
  const Array row = array(row_values);
  const Array start = zeros({n, n});
  const detail::GpuBackendStats before = gpu.stats();
  Array m = fori_loop(
      0, n, [&](const Array& k, const Array& m) { return m.at(k).set(row * (k + 1)); }, start);
  const std::vector<double> got = m.to_host<double>();
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(got[k * n + j], row_values[j] * static_cast<double>(k + 1)) << k << "," << j;
    }
  }
  EXPECT_EQ(start.to_host<double>(), std::vector<double>(n * n, 0.0));
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_EQ(after.device_loop_steps - before.device_loop_steps, n);
  EXPECT_EQ(after.scatters - before.scatters, n);
  EXPECT_EQ(after.library_steps, before.library_steps) << after.last_host_reason;
  // One step too many: row n is out of range, and the loop says so.
  try {
    fori_loop(
        0, n + 1, [&](const Array& k, const Array& m) { return m.at(k).add(row); }, start);
    ADD_FAILURE() << "a scatter out of range ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of bounds"), std::string::npos) << e.what();
  }
  // The process goes on: the same loop in range still runs.
  Array again = fori_loop(
      0, 2, [&](const Array& k, const Array& m) { return m.at(k).add(row); }, start);
  EXPECT_EQ(again.to_host<double>()[n + 1], row_values[1]);
}

TEST(ScatterGpu, ALoopReadingRowKMinusOneRunsOnTheDeviceAndChecksItsIndices) {
  // The Thomas sweep's shape: row k from row k - 1 (a take whose bounds check reports
  // errors) and a scatter into row k. The checks are read once, after the loop.
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const int64_t n = 40, m = 3;
  const std::vector<double> bv = test::UniformDoubles(n * m, 5);
  const Array b = array(bv, Shape{n, m}) + 2.0;
  const detail::GpuBackendStats before = gpu.stats();
  Array cp = fori_loop(
      1, n,
      [&](const Array& k, const Array& cp) {
        return cp.at(k).set(1.0 / (take(b, k, 0) - 0.5 * take(cp, k - 1, 0)));
      },
      zeros({n, m}) + 0.25);
  std::vector<double> want(n * m, 0.25);
  for (int64_t k = 1; k < n; ++k) {
    for (int64_t j = 0; j < m; ++j) {
      want[k * m + j] = 1.0 / ((bv[k * m + j] + 2.0) - 0.5 * want[(k - 1) * m + j]);
    }
  }
  EXPECT_EQ(test::CompareTensors(test::MakeTensor(ir::DType::kFloat64, cp.to_host<double>()),
                                 test::MakeTensor(ir::DType::kFloat64, want), "ulp4"),
            "");
  EXPECT_EQ(gpu.stats().device_loop_steps - before.device_loop_steps, n - 1);
  // Reading row k + n (past the end, no wrap to it: k + n >= n) is an error naming the take.
  try {
    fori_loop(
        0, 3, [&](const Array& k, const Array& x) { return x + take(b, k + n, 0); }, zeros({m}));
    ADD_FAILURE() << "a take out of range ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("take"), std::string::npos) << e.what();
  }
}

// cumsum/cumprod of `shape` along `axis` on the GPU against the interpreter: exact for
// integers and integer-valued floats (sums in any order are exact below 2^24).
void CheckScan(detail::GpuExecutor& gpu, const std::string& op, const std::string& in,
               const std::string& out, const std::vector<int64_t>& shape, int axis, uint32_t seed) {
  std::string dims;
  int64_t n = 1;
  for (int64_t d : shape) {
    absl::StrAppend(&dims, dims.empty() ? "" : ",", d);
    n *= d;
  }
  const std::string text =
      absl::StrCat("func @s(%x: ", in, "[", dims, "]) -> (", out, "[", dims, "]) {\n  %s = ", op,
                   " %x {axis = ", axis, "} : ", out, "[", dims, "]\n  return %s\n}\n");
  SCOPED_TRACE(text);
  const ir::Graph graph = test::ParseVerified(text);
  // Products of values in {-1, 1} (and a rare 2) stay exact; sums of small integers too.
  std::vector<double> x =
      op == "cumprod" ? Draws(n, -1, 2, true, seed) : Draws(n, -9, 9, true, seed);
  if (op == "cumprod") {
    for (size_t i = 0; i < x.size(); ++i) x[i] = x[i] == 0 ? (i % 97 == 0 ? 2 : 1) : x[i];
  }
  if (in == "bool" || in[0] == 'u') {
    for (double& v : x) v = std::fabs(v);
  }
  std::vector<ir::HostTensor> args = {test::MakeTensor(graph.params[0]->dtype(), x, shape)};
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  const detail::GpuBackendStats before = gpu.stats();
  absl::StatusOr<std::vector<ir::HostTensor>> got = test::RunOnGpu(gpu, graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_EQ(after.scans - before.scans, 1);
  EXPECT_EQ(after.library_steps, before.library_steps) << after.last_host_reason;
  EXPECT_EQ(test::CompareTensors((*got)[0], (*want)[0], "value"), "");
}

TEST(ScanGpu, CumsumAndCumprodAlongEveryKindOfAxisMatchTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  uint32_t seed = 40;
  for (const char* op : {"cumsum", "cumprod"}) {
    // A long line (many tiles, a ragged last one), rows of one tile, short rows, columns.
    CheckScan(gpu, op, "i64", "i64", {(1 << 20) + 37}, 0, seed++);
    CheckScan(gpu, op, "f64", "f64", {(1 << 18) + 5}, 0, seed++);
    CheckScan(gpu, op, "f32", "f32", {3, 70001}, 1, seed++);
    CheckScan(gpu, op, "i32", "i64", {100, 1500}, 1, seed++);
    CheckScan(gpu, op, "f32", "f32", {1000, 40}, 1, seed++);
    CheckScan(gpu, op, "u32", "u64", {300, 7, 5}, 0, seed++);
    CheckScan(gpu, op, "i8", "i64", {64, 33}, 0, seed++);
    CheckScan(gpu, op, "bool", "i64", {5000}, 0, seed++);
  }
}

TEST(ScanGpu, ACumsumOfIntegersIsExactAtItsLargestSize) {
  // 2^24 + 3 int32 ones and twos: every prefix exact, the tiles' prefixes carried right.
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const int64_t n = (int64_t{1} << 24) + 3;
  Array x = (arange(n) % 2 + 1).astype(int64);
  std::vector<int64_t> got = cumsum(x).to_host<int64_t>();
  int64_t running = 0;
  for (int64_t i = 0; i < n; ++i) {
    running += i % 2 + 1;
    ASSERT_EQ(got[static_cast<size_t>(i)], running) << i;
  }
}

}  // namespace
}  // namespace gpuc
