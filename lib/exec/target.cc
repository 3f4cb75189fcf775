//===- target.cc - Compile a graph once for a target, run it many times ---===//
#include "lib/exec/target.h"

#include <iostream>

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/buffer_plan.h"

namespace gpuc::exec {

std::string Target::Pipeline(const Options& options,
                             const std::optional<std::string>& graph_passes) const {
  std::vector<std::string> names;
  const std::string graph = graph_passes ? *graph_passes : passes::DefaultPipeline();
  if (!graph.empty()) names.push_back(graph);
  for (const std::string& pass : LoweringPasses(options)) names.push_back(pass);
  return absl::StrJoin(names, ",");
}

absl::Status Target::Lower(ir::Graph& graph, const Options& options,
                           const passes::PassManagerOptions& pass_options,
                           const std::optional<std::string>& graph_passes,
                           std::string* timing_report) const {
  // A manager per call: lowering may run on several threads at once, and building one is a
  // few small allocations.
  absl::StatusOr<passes::PassManager> pipeline =
      passes::BuildPipeline(Pipeline(options, graph_passes), pass_options);
  if (!pipeline.ok()) return pipeline.status();
  absl::Status s = pipeline->Run(graph);
  if (timing_report) *timing_report = pipeline->TimingReport();
  return s;
}

passes::FusionBudgets Target::Budgets(const Options& options) const {
  passes::FusionBudgets budgets;
  if (options.max_kernel_arrays > 0) budgets.max_kernel_arrays = options.max_kernel_arrays;
  return budgets;
}

absl::StatusOr<std::shared_ptr<const Executable>> Target::LowerAndCompile(const ir::Graph& graph,
                                                                          const Options& options) {
  ir::Graph lowered = graph;
  if (absl::Status s = Lower(lowered, options); !s.ok()) return s;
  if (options.explain_plans) {
    std::cerr << "gpuc: explain: a new plan on the " << name() << " target:\n"
              << PlanText(lowered, options);
  }
  return Compile(lowered, options);
}

std::string Target::PlanText(const ir::Graph& lowered, const Options& options) {
  const passes::FusionPlan plan = passes::PlanFusion(lowered, Budgets(options));
  return passes::PrintBufferPlan(lowered, plan, passes::PlanBuffers(lowered, plan));
}

absl::StatusOr<std::string> Target::KernelText(const ir::Graph& lowered, const Options& options,
                                               KernelForm form) {
  return absl::UnimplementedError(
      absl::StrCat("the ", name(), " target generates no kernel code to print"));
}

absl::StatusOr<std::vector<ir::HostTensor>> Target::RunOnHostValues(
    const Executable& executable, const std::vector<ir::HostTensor>& args) {
  absl::StatusOr<std::vector<BufferRef>> results = executable.Run(BuffersOf(args));
  if (!results.ok()) return results.status();
  return HostValuesOf(*results);
}

absl::StatusOr<Target*> TargetNamed(absl::string_view name, const Options& options) {
  if (name == "host") return &HostTarget();
  if (name == "interp" || name == "interpreter") return &InterpreterTarget();
  if (name == "gpu" || name == "cuda") return CudaTarget(options);
  return absl::InvalidArgumentError(
      absl::StrCat("'", name, "' is not a target: use host, gpu or interp"));
}

absl::StatusOr<Target*> DefaultTarget(const Options& options) {
  // Every evaluation asks, so the answer is kept per (backend, device): finding the device
  // builds error messages when there is none.
  static std::mutex mutex;
  static auto* chosen = new absl::flat_hash_map<std::string, absl::StatusOr<Target*>>();
  const std::string key = absl::StrCat(options.backend, "|", options.device);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = chosen->find(key); it != chosen->end()) return it->second;
  absl::StatusOr<Target*> target;
  if (!options.backend.empty()) {
    target = TargetNamed(options.backend, options);  // asked for by name: no silent fallback
  } else {
    absl::StatusOr<Target*> gpu = CudaTarget(options);
    target = gpu.ok() ? *gpu : &HostTarget();
  }
  chosen->emplace(key, target);
  return target;
}

}  // namespace gpuc::exec
