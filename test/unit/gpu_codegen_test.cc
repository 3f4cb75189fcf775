//===- gpu_codegen_test.cc - GPU code generation without a GPU ------------===//
//
// Every kernel of seeded random graphs (all dtypes, ops, views and reductions) compiles to
// PTX, or has a stated reason not to (the support-library ops, complex products and
// extrema), and ptxas from the CUDA toolkit accepts the PTX. Needs libdevice and ptxas (the
// toolkit), not a device; skips with the reason where the toolkit is missing.
//
//===----------------------------------------------------------------------===//
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codegen/nvptx_compiler.h"
#include "ir/printer.h"
#include "lib/backend/host/host_executor.h"
#include "lib/exec/plan_values.h"
#include "passes/buffer_plan.h"
#include "passes/fusion.h"
#include "passes/pass_manager.h"
#include "test/unit/random_graph.h"

namespace gpuc {
namespace {

std::string Ptxas() {
  const char* home = std::getenv("CUDA_HOME");
  const std::string path = absl::StrCat(home ? home : "/usr/local/cuda", "/bin/ptxas");
  return std::filesystem::exists(path) ? path : "";
}

/// Compiles the kernels of random graphs [0, graphs) and assembles every third graph's.
void CompileRandomGraphs(const codegen::GpuCompileOptions& options, uint64_t graphs) {
  absl::StatusOr<std::unique_ptr<codegen::NvptxCompiler>> compiler =
      codegen::NvptxCompiler::Create(options);
  if (!compiler.ok()) GTEST_SKIP() << "no CUDA toolkit: " << compiler.status().message();
  const std::string ptxas = Ptxas();
  const std::string dir = ::testing::TempDir();
  const char* variant = options.vector_reductions ? "" : "scalar_";
  int compiled = 0, unsupported = 0, assembled = 0;
  std::map<std::string, int> reasons;
  for (uint64_t seed = 0; seed < graphs; ++seed) {
    test::RandomGraphOptions options;
    options.all_dtypes = true;
    options.all_ops = true;
    ir::Graph graph = test::RandomGraph(seed, options);
    absl::StatusOr<passes::PassManager> pipeline =
        passes::BuildPipeline(passes::DefaultPipeline(), passes::PassManagerOptions{});
    ASSERT_TRUE(pipeline.ok());
    ASSERT_TRUE(pipeline->Run(graph).ok());
    const passes::FusionPlan plan = passes::PlanFusion(graph);
    const passes::BufferPlan buffers = passes::PlanBuffers(graph, plan);
    for (const passes::FusedKernel& kernel : plan.kernels) {
      if (!codegen::IsCompilable(kernel)) continue;
      absl::StatusOr<codegen::KernelSpec> spec =
          codegen::BuildKernelSpec(kernel, detail::InPlaceOutputs(kernel, buffers));
      ASSERT_TRUE(spec.ok()) << spec.status();
      absl::StatusOr<codegen::GpuCompiledKernel> ptx = codegen::CompileGpuKernel(*spec, **compiler);
      if (absl::IsUnimplemented(ptx.status())) {
        ++unsupported;
        ++reasons[std::string(ptx.status().message())];
        continue;
      }
      ASSERT_TRUE(ptx.ok()) << "seed " << seed << ": " << ptx.status() << "\n" << ir::Print(graph);
      ++compiled;
      ASSERT_EQ(ptx->layout.phases.size(), spec->phases.size());
      EXPECT_TRUE(absl::StrContains(ptx->ptx, ".entry " + spec->phases[0].function_name));
      if (!ptxas.empty() && seed % 3 == 0) {
        // ctest runs the variants side by side: each writes its own files.
        const std::string path =
            absl::StrCat(dir, "/gpu_codegen_", variant, seed, "_", getpid(), ".ptx");
        std::ofstream(path) << ptx->ptx;
        const std::string cmd =
            absl::StrCat(ptxas, " -arch=sm_90 ", path, " -o ", path, ".cubin 2>", path, ".log");
        EXPECT_EQ(std::system(cmd.c_str()), 0)
            << "ptxas rejected seed " << seed << "'s kernel " << spec->name << ":\n"
            << std::ifstream(path + ".log").rdbuf();
        ++assembled;
      }
    }
  }
  std::cout << compiled << " kernels compiled to PTX, " << unsupported
            << " without a GPU lowering, " << assembled << " assembled by ptxas\n";
  for (const auto& [why, n] : reasons) std::cout << "  " << n << " x " << why << "\n";
  // Complex arithmetic and extrema, float mod and integer pow run on the host (as the host
  // back end runs them through its support library); the random graphs use every dtype and op.
  EXPECT_GT(compiled, 5 * unsupported);
}

TEST(GpuCodegenTest, RandomGraphsCompileToPtxThatPtxasAccepts) { CompileRandomGraphs({}, 120); }

TEST(GpuCodegenTest, ScalarReductionsCompileToPtxThatPtxasAccepts) {
  codegen::GpuCompileOptions options;
  options.vector_reductions = false;
  CompileRandomGraphs(options, 45);
}

}  // namespace
}  // namespace gpuc
