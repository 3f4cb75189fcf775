//===- gpu_executor.cc - Running fused plans on a CUDA device -------------===//
#include "lib/backend/cuda/gpu_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/gpu_kernel_emitter.h"
#include "codegen/kernel_cache.h"
#include "codegen/kernel_spec.h"
#include "codegen/nvptx_compiler.h"
#include "codegen/user_function.h"
#include "lib/backend/cuda/gpu_kernel_entry.h"
#include "lib/backend/cuda/gpu_launch.h"
#include "lib/backend/cuda/gpu_library.h"
#include "lib/backend/host/host_library_steps.h"
#include "lib/exec/compile_cache.h"
#include "lib/exec/plan_values.h"
#include "lib/exec/target.h"
#include "passes/buffer_plan.h"
#include "passes/passes.h"
#include "runtime/kernel_graph.h"
#include "runtime/module.h"

namespace gpuc::detail {

namespace {

/// One fused kernel loaded on the device.
struct GpuKernel {
  std::unique_ptr<runtime::CudaModule> module;
  codegen::GpuKernelLayout layout;
  std::vector<runtime::CudaKernel> kernels;   // per phase
  std::vector<runtime::CudaKernel> combines;  // per phase (reduce phases)
  std::optional<runtime::CudaKernel> rows;    // the row-local kernel, if any
};

/// "exp, mul, add": what a kernel computes, for fault messages.
std::string DescribeMembers(const codegen::KernelSpec& spec) {
  std::vector<std::string> ops;
  for (const ir::Node* m : spec.members) {
    if (ops.size() == 12) {
      ops.push_back("...");
      break;
    }
    ops.push_back(std::string(ir::OpName(m->op())));
  }
  return absl::StrJoin(ops, ", ");
}

}  // namespace

struct GpuPlanStep {
  const passes::FusedKernel* kernel = nullptr;
  std::optional<codegen::KernelSpec> spec;
  const GpuKernel* compiled = nullptr;  // null: a library call, or runs on the host
  std::optional<LibraryCall> library;   // a vendor-library call (cuBLAS, cuFFT, cuSPARSE)
};

struct GpuPlan : ScheduledGraph {
  std::vector<GpuPlanStep> steps;  // one per kernel of the fusion plan
  bool poison = false;             // the options' poison: fill outputs before kernels run
  /// Whether the plan can replay as a CUDA graph: every step a GPU kernel, none reporting
  /// errors (their check reads the error words back between launches).
  bool replayable = false;
  /// The plan's launches as a graph, built on the second run (a plan run once pays nothing)
  /// and rebuilt when the launches change shape (other grids for other sizes).
  mutable std::mutex graph_mutex;
  mutable int64_t runs = 0;
  mutable std::unique_ptr<runtime::KernelGraph> cuda_graph;
};

/// What kernels compiled with one set of code-changing options share: the compiler and the
/// kernels it made.
struct GpuCodegen {
  std::unique_ptr<codegen::NvptxCompiler> compiler;
  std::unique_ptr<exec::CompileCache<GpuKernel>> cache;
};

struct GpuExecutor::Impl {
  runtime::CudaDevice* device = nullptr;
  mutable std::mutex mutex;
  // By GpuCompileOptionsFor(options)'s text; an entry is never removed (kernels point in).
  absl::flat_hash_map<std::string, std::unique_ptr<GpuCodegen>> codegens;
  GpuBackendStats stats;
  std::unique_ptr<GpuLibraries> libraries;

  absl::StatusOr<GpuCodegen*> CodegenFor(const exec::Options& options);
  absl::StatusOr<const GpuKernel*> GetOrCompile(const codegen::KernelSpec& spec,
                                                const exec::Options& options);
  /// Launches `step`'s kernels, or with `record`, appends them there and adds the temporary
  /// buffers they use to `keep` (they must outlive the later launch).
  absl::Status RunKernel(
      runtime::CudaStream& stream, const GpuPlanStep& step,
      absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
      const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
      std::vector<runtime::RecordedLaunch>* record = nullptr,
      std::vector<std::shared_ptr<DeviceStorage>>* keep = nullptr);
  /// Launches a replayable plan's recorded launches as its graph (built or rebuilt first when
  /// it has none of their shape).
  absl::Status Replay(runtime::CudaStream& stream, const GpuPlan& plan,
                      const std::vector<runtime::RecordedLaunch>& launches);
  /// Queues the step's vendor-library call, its result in a fresh buffer.
  absl::Status RunLibrary(
      runtime::CudaStream& stream, const GpuPlanStep& step,
      absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
      const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
      bool first_operand_is_dead);
  absl::Status RunOnHost(runtime::CudaStream& stream, const passes::FusedKernel& kernel,
                         absl::flat_hash_map<const ir::Node*, DeviceTensor>& values);
  absl::Status Fill(runtime::CudaStream& stream, uint64_t address, unsigned char byte,
                    size_t bytes) {
    return device->Check(device->driver().cuMemsetD8Async(address, byte, bytes, stream.handle()),
                         "cuMemsetD8Async");
  }
};

GpuExecutor::GpuExecutor() : impl_(std::make_unique<Impl>()) {}
GpuExecutor::~GpuExecutor() = default;

absl::StatusOr<GpuExecutor*> GpuExecutor::Get(const exec::Options& options) {
  if (options.device == "host") {
    return absl::UnavailableError("no CUDA device: GPUC_DEVICE=host selects the host back end");
  }
  absl::StatusOr<runtime::DeviceSpec> spec = runtime::DefaultDeviceSpec(options.device);
  if (!spec.ok()) return spec.status();
  if (spec->kind != runtime::DeviceKind::kCuda) {
    absl::StatusOr<const runtime::CudaDriver*> driver = runtime::GetCudaDriver();
    return absl::UnavailableError(
        absl::StrCat("no CUDA device: ", driver.ok() ? "GPUC_DEVICE selects the host"
                                                     : std::string(driver.status().message())));
  }
  // One executor per device, leaked on purpose like the host executor: arrays freed at exit
  // still find their pool.
  static std::mutex mutex;
  static auto* executors = new absl::flat_hash_map<int, absl::StatusOr<GpuExecutor*>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = executors->try_emplace(spec->ordinal, nullptr);
  if (!inserted) return it->second;
  absl::StatusOr<runtime::CudaDevice*> device = runtime::CudaDevice::Get(spec->ordinal);
  if (!device.ok()) {
    it->second = device.status();
    return it->second;
  }
  auto* e = new GpuExecutor();
  e->impl_->device = *device;
  e->impl_->libraries = std::make_unique<GpuLibraries>(**device);
  it->second = e;
  return e;
}

codegen::GpuCompileOptions GpuCompileOptionsFor(const exec::Options& options,
                                                const runtime::CudaDeviceProperties* device) {
  codegen::GpuCompileOptions gpu;
  gpu.arch = !options.gpu_arch.empty() ? options.gpu_arch
             : device ? codegen::ArchForComputeCapability(device->compute_capability_major,
                                                          device->compute_capability_minor)
                      : "sm_90";
  gpu.fast_math = options.fast_math;
  gpu.exact_math = options.exact_gpu_math;
  gpu.vector_reductions = options.gpu_vector_reductions;
  return gpu;
}

absl::StatusOr<GpuCodegen*> GpuExecutor::Impl::CodegenFor(const exec::Options& options) {
  const codegen::GpuCompileOptions gpu = GpuCompileOptionsFor(options, &device->properties());
  const std::string key =
      absl::StrCat(gpu.arch, gpu.fast_math ? " fast" : "", gpu.exact_math ? " exact" : "",
                   gpu.vector_reductions ? "" : " scalar-reduce");
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<GpuCodegen>& codegen = codegens[key];
  if (!codegen) {
    absl::StatusOr<std::unique_ptr<codegen::NvptxCompiler>> compiler =
        codegen::NvptxCompiler::Create(gpu);
    if (!compiler.ok()) {
      codegens.erase(key);
      return compiler.status();
    }
    codegen = std::make_unique<GpuCodegen>();
    codegen->compiler = *std::move(compiler);
    codegen->cache =
        std::make_unique<exec::CompileCache<GpuKernel>>(codegen->compiler->target_id());
  }
  return codegen.get();
}

runtime::CudaDevice& GpuExecutor::device() { return *impl_->device; }

absl::StatusOr<runtime::CudaStream*> GpuExecutor::stream() {
  return runtime::CurrentStream(*impl_->device);
}

GpuBackendStats GpuExecutor::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  GpuBackendStats stats = impl_->stats;
  for (const auto& [key, codegen] : impl_->codegens) {
    const exec::CompileStats c = codegen->cache->stats();
    stats.memory_hits += c.memory_hits;
    stats.disk_hits += c.disk_hits;
    stats.compiles += c.compiles;
    stats.compile_microseconds += c.compile_microseconds;
  }
  const exec::TransferCounts transfers = exec::Transfers();
  stats.uploads = transfers.uploads;
  stats.downloads = transfers.downloads;
  return stats;
}

absl::StatusOr<std::string> GpuExecutor::target_id(const exec::Options& options) {
  absl::StatusOr<GpuCodegen*> codegen = impl_->CodegenFor(options);
  if (!codegen.ok()) return codegen.status();
  return (*codegen)->compiler->target_id();
}

absl::StatusOr<const GpuKernel*> GpuExecutor::Impl::GetOrCompile(const codegen::KernelSpec& spec,
                                                                 const exec::Options& options) {
  absl::StatusOr<GpuCodegen*> codegen = CodegenFor(options);
  if (!codegen.ok()) return codegen.status();
  codegen::NvptxCompiler& compiler = *(*codegen)->compiler;
  codegen::DiskCache* disk = exec::DiskCacheFor(options);
  // The artifact is the cubin with its launch layout (gpu_kernel_entry.h).
  auto compile = [&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<codegen::GpuCompiledKernel> ptx = codegen::CompileGpuKernel(spec, compiler);
    if (!ptx.ok()) return ptx.status();
    // A kernel calling user CUDA C++ links NVRTC's object for it with nvJitLink; every
    // other kernel goes through the driver's linker.
    absl::StatusOr<std::string> linked =
        codegen::UsesUserFunctions(spec)
            ? codegen::LinkWithUserFunctions(spec, ptx->ptx, compiler.options().arch, disk)
            : runtime::CompilePtxToCubin(*device, ptx->ptx);
    if (!linked.ok()) {
      if (codegen::UsesUserFunctions(spec)) return linked.status();
      return absl::InternalError(absl::StrCat("the driver rejected the PTX of ", spec.name, ": ",
                                              linked.status().message()));
    }
    return SerializeGpuKernelEntry(ptx->layout, *linked);
  };
  auto load = [&](const std::string& entry) -> absl::StatusOr<std::unique_ptr<GpuKernel>> {
    std::optional<std::pair<codegen::GpuKernelLayout, std::string>> parsed =
        ParseGpuKernelEntry(entry, spec);
    if (!parsed) {
      return absl::DataLossError(absl::StrCat("a malformed kernel entry for ", spec.name));
    }
    auto kernel = std::make_unique<GpuKernel>();
    kernel->layout = std::move(parsed->first);
    absl::StatusOr<std::unique_ptr<runtime::CudaModule>> module =
        runtime::CudaModule::LoadCubin(*device, parsed->second);
    if (!module.ok()) return module.status();
    kernel->module = *std::move(module);
    const std::string members = DescribeMembers(spec);
    for (const codegen::GpuPhaseLaunch& p : kernel->layout.phases) {
      absl::StatusOr<runtime::CudaKernel> k = kernel->module->GetKernel(p.kernel);
      if (!k.ok()) return k.status();
      k->name = absl::StrCat(p.kernel, " (", members, ")");
      kernel->kernels.push_back(*k);
      runtime::CudaKernel combine;
      if (p.kind != codegen::GpuPhaseLaunch::Kind::kStore) {
        absl::StatusOr<runtime::CudaKernel> c = kernel->module->GetKernel(p.combine_kernel);
        if (!c.ok()) return c.status();
        combine = *c;
        combine.name = absl::StrCat(p.combine_kernel, " (", members, ")");
      }
      kernel->combines.push_back(combine);
    }
    if (!kernel->layout.row_local_kernel.empty()) {
      absl::StatusOr<runtime::CudaKernel> k =
          kernel->module->GetKernel(kernel->layout.row_local_kernel);
      if (!k.ok()) return k.status();
      k->name = absl::StrCat(kernel->layout.row_local_kernel, " (", members, ")");
      kernel->rows = *k;
    }
    return kernel;
  };
  return (*codegen)->cache->GetOrCompile(spec.key_text, disk, compile, load);
}

absl::Status GpuExecutor::Impl::RunKernel(
    runtime::CudaStream& stream, const GpuPlanStep& step,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
    std::vector<runtime::RecordedLaunch>* record,
    std::vector<std::shared_ptr<DeviceStorage>>* keep) {
  const codegen::KernelSpec& spec = *step.spec;
  const GpuKernel& kernel = *step.compiled;
  std::vector<uint64_t> words;  // every parameter is 8 bytes
  std::vector<DeviceTensor> written;
  std::vector<std::shared_ptr<DeviceStorage>> temporaries;
  for (const ir::Node* in : spec.inputs) {
    auto it = values.find(in);
    if (it == values.end()) {
      return absl::InternalError(absl::StrCat("GPU executor: kernel ", spec.name,
                                              " reads a value no earlier step produced"));
    }
    words.push_back(it->second.address);
  }
  for (const ir::Node* n : spec.outputs) {
    auto alias = spec.in_place.find(n);
    if (alias != spec.in_place.end()) {
      DeviceTensor t = values.at(alias->second);
      t.type = n->type();
      written.push_back(std::move(t));
    } else {
      absl::StatusOr<DeviceTensor> t = allocate(n);
      if (!t.ok()) return t.status();
      written.push_back(*std::move(t));
    }
    words.push_back(written.back().address);
  }
  for (const ir::Node* n : spec.scratch) {
    const size_t bytes = static_cast<size_t>(n->shape().num_elements() * ir::DTypeSize(n->dtype()));
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(*device, stream, bytes);
    if (!s.ok()) return s.status();
    temporaries.push_back(*s);
    if (keep) keep->push_back(*s);
    words.push_back((*s)->address());
  }
  for (int64_t e : spec.extents) words.push_back(static_cast<uint64_t>(e));
  std::shared_ptr<DeviceStorage> error;
  if (kernel.layout.reports_errors) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
        DeviceStorage::Allocate(*device, stream, 8 * codegen::kErrorSlots);
    if (!s.ok()) return s.status();
    error = *s;
    if (absl::Status f = Fill(stream, error->address(), 0, 8 * codegen::kErrorSlots); !f.ok()) {
      return f;
    }
  }
  words.push_back(error ? error->address() : 0);
  const size_t splits_slot = words.size();
  words.push_back(1);  // splits
  words.push_back(0);  // chunk
  words.push_back(0);  // partials
  std::vector<void*> args;
  for (uint64_t& w : words) args.push_back(&w);

  const int64_t sms = std::max(1, device->properties().multiprocessors);
  const unsigned threads = codegen::kGpuBlockThreads;
  auto launch = [&](const runtime::CudaKernel& k, int64_t blocks, int64_t splits) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.kernel_launches;
    }
    const runtime::LaunchDims grid{static_cast<unsigned>(blocks), static_cast<unsigned>(splits)};
    if (record) {
      record->push_back({&k, grid, {threads}, words});
      return absl::OkStatus();
    }
    return runtime::Launch(stream, k, grid, {threads}, 0, args.data());
  };
  // Row-local kernels when the rows alone fill the device (a block per row).
  const int64_t local_blocks = kernel.rows ? RowLocalBlocks(spec.RowCount(spec.phases[0]), sms) : 0;
  const bool use_rows_kernel = local_blocks > 0;
  if (use_rows_kernel) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++stats.row_kernel_launches;
    }
    if (absl::Status s = launch(*kernel.rows, local_blocks, 1); !s.ok()) return s;
  }
  for (size_t i = 0; i < spec.phases.size() && !use_rows_kernel; ++i) {
    const codegen::Phase& phase = spec.phases[i];
    const codegen::GpuPhaseLaunch& p = kernel.layout.phases[i];
    const int64_t rows = spec.RowCount(phase);
    if (rows == 0) continue;
    words[splits_slot] = 1;
    words[splits_slot + 1] = 0;
    words[splits_slot + 2] = 0;
    if (p.kind == codegen::GpuPhaseLaunch::Kind::kStore) {
      if (absl::Status s = launch(kernel.kernels[i], StoreBlocks(rows, p.vector, sms), 1);
          !s.ok()) {
        return s;
      }
      continue;
    }
    const int64_t count = spec.reduced_shape.num_elements() / rows;
    const ReduceLaunch shape = ChooseReduceLaunch(p, rows, count, sms);
    const int64_t splits = shape.splits;
    words[splits_slot] = static_cast<uint64_t>(splits);
    words[splits_slot + 1] = static_cast<uint64_t>(shape.chunk);
    std::shared_ptr<DeviceStorage> partials;
    if (splits > 1) {
      absl::StatusOr<std::shared_ptr<DeviceStorage>> s = DeviceStorage::Allocate(
          *device, stream, static_cast<size_t>(splits * rows * p.state_bytes));
      if (!s.ok()) return s.status();
      partials = *s;
      words[splits_slot + 2] = partials->address();
      if (keep) keep->push_back(partials);
    }
    if (absl::Status s = launch(kernel.kernels[i], shape.blocks, splits); !s.ok()) return s;
    if (splits > 1) {
      if (absl::Status s = launch(kernel.combines[i], CombineBlocks(p, rows, sms), 1); !s.ok()) {
        return s;
      }
    }
  }
  if (error) {
    int64_t found[codegen::kErrorSlots] = {0, 0};
    if (absl::Status s = stream.CopyDeviceToHost(found, error->address(), sizeof(found)); !s.ok()) {
      return s;
    }
    if (absl::Status s = codegen::KernelErrorStatus(spec, found); !s.ok()) return s;
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i) values[spec.outputs[i]] = std::move(written[i]);
  return absl::OkStatus();
}

absl::Status GpuExecutor::Impl::RunLibrary(
    runtime::CudaStream& stream, const GpuPlanStep& step,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
    const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
    bool first_operand_is_dead) {
  const ir::Node& node = *step.kernel->nodes[0];
  std::vector<const DeviceTensor*> operands;
  for (const ir::NodeRef& op : node.operands()) operands.push_back(&values.at(op.get()));
  absl::StatusOr<DeviceTensor> out = allocate(&node);
  if (!out.ok()) return out.status();
  // The call's parameters go into the message here, so the libraries' hot paths format none.
  if (absl::Status s =
          libraries->Run(stream, node, *step.library, operands, *out, first_operand_is_dead);
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(step.library->description, ": ", s.message()));
  }
  stream.NoteLaunch(step.library->description);
  values[&node] = *std::move(out);
  std::lock_guard<std::mutex> lock(mutex);
  ++stats.library_calls;
  return absl::OkStatus();
}

absl::Status GpuExecutor::Impl::RunOnHost(
    runtime::CudaStream& stream, const passes::FusedKernel& kernel,
    absl::flat_hash_map<const ir::Node*, DeviceTensor>& values) {
  absl::flat_hash_map<const ir::Node*, ir::HostTensor> local;
  for (const ir::NodeRef& in : kernel.inputs) {
    const DeviceTensor& d = values.at(in.get());
    ir::HostTensor h = ir::HostTensor::Uninitialized(d.type);
    if (h.size_in_bytes() > 0) {
      if (absl::Status s = stream.CopyDeviceToHost(h.data(), d.address, h.size_in_bytes());
          !s.ok()) {
        return s;
      }
    }
    local[in.get()] = std::move(h);
  }
  if (absl::Status s = InterpretFusedKernel(kernel, local); !s.ok()) return s;
  for (const ir::NodeRef& out : kernel.outputs) {
    const ir::HostTensor& h = local.at(out.get());
    absl::StatusOr<std::shared_ptr<DeviceStorage>> storage =
        DeviceStorage::Allocate(*device, stream, static_cast<size_t>(h.size_in_bytes()));
    if (!storage.ok()) return storage.status();
    if (h.size_in_bytes() > 0) {
      if (absl::Status s =
              stream.CopyHostToDevice((*storage)->address(), h.data(), h.size_in_bytes());
          !s.ok()) {
        return s;
      }
    }
    values[out.get()] = DeviceTensor{out->type(), *storage, (*storage)->address()};
  }
  std::lock_guard<std::mutex> lock(mutex);
  ++(codegen::IsCompilable(kernel) ? stats.host_kernels : stats.library_steps);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const GpuPlan>> GpuExecutor::Prepare(
    const ir::Graph& graph, const exec::Options& options, const passes::FusionBudgets& budgets) {
  auto plan = std::make_shared<GpuPlan>();
  plan->Schedule(graph, budgets);
  plan->poison = options.poison;
  for (const passes::FusedKernel& kernel : plan->fusion.kernels) {
    GpuPlanStep step;
    step.kernel = &kernel;
    std::string host_reason = "a library op or scan (no GPU lowering yet)";
    if (codegen::IsCompilable(kernel)) {
      absl::StatusOr<CompiledStep<GpuKernel>> compiled = CompileStep<GpuKernel>(
          kernel, plan->buffers, options.min_index_bits,
          [&](const codegen::KernelSpec& spec) { return impl_->GetOrCompile(spec, options); });
      if (!compiled.ok()) return compiled.status();
      step.spec = std::move(compiled->spec);
      step.compiled = compiled->compiled;
      if (!step.compiled) host_reason = compiled->not_compiled_reason;
    } else if (kernel.kind == passes::KernelKind::kLibrary && kernel.nodes.size() == 1) {
      absl::StatusOr<LibraryCall> call = impl_->libraries->Prepare(*kernel.nodes[0]);
      if (call.ok()) {
        step.library = *std::move(call);
      } else {
        host_reason = std::string(call.status().message());
      }
    }
    if (!step.compiled && !step.library) {
      std::lock_guard<std::mutex> lock(impl_->mutex);
      impl_->stats.last_host_reason = host_reason;
    }
    plan->steps.push_back(std::move(step));
  }
  // Poisoning stays possible: the fills are issued while the launches are recorded, so the
  // stream runs them before the graph.
  plan->replayable = options.cuda_graphs;
  for (const GpuPlanStep& step : plan->steps) {
    plan->replayable = plan->replayable && step.compiled && !step.compiled->layout.reports_errors;
  }
  return plan;
}

absl::StatusOr<std::vector<DeviceTensor>> GpuExecutor::Run(
    const ir::Graph& graph, absl::Span<const DeviceTensor> args,
    const std::optional<passes::FusionBudgets>& budgets) {
  // The CUDA target's own lowering (not the graph passes: the caller chose those), then
  // this executor's plan with the target's cost model unless budgets were given.
  const exec::Options options = exec::CurrentOptions();
  absl::StatusOr<exec::Target*> target = exec::CudaTarget(options);
  if (!target.ok()) return target.status();
  ir::Graph lowered = graph;
  if (absl::Status s = (*target)->Lower(lowered, options, {}, std::string()); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const GpuPlan>> plan =
      Prepare(lowered, options, budgets ? *budgets : (*target)->Budgets(options));
  if (!plan.ok()) return plan.status();
  return Run(**plan, args);
}

absl::StatusOr<std::vector<DeviceTensor>> GpuExecutor::Run(const GpuPlan& plan,
                                                           absl::Span<const DeviceTensor> args) {
  const ir::Graph& graph = plan.graph;
  absl::StatusOr<runtime::CudaStream*> stream_or = stream();
  if (!stream_or.ok()) return stream_or.status();
  runtime::CudaStream& stream = **stream_or;
  absl::StatusOr<PlanValues<DeviceTensor>> bound =
      BindArguments(graph, args, [](const DeviceTensor& t) { return t.type; });
  if (!bound.ok()) return bound.status();
  PlanValues<DeviceTensor>& values = *bound;
  std::shared_ptr<DeviceStorage> arena;
  if (plan.buffers.arena_bytes > 0) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> s = DeviceStorage::Allocate(
        *impl_->device, stream, static_cast<size_t>(plan.buffers.arena_bytes));
    if (!s.ok()) return s.status();
    arena = *s;
  }
  auto allocate = [&](const ir::Node* n) -> absl::StatusOr<DeviceTensor> {
    const passes::BufferAssignment* b = plan.buffers.Find(n);
    DeviceTensor t{n->type(), nullptr, 0};
    if (b && b->kind == passes::BufferAssignment::Kind::kIntermediate) {
      t.storage = arena;
      t.address = arena->address() + static_cast<uint64_t>(b->offset);
    } else {
      absl::StatusOr<std::shared_ptr<DeviceStorage>> s =
          DeviceStorage::Allocate(*impl_->device, stream, static_cast<size_t>(t.size_in_bytes()));
      if (!s.ok()) return s.status();
      t.storage = *s;
      t.address = t.storage->address();
    }
    // GPUC_POISON=1 (the tests set it): an element a kernel forgot to write shows up.
    if (plan.poison && t.size_in_bytes() > 0) {
      if (absl::Status s =
              impl_->Fill(stream, t.address, 0xA5, static_cast<size_t>(t.size_in_bytes()));
          !s.ok()) {
        return s;
      }
    }
    return t;
  };
  bool replay = false;
  if (plan.replayable) {
    std::lock_guard<std::mutex> lock(plan.graph_mutex);
    replay = ++plan.runs >= 2;
  }
  // A replayed plan records its launches; every buffer they touch stays referenced until
  // the graph is launched (a buffer released earlier would return to the pool while the
  // launches that use it are still to come).
  std::vector<runtime::RecordedLaunch> launches;
  std::vector<std::shared_ptr<DeviceStorage>> keep;
  if (replay) {
    if (arena) keep.push_back(arena);
    for (const auto& [node, tensor] : values) {  // the arguments
      if (tensor.storage) keep.push_back(tensor.storage);
    }
  }
  absl::flat_hash_map<const ir::Node*, int> readers = plan.readers;
  for (const GpuPlanStep& step : plan.steps) {
    // A value this step reads for the last time, and nobody holds, is the step's to destroy.
    auto last_read = [&](const ir::Node* n) {
      auto it = readers.find(n);
      return it != readers.end() && it->second == 1 && !plan.kept.contains(n);
    };
    absl::Status s = step.library
                         ? impl_->RunLibrary(stream, step, values, allocate,
                                             last_read(step.kernel->nodes[0]->operands()[0].get()))
                     : !step.compiled ? impl_->RunOnHost(stream, *step.kernel, values)
                     : replay ? impl_->RunKernel(stream, step, values, allocate, &launches, &keep)
                              : impl_->RunKernel(stream, step, values, allocate);
    if (!s.ok()) return s;
    if (replay) {  // what the step wrote, before its last reader releases it
      for (const ir::NodeRef& out : step.kernel->outputs) {
        auto it = values.find(out.get());
        if (it != values.end() && it->second.storage) keep.push_back(it->second.storage);
      }
    }
    ReleaseAfterLastRead(*step.kernel, plan.kept, readers, values);
  }
  if (replay && !launches.empty()) {
    if (absl::Status s = impl_->Replay(stream, plan, launches); !s.ok()) return s;
  }
  return CollectResults(graph, values, "GPU executor");
}

absl::Status GpuExecutor::Impl::Replay(runtime::CudaStream& stream, const GpuPlan& plan,
                                       const std::vector<runtime::RecordedLaunch>& launches) {
  std::lock_guard<std::mutex> lock(plan.graph_mutex);
  bool built = false;
  if (!plan.cuda_graph || !plan.cuda_graph->Matches(launches)) {
    absl::StatusOr<std::unique_ptr<runtime::KernelGraph>> g =
        runtime::KernelGraph::Create(*device, launches);
    if (!g.ok()) return g.status();
    plan.cuda_graph = *std::move(g);
    built = true;
  }
  const int64_t updated_before = plan.cuda_graph->updated_nodes();
  if (absl::Status s = plan.cuda_graph->Replay(stream, launches); !s.ok()) return s;
  std::lock_guard<std::mutex> stats_lock(mutex);
  ++stats.graph_replays;
  stats.graph_builds += built ? 1 : 0;
  stats.graph_node_updates += plan.cuda_graph->updated_nodes() - updated_before;
  return absl::OkStatus();
}

absl::StatusOr<DeviceTensor> GpuExecutor::Upload(const ir::HostTensor& tensor) {
  return exec::Upload(*impl_->device, tensor);
}

absl::StatusOr<ir::HostTensor> GpuExecutor::Download(const DeviceTensor& tensor) {
  return exec::Download(tensor);
}

absl::Status GpuExecutor::Synchronize() {
  absl::StatusOr<runtime::CudaStream*> s = stream();
  if (!s.ok()) return s.status();
  return (*s)->Synchronize();
}

}  // namespace gpuc::detail
