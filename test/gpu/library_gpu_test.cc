//===- library_gpu_test.cc - matmul and fft through cuBLAS and cuFFT ------===//
//
// Library nodes on the GPU against the reference interpreter (a triple loop, a direct DFT):
// every GEMM dtype, 1-D operands, batches that fold into one GEMM, strided batches, batch axes
// broadcast against each other, empty sums; FFTs over trailing axes (one plan), leading and
// middle axes (strided passes), every norm, inverses, primes and length 1, more than three
// axes, empty arrays. Each case also checks that the node became a vendor call (the stats'
// library_calls) rather than a host step, and reruns to use the cached handles and plans.
// Sparse products: checked structures through cuSPARSE (f32, f64, complex, i32 and i64
// indices), an unchecked one on the host's checking loop, and the API's products.
// Skips without a GPU or without the vendor libraries.
//
//===----------------------------------------------------------------------===//
#include <cmath>

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "gpuc/gpuc.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/cuda/gpu_fft.h"
#include "passes/pass_manager.h"
#include "runtime/cuda_libraries.h"
#include "test/gpu/run_on_gpu.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc {
namespace {

using ir::DType;

#define GPUC_REQUIRE_GPU_LIBRARIES(var)                                                        \
  absl::StatusOr<detail::GpuExecutor*> var##_or = detail::GpuExecutor::Get();                  \
  if (!var##_or.ok()) GTEST_SKIP() << "no GPU: " << var##_or.status().message();               \
  if (!runtime::GetCublas().ok() || !runtime::GetCufft().ok() || !runtime::GetCusparse().ok()) \
    GTEST_SKIP() << "no vendor libraries: " << runtime::DescribeCudaLibraries();               \
  detail::GpuExecutor& var = **var##_or

/// Summation order differs from the interpreter's sequential loops: a bound relative to
/// max(1, |expected|), a few hundred ulps of the sums' sizes here.
std::string LibraryTolerance(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kComplex64:
      return "rel1e-4";
    case DType::kFloat64:
    case DType::kComplex128:
      return "rel1e-11";
    case DType::kFloat16:  // f32 sums in another order, then one rounding
      return "rel2e-3";
    case DType::kBFloat16:
      return "rel1.6e-2";
    default:
      return "exact";
  }
}

using test::RunOnGpu;

/// Runs `text` (one library node and its operands) on the GPU twice and on the interpreter,
/// and expects `calls` vendor calls per run and no host library step. `plant` edits the
/// random arguments first (NaN, infinities); `kernels`, when given, is how many generated
/// kernels a run may launch.
void CheckLibraryGraph(detail::GpuExecutor& gpu, const std::string& text, uint64_t seed,
                       int64_t calls = 1,
                       const std::function<void(std::vector<ir::HostTensor>&)>& plant = nullptr,
                       std::optional<int64_t> kernels = std::nullopt) {
  SCOPED_TRACE(text);
  ir::Graph graph = test::ParseVerified(text);
  std::vector<ir::HostTensor> args = tool::RandomArguments(graph, seed);
  if (plant) plant(args);
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<passes::PassManager> pipeline =
      passes::BuildPipeline(passes::DefaultPipeline(), passes::PassManagerOptions{});
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(pipeline->Run(graph).ok());
  for (int run = 0; run < 2; ++run) {
    const detail::GpuBackendStats before = gpu.stats();
    absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, graph, args);
    ASSERT_TRUE(got.ok()) << got.status();
    const detail::GpuBackendStats after = gpu.stats();
    EXPECT_EQ(after.library_calls - before.library_calls, calls) << "run " << run;
    EXPECT_EQ(after.library_steps, before.library_steps) << "a library step ran on the host";
    if (kernels) EXPECT_EQ(after.kernel_launches - before.kernel_launches, *kernels);
    ASSERT_EQ(got->size(), want->size());
    for (size_t r = 0; r < want->size(); ++r) {
      EXPECT_EQ(test::CompareTensors((*got)[r], (*want)[r], LibraryTolerance((*want)[r].dtype())),
                "")
          << "result " << r << ", run " << run;
    }
  }
}

void CheckMatmul(detail::GpuExecutor& gpu, const std::string& a, const std::string& b,
                 const std::string& result, uint64_t seed, const std::string& attrs = "") {
  CheckLibraryGraph(
      gpu,
      absl::StrCat("func @f(%a: ", a, ", %b: ", b, ") -> (", result, ") {\n  %c = matmul %a, %b",
                   attrs.empty() ? "" : absl::StrCat(" {", attrs, "}"), " : ", result,
                   "\n  return %c\n}\n"),
      seed);
}

TEST(LibraryGpuTest, MatmulsOfEveryGemmDtypeAgreeWithTheInterpreter) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckMatmul(gpu, "f32[7,5]", "f32[5,3]", "f32[7,3]", 1);
  CheckMatmul(gpu, "f64[7,5]", "f64[5,3]", "f64[7,3]", 2);
  CheckMatmul(gpu, "c64[4,6]", "c64[6,5]", "c64[4,5]", 3);
  CheckMatmul(gpu, "c128[4,6]", "c128[6,5]", "c128[4,5]", 4);
  CheckMatmul(gpu, "f16[9,300]", "f16[300,7]", "f16[9,7]", 5);
  CheckMatmul(gpu, "bf16[5,64]", "bf16[64,3]", "bf16[5,3]", 6);
  // Past the libraries' tile sizes, with edge tiles in every dimension.
  CheckMatmul(gpu, "f32[257,300]", "f32[300,131]", "f32[257,131]", 7);
  CheckMatmul(gpu, "f64[130,70]", "f64[70,129]", "f64[130,129]", 8);
}

TEST(LibraryGpuTest, VectorsAndBatchesFollowNumPy) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckMatmul(gpu, "f32[5]", "f32[5,4]", "f32[4]", 10);     // a row vector on the left
  CheckMatmul(gpu, "c128[3,4]", "c128[4]", "c128[3]", 11);  // a column vector on the right
  CheckMatmul(gpu, "f64[6]", "f64[6]", "f64[]", 12);        // a dot product
  CheckMatmul(gpu, "f32[8,32,64]", "f32[64,16]", "f32[8,32,16]", 13);  // folded into m
  CheckMatmul(gpu, "c64[5,3,2]", "c64[2,4]", "c64[5,3,4]", 14);
  CheckMatmul(gpu, "f32[4]", "f32[2,4,3]", "f32[2,3]", 15);        // one A against a batch of B
  CheckMatmul(gpu, "f64[6,9,5]", "f64[6,5,7]", "f64[6,9,7]", 16);  // strided batches
  CheckMatmul(gpu, "f32[3,5]", "f32[4,5,2]", "f32[4,3,2]", 17);
  // Batch axes broadcast against each other: a call per batch.
  CheckLibraryGraph(gpu,
                    "func @f(%a: f64[2,1,4,6], %b: f64[3,6,2]) -> (f64[2,3,4,2]) {\n"
                    "  %c = matmul %a, %b : f64[2,3,4,2]\n  return %c\n}\n",
                    18, 1);
}

TEST(LibraryGpuTest, MixedOperandsAreCastFirstAndEmptyExtentsWork) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  // Canonicalization casts the operands (a fused kernel), then one GEMM of the result dtype.
  CheckMatmul(gpu, "i32[4,3]", "f32[3,2]", "f64[4,2]", 20);
  CheckMatmul(gpu, "f32[4,3]", "c128[3,2]", "c128[4,2]", 21);
  CheckMatmul(gpu, "i16[4,3]", "f16[3,2]", "f32[4,2]", 22);
  CheckMatmul(gpu, "f32[0,3]", "f32[3,4]", "f32[0,4]", 23);
  CheckMatmul(gpu, "f64[2,0]", "f64[0,3]", "f64[2,3]", 24);  // an empty sum: zeros
  CheckMatmul(gpu, "c64[0,2,3]", "c64[3,2]", "c64[0,2,2]", 25);
}

// Operands stored transposed are cuBLAS's OP_T (and a batched transposed A is not folded
// into m); explicit transposes become those flags in the pipeline, so no kernel runs.
TEST(LibraryGpuTest, TransposedOperandsAreTransposeFlags) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckMatmul(gpu, "f32[33,65]", "f32[33,17]", "f32[65,17]", 90, "transpose_a = true");
  CheckMatmul(gpu, "f64[40,24]", "f64[9,24]", "f64[40,9]", 91, "transpose_b = true");
  CheckMatmul(gpu, "c64[12,8]", "c64[5,12]", "c64[8,5]", 92,
              "transpose_a = true, transpose_b = true");
  CheckMatmul(gpu, "f16[64,32]", "f16[48,64]", "f16[32,48]", 93,
              "transpose_a = true, transpose_b = true");
  CheckMatmul(gpu, "f32[4,30,20]", "f32[30,10]", "f32[4,20,10]", 94, "transpose_a = true");
  CheckMatmul(gpu, "f64[2,1,6,4]", "f64[3,2,6]", "f64[2,3,4,2]", 95,
              "transpose_a = true, transpose_b = true");
  CheckMatmul(gpu, "f32[3,16,8]", "f32[3,12,8]", "f32[3,16,12]", 96, "transpose_b = true");
  CheckLibraryGraph(gpu, R"(func @f(%a: f32[50,70], %b: f32[30,50]) -> (f32[70,30]) {
  %at = transpose %a {perm = [1, 0]} : f32[70,50]
  %bt = transpose %b {perm = [1, 0]} : f32[50,30]
  %c = matmul %at, %bt : f32[70,30]
  return %c
}
)",
                    97, 1, nullptr, 0);  // the transposes are flags, not kernels
}

// The GPU executor folds a bias row and a ReLU after an f32/f64 GEMM into one cuBLASLt call
// (passes/fuse_matmul_epilogue.cc): no kernel runs, and the result matches the interpreter's
// unfused ops, NaN and infinities in the input included.
void CheckEpilogue(detail::GpuExecutor& gpu, const std::string& text, uint64_t seed) {
  auto plant = [](std::vector<ir::HostTensor>& args) {
    if (args[0].dtype() != DType::kFloat32) return;
    float* x = reinterpret_cast<float*>(args[0].data());
    x[0] = std::numeric_limits<float>::quiet_NaN();  // a NaN row through the ReLU
    x[args[0].num_elements() - 1] = -std::numeric_limits<float>::infinity();
  };
  CheckLibraryGraph(gpu, text, seed, 1, plant, 0);  // one cuBLASLt call, no kernel
}

TEST(LibraryGpuTest, BiasAndReluRideInTheGemmEpilogue) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckEpilogue(gpu, R"(func @f(%x: f32[96,80], %w: f32[48,80], %b: f32[48]) -> (f32[96,48]) {
  %wt = transpose %w {perm = [1, 0]} : f32[80,48]
  %m = matmul %x, %wt : f32[96,48]
  %s = add %m, %b : f32[96,48]
  %zero = constant {value = 0.0} : f32[]
  %r = maximum %s, %zero : f32[96,48]
  return %r
}
)",
                100);
  // A dense layer over a batch of sequences: one GEMM of 4 * 25 rows.
  CheckEpilogue(gpu, R"(func @f(%x: f32[4,25,40], %w: f32[40,24], %b: f32[24]) -> (f32[4,25,24]) {
  %m = matmul %x, %w : f32[4,25,24]
  %s = add %m, %b : f32[4,25,24]
  %zero = constant {value = 0.0} : f32[]
  %r = maximum %s, %zero : f32[4,25,24]
  return %r
}
)",
                103);
  CheckEpilogue(gpu, R"(func @f(%x: f64[33,65], %w: f64[65,17], %b: f64[17]) -> (f64[33,17]) {
  %m = matmul %x, %w : f64[33,17]
  %s = add %b, %m : f64[33,17]
  return %s
}
)",
                101);
  CheckEpilogue(gpu, R"(func @f(%x: f32[40,30], %w: f32[40,20], %b: f32[20]) -> (f32[30,20]) {
  %xt = transpose %x {perm = [1, 0]} : f32[30,40]
  %m = matmul %xt, %w : f32[30,20]
  %s = add %m, %b : f32[30,20]
  %zero = constant {value = 0.0} : f32[]
  %r = maximum %zero, %s : f32[30,20]
  return %r
}
)",
                102);
}

TEST(LibraryGpuTest, IntegerMatmulsRunOnTheHost) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  const ir::Graph graph = test::ParseVerified(
      "func @f(%a: i64[3,4], %b: i64[4,2]) -> (i64[3,2]) {\n"
      "  %c = matmul %a, %b : i64[3,2]\n  return %c\n}\n");
  const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, 30);
  const detail::GpuBackendStats before = gpu.stats();
  absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(test::CompareTensors((*got)[0], (*want)[0], "exact"), "");
  EXPECT_EQ(gpu.stats().library_calls, before.library_calls);
  EXPECT_EQ(gpu.stats().library_steps, before.library_steps + 1);
}

void CheckFft(detail::GpuExecutor& gpu, const std::string& type, const std::string& attrs,
              uint64_t seed) {
  CheckLibraryGraph(gpu,
                    absl::StrCat("func @f(%x: ", type, ") -> (", type, ") {\n  %y = fft %x {",
                                 attrs, "} : ", type, "\n  return %y\n}\n"),
                    seed);
}

TEST(LibraryGpuTest, FftsOverTrailingAxesAreOnePlanInEveryNorm) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  for (const char* norm : {"backward", "ortho", "forward"}) {
    for (const char* inverse : {"false", "true"}) {
      SCOPED_TRACE(absl::StrCat(norm, " inverse=", inverse));
      const std::string common = absl::StrCat("inverse = ", inverse, ", norm = \"", norm, "\"");
      CheckFft(gpu, "c64[6,64]", absl::StrCat("axes = [1], ", common), 40);
      CheckFft(gpu, "c128[3,10,12]", absl::StrCat("axes = [1, 2], ", common), 41);
      CheckFft(gpu, "c64[2,8,6,5]", absl::StrCat("axes = [1, 2, 3], ", common), 42);
    }
  }
}

TEST(LibraryGpuTest, FftsOfOddLengthsAndOtherAxesAgreeWithTheInterpreter) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckFft(gpu, "c64[97]", "axes = [0], inverse = false", 50);  // a prime
  CheckFft(gpu, "c128[1000]", "axes = [0], inverse = true", 51);
  CheckFft(gpu, "c64[4,1]", "axes = [1], inverse = false", 52);    // length 1
  CheckFft(gpu, "c128[11,6]", "axes = [0], inverse = false", 53);  // a leading axis
  CheckFft(gpu, "c64[5,7,9]", "axes = [1], inverse = true, norm = \"ortho\"", 54);  // middle
  CheckFft(gpu, "c128[5,7,9]", "axes = [0, 2], inverse = false, norm = \"forward\"", 55);
  CheckFft(gpu, "c64[3,4,5,6]", "axes = [0, 1, 2, 3], inverse = false", 56);  // four axes
  CheckFft(gpu, "c64[1,1]", "axes = [0, 1], inverse = false", 57);  // nothing to transform
  CheckFft(gpu, "c128[0,8]", "axes = [1], inverse = false", 58);    // empty
}

void CheckRealFft(detail::GpuExecutor& gpu, const std::string& in, const std::string& attrs,
                  const std::string& out, uint64_t seed) {
  CheckLibraryGraph(gpu,
                    absl::StrCat("func @f(%x: ", in, ") -> (", out, ") {\n  %y = fft %x {", attrs,
                                 "} : ", out, "\n  return %y\n}\n"),
                    seed);
}

// R2C and C2R against the interpreter: trailing axes in one plan, a leading or middle last
// axis, other axes as complex passes, odd lengths. The random complex inputs are not
// Hermitian, so C2R must ignore the zero and Nyquist imaginary parts as NumPy does.
TEST(LibraryGpuTest, RealTransformsAgreeWithTheInterpreter) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  const std::string r2c = "kind = \"r2c\", axes = ";
  CheckRealFft(gpu, "f32[64]", r2c + "[0]", "c64[33]", 70);
  CheckRealFft(gpu, "f64[3,1000]", r2c + "[1]", "c128[3,501]", 71);
  CheckRealFft(gpu, "f32[97]", r2c + "[0]", "c64[49]", 72);
  CheckRealFft(gpu, "f32[6,5,8]", r2c + "[1, 2], norm = \"ortho\"", "c64[6,5,5]", 73);
  CheckRealFft(gpu, "f64[5,7,8]", r2c + "[0, 1]", "c128[5,4,8]", 74);
  CheckRealFft(gpu, "f32[7,4]", r2c + "[0]", "c64[4,4]", 75);
  const std::string c2r = "inverse = true, kind = \"c2r\", ";
  CheckRealFft(gpu, "c64[33]", c2r + "axes = [0], n = 64", "f32[64]", 76);
  CheckRealFft(gpu, "c128[3,501]", c2r + "axes = [1], n = 1000", "f64[3,1000]", 77);
  CheckRealFft(gpu, "c64[3,5]", c2r + "axes = [1], n = 9", "f32[3,9]", 78);
  CheckRealFft(gpu, "c128[5,7,5]", c2r + "axes = [0, 2], n = 8, norm = \"forward\"", "f64[5,7,8]",
               79);
  CheckRealFft(gpu, "c64[6,3,4]", c2r + "axes = [0, 1], n = 5", "f32[6,5,4]", 80);
  CheckRealFft(gpu, "c128[3,4]", c2r + "axes = [0], n = 4", "f64[4,4]", 81);
  CheckRealFft(gpu, "c64[3,4,5]", c2r + "axes = [1], n = 6", "f32[3,6,5]", 82);
  CheckRealFft(gpu, "c64[0,5]", c2r + "axes = [1], n = 8", "f32[0,8]", 83);  // empty
}

// A real transform along an inner axis whose lines start an odd number of reals apart cannot
// be addressed by cuFFT (it wants the real side aligned to the complex type): it runs on the
// host, still right.
TEST(LibraryGpuTest, UnalignedRealTransformsRunOnTheHost) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  const ir::Graph graph = test::ParseVerified(R"(func @f(%x: f64[5,7,9]) -> (c128[5,4,9]) {
  %y = fft %x {axes = [0, 1], kind = "r2c"} : c128[5,4,9]
  return %y
}
)");
  const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, 86);
  const detail::GpuBackendStats before = gpu.stats();
  absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(test::CompareTensors((*got)[0], (*want)[0], "rel1e-11"), "");
  EXPECT_EQ(gpu.stats().library_calls, before.library_calls);
  EXPECT_EQ(gpu.stats().library_steps, before.library_steps + 1);
}

// C2R destroys its input: an operand read again later (a parameter, or an intermediate with
// another reader) must come through intact, and a dead intermediate may be overwritten.
TEST(LibraryGpuTest, ComplexToRealLeavesOperandsThatAreReadLaterIntact) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  for (const char* operand : {"%h", "%p"}) {
    SCOPED_TRACE(operand);
    CheckLibraryGraph(
        gpu,
        absl::StrCat(R"(func @f(%h: c64[4,5]) -> (f32[4,5], f32[4,8]) {
  %p = mul %h, %h : c64[4,5]
  %c = fft )",
                     operand, R"( {axes = [1], inverse = true, kind = "c2r", n = 8} : f32[4,8]
  %t = slice %c {start = [0, 0], stop = [4, 5], step = [1, 1]} : f32[4,5]
  %r = real )",
                     operand, R"( : f32[4,5]
  %w = add %r, %t : f32[4,5]
  return %w, %c
}
)"),
        84);
  }
  // The only reader of a fused product: the transform may work in it.
  CheckLibraryGraph(gpu, R"(func @f(%h: c64[4,5], %g: c64[4,5]) -> (f32[4,8]) {
  %p = mul %h, %g : c64[4,5]
  %c = fft %p {axes = [1], inverse = true, kind = "c2r", n = 8} : f32[4,8]
  return %c
}
)",
                    85);
}

TEST(LibraryGpuTest, ThePlanCacheKeepsItsSizeAndEvictsTheLeastRecentlyUsed) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  const size_t before = fft::plan_cache_size();
  fft::set_plan_cache_size(2);
  EXPECT_EQ(fft::plan_cache_size(), 2u);
  // Three shapes through a cache of two: every one is rebuilt and still right.
  for (int round = 0; round < 2; ++round) {
    for (int n : {16, 24, 40}) {
      CheckFft(gpu, absl::StrCat("c64[3,", n, "]"), "axes = [1], inverse = false", 60 + n);
    }
  }
  fft::set_plan_cache_size(before);
}

TEST(LibraryGpuTest, ApiFftConvolutionRunsAsVendorCalls) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  // irfft(rfft(a) * rfft(b)) through the API, on the GPU device: the circular convolution.
  const int64_t n = 96;
  std::vector<float> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(std::sin(0.37 * i) + 0.25);
    b[i] = static_cast<float>(std::cos(1.3 * i) * 0.5);
  }
  const detail::GpuBackendStats before = gpu.stats();
  set_device("cuda:0");
  Array x = array(a), y = array(b);
  Array conv = fft::irfft(fft::rfft(x) * fft::rfft(y), n);
  const std::vector<float> got = conv.to_host<float>();
  EXPECT_GE(gpu.stats().library_calls - before.library_calls, 3);
  ASSERT_EQ(static_cast<int64_t>(got.size()), n);
  for (int64_t i = 0; i < n; ++i) {
    double want = 0;
    for (int64_t j = 0; j < n; ++j) want += double(a[j]) * b[(i - j + n) % n];
    EXPECT_NEAR(got[i], want, 1e-4 * std::max(1.0, std::fabs(want))) << "element " << i;
  }
}

/// `k` > 0: x is a [cols, k] matrix (an SpMM on the GPU).
void CheckSpmv(detail::GpuExecutor& gpu, int64_t rows, int64_t cols, DType dtype, DType index,
               bool validated, uint64_t seed, int64_t k = 0) {
  std::vector<ir::HostTensor> args = test::RandomCsr(rows, cols, 4, dtype, index, seed);
  const int64_t nnz = args[0].num_elements();
  const std::string t(ir::DTypeName(dtype)), i(ir::DTypeName(index));
  const std::string columns = k > 0 ? absl::StrCat(",", k) : "";
  const std::string text =
      absl::StrCat("func @f(%v: ", t, "[", nnz, "], %c: ", i, "[", nnz, "], %o: ", i, "[", rows + 1,
                   "], %x: ", t, "[", cols, columns, "]) -> (", t, "[", rows, columns,
                   "]) {\n  %y = spmv %v, %c, %o, %x", validated ? " {validated = true}" : "",
                   " : ", t, "[", rows, columns, "]\n  return %y\n}\n");
  SCOPED_TRACE(text);
  const ir::Graph graph = test::ParseVerified(text);
  args.push_back(tool::RandomArguments(graph, seed)[3]);
  absl::StatusOr<std::vector<ir::HostTensor>> want = ir::Interpret(graph, args);
  ASSERT_TRUE(want.ok()) << want.status();
  const detail::GpuBackendStats before = gpu.stats();
  absl::StatusOr<std::vector<ir::HostTensor>> got = RunOnGpu(gpu, graph, args);
  ASSERT_TRUE(got.ok()) << got.status();
  const detail::GpuBackendStats after = gpu.stats();
  // Only a checked structure goes to cuSPARSE; an unchecked one keeps the checking loop.
  EXPECT_EQ(after.library_calls - before.library_calls, validated ? 1 : 0);
  EXPECT_EQ(after.library_steps - before.library_steps, validated ? 0 : 1);
  EXPECT_EQ(test::CompareTensors((*got)[0], (*want)[0], LibraryTolerance(dtype)), "");
}

TEST(LibraryGpuTest, CheckedSparseProductsRunThroughCusparse) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckSpmv(gpu, 300, 200, DType::kFloat32, DType::kInt32, true, 70);
  CheckSpmv(gpu, 257, 1000, DType::kFloat64, DType::kInt64, true, 71);
  CheckSpmv(gpu, 40, 30, DType::kComplex64, DType::kInt32, true, 72);
  CheckSpmv(gpu, 40, 30, DType::kComplex128, DType::kInt64, true, 73);
  CheckSpmv(gpu, 50, 60, DType::kFloat32, DType::kInt32, false, 74);
}

// A matrix of right-hand sides is one cusparseSpMM over row-major dense matrices.
TEST(LibraryGpuTest, CheckedSparseTimesMatrixIsOneSpmm) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  CheckSpmv(gpu, 300, 200, DType::kFloat32, DType::kInt32, true, 75, 8);
  CheckSpmv(gpu, 257, 100, DType::kFloat64, DType::kInt64, true, 76, 3);
  CheckSpmv(gpu, 40, 30, DType::kComplex64, DType::kInt32, true, 77, 5);
  CheckSpmv(gpu, 40, 30, DType::kComplex128, DType::kInt64, true, 78, 1);
  CheckSpmv(gpu, 20, 10, DType::kFloat32, DType::kInt32, true, 79, 0);  // no columns
}

TEST(LibraryGpuTest, ApiSparseProductsAgreeWithTheirDenseForm) {
  GPUC_REQUIRE_GPU_LIBRARIES(gpu);
  set_device("cuda:0");
  random::Generator rng(5);
  const int64_t rows = 500, cols = 300;
  std::vector<int64_t> indptr = {0}, indices;
  const std::vector<double> mask = rng.uniform({rows, cols}).to_host<double>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      if (mask[r * cols + c] < 0.02) indices.push_back(c);
    }
    indptr.push_back(static_cast<int64_t>(indices.size()));
  }
  const sparse::CsrMatrix a(rng.normal({static_cast<int64_t>(indices.size())}, 0, 1, float32),
                            array(indices), array(indptr), {rows, cols});
  const Array x = rng.normal({cols, 5}, 0, 1, float32);
  const detail::GpuBackendStats before = gpu.stats();
  const std::vector<float> got = sparse::matmul(a, x).to_host<float>();
  EXPECT_EQ(gpu.stats().library_calls - before.library_calls, 1);  // one call for 5 columns
  const std::vector<float> want = matmul(a.to_dense(), x).to_host<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4 * std::max(1.0f, std::fabs(want[i]))) << i;
  }
  const std::vector<float> t =
      sparse::matmul(a.transpose(), rng.normal({rows}, 0, 1, float32)).to_host<float>();
  EXPECT_EQ(static_cast<int64_t>(t.size()), cols);
}

}  // namespace
}  // namespace gpuc
