//===- user_kernels_bench.cc - Users' CUDA kernels, timed -----------------===//
//
// The chain: e = exp(x); u = soft_clip(e, x), a user's CUDA C++ operation
// (u = e / (1 + |e|) + 0.5 x); y = u * u + 1. gpuc fuses it into one kernel whose PTX calls the
// user function, linked by nvJitLink; the same chain in gpuc ops is the 0.9x reference, CuPy's
// ElementwiseKernel between separate kernels the 1.5x one. Both gpuc versions are checked equal
// through the public API before anything is timed.
//
//===----------------------------------------------------------------------===//
#include "bench/gpu/user_kernels_bench.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bench/gpu/bench_util.h"
#include "codegen/cuda_compilers.h"
#include "gpuc/gpuc.h"
#include "gpuc/raw_kernel.h"

namespace gpuc::bench {
namespace {

constexpr const char* kSoftClipOperation = "u = e / (1.0f + fabsf(e)) + 0.5f * x";

const char* kChainWithUserOp = R"(func @f(%x: f32[N]) -> (f32[N]) {
  %one = constant {value = 1.0} : f32[]
  %e = exp %x : f32[N]
  %u = user_elementwise %e, %x {inputs = "f32 e, f32 x", name = "soft_clip", operation = "OP", output = 0, outputs = "f32 u", preamble = ""} : f32[N]
  %uu = mul %u, %u : f32[N]
  %y = add %uu, %one : f32[N]
  return %y
}
)";

const char* kChainInGpucOps = R"(func @f(%x: f32[N]) -> (f32[N]) {
  %one = constant {value = 1.0} : f32[]
  %half = constant {value = 0.5} : f32[]
  %e = exp %x : f32[N]
  %a = abs %e : f32[N]
  %d = add %a, %one : f32[N]
  %q = div %e, %d : f32[N]
  %h = mul %x, %half : f32[N]
  %u = add %q, %h : f32[N]
  %uu = mul %u, %u : f32[N]
  %y = add %uu, %one : f32[N]
  return %y
}
)";

/// The chain through the public API both ways, on 2^20 elements: the results must agree
/// (the same IEEE operations, NVRTC's -prec-div default against gpuc's div.rn) before the
/// plans are timed.
void CheckChainsAgree() {
  random::Generator rng(7);
  Array x = rng.uniform({1 << 20}, -4, 4, float32);
  ElementwiseKernel soft_clip("T e, T x", "T u", kSoftClipOperation, "soft_clip");
  Array u = soft_clip({exp(x), x});
  Array with_user_op = u * u + 1.0;
  Array e = exp(x);
  Array v = e / (abs(e) + 1.0) + x * 0.5;
  Array with_ops = v * v + 1.0;
  const std::vector<float> a = with_user_op.to_host<float>(), b = with_ops.to_host<float>();
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(double{a[i]} - b[i]) / std::max(1.0, std::abs(double{b[i]})));
  }
  std::fprintf(stderr, "bench_gpu: user chain vs gpuc ops, largest relative difference %.3g\n",
               worst);
  if (!(worst <= 1e-6)) Die(absl::InternalError("the user-op chain disagrees with gpuc ops"));
}

// A RawKernel of the size users write: a 2-D 5-point heat step with a helper function.
const char* kHeatStepSource = R"(
__device__ inline float laplacian(const float* u, int i, int j, int nx) {
  return u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1] -
         4.0f * u[i * nx + j];
}

extern "C" __global__ void heat_step(float* out, const float* u, int nx, int ny, float alpha) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ny || j >= nx) return;
  if (i == 0 || j == 0 || i == ny - 1 || j == nx - 1) {
    out[i * nx + j] = u[i * nx + j];
  } else {
    out[i * nx + j] = u[i * nx + j] + alpha * laplacian(u, i, j, nx);
  }
}
)";

}  // namespace

void RunUserKernelWorkloads(detail::GpuExecutor& gpu, bool quick) {
  CheckChainsAgree();
  const int64_t n = quick ? (1 << 24) : (int64_t{1} << 28);
  const std::string with_user_op =
      absl::StrReplaceAll(Substitute(kChainWithUserOp, {{"N", n}}), {{"OP", kSoftClipOperation}});
  const std::pair<const char*, std::string> variants[] = {
      {"gpuc", with_user_op},
      {"gpuc-builtin-ops", Substitute(kChainInGpucOps, {{"N", n}})},
  };
  for (const auto& [impl, text] : variants) {
    const ir::Graph graph = Optimized(text);
    const auto t0 = Clock::now();
    std::shared_ptr<const detail::GpuPlan> plan = Must(gpu.Prepare(graph));
    const double prepare_ms = MillisecondsSince(t0);
    std::vector<detail::DeviceTensor> args = {
        RandomInput(gpu, graph.params[0]->type(), 400, -4, 4)};
    const Timing t = TimePlan(gpu, *plan, args, quick ? 5 : 15, 10);
    ReportAs(impl, "user_op_chain", "ms", t.ms,
             absl::StrCat(", \"gbps\": ", static_cast<double>(n) * 8 / (t.ms * 1e6),
                          ", \"kernels\": ", t.kernels, ", \"prepare_ms\": ", prepare_ms));
  }
}

void RunRawKernelCompileTimes() {
  // A fresh cache directory, so the first compile is cold; a second process loads it warm.
  const std::string dir = absl::StrCat("/tmp/gpuc-bench-raw-cache-", getpid());
  std::filesystem::remove_all(dir);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  for (const char* phase : {"cold", "warm"}) {
    const std::string cmd =
        absl::StrCat("GPUC_CACHE_DIR=", dir, " ", self, " --raw-kernel-compile-once ", phase);
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "bench_gpu: %s failed\n", phase);
  }
  std::filesystem::remove_all(dir);
}

void RawKernelCompileOnce(const std::string& phase) {
  // The device and its context first: both peers pay that once per process, not per kernel.
  random::Generator rng(11);
  const int nx = 1024, ny = 1024;
  Array u = rng.uniform({ny, nx}, 0, 1, float32);
  Array out = empty({ny, nx}, float32);
  eval({u, out});
  Stream::current().synchronize();

  // Loading NVRTC apart: `import cupy` loads it before CuPy's timer starts, and a warm
  // gpuc process loads it to read the version in the cache key.
  auto t0 = Clock::now();
  Must(codegen::GetNvrtc().status());
  const double nvrtc_load_ms = MillisecondsSince(t0);
  t0 = Clock::now();
  RawKernel heat_step(kHeatStepSource, "heat_step");
  const double compile_ms = MillisecondsSince(t0);
  t0 = Clock::now();
  heat_step({(nx + 31) / 32, (ny + 7) / 8}, {32, 8}, {out, u, nx, ny, 0.1f});
  Stream::current().synchronize();
  const double first_launch_ms = MillisecondsSince(t0);
  // The interior moved: a kernel that never ran (or ran on the wrong data) is not timed.
  const std::vector<float> before = u.to_host<float>(), after = out.to_host<float>();
  const int64_t center = (ny / 2) * nx + nx / 2;
  const float expected =
      before[center] + 0.1f * (before[center - nx] + before[center + nx] + before[center - 1] +
                               before[center + 1] - 4.0f * before[center]);
  if (std::abs(after[center] - expected) > 1e-5f) {
    Die(absl::InternalError("heat_step wrote a wrong value"));
  }
  ReportAs(Label(), absl::StrCat("raw_kernel_compile_", phase), "ms", compile_ms,
           absl::StrCat(", \"first_launch_ms\": ", first_launch_ms,
                        ", \"nvrtc_load_ms\": ", nvrtc_load_ms));
}

}  // namespace gpuc::bench
