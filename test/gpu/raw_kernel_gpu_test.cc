//===- raw_kernel_gpu_test.cc - User CUDA kernels on the GPU --------------===//
//
// RawKernel and RawModule launches against host-computed results (random inputs, outputs
// poisoned with NaN first), value semantics around kernel writes, attributes and dynamic
// shared memory, device globals, views; ElementwiseKernel and ReductionKernel fused into
// gpuc's kernels (counted by the back end's stats) with results equal to the same math
// written with gpuc ops. The examples of docs/raw_kernels.md are these tests. Skips without a
// GPU.
//
//===----------------------------------------------------------------------===//
#include <cmath>

#include <gtest/gtest.h>

#include "gpuc/gpuc.h"
#include "lib/backend/cuda/gpu_executor.h"

namespace gpuc {
namespace {

#define GPUC_REQUIRE_GPU(var)                                                    \
  absl::StatusOr<detail::GpuExecutor*> var##_or = detail::GpuExecutor::Get();    \
  if (!var##_or.ok()) GTEST_SKIP() << "no GPU: " << var##_or.status().message(); \
  detail::GpuExecutor& var = **var##_or

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_NEAR(got[k], want[k], rel * std::max(1.0, std::fabs(double(want[k])))) << "at " << k;
  }
}

constexpr char kAxpy[] = R"(
template <typename T>
__global__ void axpy(T* y, const T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
)";

TEST(RawKernelGpuTest, TemplateKernelMatchesTheHost) {
  GPUC_REQUIRE_GPU(gpu);
  const int n = 100003;  // not a multiple of the block
  RawKernel axpy(kAxpy, "axpy<float>");
  Array x = random::uniform({n}, -1, 1, float32);
  Array y = random::uniform({n}, -1, 1, float32);
  const std::vector<float> xs = x.to_host<float>(), ys = y.to_host<float>();
  axpy({(n + 255) / 256}, {256}, {y, x, 1.5f, n});
  std::vector<float> want(n);
  for (int k = 0; k < n; ++k) want[k] = ys[k] + 1.5f * xs[k];
  ExpectNear(y.to_host<float>(), want, 1e-6);
  EXPECT_EQ(axpy.signature(), "void axpy<float>(float*, float const*, float, int)");
}

TEST(RawKernelGpuTest, WritesDoNotReachOtherHandlesOrEarlierExpressions) {
  GPUC_REQUIRE_GPU(gpu);
  RawKernel fill(R"(extern "C" __global__ void fill(float* y, float v, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = v;
  })",
                 "fill");
  Array y = random::uniform({1000}, 0, 1, float32);
  y.eval();
  Array same = y;                     // the same array, as `same = y` is in Python
  Array rows = y.reshape({10, 100});  // a view of y's buffer, taken before the launch
  Array twice = y * 2.0f;             // pending, recorded before the launch
  const std::vector<float> before = y.to_host<float>();
  fill({4}, {256}, {y, -7.0f, int64_t{1000}});
  for (float v : y.to_host<float>()) ASSERT_EQ(v, -7.0f);
  for (float v : same.to_host<float>()) ASSERT_EQ(v, -7.0f);
  EXPECT_EQ(rows.to_host<float>(), before);
  const std::vector<float> doubled = twice.to_host<float>();
  for (size_t k = 0; k < before.size(); ++k) ASSERT_EQ(doubled[k], before[k] * 2.0f);
}

TEST(RawKernelGpuTest, AttributesAndLargeDynamicSharedMemory) {
  GPUC_REQUIRE_GPU(gpu);
  // Reverses each block's 32768 floats through 128 KiB of dynamic shared memory.
  RawKernel reverse(R"(extern "C" __global__ void reverse(float* out, const float* in) {
    extern __shared__ float tile[];
    const int per_block = 32768;
    const float* src = in + blockIdx.x * per_block;
    for (int k = threadIdx.x; k < per_block; k += blockDim.x) tile[k] = src[k];
    __syncthreads();
    for (int k = threadIdx.x; k < per_block; k += blockDim.x)
      out[blockIdx.x * per_block + k] = tile[per_block - 1 - k];
  })",
                    "reverse");
  const KernelAttributes attributes = reverse.attributes();
  EXPECT_GE(attributes.max_threads_per_block, 256);
  EXPECT_GT(attributes.num_registers, 0);
  EXPECT_GE(attributes.binary_version, 70);
  reverse.set_max_dynamic_shared_memory(32768 * 4);
  EXPECT_EQ(reverse.attributes().max_dynamic_shared_size_bytes, 32768 * 4);
  Array in = random::uniform({3 * 32768}, -1, 1, float32);
  Array out = full({3 * 32768}, NAN, float32);
  reverse({3}, {512}, {out, in}, 32768 * 4);
  const std::vector<float> a = in.to_host<float>(), b = out.to_host<float>();
  for (int blk = 0; blk < 3; ++blk) {
    for (int k = 0; k < 32768; ++k) {
      ASSERT_EQ(b[blk * 32768 + k], a[blk * 32768 + 32767 - k]) << blk << " " << k;
    }
  }
}

TEST(RawModuleGpuTest, GlobalsAndSeveralKernelsInOneModule) {
  GPUC_REQUIRE_GPU(gpu);
  RawModule module(R"(
    __device__ float scale;
    __device__ int calls;
    extern "C" __global__ void scaled(float* y, const float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = scale * x[i];
      if (i == 0) atomicAdd(&calls, 1);
    }
    template <int K> __global__ void add_k(int* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] += K;
    })",
                   {}, {"add_k<3>"});
  const float scale = 0.25f;
  module.write_global("scale", &scale, sizeof scale);
  const int zero = 0;
  module.write_global("calls", &zero, sizeof zero);
  EXPECT_EQ(module.global_size("scale"), sizeof(float));
  RawKernel scaled = module.get_function("scaled");
  Array x = random::uniform({500}, -4, 4, float32);
  Array y = full({500}, NAN, float32);
  scaled({2}, {256}, {y, x, 500});
  scaled({2}, {256}, {y, x, 500});
  std::vector<float> want = x.to_host<float>();
  for (float& v : want) v *= 0.25f;
  EXPECT_EQ(y.to_host<float>(), want);
  int calls = 0;
  module.read_global("calls", &calls, sizeof calls);
  EXPECT_EQ(calls, 2);
  Array counts = arange(10).astype(int32);
  module.get_function("add_k<3>")({1}, {32}, {counts, 10});
  const std::vector<int32_t> got = counts.to_host<int32_t>();
  for (int k = 0; k < 10; ++k) EXPECT_EQ(got[k], k + 3);
  EXPECT_FALSE(module.lowered_name("add_k<3>").empty());
}

TEST(RawKernelGpuTest, ViewsIndexNdArrays) {
  GPUC_REQUIRE_GPU(gpu);
  RawKernel transpose(R"(
    #include <gpuc/array_view.cuh>
    __global__ void transpose2d(gpuc::ArrayView<float, 2> out,
                                gpuc::ArrayView<const float, 2> in) {
      long long r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
      if (r < in.shape[0] && c < in.shape[1]) out(c, r) = in(r, c);
    })",
                      "transpose2d");
  // The input is itself a lazy transpose: it is evaluated before the launch.
  Array a = random::uniform({70, 45}, -1, 1, float32).T();
  Array out = full({70, 45}, NAN, float32);
  transpose({1, 45}, {128}, {view(out), view(a)});
  EXPECT_EQ(out.to_host<float>(), a.T().to_host<float>());
}

TEST(RawKernelGpuTest, ArgumentMistakesAreErrorsAndTheContextStaysUsable) {
  GPUC_REQUIRE_GPU(gpu);
  RawKernel axpy(kAxpy, "axpy<float>");
  Array y = random::uniform({64}, -1, 1, float32);
  Array d = random::uniform({64}, -1, 1, float64);
  EXPECT_THROW(axpy({1}, {64}, {y, d, 1.0f, 64}), Error);  // double* for float const*
  EXPECT_THROW(axpy({1}, {64}, {y, y, 1.0f}), Error);      // a missing argument
  axpy({1}, {64}, {y, y, 1.0f, 64});
  EXPECT_EQ(y.to_host<float>().size(), 64u);
}

TEST(ElementwiseKernelGpuTest, UserOpInAChainIsOneKernelEqualToGpucOps) {
  GPUC_REQUIRE_GPU(gpu);
  ElementwiseKernel soft_clip("T x, T limit", "T y", "y = limit * x / (limit + fabs(x))",
                              "soft_clip");
  Array x = random::uniform({1 << 20}, -3, 3, float32);
  x.eval();
  const detail::GpuBackendStats before = gpu.stats();
  Array fused = sum(soft_clip({exp(x) - 1.0f, 2.0f}) * x);
  const float got = fused.item<float>();
  const int64_t launches = gpu.stats().kernel_launches - before.kernel_launches;
  // One fused kernel (and at most the deterministic combine of its blocks' partial sums).
  EXPECT_LE(launches, 2) << launches;
  Array e = exp(x) - 1.0f;
  const float want = sum(2.0f * e / (2.0f + abs(e)) * x).item<float>();
  EXPECT_NEAR(got, want, 1e-4 * std::fabs(want));

  // Elementwise alone, element by element, with the loop index in scope.
  ElementwiseKernel ramp("T x", "T y", "y = x + (T)(i % 7)", "ramp");
  const std::vector<float> xs = x.to_host<float>();
  const std::vector<float> ys = ramp({x * 1.0f}).to_host<float>();
  for (size_t k = 0; k < xs.size(); ++k) ASSERT_EQ(ys[k], xs[k] + float(k % 7)) << k;
}

TEST(ElementwiseKernelGpuTest, BroadcastMixedTypesAndSeveralOutputs) {
  GPUC_REQUIRE_GPU(gpu);
  ElementwiseKernel split("float64 x, int32 k", "float64 frac, int32 whole",
                          "whole = (int)floor(x) + k; frac = x - floor(x)", "split");
  Array x = random::uniform({40, 1}, -5, 5, float64);
  Array k = arange(3).astype(int32);
  std::vector<Array> parts = split.call({x, k});
  ASSERT_EQ(parts[0].shape(), (std::vector<int64_t>{40, 3}));
  const std::vector<double> xs = x.to_host<double>(), frac = parts[0].to_host<double>();
  const std::vector<int32_t> whole = parts[1].to_host<int32_t>();
  for (int r = 0; r < 40; ++r) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(frac[r * 3 + c], xs[r] - std::floor(xs[r]));
      EXPECT_EQ(whole[r * 3 + c], int(std::floor(xs[r])) + c);
    }
  }
  // Half precision in and out: the operation sees __half.
  ElementwiseKernel half_twice("T x", "T y", "y = x + x", "half_twice");
  Array h = random::uniform({256}, -2, 2, float16);
  EXPECT_EQ(half_twice({h}).astype(float32).to_host<float>(),
            (h + h).astype(float32).to_host<float>());
}

TEST(ReductionKernelGpuTest, L2NormOverRowsAndEverythingFused) {
  GPUC_REQUIRE_GPU(gpu);
  ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  Array x = random::uniform({256, 1000}, -1, 1, float32);
  x.eval();
  const detail::GpuBackendStats before = gpu.stats();
  const std::vector<float> rows = l2norm({x}, {1}).to_host<float>();
  EXPECT_LE(gpu.stats().kernel_launches - before.kernel_launches, 2);
  ExpectNear(rows, sqrt(sum(x * x, Axes{1})).to_host<float>(), 1e-5);
  EXPECT_NEAR(l2norm({x}).item<float>(), std::sqrt(sum(x * x).item<float>()), 1e-3);
  // An identity other than the reduction's own takes part once; max with a post-map.
  ReductionKernel clipped_max("T x", "T y", "x", "max(a, b)", "y = a * 2", "0.5", "cmax");
  Array small = random::uniform({64}, -1, 0.25, float32);
  EXPECT_EQ(clipped_max({small}).item<float>(), 1.0f);
}

}  // namespace
}  // namespace gpuc
