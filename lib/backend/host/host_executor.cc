//===- host_executor.cc - Running fused plans natively on the host --------===//
#include "lib/backend/host/host_executor.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/host_compiler.h"
#include "codegen/host_support.h"
#include "codegen/kernel_cache.h"
#include "codegen/kernel_emitter.h"
#include "codegen/kernel_spec.h"
#include "lib/exec/plan_values.h"
#include "passes/buffer_plan.h"
#include "runtime/host_jit.h"
#include "runtime/thread_pool.h"

namespace gpuc::detail {
namespace {

using PhaseFunction = void (*)(char* const*, const int64_t*, int64_t, int64_t, int64_t*);

struct CompiledKernel {
  std::vector<PhaseFunction> phases;
};

}  // namespace

std::string GpucBuildId() {
  Dl_info info;
  std::string id = "gpuc-0.1.0";
  if (dladdr(reinterpret_cast<void*>(&GpucBuildId), &info) && info.dli_fname) {
    struct stat st;
    if (stat(info.dli_fname, &st) == 0) {
      absl::StrAppend(&id, " ", static_cast<int64_t>(st.st_size), " ",
                      static_cast<int64_t>(st.st_mtim.tv_sec), ".",
                      static_cast<int64_t>(st.st_mtim.tv_nsec));
    }
  }
  return id;
}

absl::flat_hash_map<const ir::Node*, const ir::Node*> InPlaceOutputs(
    const passes::FusedKernel& kernel, const passes::BufferPlan& buffers) {
  absl::flat_hash_map<const ir::Node*, const ir::Node*> in_place;
  for (const ir::NodeRef& out : kernel.outputs) {
    auto it = buffers.in_place.find(out.get());
    if (it != buffers.in_place.end()) in_place[out.get()] = it->second;
  }
  return in_place;
}

namespace {

bool Poisons() {
  static const bool poison = [] {
    const char* env = std::getenv("GPUC_POISON");
    return env && std::string(env) == "1";
  }();
  return poison;
}

/// Work per chunk of a parallel loop: enough elements that a chunk costs far more than
/// handing it to a thread (~1 us), few enough that two cores share a 1 MB array.
constexpr int64_t kElementsPerChunk = 1 << 15;

}  // namespace

/// One kernel of a prepared plan and how it runs.
struct PlanStep {
  const passes::FusedKernel* kernel = nullptr;
  std::optional<codegen::KernelSpec> spec;   // compiled kernels
  const CompiledKernel* compiled = nullptr;  // null: a library step or an interpreted kernel
};

struct PreparedPlan : ScheduledGraph {
  std::vector<PlanStep> steps;  // one per kernel of the fusion plan
};

struct HostExecutor::Impl {
  std::mutex mutex;
  absl::Status init_status;
  std::unique_ptr<codegen::HostCompiler> compiler;
  std::unique_ptr<runtime::HostJit> jit;
  std::optional<codegen::DiskCache> disk;
  std::string build_id;
  // By kernel text (KernelSpec::key_text).
  absl::flat_hash_map<std::string, std::unique_ptr<CompiledKernel>> compiled;
  absl::flat_hash_map<std::string, std::string> not_compilable;  // -> why
  HostBackendStats stats;

  std::string FullKey(const codegen::KernelSpec& spec) const {
    return absl::StrCat(spec.key_text, "target ", compiler->target_id(), "\nbuild ", build_id,
                        "\n");
  }
  /// The compiled kernel, or Unimplemented when code generation has no lowering for it.
  absl::StatusOr<const CompiledKernel*> GetOrCompile(const codegen::KernelSpec& spec);
  /// `allocate` gives the storage of each output (the buffer plan's arena or its own).
  absl::Status RunKernel(const PlanStep& step,
                         absl::flat_hash_map<const ir::Node*, ir::HostTensor>& values,
                         const std::function<ir::HostTensor(const ir::Node*)>& allocate);
};

HostExecutor::HostExecutor() : impl_(std::make_unique<Impl>()) {
  absl::StatusOr<std::unique_ptr<codegen::HostCompiler>> compiler = codegen::HostCompiler::Create();
  if (!compiler.ok()) {
    impl_->init_status = compiler.status();
    return;
  }
  impl_->compiler = *std::move(compiler);
  absl::StatusOr<std::unique_ptr<runtime::HostJit>> jit =
      runtime::HostJit::Create(codegen::HostSupportSymbols());
  if (!jit.ok()) {
    impl_->init_status = jit.status();
    return;
  }
  impl_->jit = *std::move(jit);
  impl_->build_id = GpucBuildId();
  codegen::DiskCache::OpenDefault(impl_->disk);
}

HostExecutor::~HostExecutor() = default;

HostExecutor& HostExecutor::Get() {
  // Leaked on purpose: arrays evaluated from static destructors still find it.
  static HostExecutor* executor = new HostExecutor();
  return *executor;
}

HostBackendStats HostExecutor::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->stats;
}

std::string HostExecutor::disk_cache_directory() const {
  return impl_->disk ? impl_->disk->directory() : "";
}

absl::StatusOr<const CompiledKernel*> HostExecutor::Impl::GetOrCompile(
    const codegen::KernelSpec& spec) {
  // Target and build are the same for the whole process: the kernel text alone keys memory,
  // and the full key is formed only for the disk, on a miss.
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = compiled.find(spec.key_text); it != compiled.end()) {
    ++stats.memory_hits;
    return it->second.get();
  }
  if (auto it = not_compilable.find(spec.key_text); it != not_compilable.end()) {
    return absl::UnimplementedError(it->second);
  }
  const std::string key = FullKey(spec);
  std::optional<std::string> object;
  if (disk) object = disk->Load(key);
  if (object) {
    ++stats.disk_hits;
  } else {
    const auto start = std::chrono::steady_clock::now();
    llvm::LLVMContext context;
    absl::StatusOr<std::unique_ptr<llvm::Module>> module = codegen::EmitKernel(spec, context);
    if (!module.ok()) {
      if (absl::IsUnimplemented(module.status())) {
        not_compilable[spec.key_text] = std::string(module.status().message());
      }
      return module.status();
    }
    compiler->Optimize(**module);
    absl::StatusOr<std::string> emitted = compiler->EmitObject(**module);
    if (!emitted.ok()) return emitted.status();
    object = *std::move(emitted);
    ++stats.compiles;
    stats.compile_microseconds += std::chrono::duration_cast<std::chrono::microseconds>(
                                      std::chrono::steady_clock::now() - start)
                                      .count();
    if (disk) disk->Store(key, *object);
  }
  // The same kernel text may already be linked under this name (a disk entry removed and
  // recompiled in another process): the symbols are then the ones already loaded.
  if (absl::Status s = jit->AddObject(*object, spec.name); !s.ok()) return s;
  auto kernel = std::make_unique<CompiledKernel>();
  for (const codegen::Phase& phase : spec.phases) {
    absl::StatusOr<void*> address = jit->Lookup(phase.function_name);
    if (!address.ok()) return address.status();
    kernel->phases.push_back(reinterpret_cast<PhaseFunction>(*address));
  }
  const CompiledKernel* result = kernel.get();
  compiled[spec.key_text] = std::move(kernel);
  return result;
}

absl::Status HostExecutor::Impl::RunKernel(
    const PlanStep& step, absl::flat_hash_map<const ir::Node*, ir::HostTensor>& values,
    const std::function<ir::HostTensor(const ir::Node*)>& allocate) {
  const codegen::KernelSpec& spec = *step.spec;
  std::vector<char*> buffers;
  std::vector<ir::HostTensor> written;
  for (const ir::Node* in : spec.inputs) {
    auto it = values.find(in);
    if (it == values.end()) {
      return absl::InternalError(absl::StrCat("host executor: kernel ", spec.name,
                                              " reads a value no earlier step produced"));
    }
    buffers.push_back(reinterpret_cast<char*>(it->second.data()));
  }
  for (const ir::Node* n : spec.outputs) {
    // An output written in place is its input's storage, wherever the input lives (a library
    // step's result is not in the arena).
    auto alias = spec.in_place.find(n);
    written.push_back(alias == spec.in_place.end()
                          ? allocate(n)
                          : values.at(alias->second).SharingStorage(n->type()));
    buffers.push_back(reinterpret_cast<char*>(written.back().data()));
  }
  for (const ir::Node* n : spec.scratch) {
    written.emplace_back(n->type());
    buffers.push_back(reinterpret_cast<char*>(written.back().data()));
  }
  runtime::ThreadPool& pool = runtime::ThreadPool::Global();
  std::vector<std::array<int64_t, codegen::kErrorSlots>> errors;
  const std::vector<PhaseFunction>& phases = step.compiled->phases;
  auto run = [&](int64_t rows, int64_t work_per_row,
                 const std::function<void(int64_t, int64_t, int64_t*)>& body) {
    const int64_t grain =
        std::max<int64_t>(1, kElementsPerChunk / std::max<int64_t>(1, work_per_row));
    errors.assign(static_cast<size_t>(pool.ChunkCount(rows, grain)), {0, 0});
    pool.ParallelFor(rows, grain, [&](int64_t begin, int64_t end, int64_t chunk) {
      body(begin, end, errors[chunk].data());
    });
    for (const auto& e : errors) {
      if (e[0] != 0) return e;
    }
    return std::array<int64_t, codegen::kErrorSlots>{0, 0};
  };
  auto work_of = [&](const codegen::Phase& p) {
    return p.kind == codegen::Phase::Kind::kReduce
               ? std::max<int64_t>(
                     1, spec.reduced_shape.num_elements() / std::max<int64_t>(1, spec.RowCount(p)))
               : int64_t{1};
  };
  std::array<int64_t, codegen::kErrorSlots> failure{0, 0};
  if (spec.row_local) {
    // Every phase of a row runs back to back on one thread while the row is in cache.
    const int64_t rows = spec.RowCount(spec.phases[0]);
    const int64_t row_elements = work_of(spec.phases[0]);
    failure = run(rows, row_elements, [&](int64_t begin, int64_t end, int64_t* error) {
      for (size_t i = 0; i < phases.size(); ++i) {
        const int64_t scale = spec.RowScale(spec.phases[i]);
        phases[i](buffers.data(), spec.extents.data(), begin * scale, end * scale, error);
      }
    });
  } else {
    for (size_t i = 0; i < phases.size() && failure[0] == 0; ++i) {
      failure = run(spec.RowCount(spec.phases[i]), work_of(spec.phases[i]),
                    [&](int64_t begin, int64_t end, int64_t* error) {
                      phases[i](buffers.data(), spec.extents.data(), begin, end, error);
                    });
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++stats.kernel_runs;
  }
  if (absl::Status s = codegen::KernelErrorStatus(spec, failure.data()); !s.ok()) return s;
  for (size_t i = 0; i < spec.outputs.size(); ++i) values[spec.outputs[i]] = std::move(written[i]);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const PreparedPlan>> HostExecutor::Prepare(
    const ir::Graph& graph, const passes::FusionBudgets& budgets) {
  if (!impl_->init_status.ok()) return impl_->init_status;
  auto plan = std::make_shared<PreparedPlan>();
  plan->Schedule(graph, budgets);
  for (const passes::FusedKernel& kernel : plan->fusion.kernels) {
    PlanStep step;
    step.kernel = &kernel;
    if (codegen::IsCompilable(kernel)) {
      absl::StatusOr<codegen::KernelSpec> spec =
          codegen::BuildKernelSpec(kernel, InPlaceOutputs(kernel, plan->buffers));
      if (!spec.ok()) return spec.status();
      if (!spec->in_place.empty()) {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->stats.in_place_outputs += static_cast<int64_t>(spec->in_place.size());
      }
      absl::StatusOr<const CompiledKernel*> compiled = impl_->GetOrCompile(*spec);
      if (compiled.ok()) {
        step.spec = *std::move(spec);
        step.compiled = *compiled;
      } else if (!absl::IsUnimplemented(compiled.status())) {
        return compiled.status();
      } else {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->stats.last_interpreted_reason = std::string(compiled.status().message());
      }
    }
    plan->steps.push_back(std::move(step));
  }
  return plan;
}

absl::StatusOr<std::vector<ir::HostTensor>> HostExecutor::Run(
    const ir::Graph& graph, absl::Span<const ir::HostTensor> args,
    const passes::FusionBudgets& budgets) {
  absl::StatusOr<std::shared_ptr<const PreparedPlan>> plan = Prepare(graph, budgets);
  if (!plan.ok()) return plan.status();
  return Run(**plan, args);
}

absl::StatusOr<std::vector<ir::HostTensor>> HostExecutor::Run(
    const PreparedPlan& plan, absl::Span<const ir::HostTensor> args) {
  const ir::Graph& graph = plan.graph;
  absl::StatusOr<PlanValues<ir::HostTensor>> bound =
      BindArguments(graph, args, [](const ir::HostTensor& t) { return t.type(); });
  if (!bound.ok()) return bound.status();
  PlanValues<ir::HostTensor>& values = *bound;
  // One allocation for every intermediate (buffer_plan.h); results get storage of their own
  // because they outlive the evaluation.
  std::shared_ptr<std::byte[]> arena;
  if (plan.buffers.arena_bytes > 0) {
    arena =
        std::make_shared_for_overwrite<std::byte[]>(static_cast<size_t>(plan.buffers.arena_bytes));
  }
  auto allocate = [&](const ir::Node* n) {
    const passes::BufferAssignment* b = plan.buffers.Find(n);
    ir::HostTensor t = b && b->kind == passes::BufferAssignment::Kind::kIntermediate
                           ? ir::HostTensor::Wrap(n->type(), arena.get() + b->offset, arena)
                           : ir::HostTensor::Uninitialized(n->type());
    // Kernels write every element of their outputs; GPUC_POISON=1 (the tests set it) fills
    // them with a NaN-like pattern first, so an element a kernel forgot shows up.
    if (Poisons() && t.size_in_bytes() > 0) std::memset(t.data(), 0xA5, t.size_in_bytes());
    return t;
  };
  // Values leave the map after their last reader (their storage is the arena's).
  absl::flat_hash_map<const ir::Node*, int> readers = plan.readers;
  for (const PlanStep& step : plan.steps) {
    if (step.compiled) {
      if (absl::Status s = impl_->RunKernel(step, values, allocate); !s.ok()) return s;
    } else {
      {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        ++(codegen::IsCompilable(*step.kernel) ? impl_->stats.interpreted_kernels
                                               : impl_->stats.library_steps);
      }
      if (absl::Status s = InterpretFusedKernel(*step.kernel, values); !s.ok()) return s;
    }
    ReleaseAfterLastRead(*step.kernel, plan.kept, readers, values);
  }
  return CollectResults(graph, values, "host executor");
}

absl::StatusOr<std::string> HostExecutor::KernelLlvmIr(const passes::FusedKernel& kernel,
                                                       const passes::BufferPlan& buffers,
                                                       bool optimized) {
  if (!impl_->init_status.ok()) return impl_->init_status;
  absl::StatusOr<codegen::KernelSpec> spec =
      codegen::BuildKernelSpec(kernel, InPlaceOutputs(kernel, buffers));
  if (!spec.ok()) return spec.status();
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module = codegen::EmitKernel(*spec, context);
  if (!module.ok()) return module.status();
  if (optimized) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->compiler->Optimize(**module);
  }
  // What the functions iterate, in the spec's (collapsed) shapes, and their extent arguments.
  std::string header;
  for (size_t i = 0; i < spec->phases.size(); ++i) {
    const codegen::Phase& p = spec->phases[i];
    absl::StrAppend(&header, "; phase ", i, ": ",
                    p.kind == codegen::Phase::Kind::kReduce ? "reduce rows of " : "store ",
                    p.shape.ToString(), spec->row_local ? " (row-local)" : "", "\n");
  }
  absl::StrAppend(&header, "; extents: [", absl::StrJoin(spec->extents, ", "), "]\n");
  return header + codegen::PrintModule(**module);
}

}  // namespace gpuc::detail
