//===- gpu_backend_test.cc - The GPU back end against the oracle ----------===//
//
// Differential tests as test/unit/host_backend_test.cc's, on the GPU: seeded random graphs
// over every dtype, elementwise op, reduction and view, through the default passes, fusion,
// NVPTX code generation, the driver's linker and the device, against the reference
// interpreter. Then what only the GPU path has: reductions split over many blocks (full,
// row and column, argmax ties and NaN across splits), bit-identical reruns, errors from
// kernels, arrays kept on the device between evaluations, and compiled Functions.
// GPUC_DIFFERENTIAL_GRAPHS=N runs more graphs. Skips without a GPU.
//
// The kernels compute math functions as the interpreter does (GPUC_GPU_MATH=exact), so
// elementwise results must be bit-identical and only summation order may differ: a random
// graph can feed an f32 function's last-bit difference into f64 arithmetic, which no
// tolerance of the f64 result could cover. The default float math is checked against NumPy
// by the unit tests' fixture suites, which this script also runs on the GPU.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "gpuc/gpuc.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "passes/pass_manager.h"
#include "test/gpu/run_on_gpu.h"
#include "test/unit/random_graph.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc {
namespace {

using ir::DType;

// Before the executor exists (it reads the mode once).
const bool kExactMath = [] {
  setenv("GPUC_GPU_MATH", "exact", 1);
  return true;
}();

using test::RunOnGpu;

ir::Graph Optimized(const ir::Graph& graph) {
  ir::Graph optimized = graph;
  absl::StatusOr<passes::PassManager> pipeline =
      passes::BuildPipeline(passes::DefaultPipeline(), passes::PassManagerOptions{});
  EXPECT_TRUE(pipeline.ok());
  EXPECT_TRUE(pipeline->Run(optimized).ok());
  return optimized;
}

void CheckAgainstInterpreter(detail::GpuExecutor& gpu, const ir::Graph& graph,
                             const std::vector<ir::HostTensor>& args) {
  SCOPED_TRACE(ir::Print(graph));
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, Optimized(graph), args);
  if (!want.ok()) {
    ASSERT_FALSE(got.ok()) << "the interpreter failed (" << want.status() << ") but not the GPU";
    EXPECT_EQ(got.status().message(), want.status().message());
    return;
  }
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->size());
  for (size_t r = 0; r < want->size(); ++r) {
    EXPECT_EQ(test::CompareTensors((*got)[r], (*want)[r],
                                   test::DifferentialTolerance(graph, (*want)[r].dtype())),
              "")
        << "result " << r;
  }
}

TEST(GpuBackendTest, RandomGraphsAgreeWithTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  const detail::GpuBackendStats before = gpu.stats();
  for (int seed = 0; seed < test::DifferentialGraphCount(); ++seed) {
    test::RandomGraphOptions options;
    options.all_dtypes = true;
    options.all_ops = true;
    const ir::Graph graph = test::RandomGraph(seed, options);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    CheckAgainstInterpreter(gpu, graph, tool::RandomArguments(graph, seed));
    if (HasFailure()) return;
  }
  const detail::GpuBackendStats after = gpu.stats();
  const int64_t launches = after.kernel_launches - before.kernel_launches;
  const int64_t host = after.host_kernels - before.host_kernels;
  std::cout << launches << " kernel launches (" << after.compiles - before.compiles << " compiles, "
            << after.disk_hits - before.disk_hits << " disk hits), " << host
            << " kernels on the host (last: " << after.last_host_reason << "), "
            << after.library_steps - before.library_steps << " library steps on the host, "
            << after.library_calls - before.library_calls << " vendor-library calls\n";
  // Every dtype and op: complex arithmetic and extrema, float mod, integer pow have no GPU
  // lowering yet (as on the host, where they go through the support library).
  EXPECT_GT(launches, 5 * host);
}

/// A graph parsed from text, with seeded random arguments.
struct Case {
  ir::Graph graph;
  std::vector<ir::HostTensor> args;
};
Case Parse(const std::string& text, uint64_t seed) {
  absl::StatusOr<ir::Graph> graph = ir::Parse(text);
  if (!graph.ok()) {
    ADD_FAILURE() << graph.status() << "\n" << text;
    return {};
  }
  Case c{*graph, {}};
  c.args = tool::RandomArguments(c.graph, seed);
  return c;
}

TEST(GpuBackendTest, LargeReductionsSplitOverBlocksAgreeWithTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  // Few rows with long reduced ranges: each row is cut into many chunks whose partial states
  // the combine kernel merges.
  for (const char* text : {
           "func @full(%x: f32[3000000]) -> (f32[]) {\n"
           "  %s = reduce_sum %x {axes = [0]} : f32[]\n  return %s\n}\n",
           "func @rows(%x: f64[3,1000001]) -> (f64[3], f64[3]) {\n"
           "  %s = reduce_sum %x {axes = [1]} : f64[3]\n"
           "  %m = reduce_max %x {axes = [1]} : f64[3]\n  return %s, %m\n}\n",
           "func @columns(%x: f32[200000,7]) -> (f32[7], i64[7]) {\n"
           "  %s = reduce_sum %x {axes = [0]} : f32[7]\n"
           "  %a = argmin %x {axes = [0]} : i64[7]\n  return %s, %a\n}\n",
           "func @middle(%x: f32[5,4000,9]) -> (f32[5,9]) {\n"
           "  %e = exp %x : f32[5,4000,9]\n"
           "  %s = reduce_sum %e {axes = [1]} : f32[5,9]\n  return %s\n}\n",
           "func @ints(%x: i32[2000000]) -> (i32[], bool[]) {\n"
           "  %s = reduce_max %x {axes = [0]} : i32[]\n"
           "  %a = reduce_any %x {axes = [0]} : bool[]\n  return %s, %a\n}\n",
       }) {
    Case c = Parse(text, 7);
    CheckAgainstInterpreter(gpu, c.graph, c.args);
  }
}

TEST(GpuBackendTest, ShortRowReductionsRunAThreadPerRowAndAgreeWithTheInterpreter) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  // Innermost-axis reductions of rows up to kGpuThreadRowLimit long take a thread per row
  // (the n-body's r^2 over [n, n, 3]); one past it a block per row. Sums, extrema and argmax
  // over each, with many rows and with a single row.
  const char* text =
      "func @f(%x: f32[R,L]) -> (f32[R], f32[R], i64[R]) {\n"
      "  %e = mul %x, %x : f32[R,L]\n"
      "  %s = reduce_sum %e {axes = [1]} : f32[R]\n"
      "  %m = reduce_min %x {axes = [1]} : f32[R]\n"
      "  %a = argmax %x {axes = [1]} : i64[R]\n  return %s, %m, %a\n}\n";
  for (int64_t rows : {1, 5, 70001}) {
    for (int64_t length : {1, 2, 3, 31, 32, 33}) {
      SCOPED_TRACE(absl::StrCat(rows, " rows of ", length));
      std::string graph;
      for (char ch : std::string(text)) {
        graph += ch == 'L'   ? std::to_string(length)
                 : ch == 'R' ? std::to_string(rows)
                             : std::string(1, ch);
      }
      Case c = Parse(graph, static_cast<uint64_t>(rows * 100 + length));
      CheckAgainstInterpreter(gpu, c.graph, c.args);
      if (HasFailure()) return;
    }
  }
}

/// `text` with every "L" replaced by `length`.
std::string WithRowLength(std::string text, int64_t length) {
  std::string out;
  for (char c : text) out += c == 'L' ? std::to_string(length) : std::string(1, c);
  return out;
}

TEST(GpuBackendTest, RowKernelsAgreeWithTheInterpreterAtEveryRowLength) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  // Enough rows for the one-kernel row path (a block per row). The lengths cross each of its
  // variants: rows held in registers with 16-byte loads (multiples of 4 or 2 elements up to
  // 4096 f32, 1024 f64 with the f32 input beside), and read from memory in every phase
  // (lengths not a multiple of the load width, or too long for registers).
  const char* softmax =
      "func @f(%x: f32[600,L]) -> (f32[600,L], f32[600,1]) {\n"
      "  %m = reduce_max %x {axes = [1], keepdims = true} : f32[600,1]\n"
      "  %d = sub %x, %m : f32[600,L]\n  %e = exp %d : f32[600,L]\n"
      "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32[600,1]\n"
      "  %y = div %e, %s : f32[600,L]\n  return %y, %m\n}\n";
  const char* layernorm =
      "func @f(%x: f64[600,L], %g: f64[L], %z: f32[600,L]) -> (f64[600,L], i64[600]) {\n"
      "  %n = constant {value = 3.0} : f64[]\n"
      "  %s = reduce_sum %x {axes = [1], keepdims = true} : f64[600,1]\n"
      "  %mean = div %s, %n : f64[600,1]\n  %d = sub %x, %mean : f64[600,L]\n"
      "  %d2 = mul %d, %d : f64[600,L]\n"
      "  %ss = reduce_sum %d2 {axes = [1], keepdims = true} : f64[600,1]\n"
      "  %inv = rsqrt %ss : f64[600,1]\n  %y0 = mul %d, %inv : f64[600,L]\n"
      "  %zz = cast %z : f64[600,L]\n  %y1 = mul %y0, %g : f64[600,L]\n"
      "  %y = add %y1, %zz : f64[600,L]\n"
      "  %a = argmax %y {axes = [1]} : i64[600]\n  return %y, %a\n}\n";
  for (int64_t length : {1, 2, 3, 4, 7, 1000, 1001, 2048, 4096, 4098, 8192, 8193, 9001}) {
    for (const char* text : {softmax, layernorm}) {
      SCOPED_TRACE(absl::StrCat("row length ", length));
      Case c = Parse(WithRowLength(text, length), static_cast<uint64_t>(length));
      const detail::GpuBackendStats before = gpu.stats();
      CheckAgainstInterpreter(gpu, c.graph, c.args);
      EXPECT_GT(gpu.stats().row_kernel_launches, before.row_kernel_launches)
          << "the row kernel did not run";
      if (HasFailure()) return;
    }
  }
}

TEST(GpuBackendTest, ArgmaxFindsTheFirstExtremeAndTheFirstNanAcrossSplits) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  Case c = Parse(
      "func @f(%x: f32[2,1000000]) -> (i64[2], f32[2]) {\n"
      "  %a = argmax %x {axes = [1]} : i64[2]\n"
      "  %m = reduce_max %x {axes = [1]} : f32[2]\n  return %a, %m\n}\n",
      3);
  float* x = c.args[0].data_as<float>();
  // Row 0: the maximum 9 appears at three positions in different splits; row 1: NaNs.
  for (int64_t i : {777777, 123456, 999999}) x[i] = 9.0f;
  for (int64_t i : {654321, 500001}) x[1000000 + i] = std::numeric_limits<float>::quiet_NaN();
  absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, Optimized(c.graph), c.args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].data_as<int64_t>()[0], 123456);
  EXPECT_EQ((*got)[0].data_as<int64_t>()[1], 500001);
  EXPECT_EQ((*got)[1].data_as<float>()[0], 9.0f);
  EXPECT_TRUE(std::isnan((*got)[1].data_as<float>()[1]));
  CheckAgainstInterpreter(gpu, c.graph, c.args);
}

TEST(GpuBackendTest, ReductionsGiveTheSameBitsOnEveryRun) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  Case c = Parse(
      "func @f(%x: f32[16777216]) -> (f32[]) {\n"
      "  %s = reduce_sum %x {axes = [0]} : f32[]\n  return %s\n}\n",
      5);
  const ir::Graph graph = Optimized(c.graph);
  absl::StatusOr<std::vector<ir::HostTensor>> first = RunOnGpu(gpu, graph, c.args);
  ASSERT_TRUE(first.ok()) << first.status();
  for (int run = 0; run < 5; ++run) {
    absl::StatusOr<std::vector<ir::HostTensor>> again = RunOnGpu(gpu, graph, c.args);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(std::memcmp((*first)[0].data(), (*again)[0].data(), 4), 0) << "run " << run;
  }
}

TEST(GpuBackendTest, AnIndexOutOfBoundsInAKernelIsAnErrorNamingTheTake) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  Case c = Parse(
      "func @f(%x: f32[10], %i: i64[4]) -> (f32[4]) {\n"
      "  %t = take %x, %i {axis = 0} : f32[4]\n"
      "  %y = mul %t, %t : f32[4]\n  return %y\n}\n",
      1);
  int64_t* index = c.args[1].data_as<int64_t>();
  for (int k = 0; k < 4; ++k) index[k] = k;
  index[2] = 12;
  absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, Optimized(c.graph), c.args);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "take: index 12 is out of bounds for axis 0 with size 10 of f32[10]");
  // The device is still usable.
  index[2] = 9;
  CheckAgainstInterpreter(gpu, c.graph, c.args);
}

TEST(GpuBackendTest, EvaluatedArraysStayOnTheDevice) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  random::Generator rng(4);
  Array x = rng.normal({1 << 16}, 0.0, 1.0, float32);
  Array y = exp(x) * 2.0 + x;
  eval({y});
  const detail::GpuBackendStats before = gpu.stats();
  Array z = sum(y * y);
  eval({z});
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_EQ(after.uploads, before.uploads) << "y was copied in again";
  EXPECT_EQ(after.downloads, before.downloads) << "nothing was read on the host";
  const std::vector<float> xs = x.to_host<float>();
  double want = 0;
  for (float v : xs) {
    const float e = static_cast<float>(std::exp(static_cast<double>(v))) * 2.0f + v;
    want += static_cast<double>(e) * e;
  }
  EXPECT_NEAR(z.item<float>(), want, 1e-5 * want);
}

/// `got` is the row softmax of `in` (rows of `columns`), checked at every `row_step`-th row
/// and `column_step`-th column against a double-precision reference.
void ExpectSoftmaxRows(const std::vector<float>& in, const std::vector<float>& got, int64_t columns,
                       int64_t row_step, int64_t column_step) {
  ASSERT_EQ(in.size(), got.size());
  const int64_t rows = static_cast<int64_t>(in.size()) / columns;
  for (int64_t r = 0; r < rows; r += row_step) {
    double top = -INFINITY, total = 0;
    for (int64_t k = 0; k < columns; ++k) top = std::max<double>(top, in[r * columns + k]);
    for (int64_t k = 0; k < columns; ++k) total += std::exp(in[r * columns + k] - top);
    for (int64_t k = 0; k < columns; k += column_step) {
      const double want = std::exp(in[r * columns + k] - top) / total;
      ASSERT_NEAR(got[r * columns + k], want, 1e-6 * want + 1e-12)
          << "row " << r << ", column " << k;
    }
  }
}

/// Row softmax over the last axis as a compiled Function.
auto SoftmaxFunction() {
  return compile([](Array x) {
    Array e = exp(x - max(x, -1, true));
    return e / sum(e, -1, true);
  });
}

TEST(GpuBackendTest, CompiledFunctionsRunOnTheGpu) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  auto softmax = SoftmaxFunction();
  random::Generator rng(9);
  for (int call = 0; call < 3; ++call) {
    Array x = rng.normal({300, 1000}, 0.0, 3.0, float32);
    const detail::GpuBackendStats before = gpu.stats();
    std::vector<float> y = softmax(x).to_host<float>();
    EXPECT_GT(gpu.stats().kernel_launches, before.kernel_launches);
    ExpectSoftmaxRows(x.to_host<float>(), y, 1000, 37, 99);
  }
}

TEST(GpuBackendTest, RepeatedCallsReplayTheirPlanAsACudaGraph) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  // Rows too few for the one-kernel row path: the max, the sum and the normalization are
  // three launches, which the second and later calls replay as one graph whose nodes get
  // each call's fresh result addresses.
  auto softmax = SoftmaxFunction();
  random::Generator rng(12);
  const detail::GpuBackendStats before = gpu.stats();
  Array y = rng.normal({64, 300}, 0.0, 2.0, float32);
  for (int call = 0; call < 5; ++call) {
    const std::vector<float> in = y.to_host<float>();
    y = softmax(y);  // its own output next: the input address changes too
    ExpectSoftmaxRows(in, y.to_host<float>(), 300, 1, 7);
    if (HasFailure()) return;
  }
  const detail::GpuBackendStats after = gpu.stats();
  EXPECT_EQ(after.graph_builds - before.graph_builds, 1);
  EXPECT_EQ(after.graph_replays - before.graph_replays, 4) << "calls 2 to 5";
  EXPECT_GE(after.graph_node_updates - before.graph_node_updates, 4);
}

}  // namespace
}  // namespace gpuc
