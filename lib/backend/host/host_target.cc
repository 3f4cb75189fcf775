//===- host_target.cc - The compiled host back end as a target ------------===//
//
// The embedded default: the graph passes and no lowering of its own, a cost model from the
// host's cores, kernels compiled through LLVM for this CPU and run over the thread pool
// (host_executor.h), library steps on OpenBLAS, the host FFT and CSR loops.
//
//===----------------------------------------------------------------------===//
#include <thread>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_spec.h"
#include "lib/backend/host/host_executor.h"
#include "lib/backend/host/host_library_steps.h"
#include "lib/backend/library_lowering.h"
#include "lib/exec/target.h"

namespace gpuc::exec {
namespace {

class HostExecutable : public Executable {
 public:
  explicit HostExecutable(std::shared_ptr<const detail::PreparedPlan> plan, const ir::Graph& graph)
      : plan_(std::move(plan)), graph_(graph) {}
  const ir::Graph& graph() const override { return graph_; }

  absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args) const override {
    return Run(args, {});
  }
  bool ServesEveryPosition() const override {
    return detail::HostExecutor::ServesEveryPosition(*plan_);
  }
  absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args,
                                             absl::Span<const int64_t> positions) const override {
    absl::StatusOr<std::vector<ir::HostTensor>> values = HostValuesOf(args);
    if (!values.ok()) return values.status();
    absl::StatusOr<std::vector<ir::HostTensor>> results =
        detail::HostExecutor::Get().Run(*plan_, *values, positions);
    if (!results.ok()) return results.status();
    return BuffersOf(*std::move(results));
  }

 private:
  std::shared_ptr<const detail::PreparedPlan> plan_;
  ir::Graph graph_;  // shares the plan's nodes
};

class CompiledHostTarget final : public Target {
 public:
  absl::string_view name() const override { return "host"; }

  passes::FusionBudgets Budgets(const Options& options) const override {
    passes::FusionBudgets budgets = Target::Budgets(options);
    // Per core, about 10 Gflop/s of scalar math against about 20 GB/s of memory bandwidth;
    // both grow with the cores (until the memory saturates), so their ratio stays. One more
    // kernel is a dispatch and join of the thread pool, about 2 us of every thread's time.
    // hardware_concurrency reads /sys each call: once per process.
    static const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = options.threads > 0 ? options.threads : cores;
    budgets.cost_model.flops_per_byte = 0.5;
    budgets.cost_model.launch_flops = 2e-6 * 10e9 * threads;
    budgets.library_reads_views = true;  // the BLAS takes leading dimensions (strided_view.h)
    return budgets;
  }

  absl::StatusOr<std::shared_ptr<const Executable>> Compile(const ir::Graph& lowered,
                                                            const Options& options) override {
    absl::StatusOr<std::shared_ptr<const detail::PreparedPlan>> plan =
        detail::HostExecutor::Get().Prepare(lowered, options, Budgets(options));
    if (!plan.ok()) return plan.status();
    return std::make_shared<HostExecutable>(*std::move(plan), lowered);
  }

  std::string PlanText(const ir::Graph& lowered, const Options& options) override {
    return detail::PlanTextWithLibraryCalls(lowered, Budgets(options));
  }

  absl::StatusOr<std::string> KernelText(const ir::Graph& lowered, const Options& options,
                                         KernelForm form) override {
    if (form == KernelForm::kPtx) return Target::KernelText(lowered, options, form);
    const passes::FusionPlan plan = passes::PlanFusion(lowered, Budgets(options));
    const passes::BufferPlan buffers = passes::PlanBuffers(lowered, plan);
    std::string out;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const passes::FusedKernel& kernel = plan.kernels[k];
      absl::StrAppend(&out, "; kernel ", k, " (", passes::KernelKindName(kernel.kind), ")\n");
      if (!codegen::IsCompilable(kernel)) {
        absl::StrAppend(&out, "; ", ir::OpName(kernel.nodes[0]->op()),
                        " runs on the host's library implementation\n\n");
        continue;
      }
      absl::StatusOr<std::string> text = detail::HostExecutor::Get().KernelLlvmIr(
          kernel, buffers, form == KernelForm::kOptimizedLlvm, options);
      if (absl::IsUnimplemented(text.status())) {
        absl::StrAppend(&out, "; runs on the interpreter: ", text.status().message(), "\n\n");
        continue;
      }
      if (!text.ok()) return text.status();
      absl::StrAppend(&out, *text, "\n");
    }
    return out;
  }

  // Region copies and scatters over donated storage (host_library_steps.h).
  bool WritesInPlace(const ir::Node&) const override { return true; }

  std::string StatsText() const override {
    const detail::HostBackendStats s = detail::HostExecutor::Get().stats();
    return absl::StrCat(
        "host: ", s.kernel_runs, " compiled kernel runs (", s.compiles, " compiled in ",
        s.compile_microseconds / 1000, " ms, ", s.disk_hits, " from the disk cache, ",
        s.memory_hits, " from memory), ", s.interpreted_kernels, " interpreted, ", s.library_steps,
        " library steps\n",
        detail::InterpretedOpsText().empty()
            ? ""
            : absl::StrCat("host: on the reference interpreter: ", detail::InterpretedOpsText(),
                           "\n"));
  }
};

}  // namespace

Target& HostTarget() {
  static auto* target = new CompiledHostTarget();
  return *target;
}

}  // namespace gpuc::exec
