//===- workloads_bench.cc - gpuc's fused kernels on the GPU, timed --------===//
//
// The gpuc half of `scripts/device-check.sh bench` (bench/gpu/peers.py is the other): each
// workload of issue 6 as a .gir function, fused and compiled once, then run on device-resident
// inputs (random, never zeros) and timed with CUDA events: batches of back-to-back runs, median
// over batches. Also the latency of a compiled Function (a 10-op chain on 1024 elements, call to
// result on the host) against a bare launch + synchronize, and cold compile vs warm disk-cache
// load.
// Prints one JSON object per line. Run on the GPU machine: bench_gpu [--quick], or
// bench_gpu --library [--quick] for the library workloads (GEMM, FFT and the fusion around them),
// bench_gpu --user-kernels [--quick] for users' CUDA kernels (user_kernels_bench.h).
// bench_gpu --loop [--quick] for a plain C++ time loop over lazy ops (loop_bench.h).
// bench_gpu --counting [--quick] for scans, scatters, sorts and counting (counting_bench.h).
// bench_gpu --linalg [--quick] for the dense solvers through cuSOLVER (linalg_bench.h).
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "bench/gpu/bench_util.h"
#include "bench/gpu/counting_bench.h"
#include "bench/gpu/linalg_bench.h"
#include "bench/gpu/loop_bench.h"
#include "bench/gpu/user_kernels_bench.h"
#include "gpuc/gpuc.h"
#include "lib/api/array_impl.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "runtime/module.h"

namespace gpuc {
namespace {

using namespace bench;  // NOLINT: the benchmark's own helpers

struct Workload {
  std::string name;
  std::string text;     // .gir, with N standing for the size
  int64_t bytes_moved;  // per run: what must be read and written
  double low = -2, high = 2;
};

void RunBandwidthWorkloads(detail::GpuExecutor& gpu, bool quick) {
  const int64_t n28 = quick ? (1 << 24) : (int64_t{1} << 28);
  const int64_t n26 = quick ? (1 << 22) : (int64_t{1} << 26);
  const int64_t rows = quick ? 4096 : 65536, cols = 4096;
  const int64_t square = quick ? 4096 : 16384;
  std::vector<Workload> workloads = {
      {"exp_mul_add",
       Substitute(
           "func @f(%x: f32[N]) -> (f32[N]) {\n  %two = constant {value = 2.0} : f32[]\n"
           "  %e = exp %x : f32[N]\n  %m = mul %e, %two : f32[N]\n  %y = add %m, %x : f32[N]\n"
           "  return %y\n}\n",
           {{"N", n28}}),
       n28 * 8},
      {"black_scholes",
       Substitute(R"(func @bs(%s: f32[N], %k: f32[N], %t: f32[N]) -> (f32[N], f32[N]) {
  %r = constant {value = 0.02} : f32[]
  %v = constant {value = 0.3} : f32[]
  %half = constant {value = 0.5} : f32[]
  %one = constant {value = 1.0} : f32[]
  %rsqrt2 = constant {value = 0.7071067811865476} : f32[]
  %ratio = div %s, %k : f32[N]
  %logr = log %ratio : f32[N]
  %v2 = mul %v, %v : f32[]
  %hv2 = mul %v2, %half : f32[]
  %drift = add %r, %hv2 : f32[]
  %dt = mul %drift, %t : f32[N]
  %num = add %logr, %dt : f32[N]
  %sqt = sqrt %t : f32[N]
  %vsqt = mul %v, %sqt : f32[N]
  %d1 = div %num, %vsqt : f32[N]
  %d2 = sub %d1, %vsqt : f32[N]
  %a1 = mul %d1, %rsqrt2 : f32[N]
  %e1 = erf %a1 : f32[N]
  %p1 = add %e1, %one : f32[N]
  %n1 = mul %p1, %half : f32[N]
  %a2 = mul %d2, %rsqrt2 : f32[N]
  %e2 = erf %a2 : f32[N]
  %p2 = add %e2, %one : f32[N]
  %n2 = mul %p2, %half : f32[N]
  %nrt = neg %r : f32[]
  %rt = mul %nrt, %t : f32[N]
  %disc = exp %rt : f32[N]
  %kd = mul %k, %disc : f32[N]
  %sn1 = mul %s, %n1 : f32[N]
  %kn2 = mul %kd, %n2 : f32[N]
  %call = sub %sn1, %kn2 : f32[N]
  %cs = sub %call, %s : f32[N]
  %put = add %cs, %kd : f32[N]
  return %call, %put
}
)",
                  {{"N", n26}}),
       n26 * 20, 10, 20},
      {"sum",
       Substitute("func @f(%x: f32[N]) -> (f32[]) {\n  %s = reduce_sum %x {axes = [0]} : f32[]\n"
                  "  return %s\n}\n",
                  {{"N", n28}}),
       n28 * 4},
      {"softmax_rows",
       Substitute("func @f(%x: f32[R,C]) -> (f32[R,C]) {\n"
                  "  %m = reduce_max %x {axes = [1], keepdims = true} : f32[R,1]\n"
                  "  %d = sub %x, %m : f32[R,C]\n  %e = exp %d : f32[R,C]\n"
                  "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32[R,1]\n"
                  "  %y = div %e, %s : f32[R,C]\n  return %y\n}\n",
                  {{"R", rows}, {"C", cols}}),
       rows * cols * 8},
      {"layernorm_rows",
       Substitute("func @f(%x: f32[R,C]) -> (f32[R,C]) {\n"
                  "  %n = constant {value = 4096.0} : f32[]\n"
                  "  %eps = constant {value = 0.00001} : f32[]\n"
                  "  %s = reduce_sum %x {axes = [1], keepdims = true} : f32[R,1]\n"
                  "  %mean = div %s, %n : f32[R,1]\n  %d = sub %x, %mean : f32[R,C]\n"
                  "  %d2 = mul %d, %d : f32[R,C]\n"
                  "  %ss = reduce_sum %d2 {axes = [1], keepdims = true} : f32[R,1]\n"
                  "  %var = div %ss, %n : f32[R,1]\n  %ve = add %var, %eps : f32[R,1]\n"
                  "  %inv = rsqrt %ve : f32[R,1]\n  %y = mul %d, %inv : f32[R,C]\n  return %y\n}\n",
                  {{"R", rows}, {"C", cols}}),
       rows * cols * 8},
      {"column_sum",
       Substitute(
           "func @f(%x: f32[S,S]) -> (f32[S]) {\n  %s = reduce_sum %x {axes = [0]} : f32[S]\n"
           "  return %s\n}\n",
           {{"S", square}}),
       square * square * 4},
      {"mean_var",
       Substitute("func @f(%x: f32[N]) -> (f32[], f32[]) {\n"
                  "  %n = constant {value = 268435456.0} : f32[]\n"
                  "  %s = reduce_sum %x {axes = [0]} : f32[]\n"
                  "  %x2 = mul %x, %x : f32[N]\n  %s2 = reduce_sum %x2 {axes = [0]} : f32[]\n"
                  "  %mean = div %s, %n : f32[]\n  %m2 = div %s2, %n : f32[]\n"
                  "  %mm = mul %mean, %mean : f32[]\n  %var = sub %m2, %mm : f32[]\n"
                  "  return %mean, %var\n}\n",
                  {{"N", n28}}),
       n28 * 4},
  };
  for (const Workload& w : workloads) {
    std::fprintf(stderr, "bench_gpu: %s\n", w.name.c_str());
    const ir::Graph graph = Optimized(w.text);
    std::shared_ptr<const detail::GpuPlan> plan = Must(gpu.Prepare(graph));
    std::vector<detail::DeviceTensor> args;
    for (size_t i = 0; i < graph.params.size(); ++i) {
      args.push_back(RandomInput(gpu, graph.params[i]->type(), 100 + i, w.low, w.high));
    }
    std::fprintf(stderr, "bench_gpu: %s: inputs ready\n", w.name.c_str());
    Must(gpu.Synchronize());
    const auto t0 = Clock::now();
    Must(gpu.Run(*plan, args).status());
    Must(gpu.Synchronize());
    std::fprintf(stderr, "bench_gpu: %s: first run %.3f ms\n", w.name.c_str(),
                 std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    const Timing t = TimePlan(gpu, *plan, args, quick ? 5 : 15, 10);
    Report(w.name, "ms", t.ms,
           absl::StrCat(", \"gbps\": ", static_cast<double>(w.bytes_moved) / (t.ms * 1e6),
                        ", \"kernels\": ", t.kernels));
  }
}

/// Library workloads of issue 8: GEMMs through cuBLAS (TFLOP/s), FFTs through cuFFT, and
/// elementwise math fused around them.
void RunLibraryWorkloads(detail::GpuExecutor& gpu, bool quick) {
  const int64_t g = quick ? 2048 : 4096;
  const int64_t signal = quick ? (1 << 20) : (1 << 24);
  auto gemm = [&](const std::string& dtype) {
    return absl::StrReplaceAll(Substitute("func @f(%a: T[G,G], %b: T[G,G]) -> (T[G,G]) {\n"
                                          "  %c = matmul %a, %b : T[G,G]\n  return %c\n}\n",
                                          {{"G", g}}),
                               {{"T[", dtype + "["}});
  };
  struct LibraryWorkload {
    std::string name, text;
    double flops;  // per run, 0 when the figure is time only
  };
  const double gemm_flops = 2.0 * g * g * g;
  std::vector<LibraryWorkload> workloads = {
      {"sgemm", gemm("f32"), gemm_flops},
      {"dgemm", gemm("f64"), gemm_flops},
      {"hgemm", gemm("f16"), gemm_flops},
      // gelu(a @ w + b) in erf form: the GEMM, then bias and GELU in one fused kernel.
      {"gemm_bias_gelu",
       Substitute("func @f(%a: f32[G,G], %w: f32[G,G], %b: f32[G]) -> (f32[G,G]) {\n"
                  "  %half = constant {value = 0.5} : f32[]\n"
                  "  %one = constant {value = 1.0} : f32[]\n"
                  "  %r2 = constant {value = 0.7071067811865476} : f32[]\n"
                  "  %m = matmul %a, %w : f32[G,G]\n  %x = add %m, %b : f32[G,G]\n"
                  "  %s = mul %x, %r2 : f32[G,G]\n  %e = erf %s : f32[G,G]\n"
                  "  %p = add %e, %one : f32[G,G]\n  %h = mul %x, %half : f32[G,G]\n"
                  "  %y = mul %h, %p : f32[G,G]\n  return %y\n}\n",
                  {{"G", g}}),
       gemm_flops},
      // relu(a @ w + b): one cuBLASLt GEMM with the RELU_BIAS epilogue (no kernel).
      {"gemm_bias_relu",
       Substitute("func @f(%a: f32[G,G], %w: f32[G,G], %b: f32[G]) -> (f32[G,G]) {\n"
                  "  %zero = constant {value = 0.0} : f32[]\n"
                  "  %m = matmul %a, %w : f32[G,G]\n  %x = add %m, %b : f32[G,G]\n"
                  "  %y = maximum %x, %zero : f32[G,G]\n  return %y\n}\n",
                  {{"G", g}}),
       gemm_flops},
      {"gemm_bias_relu_small",
       Substitute("func @f(%a: f32[G,G], %w: f32[G,G], %b: f32[G]) -> (f32[G,G]) {\n"
                  "  %zero = constant {value = 0.0} : f32[]\n"
                  "  %m = matmul %a, %w : f32[G,G]\n  %x = add %m, %b : f32[G,G]\n"
                  "  %y = maximum %x, %zero : f32[G,G]\n  return %y\n}\n",
                  {{"G", 512}}),
       2.0 * 512 * 512 * 512},
      {"fft_c2c_1024x4096",
       "func @f(%x: c64[1024,4096]) -> (c64[1024,4096]) {\n"
       "  %y = fft %x {axes = [1], inverse = false, norm = \"backward\"} : c64[1024,4096]\n"
       "  return %y\n}\n",
       0},
      // What gpuc::fft::rfft records: one real-to-complex transform.
      {"rfft",
       Substitute("func @f(%x: f32[N]) -> (c64[H]) {\n"
                  "  %y = fft %x {axes = [0], kind = \"r2c\", norm = \"backward\"} : c64[H]\n"
                  "  return %y\n}\n",
                  {{"N", signal}, {"H", signal / 2 + 1}}),
       0},
      // Circular convolution of two real signals, what irfft(rfft(a) * rfft(b), n) records:
      // two R2C transforms, the pointwise product with irfft's 1/n scale fused into it, and a
      // C2R working in the product (its only reader).
      {"fft_convolution",
       Substitute("func @f(%a: f32[N], %b: f32[N]) -> (f32[N]) {\n"
                  "  %fa = fft %a {axes = [0], kind = \"r2c\", norm = \"backward\"} : c64[H]\n"
                  "  %fb = fft %b {axes = [0], kind = \"r2c\", norm = \"backward\"} : c64[H]\n"
                  "  %p = mul %fa, %fb : c64[H]\n"
                  "  %scale = constant {value = S} : f32[]\n  %q = mul %p, %scale : c64[H]\n"
                  "  %y = fft %q {axes = [0], inverse = true, kind = \"c2r\", n = N, norm = "
                  "\"forward\"} : f32[N]\n"
                  "  return %y\n}\n",
                  {{"N", signal}, {"H", signal / 2 + 1}}),
       0},
  };
  for (LibraryWorkload& w : workloads) {
    w.text =
        absl::StrReplaceAll(w.text, {{"value = S}", absl::StrCat("value = ", 1.0 / signal, "}")}});
    std::fprintf(stderr, "bench_gpu: %s\n", w.name.c_str());
    const ir::Graph graph = Optimized(w.text);
    std::shared_ptr<const detail::GpuPlan> plan = Must(gpu.Prepare(graph));
    std::vector<detail::DeviceTensor> args;
    for (size_t i = 0; i < graph.params.size(); ++i) {
      args.push_back(RandomInput(gpu, graph.params[i]->type(), 200 + i, -1, 1));
    }
    const int64_t calls_before = gpu.stats().library_calls;
    Must(gpu.Run(*plan, args).status());
    Must(gpu.Synchronize());
    const int64_t calls = gpu.stats().library_calls - calls_before;
    const Timing t = TimePlan(gpu, *plan, args, quick ? 5 : 15, quick ? 3 : 10);
    std::string extra = absl::StrCat(", \"kernels\": ", t.kernels, ", \"library_calls\": ", calls);
    if (w.flops > 0) absl::StrAppend(&extra, ", \"tflops\": ", w.flops / (t.ms * 1e9));
    Report(w.name, "ms", t.ms, extra);
  }
}

/// The 5-point Laplacian on a side x side grid in CSR (int32 structure, f32 values), as device
/// tensors: values, column indices, row offsets.
std::vector<detail::DeviceTensor> PoissonCsr(detail::GpuExecutor& gpu, int64_t side) {
  std::vector<float> values;
  std::vector<int32_t> columns, offsets = {0};
  for (int64_t i = 0; i < side; ++i) {
    for (int64_t j = 0; j < side; ++j) {
      const int64_t row = i * side + j;
      auto add = [&](int64_t c, float v) {
        columns.push_back(static_cast<int32_t>(c));
        values.push_back(v);
      };
      if (i > 0) add(row - side, -1);
      if (j > 0) add(row - 1, -1);
      add(row, 4);
      if (j + 1 < side) add(row + 1, -1);
      if (i + 1 < side) add(row + side, -1);
      offsets.push_back(static_cast<int32_t>(columns.size()));
    }
  }
  std::vector<detail::DeviceTensor> out;
  for (Array a : {array(values), array(columns), array(offsets)}) {
    eval({a});
    out.push_back(Must(detail::ImplOf(a, "bench").buffer().OnDevice(gpu.device())));
  }
  return out;
}

void RunSpmv(detail::GpuExecutor& gpu, bool quick) {
  const int64_t side = quick ? 512 : 2048, n = side * side;
  std::vector<detail::DeviceTensor> args = PoissonCsr(gpu, side);
  const int64_t nnz = args[0].type.shape.num_elements();
  const ir::Graph graph = Optimized(absl::StrCat(
      "func @f(%v: f32[", nnz, "], %c: i32[", nnz, "], %o: i32[", n + 1, "], %x: f32[", n,
      "]) -> (f32[", n, "]) {\n  %y = spmv %v, %c, %o, %x {validated = true} : f32[", n,
      "]\n  return %y\n}\n"));
  args.push_back(RandomInput(gpu, graph.params[3]->type(), 300, -1, 1));
  std::shared_ptr<const detail::GpuPlan> plan = Must(gpu.Prepare(graph));
  const Timing t = TimePlan(gpu, *plan, args, quick ? 5 : 15, 10);
  // Bytes: values and columns once, offsets, x at least once, y.
  const double bytes = nnz * 8.0 + (n + 1) * 4.0 + n * 8.0;
  Report("spmv_poisson", "ms", t.ms,
         absl::StrCat(", \"rows\": ", n, ", \"nnz\": ", nnz,
                      ", \"gbps_min\": ", bytes / (t.ms * 1e6)));
}

/// A 10-op chain through gpuc::compile, call to result on the host, against a bare launch of
/// an empty kernel + synchronize in the same process.
void RunLatency(detail::GpuExecutor& gpu) {
  auto chain = compile([](Array x) {
    Array y = x * 1.5 + 0.25;
    y = sin(y) * y;
    y = y - x * 0.5;
    y = exp(-abs(y)) + y;
    y = sqrt(y * y + 1.0);
    return y;
  });
  random::Generator rng(2);
  Array x = rng.uniform({1024}, -1, 1, float32);
  eval({x});
  std::vector<float> out(1024);
  for (int i = 0; i < 50; ++i) chain(x).copy_to(out.data(), out.size() * 4);
  std::vector<double> call_us;
  for (int i = 0; i < 1000; ++i) {
    const auto t0 = Clock::now();
    chain(x).copy_to(out.data(), out.size() * 4);
    call_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  // A plan of several kernels: softmax over rows too few for the one-kernel row path (the
  // max, the sum and the normalization each launch), where replaying the plan as a CUDA
  // graph (GPUC_CUDA_GRAPHS, on by default) saves launches.
  auto softmax = compile([](Array v) {
    Array e = exp(v - max(v, -1, true));
    return e / sum(e, -1, true);
  });
  Array rows = rng.normal({64, 512}, 0.0, 2.0, float32);
  eval({rows});
  std::vector<float> softmax_out(64 * 512);
  for (int i = 0; i < 50; ++i) softmax(rows).copy_to(softmax_out.data(), softmax_out.size() * 4);
  const detail::GpuBackendStats before = gpu.stats();
  std::vector<double> softmax_us;
  for (int i = 0; i < 1000; ++i) {
    const auto t0 = Clock::now();
    softmax(rows).copy_to(softmax_out.data(), softmax_out.size() * 4);
    softmax_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  const detail::GpuBackendStats after = gpu.stats();
  Report(
      "softmax_64x512_call", "us", Median(softmax_us),
      absl::StrCat(
          ", \"kernels_per_call\": ", (after.kernel_launches - before.kernel_launches) / 1000.0,
          ", \"graph_replays_per_call\": ", (after.graph_replays - before.graph_replays) / 1000.0));
  // Where the time goes: the same call evaluated and waited for, without the read-back.
  std::vector<double> run_us;
  for (int i = 0; i < 1000; ++i) {
    const auto t0 = Clock::now();
    Array y = chain(x);
    eval({y});
    Must(gpu.Synchronize());
    run_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  // The floor: an empty kernel, launched and waited for.
  static const char* kEmptyPtx =
      ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry empty() { ret; }\n";
  std::unique_ptr<runtime::CudaModule> module =
      Must(runtime::CudaModule::LoadPtx(gpu.device(), kEmptyPtx));
  runtime::CudaKernel empty = Must(module->GetKernel("empty"));
  runtime::CudaStream& stream = *Must(gpu.stream());
  std::vector<double> floor_us;
  for (int i = 0; i < 1050; ++i) {
    const auto t0 = Clock::now();
    Must(runtime::Launch(stream, empty, {1}, {1}, 0, nullptr));
    Must(stream.Synchronize());
    if (i >= 50) {
      floor_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  }
  const double call = Median(call_us), floor = Median(floor_us);
  Report("chain10_1024_call", "us", call,
         absl::StrCat(", \"floor_us\": ", floor, ", \"ratio_to_floor\": ", call / floor,
                      ", \"without_read_back_us\": ", Median(run_us)));
}

/// Cold compile (LLVM + PTX + cubin) of a fused kernel and a warm load from the disk cache.
void RunCompileTimes() {
  // A fresh cache directory, so the first compile is cold; a child process loads it warm.
  const std::string dir = absl::StrCat("/tmp/gpuc-bench-cache-", getpid());
  std::filesystem::remove_all(dir);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  for (const char* phase : {"cold", "warm"}) {
    const std::string cmd =
        absl::StrCat("GPUC_CACHE_DIR=", dir, " ", self, " --compile-once ", phase);
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "bench_gpu: %s failed\n", phase);
  }
  std::filesystem::remove_all(dir);
}

void CompileOnce(const std::string& phase) {
  detail::GpuExecutor& gpu = *Must(detail::GpuExecutor::Get());
  const ir::Graph graph = Optimized(
      "func @f(%x: f32[4096,1024]) -> (f32[4096,1024]) {\n"
      "  %m = reduce_max %x {axes = [1], keepdims = true} : f32[4096,1]\n"
      "  %d = sub %x, %m : f32[4096,1024]\n  %e = exp %d : f32[4096,1024]\n"
      "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32[4096,1]\n"
      "  %y = div %e, %s : f32[4096,1024]\n  return %y\n}\n");
  const auto t0 = Clock::now();
  Must(gpu.Prepare(graph).status());
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const detail::GpuBackendStats s = gpu.stats();
  Report(absl::StrCat("softmax_compile_", phase), "ms", ms,
         absl::StrCat(", \"compiles\": ", s.compiles, ", \"disk_hits\": ", s.disk_hits));
}

}  // namespace
}  // namespace gpuc

int main(int argc, char** argv) {
  using namespace gpuc;
  if (argc == 3 && std::string(argv[1]) == "--compile-once") {
    CompileOnce(argv[2]);
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--raw-kernel-compile-once") {
    bench::RawKernelCompileOnce(argv[2]);
    return 0;
  }
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  absl::StatusOr<detail::GpuExecutor*> gpu = detail::GpuExecutor::Get();
  if (!gpu.ok()) {
    std::fprintf(stderr, "bench_gpu: no GPU: %s\n", std::string(gpu.status().message()).c_str());
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--latency") {
    RunLatency(**gpu);
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--user-kernels") {
    bench::RunRawKernelCompileTimes();
    bench::RunUserKernelWorkloads(**gpu, argc > 2 && std::string(argv[2]) == "--quick");
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--loop") {
    bench::RunLoopWorkloads(argc > 2 && std::string(argv[2]) == "--quick");
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--counting") {
    bench::RunCountingWorkloads(argc > 2 && std::string(argv[2]) == "--quick");
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--linalg") {
    bench::RunLinalgWorkloads(argc > 2 && std::string(argv[2]) == "--quick");
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--library") {
    RunLibraryWorkloads(**gpu, argc > 2 && std::string(argv[2]) == "--quick");
    RunSpmv(**gpu, argc > 2 && std::string(argv[2]) == "--quick");
    return 0;
  }
  RunCompileTimes();
  RunBandwidthWorkloads(**gpu, quick);
  RunLatency(**gpu);
  return 0;
}
