//===- execution_layer_test.cc - Targets, options and the compile cache ---===//
//
// The execution layer (lib/exec/): options read from the environment in one place and
// replaceable per scope, two option sets compiling the same graph in one process without
// sharing a kernel, the get-or-compile logic both back ends share (memory, disk, a disk
// entry that does not load, kernels without a lowering), the targets behind one interface,
// and the GPU's cost model from a device's properties.
//
//===----------------------------------------------------------------------===//
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "codegen/kernel_cache.h"
#include "codegen/kernel_spec.h"
#include "gpuc/gpuc.h"
#include "lib/backend/cuda/cuda_cost_model.h"
#include "lib/backend/host/host_executor.h"
#include "lib/exec/compile_cache.h"
#include "lib/exec/options.h"
#include "lib/exec/target.h"
#include "passes/fusion.h"
#include "test/unit/test_util.h"
#include "tools/gpuc/random_inputs.h"

namespace gpuc {
namespace {

namespace fs = std::filesystem;

const char* kChain = R"(
func @chain(%x: f32[1000]) -> (f32[1000]) {
  %e = exp %x : f32[1000]
  %two = constant {value = 2.0} : f32[]
  %m = mul %e, %two : f32[1000]
  %y = add %m, %x : f32[1000]
  return %y
}
)";

std::string FreshDirectory(const std::string& name) {
  const std::string dir =
      (fs::temp_directory_path() / ("gpuc-exec-test-" + std::to_string(::getpid()) + "-" + name))
          .string();
  fs::remove_all(dir);
  return dir;
}

TEST(ExecutionOptions, EveryVariableIsReadByFromEnvironment) {
  setenv("GPUC_INDEX_BITS", "64", 1);
  setenv("GPUC_CUDA_GRAPHS", "0", 1);
  setenv("GPUC_NUM_THREADS", "3", 1);
  setenv("GPUC_DISK_CACHE", "0", 1);
  setenv("GPUC_BACKEND", "interpreter", 1);
  const exec::Options o = exec::Options::FromEnvironment();
  unsetenv("GPUC_INDEX_BITS");
  unsetenv("GPUC_CUDA_GRAPHS");
  unsetenv("GPUC_NUM_THREADS");
  unsetenv("GPUC_DISK_CACHE");
  unsetenv("GPUC_BACKEND");
  EXPECT_EQ(o.min_index_bits, 64);
  EXPECT_FALSE(o.cuda_graphs);
  EXPECT_EQ(o.threads, 3);
  EXPECT_FALSE(o.disk_cache);
  EXPECT_EQ(o.backend, "interpreter");
  const exec::Options plain = exec::Options::FromEnvironment();
  EXPECT_EQ(plain.min_index_bits, 32);
  EXPECT_TRUE(plain.cuda_graphs);
  EXPECT_NE(o.CodegenKey(), plain.CodegenKey()) << "the index width changes code";
  EXPECT_NE(o.PlanKey(), plain.PlanKey());
  EXPECT_NE(o.Describe().find("index bits = 64 or more   [GPUC_INDEX_BITS]"), std::string::npos);
}

TEST(ExecutionOptions, ScopedOptionsReplaceTheCurrentOnesAndRestoreThem) {
  const exec::Options before = exec::CurrentOptions();
  {
    exec::Options changed = before;
    changed.min_index_bits = 64;
    changed.explain = !before.explain;
    exec::ScopedOptions scope(changed);
    EXPECT_EQ(exec::CurrentOptions().min_index_bits, 64);
    EXPECT_EQ(exec::CurrentOptions().explain, !before.explain);
  }
  EXPECT_EQ(exec::CurrentOptions().min_index_bits, before.min_index_bits);
  EXPECT_EQ(exec::CurrentOptions().explain, before.explain);
}

TEST(ExecutionLayer, TwoOptionSetsCompileTheSameGraphIntoTwoKernelsInOneProcess) {
  const ir::Graph graph = test::ParseVerified(kChain);
  const std::string dir = FreshDirectory("two-options");
  exec::Options narrow = exec::CurrentOptions();
  narrow.cache_directory = dir;
  narrow.disk_cache = true;
  exec::Options wide = narrow;
  wide.min_index_bits = 64;

  // The keys differ where the options change code.
  ir::Graph lowered = graph;
  ASSERT_TRUE(exec::HostTarget().Lower(lowered, narrow).ok());
  const passes::FusionPlan plan = passes::PlanFusion(lowered);
  ASSERT_EQ(plan.kernels.size(), 1u);
  const std::string narrow_key =
      codegen::BuildKernelSpec(plan.kernels[0], {}, narrow.min_index_bits)->key_text;
  const std::string wide_key =
      codegen::BuildKernelSpec(plan.kernels[0], {}, wide.min_index_bits)->key_text;
  EXPECT_NE(narrow_key.find("index32"), std::string::npos) << narrow_key;
  EXPECT_NE(wide_key.find("index64"), std::string::npos) << wide_key;

  // Both compile in this process, neither serves the other, and both are on disk.
  const detail::HostBackendStats before = detail::HostExecutor::Get().stats();
  absl::StatusOr<std::shared_ptr<const exec::Executable>> a =
      exec::HostTarget().LowerAndCompile(graph, narrow);
  absl::StatusOr<std::shared_ptr<const exec::Executable>> b =
      exec::HostTarget().LowerAndCompile(graph, wide);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  const detail::HostBackendStats after = detail::HostExecutor::Get().stats();
  EXPECT_EQ(after.compiles - before.compiles, 2);
  EXPECT_EQ(codegen::DiskCache(dir, 1 << 30).Scan().entries, 2);
  // Compiling with the first options again finds its kernel in memory.
  ASSERT_TRUE(exec::HostTarget().LowerAndCompile(graph, narrow).ok());
  EXPECT_EQ(detail::HostExecutor::Get().stats().memory_hits - after.memory_hits, 1);

  // Both give the interpreter's values.
  const std::vector<ir::HostTensor> args = tool::RandomArguments(graph, 7);
  absl::StatusOr<std::vector<ir::HostTensor>> got_a = exec::HostTarget().RunOnHostValues(**a, args);
  absl::StatusOr<std::vector<ir::HostTensor>> got_b = exec::HostTarget().RunOnHostValues(**b, args);
  absl::StatusOr<std::shared_ptr<const exec::Executable>> oracle =
      exec::InterpreterTarget().LowerAndCompile(graph, narrow);
  ASSERT_TRUE(oracle.ok());
  absl::StatusOr<std::vector<ir::HostTensor>> want =
      exec::InterpreterTarget().RunOnHostValues(**oracle, args);
  ASSERT_TRUE(got_a.ok() && got_b.ok() && want.ok());
  EXPECT_EQ(test::CompareTensors((*got_a)[0], (*want)[0], "exact"), "") << "32-bit indexing";
  EXPECT_EQ(test::CompareTensors((*got_b)[0], (*want)[0], "exact"), "") << "64-bit indexing";
  fs::remove_all(dir);
}

/// A compiled thing for the cache test: the artifact it was loaded from.
struct FakeCompiled {
  std::string artifact;
};

TEST(CompileCache, MemoryThenDiskThenCompileAndABadDiskEntryIsCompiledAgain) {
  const std::string dir = FreshDirectory("compile-cache");
  codegen::DiskCache disk(dir, 1 << 30);
  int compiles = 0;
  auto compile = [&]() -> absl::StatusOr<std::string> {
    ++compiles;
    return std::string("good object");
  };
  auto load = [](const std::string& artifact) -> absl::StatusOr<std::unique_ptr<FakeCompiled>> {
    if (artifact != "good object") return absl::DataLossError("does not load");
    return std::make_unique<FakeCompiled>(FakeCompiled{artifact});
  };
  {
    exec::CompileCache<FakeCompiled> cache("fake-target");
    absl::StatusOr<std::shared_ptr<const FakeCompiled>> first =
        cache.GetOrCompile("kernel A", &disk, compile, load);
    ASSERT_TRUE(first.ok()) << first.status();
    absl::StatusOr<std::shared_ptr<const FakeCompiled>> again =
        cache.GetOrCompile("kernel A", &disk, compile, load);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(first->get(), again->get());
    EXPECT_EQ(compiles, 1);
    EXPECT_EQ(cache.stats().memory_hits, 1);
  }
  {
    // A second process (a fresh cache) loads it from disk.
    exec::CompileCache<FakeCompiled> cache("fake-target");
    ASSERT_TRUE(cache.GetOrCompile("kernel A", &disk, compile, load).ok());
    EXPECT_EQ(compiles, 1);
    EXPECT_EQ(cache.stats().disk_hits, 1);
  }
  {
    // An entry whose checksum is right but whose object does not load is compiled again.
    exec::CompileCache<FakeCompiled> writer("fake-target");
    auto bad_compile = []() -> absl::StatusOr<std::string> { return std::string("bad object"); };
    EXPECT_FALSE(writer.GetOrCompile("kernel B", &disk, bad_compile, load).ok());
    exec::CompileCache<FakeCompiled> cache("fake-target");
    absl::StatusOr<std::shared_ptr<const FakeCompiled>> got =
        cache.GetOrCompile("kernel B", &disk, compile, load);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*got)->artifact, "good object");
    EXPECT_EQ(cache.stats().disk_hits, 0);
    EXPECT_EQ(cache.stats().compiles, 1);
    // The bad entry was replaced: a third process loads the good one from disk.
    exec::CompileCache<FakeCompiled> third("fake-target");
    ASSERT_TRUE(third.GetOrCompile("kernel B", &disk, compile, load).ok());
    EXPECT_EQ(third.stats().disk_hits, 1);
  }
  {
    // A kernel without a lowering says so again without being compiled again.
    exec::CompileCache<FakeCompiled> cache("fake-target");
    int tries = 0;
    auto unlowered = [&]() -> absl::StatusOr<std::string> {
      ++tries;
      return absl::UnimplementedError("no lowering for scans");
    };
    EXPECT_TRUE(
        absl::IsUnimplemented(cache.GetOrCompile("kernel C", &disk, unlowered, load).status()));
    absl::StatusOr<std::shared_ptr<const FakeCompiled>> again =
        cache.GetOrCompile("kernel C", &disk, unlowered, load);
    EXPECT_TRUE(absl::IsUnimplemented(again.status()));
    EXPECT_NE(again.status().message().find("no lowering for scans"), absl::string_view::npos);
    EXPECT_EQ(tries, 1);
  }
  fs::remove_all(dir);
}

// Loaded kernels are bounded: the cache keeps the most recent ones loaded, and an older one
// stays loaded exactly while something (a plan) holds it, then is found again by a new load.
TEST(ExecutionLayer, TheCompileCacheKeepsTheRecentKernelsAndThoseStillHeld) {
  struct Counted {
    explicit Counted(int* alive) : alive(alive) { ++*alive; }
    ~Counted() { --*alive; }
    int* alive;
  };
  int alive = 0, compiles = 0;
  exec::CompileCache<Counted> cache("fake-target");
  auto compile = [&]() -> absl::StatusOr<std::string> {
    ++compiles;
    return std::string("object");
  };
  auto load = [&](const std::string&) -> absl::StatusOr<std::unique_ptr<Counted>> {
    return std::make_unique<Counted>(&alive);
  };
  const int recent = static_cast<int>(exec::CompileCache<Counted>::kRecentKernels);
  std::shared_ptr<const Counted> held = *cache.GetOrCompile("kernel 0", nullptr, compile, load);
  for (int i = 1; i < 3 * recent; ++i) {
    ASSERT_TRUE(cache.GetOrCompile(absl::StrCat("kernel ", i), nullptr, compile, load).ok());
  }
  EXPECT_EQ(alive, recent + 1);  // the recent ones, and the one a plan holds
  EXPECT_EQ(cache.GetOrCompile("kernel 0", nullptr, compile, load)->get(), held.get());
  held.reset();
  const int before = compiles;
  ASSERT_TRUE(cache.GetOrCompile("kernel 1", nullptr, compile, load).ok());  // long unloaded
  EXPECT_EQ(compiles, before + 1);
  EXPECT_LE(alive, recent + 1);
}

TEST(ExecutionLayer, TargetsAreFoundByNameAndTheBackendOptionIsNotASilentFallback) {
  exec::Options options = exec::CurrentOptions();
  EXPECT_EQ((*exec::TargetNamed("host", options))->name(), "host");
  EXPECT_EQ((*exec::TargetNamed("interpreter", options))->name(), "interp");
  absl::StatusOr<exec::Target*> bad = exec::TargetNamed("tpu", options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'tpu' is not a target"), absl::string_view::npos);
  options.backend = "interpreter";
  EXPECT_EQ((*exec::DefaultTarget(options))->name(), "interp");
  options.backend = "host";
  EXPECT_EQ((*exec::DefaultTarget(options))->name(), "host");
  options.backend = "gpu";
  options.device = "host";
  absl::StatusOr<exec::Target*> gpu = exec::DefaultTarget(options);
  ASSERT_FALSE(gpu.ok()) << "asked for the GPU where there is none";
  EXPECT_NE(gpu.status().message().find("no CUDA device"), absl::string_view::npos);
}

TEST(ExecutionLayer, EvaluationFollowsTheCurrentOptionsTarget) {
  random::Generator rng(5);
  Array x = rng.uniform({300});
  const PlanCacheStats before = plan_cache_stats();
  exec::Options interpreted = exec::CurrentOptions();
  interpreted.backend = "interpreter";
  // One recording site, so both evaluations have the same structure.
  auto step = [&] {
    Array y = exp(x) * 2.0 + x;
    y.eval();
    return y;
  };
  Array on_interpreter;
  {
    exec::ScopedOptions scope(interpreted);
    on_interpreter = step();
  }
  Array on_default = step();
  Array again = step();
  // The same structure under other options is another plan, not the interpreter's; the
  // default options' plan is found the second time.
  EXPECT_EQ(plan_cache_stats().misses - before.misses, 2);
  EXPECT_EQ(plan_cache_stats().hits - before.hits, 1);
  EXPECT_LE(max(abs(on_interpreter - on_default)).item<double>(), 1e-12);
}

TEST(CudaCostModel, FromTheDevicesPropertiesAndNominalWithoutOne) {
  runtime::CudaDeviceProperties h200;
  h200.multiprocessors = 132;
  h200.clock_khz = 1980000;
  h200.memory_clock_khz = 2619000;
  h200.memory_bus_width_bits = 6144;
  const passes::CostModel model = detail::CudaCostModel(&h200);
  const double flops = 132 * 128 * 1.98e9;
  const double bytes = 2 * 2.619e9 * 6144 / 8;
  EXPECT_NEAR(model.flops_per_byte, flops / bytes, 1e-9);
  EXPECT_NEAR(model.launch_flops, 3e-6 * flops, 1.0);
  // A GPU weighs a byte far above the host's 0.5 flops.
  EXPECT_GT(model.flops_per_byte, 5);
  const passes::CostModel nominal = detail::CudaCostModel(nullptr);
  EXPECT_GT(nominal.flops_per_byte, 5);
  EXPECT_GT(nominal.launch_flops, 1e7);
  // The host's model is the host target's, not the GPU's.
  const passes::FusionBudgets host = exec::HostTarget().Budgets(exec::CurrentOptions());
  EXPECT_EQ(host.cost_model.flops_per_byte, 0.5);
}

}  // namespace
}  // namespace gpuc
