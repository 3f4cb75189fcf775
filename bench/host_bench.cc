//===- host_bench.cc - The host back end: compile latency, overhead, speed ===//
//
// What a user of the host back end waits for: compiling a fused kernel (cold through LLVM,
// from the disk cache, from memory), the host overhead of an evaluation and of a compiled
// Function call on tiny arrays, the cost of recording an op, and the throughput of a fused
// elementwise chain against the same loop written in C++ (bench/plain_loop.cc, -O3
// -march=native). bench/run_host.sh runs it with 1 and 2 threads; docs/performance.md
// has the figures.
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <chrono>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "bench/plain_loop.h"
#include "codegen/host_compiler.h"
#include "codegen/host_support.h"
#include "codegen/kernel_cache.h"
#include "codegen/kernel_emitter.h"
#include "codegen/kernel_spec.h"
#include "gpuc/gpuc.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "lib/backend/host/host_executor.h"
#include "passes/fusion.h"
#include "runtime/host_jit.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc::bench {
namespace {

/// A softmax whose epsilon makes its kernel text unique: a kernel no cache has seen.
ir::Graph SoftmaxGraph(int64_t unique) {
  const std::string text = absl::StrCat(
      "func @softmax(%x: f32[256,1024]) -> (f32[256,1024]) {\n"
      "  %m = reduce_max %x {axes = [1], keepdims = true} : f32[256,1]\n"
      "  %d = sub %x, %m : f32[256,1024]\n"
      "  %e = exp %d : f32[256,1024]\n"
      "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32[256,1]\n"
      "  %eps = constant {value = ",
      unique, "} : f32[]\n",
      "  %t = add %s, %eps : f32[256,1]\n"
      "  %y = div %e, %t : f32[256,1024]\n"
      "  return %y\n}\n");
  return *ir::Parse(text);
}

void BM_CompileCold(benchmark::State& state) {
  // Spec, LLVM IR, O3, machine code and linking; GPUC_DISK_CACHE=0 (main) keeps the disk out.
  static int64_t unique = 1000000;  // across repetitions too: every graph is new
  for (auto _ : state) {
    const ir::Graph graph = SoftmaxGraph(++unique);
    benchmark::DoNotOptimize(detail::HostExecutor::Get().Prepare(graph));
  }
}
BENCHMARK(BM_CompileCold)->Unit(benchmark::kMillisecond);

void BM_CompileMemoryHit(benchmark::State& state) {
  // Fusion, kernel spec and key, and the in-memory lookup of an evaluation that reuses it.
  const ir::Graph graph = SoftmaxGraph(1);
  benchmark::DoNotOptimize(detail::HostExecutor::Get().Prepare(graph));
  for (auto _ : state) benchmark::DoNotOptimize(detail::HostExecutor::Get().Prepare(graph));
}
BENCHMARK(BM_CompileMemoryHit)->Unit(benchmark::kMicrosecond);

void BM_CompileDiskHit(benchmark::State& state) {
  // Reading a stored object, checking it and linking it into a fresh process's JIT.
  constexpr int kKernels = 64;
  const std::string directory =
      (std::filesystem::temp_directory_path() / "gpuc-bench-disk-cache").string();
  std::filesystem::remove_all(directory);
  codegen::DiskCache cache(directory, int64_t{1} << 30);
  std::unique_ptr<codegen::HostCompiler> compiler = *codegen::HostCompiler::Create();
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> symbols;
  for (int i = 0; i < kKernels; ++i) {
    const ir::Graph graph = SoftmaxGraph(2000000 + i);
    const passes::FusionPlan plan = passes::PlanFusion(graph);
    const codegen::KernelSpec spec = *codegen::BuildKernelSpec(plan.kernels[0]);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = *codegen::EmitKernel(spec, context);
    compiler->Optimize(*module);
    cache.Store(spec.key_text, *compiler->EmitObject(*module));
    keys.push_back(spec.key_text);
    symbols.emplace_back();
    for (const codegen::Phase& p : spec.phases) symbols.back().push_back(p.function_name);
  }
  std::unique_ptr<runtime::HostJit> jit = *runtime::HostJit::Create(codegen::HostSupportSymbols());
  int i = 0;
  for (auto _ : state) {
    std::optional<std::string> object = cache.Load(keys[i]);
    std::unique_ptr<runtime::HostJit::Object> loaded = *jit->AddObject(*object, keys[i]);
    for (const std::string& s : symbols[i]) benchmark::DoNotOptimize(loaded->Lookup(s));
    ++i;
  }
  std::filesystem::remove_all(directory);
}
BENCHMARK(BM_CompileDiskHit)->Iterations(64)->Unit(benchmark::kMicrosecond);

std::vector<float> RandomFloats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

Array Chain(const Array& a, const Array& b) {
  Array y = a * 2.0 + b;
  return sqrt(y * y + 1.0);
}

void BM_EvalOverhead(benchmark::State& state) {
  // Record two arrays' worth of ops, collect, optimize, plan (memory hit), run on 16 floats.
  Array a = array(RandomFloats(16, 1));
  Array b = array(RandomFloats(16, 2));
  for (auto _ : state) {
    Array y = Chain(a, b);
    y.eval();
    benchmark::DoNotOptimize(y);
  }
}
BENCHMARK(BM_EvalOverhead)->Unit(benchmark::kMicrosecond);

void BM_FunctionCallOverhead(benchmark::State& state) {
  // A compiled Function replays its prepared plan: no recording, passes or planning.
  Array a = array(RandomFloats(16, 1));
  Array b = array(RandomFloats(16, 2));
  auto f = compile(Chain);
  for (auto _ : state) benchmark::DoNotOptimize(f(a, b));
}
BENCHMARK(BM_FunctionCallOverhead)->Unit(benchmark::kMicrosecond);

void BM_RecordOp(benchmark::State& state) {
  Array a = array(RandomFloats(16, 1));
  for (auto _ : state) {
    Array y = a;
    for (int i = 0; i < 64; ++i) y = y + 1.0;
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_RecordOp)->Unit(benchmark::kMicrosecond);

// A plain C++ time loop over lazy ops: one Jacobi step writing the interior of an n x n grid
// from the other grid, then the same back (2 kernels, 2 evaluations per iteration; the time is per
// iteration). The plan cache (lib/eval/plan_cache.h) finds each step's plan by structure; the same
// loop with the cache off shows what it saves, and recording alone shows what is left per step.
void JacobiHalfStep(Array& dst, const Array& src) {
  Slice in(1, -1), up(0, -2), down(2, none);
  dst(in, in) = (src(up, in) + src(down, in) + src(in, up) + src(in, down)) * 0.25f;
}

void JacobiLoop(benchmark::State& state, bool evaluate) {
  const int64_t n = state.range(0);
  Array a = array(RandomFloats(n * n, 3)).reshape({n, n});
  Array b = (a * 0.5f).eval();
  a.eval();
  const AutoEvalLimits limits = auto_eval_limits();
  if (!evaluate) set_auto_eval_limits({int64_t{1} << 40, int64_t{1} << 40});
  for (auto _ : state) {
    JacobiHalfStep(b, a);
    if (evaluate) b.eval();
    JacobiHalfStep(a, b);
    if (evaluate) a.eval();
    if (!evaluate) {
      // Keep the recorded graph from growing: start the next step from stored arrays.
      state.PauseTiming();
      a = array(RandomFloats(n * n, 4)).reshape({n, n}).eval();
      b = (a * 0.5f).eval();
      state.ResumeTiming();
    }
  }
  set_auto_eval_limits(limits);
}

void BM_JacobiStepPlanCache(benchmark::State& state) { JacobiLoop(state, true); }
BENCHMARK(BM_JacobiStepPlanCache)->Arg(8)->Arg(256)->Unit(benchmark::kMicrosecond);

void BM_JacobiStepNoPlanCache(benchmark::State& state) {
  const PlanCacheStats before = plan_cache_stats();
  set_plan_cache_capacity(0);
  JacobiLoop(state, true);
  set_plan_cache_capacity(before.capacity);
}
BENCHMARK(BM_JacobiStepNoPlanCache)->Arg(8)->Arg(256)->Unit(benchmark::kMicrosecond);

void BM_JacobiStepRecordOnly(benchmark::State& state) { JacobiLoop(state, false); }
BENCHMARK(BM_JacobiStepRecordOnly)->Arg(8)->Unit(benchmark::kMicrosecond);

// The same two half-steps as a fori_loop body (gpuc/loops.h): traced once per loop call, then
// one prepared plan per step with the grids carried and written in place. Each benchmark
// iteration is one step of a 200-step loop (the loop runs once per 200 iterations; its one
// trace, plan-cache lookup and first copying step included), so the time is per step.
void BM_JacobiStepForiLoop(benchmark::State& state) {
  const int64_t n = state.range(0);
  constexpr int64_t kSteps = 200;
  Array a = array(RandomFloats(n * n, 3)).reshape({n, n}).eval();
  Array b = (a * 0.5f).eval();
  auto body = [](const Array&, const std::vector<Array>& grids) {
    Array a = grids[0], b = grids[1];
    JacobiHalfStep(b, a);
    JacobiHalfStep(a, b);
    return std::vector<Array>{a, b};
  };
  int64_t steps = 0;
  while (state.KeepRunningBatch(kSteps)) {
    std::vector<Array> out = fori_loop(0, kSteps, body, {a, b});
    benchmark::DoNotOptimize(out);
    steps += kSteps;
  }
  state.SetItemsProcessed(steps);
}
BENCHMARK(BM_JacobiStepForiLoop)->Arg(8)->Arg(256)->Unit(benchmark::kMicrosecond);

constexpr int64_t kChainElements = int64_t{1} << 22;  // 16 MiB per array: past the caches

void BM_FusedChainGpuc(benchmark::State& state) {
  Array a = array(RandomFloats(kChainElements, 1));
  Array b = array(RandomFloats(kChainElements, 2));
  auto f = compile(Chain);
  benchmark::DoNotOptimize(f(a, b));
  for (auto _ : state) benchmark::DoNotOptimize(f(a, b));
  state.SetBytesProcessed(state.iterations() * 3 * kChainElements * 4);
}
BENCHMARK(BM_FusedChainGpuc)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FusedChainPlainLoop(benchmark::State& state) {
  const std::vector<float> a = RandomFloats(kChainElements, 1);
  const std::vector<float> b = RandomFloats(kChainElements, 2);
  std::vector<float> out(static_cast<size_t>(kChainElements));
  for (auto _ : state) {
    PlainChain(a.data(), b.data(), out.data(), kChainElements);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 3 * kChainElements * 4);
}
BENCHMARK(BM_FusedChainPlainLoop)->Unit(benchmark::kMillisecond)->UseRealTime();

/// A square f32 matmul graph of side n and its random arguments.
std::pair<ir::Graph, std::vector<ir::HostTensor>> MatmulCase(int64_t n) {
  const std::string t = absl::StrCat("f32[", n, ",", n, "]");
  absl::StatusOr<ir::Graph> graph =
      ir::Parse(absl::StrCat("func @f(%a: ", t, ", %b: ", t, ") -> (", t,
                             ") {\n  %c = matmul %a, %b : ", t, "\n  return %c\n}\n"));
  if (!graph.ok()) std::abort();
  std::vector<ir::HostTensor> args = tool::RandomArguments(*graph, 1);
  return {*std::move(graph), std::move(args)};
}

// matmul on the host: the executor's OpenBLAS GEMM against the interpreter's triple loop
// (what every library step ran on before), in GFLOP/s.
void BM_MatmulHostBlas(benchmark::State& state) {
  auto [graph, args] = MatmulCase(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(detail::HostExecutor::Get().Run(graph, args));
  state.counters["GFLOP"] = benchmark::Counter(
      2.0 * std::pow(static_cast<double>(state.range(0)), 3) * state.iterations() / 1e9,
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MatmulHostBlas)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MatmulInterpreter(benchmark::State& state) {
  auto [graph, args] = MatmulCase(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ir::Interpret(graph, args));
  state.counters["GFLOP"] = benchmark::Counter(
      2.0 * std::pow(static_cast<double>(state.range(0)), 3) * state.iterations() / 1e9,
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MatmulInterpreter)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace gpuc::bench

int main(int argc, char** argv) {
  // Cold compiles must reach LLVM, not a previous run's disk entries.
  setenv("GPUC_DISK_CACHE", "0", 1);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
