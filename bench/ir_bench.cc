//===- ir_bench.cc - Host costs of the IR: parse, print, verify, interpret ===//
//
// The front end will build, verify and print graphs on every evaluation that misses the plan
// cache, so their per-node cost matters. Run: build/bench/bench_ir
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace gpuc::ir {
namespace {

/// A chain of `n` elementwise ops over f32[16]: the shape of a long recorded pipeline.
std::string ChainText(int n) {
  std::string text = "func @chain(%v0: f32[16]) -> (f32[16]) {\n";
  static constexpr const char* kOps[] = {"exp", "neg", "abs", "sqrt", "tanh"};
  for (int i = 1; i <= n; ++i) {
    absl::StrAppend(&text, "  %v", i, " = ", kOps[i % 5], " %v", i - 1, " : f32[16]\n");
  }
  absl::StrAppend(&text, "  return %v", n, "\n}\n");
  return text;
}

void BM_ParseChain(benchmark::State& state) {
  std::string text = ChainText(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Parse(text));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ParseChain)->Arg(100)->Arg(10000);

void BM_PrintChain(benchmark::State& state) {
  Graph graph = *Parse(ChainText(static_cast<int>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(Print(graph));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PrintChain)->Arg(100)->Arg(10000);

void BM_VerifyChain(benchmark::State& state) {
  Graph graph = *Parse(ChainText(static_cast<int>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(Verify(graph));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_VerifyChain)->Arg(100)->Arg(10000);

void BM_InterpretSoftmax(benchmark::State& state) {
  const int64_t rows = state.range(0);
  std::string shape = absl::StrCat("[", rows, ",256]"), row = absl::StrCat("[", rows, ",1]");
  Graph graph =
      *Parse(absl::StrCat("func @softmax(%x: f32", shape, ") -> (f32", shape, ") {\n",
                          "  %m = reduce_max %x {axes = [1], keepdims = true} : f32", row, "\n",
                          "  %d = sub %x, %m : f32", shape, "\n  %e = exp %d : f32", shape, "\n",
                          "  %s = reduce_sum %e {axes = [1], keepdims = true} : f32", row, "\n",
                          "  %y = div %e, %s : f32", shape, "\n  return %y\n}\n"));
  HostTensor x(graph.params[0]->type());
  float* data = x.data_as<float>();
  for (int64_t i = 0; i < x.num_elements(); ++i)
    data[i] = static_cast<float>((i * 7919) % 1000) / 250.0f;
  for (auto _ : state) benchmark::DoNotOptimize(Interpret(graph, {x}));
  state.SetItemsProcessed(state.iterations() * x.num_elements());
}
BENCHMARK(BM_InterpretSoftmax)->Arg(64)->Arg(1024);

}  // namespace
}  // namespace gpuc::ir

BENCHMARK_MAIN();
