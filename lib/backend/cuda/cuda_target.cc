//===- cuda_target.cc - A CUDA device as a target -------------------------===//
//
// The graph passes, then the GPU's own lowering (a bias and ReLU after a GEMM into cuBLASLt's
// epilogue); a cost model from the device's properties (cuda_cost_model.h); kernels compiled
// to PTX and linked to cubins (gpu_executor.h); library steps as cuBLAS, cuFFT and cuSPARSE
// calls. Without a device the same target generates code (`gpuc --emit=ptx` anywhere) but
// compiles nothing to run.
//
//===----------------------------------------------------------------------===//
#include "absl/strings/str_cat.h"
#include "codegen/kernel_spec.h"
#include "codegen/nvptx_compiler.h"
#include "lib/backend/cuda/cuda_cost_model.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/cuda/gpu_region_write.h"
#include "lib/backend/host/host_library_steps.h"
#include "lib/backend/library_lowering.h"
#include "lib/exec/plan_values.h"
#include "lib/exec/target.h"

namespace gpuc::exec {
namespace {

class CudaExecutable : public Executable {
 public:
  CudaExecutable(detail::GpuExecutor& gpu, std::shared_ptr<const detail::GpuPlan> plan,
                 const ir::Graph& graph)
      : gpu_(gpu), plan_(std::move(plan)), graph_(graph) {}
  const ir::Graph& graph() const override { return graph_; }

  absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args) const override {
    return Run(args, {});
  }
  bool ServesEveryPosition() const override {
    return detail::GpuExecutor::ServesEveryPosition(*plan_);
  }
  absl::StatusOr<std::vector<BufferRef>> Run(absl::Span<const BufferRef> args,
                                             absl::Span<const int64_t> positions) const override {
    absl::StatusOr<std::vector<DeviceTensor>> values = OnDevice(args);
    if (!values.ok()) return values.status();
    return Buffers(gpu_.Run(*plan_, *values, positions));
  }
  absl::StatusOr<std::vector<BufferRef>> RunLoop(absl::Span<const BufferRef> args,
                                                 const exec::LoopSteps& loop) const override {
    absl::StatusOr<std::vector<DeviceTensor>> values = OnDevice(args);
    if (!values.ok()) return values.status();
    return Buffers(gpu_.RunLoop(*plan_, *values, loop));
  }

 private:
  absl::StatusOr<std::vector<DeviceTensor>> OnDevice(absl::Span<const BufferRef> args) const {
    std::vector<DeviceTensor> values;
    values.reserve(args.size());
    for (const BufferRef& b : args) {
      absl::StatusOr<DeviceTensor> d = b->OnDevice(gpu_.device());
      if (!d.ok()) return d.status();
      values.push_back(*std::move(d));
    }
    return values;
  }
  static absl::StatusOr<std::vector<BufferRef>> Buffers(
      absl::StatusOr<std::vector<DeviceTensor>> results) {
    if (!results.ok()) return results.status();
    std::vector<BufferRef> out;
    out.reserve(results->size());
    for (DeviceTensor& r : *results) out.push_back(std::make_shared<const Buffer>(std::move(r)));
    return out;
  }

  detail::GpuExecutor& gpu_;
  std::shared_ptr<const detail::GpuPlan> plan_;
  ir::Graph graph_;  // shares the plan's nodes
};

/// "phase 0: store gpuc_..._phase0, 4 elements per step": how a kernel launches.
std::string LaunchShapeText(const codegen::GpuKernelLayout& layout) {
  std::string out;
  for (size_t i = 0; i < layout.phases.size(); ++i) {
    const codegen::GpuPhaseLaunch& p = layout.phases[i];
    const char* kind = p.kind == codegen::GpuPhaseLaunch::Kind::kStore ? "store"
                       : p.kind == codegen::GpuPhaseLaunch::Kind::kReduceRows
                           ? "reduce (a block per row)"
                           : "reduce (a thread per row)";
    absl::StrAppend(&out, "// phase ", i, ": ", kind, " ", p.kernel);
    if (p.kind == codegen::GpuPhaseLaunch::Kind::kStore) {
      absl::StrAppend(&out, ", ", p.vector, " elements per step");
    } else {
      if (p.vector > 1) absl::StrAppend(&out, ", ", p.vector, " elements per load");
      absl::StrAppend(&out, ", ", p.state_bytes, " bytes of state per split, combined by ",
                      p.combine_kernel);
    }
    absl::StrAppend(&out, "\n");
  }
  if (!layout.row_local_kernel.empty()) {
    absl::StrAppend(&out, "// every phase, a block per row: ", layout.row_local_kernel, "\n");
  }
  return out;
}

class CudaDeviceTarget final : public Target {
 public:
  /// `gpu` null: code generation only.
  explicit CudaDeviceTarget(detail::GpuExecutor* gpu) : gpu_(gpu) {}

  absl::string_view name() const override { return "gpu"; }

  std::vector<std::string> LoweringPasses(const Options& options) const override {
    if (!options.gemm_epilogues) return {};
    return {"fuse-matmul-epilogue"};
  }

  passes::FusionBudgets Budgets(const Options& options) const override {
    passes::FusionBudgets budgets = Target::Budgets(options);
    budgets.cost_model = detail::CudaCostModel(gpu_ ? &gpu_->device().properties() : nullptr);
    return budgets;
  }

  absl::StatusOr<std::shared_ptr<const Executable>> Compile(const ir::Graph& lowered,
                                                            const Options& options) override {
    if (!gpu_) {
      return absl::UnavailableError("no CUDA device: this target only generates code");
    }
    absl::StatusOr<std::shared_ptr<const detail::GpuPlan>> plan =
        gpu_->Prepare(lowered, options, Budgets(options));
    if (!plan.ok()) return plan.status();
    return std::make_shared<CudaExecutable>(*gpu_, *std::move(plan), lowered);
  }

  std::string PlanText(const ir::Graph& lowered, const Options& options) override {
    return detail::PlanTextWithLibraryCalls(lowered, Budgets(options));
  }

  absl::StatusOr<std::string> KernelText(const ir::Graph& lowered, const Options& options,
                                         KernelForm form) override {
    if (form == KernelForm::kOptimizedLlvm) return Target::KernelText(lowered, options, form);
    absl::StatusOr<std::unique_ptr<codegen::NvptxCompiler>> compiler =
        codegen::NvptxCompiler::Create(
            detail::GpuCompileOptionsFor(options, gpu_ ? &gpu_->device().properties() : nullptr));
    if (!compiler.ok()) return compiler.status();
    const passes::FusionPlan plan = passes::PlanFusion(lowered, Budgets(options));
    const passes::BufferPlan buffers = passes::PlanBuffers(lowered, plan);
    std::string out;
    for (size_t k = 0; k < plan.kernels.size(); ++k) {
      const passes::FusedKernel& kernel = plan.kernels[k];
      absl::StrAppend(&out, "// kernel ", k, " (", passes::KernelKindName(kernel.kind), ")\n");
      if (!codegen::IsCompilable(kernel)) {
        absl::StrAppend(&out, "// ", ir::OpName(kernel.nodes[0]->op()),
                        " is a library step, not a generated kernel\n\n");
        continue;
      }
      absl::StatusOr<codegen::KernelSpec> spec = codegen::BuildKernelSpec(
          kernel, detail::InPlaceOutputs(kernel, buffers), options.min_index_bits);
      if (!spec.ok()) return spec.status();
      std::string llvm_ir;
      absl::StatusOr<codegen::GpuCompiledKernel> compiled =
          codegen::CompileGpuKernel(*spec, **compiler, &llvm_ir);
      if (absl::IsUnimplemented(compiled.status())) {
        absl::StrAppend(&out, "// not compiled for the GPU: ", compiled.status().message(), "\n\n");
        continue;
      }
      if (!compiled.ok()) return compiled.status();
      absl::StrAppend(&out, LaunchShapeText(compiled->layout),
                      form == KernelForm::kPtx ? compiled->ptx : llvm_ir, "\n");
    }
    return out;
  }

  bool WritesInPlace(const ir::Node& write) const override {
    // A region copy, or a scatter: its kernels (gpu_scatter.h) combine into the storage given
    // and leave it untouched when an index is out of range; one run on the host writes into
    // its copy of that storage and uploads the result.
    return detail::GpuWritesRegionInPlace(write) || write.op() == ir::OpCode::kScatter;
  }

  std::string StatsText() const override {
    if (!gpu_) return "";
    const detail::GpuBackendStats s = gpu_->stats();
    std::string text = absl::StrCat(
        "gpu: ", s.kernel_launches, " kernel launches (", s.compiles, " compiled in ",
        s.compile_microseconds / 1000, " ms, ", s.disk_hits, " from the disk cache, ",
        s.memory_hits, " from memory), ", s.library_calls, " vendor-library calls, ",
        s.host_kernels, " kernels and ", s.library_steps, " library steps on the host, ",
        s.scatters, " scatters, ", s.scans, " scans and ", s.sorts, " sorts as GPU kernels, ",
        s.uploads, " uploads, ", s.downloads, " downloads\n");
    if (s.host_kernels + s.library_steps > 0) {
      absl::StrAppend(&text, "gpu: last host step: ", s.last_host_reason, "\n");
    }
    if (const std::string ops = detail::InterpretedOpsText(); !ops.empty()) {
      absl::StrAppend(&text, "on the reference interpreter (host steps included): ", ops, "\n");
    }
    return text;
  }

 private:
  detail::GpuExecutor* gpu_;
};

}  // namespace

absl::StatusOr<Target*> CudaTarget(const Options& options) {
  absl::StatusOr<detail::GpuExecutor*> gpu = detail::GpuExecutor::Get(options);
  if (!gpu.ok()) return gpu.status();
  // One target per executor (per device), made with it and kept as long.
  static std::mutex mutex;
  static auto* targets = new absl::flat_hash_map<detail::GpuExecutor*, CudaDeviceTarget*>();
  std::lock_guard<std::mutex> lock(mutex);
  CudaDeviceTarget*& target = (*targets)[*gpu];
  if (!target) target = new CudaDeviceTarget(*gpu);
  return target;
}

std::string GpuArchitecture(const Options& options) {
  absl::StatusOr<detail::GpuExecutor*> gpu = detail::GpuExecutor::Get(options);
  return detail::GpuCompileOptionsFor(options, gpu.ok() ? &(*gpu)->device().properties() : nullptr)
      .arch;
}

Target& CudaCodegenTarget() {
  static auto* target = new CudaDeviceTarget(nullptr);
  return *target;
}

}  // namespace gpuc::exec
