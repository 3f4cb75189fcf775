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
#include "ir/positions.h"
#include "lib/backend/host/host_library_steps.h"
#include "lib/exec/compile_cache.h"
#include "lib/exec/plan_values.h"
#include "lib/exec/target.h"
#include "passes/buffer_plan.h"
#include "runtime/host_jit.h"
#include "runtime/thread_pool.h"

namespace gpuc::detail {
namespace {

using PhaseFunction = void (*)(char* const*, const int64_t*, int64_t, int64_t, int64_t*);

struct CompiledKernel {
  std::unique_ptr<runtime::HostJit::Object> object;  // unloaded with the kernel
  std::vector<PhaseFunction> phases;
};

}  // namespace

namespace {

/// Work per chunk of a parallel loop: enough elements that a chunk costs far more than
/// handing it to a thread (a wake-up, 10-30 us on a shared 2-core machine: at 2^15 a loop
/// step over 64K doubles ran 1.5x slower on two threads than on one), few enough that two
/// cores share a 1 MB array.
constexpr int64_t kElementsPerChunk = 1 << 16;

}  // namespace

/// One kernel of a prepared plan and how it runs.
struct PlanStep {
  const passes::FusedKernel* kernel = nullptr;
  std::optional<codegen::KernelSpec> spec;         // compiled kernels
  std::shared_ptr<const CompiledKernel> compiled;  // null: a library step or interpreted
};

struct PreparedPlan : ScheduledGraph {
  std::vector<PlanStep> steps;  // one per kernel of the fusion plan
  bool poison = false;          // the options' poison: fill outputs before kernels run
  int threads = 0;              // the options' thread count (0: one per core)
  bool serves_every_position = false;
};

bool HostExecutor::ServesEveryPosition(const PreparedPlan& plan) {
  return plan.serves_every_position;
}

struct HostExecutor::Impl {
  std::mutex mutex;
  absl::Status init_status;
  std::unique_ptr<codegen::HostCompiler> compiler;
  std::unique_ptr<runtime::HostJit> jit;
  // Host code depends on no option beyond what the kernel text holds (its index width).
  std::unique_ptr<exec::CompileCache<CompiledKernel>> cache;
  HostBackendStats stats;

  /// The compiled kernel, or Unimplemented when code generation has no lowering for it.
  absl::StatusOr<std::shared_ptr<const CompiledKernel>> GetOrCompile(
      const codegen::KernelSpec& spec, const exec::Options& options);
  /// `allocate` gives the storage of each output (the buffer plan's arena or its own).
  absl::Status RunKernel(const PlanStep& step, int threads,
                         absl::flat_hash_map<const ir::Node*, ir::HostTensor>& values,
                         const std::function<ir::HostTensor(const ir::Node*)>& allocate,
                         absl::Span<const int64_t> positions);
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
  impl_->cache = std::make_unique<exec::CompileCache<CompiledKernel>>(impl_->compiler->target_id());
}

HostExecutor::~HostExecutor() = default;

HostExecutor& HostExecutor::Get() {
  // Leaked on purpose: arrays evaluated from static destructors still find it.
  static HostExecutor* executor = new HostExecutor();
  return *executor;
}

HostBackendStats HostExecutor::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  HostBackendStats stats = impl_->stats;
  if (impl_->cache) {
    const exec::CompileStats c = impl_->cache->stats();
    stats.memory_hits = c.memory_hits;
    stats.disk_hits = c.disk_hits;
    stats.compiles = c.compiles;
    stats.compile_microseconds = c.compile_microseconds;
  }
  return stats;
}

absl::StatusOr<std::shared_ptr<const CompiledKernel>> HostExecutor::Impl::GetOrCompile(
    const codegen::KernelSpec& spec, const exec::Options& options) {
  auto compile = [&]() -> absl::StatusOr<std::string> {
    llvm::LLVMContext context;
    absl::StatusOr<std::unique_ptr<llvm::Module>> module = codegen::EmitKernel(spec, context);
    if (!module.ok()) return module.status();
    compiler->Optimize(**module);
    return compiler->EmitObject(**module);
  };
  auto load = [&](const std::string& object) -> absl::StatusOr<std::unique_ptr<CompiledKernel>> {
    // Each load is a library of its own, so a kernel unloaded and loaded again (or the same
    // text loaded while an older copy is still in use) never clashes with its old symbols.
    absl::StatusOr<std::unique_ptr<runtime::HostJit::Object>> loaded =
        jit->AddObject(object, spec.name);
    if (!loaded.ok()) return loaded.status();
    auto kernel = std::make_unique<CompiledKernel>();
    kernel->object = *std::move(loaded);
    for (const codegen::Phase& phase : spec.phases) {
      absl::StatusOr<void*> address = kernel->object->Lookup(phase.function_name);
      if (!address.ok()) return address.status();
      kernel->phases.push_back(reinterpret_cast<PhaseFunction>(*address));
    }
    return kernel;
  };
  return cache->GetOrCompile(spec.key_text, exec::DiskCacheFor(options), compile, load);
}

absl::Status HostExecutor::Impl::RunKernel(
    const PlanStep& step, int threads, absl::flat_hash_map<const ir::Node*, ir::HostTensor>& values,
    const std::function<ir::HostTensor(const ir::Node*)>& allocate,
    absl::Span<const int64_t> positions) {
  const codegen::KernelSpec& spec = *step.spec;
  // The symbols' values: as planned, or with this run's positions for the offsets.
  std::vector<int64_t> moved;
  if (!positions.empty() && !spec.offset_positions.empty()) moved = spec.ExtentsFor(positions);
  const int64_t* symbols = moved.empty() ? spec.extents.data() : moved.data();
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
  runtime::ThreadPool& pool = runtime::ThreadPool::Shared(threads);
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
        phases[i](buffers.data(), symbols, begin * scale, end * scale, error);
      }
    });
  } else {
    for (size_t i = 0; i < phases.size() && failure[0] == 0; ++i) {
      failure = run(spec.RowCount(spec.phases[i]), work_of(spec.phases[i]),
                    [&](int64_t begin, int64_t end, int64_t* error) {
                      phases[i](buffers.data(), symbols, begin, end, error);
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
    const ir::Graph& graph, const exec::Options& options, const passes::FusionBudgets& budgets) {
  if (!impl_->init_status.ok()) return impl_->init_status;
  auto plan = std::make_shared<PreparedPlan>();
  plan->Schedule(graph, budgets);
  plan->poison = options.poison;
  plan->threads = options.threads;
  for (const passes::FusedKernel& kernel : plan->fusion.kernels) {
    PlanStep step;
    step.kernel = &kernel;
    if (codegen::IsCompilable(kernel)) {
      absl::StatusOr<CompiledStep<CompiledKernel>> compiled = CompileStep<CompiledKernel>(
          kernel, plan->buffers, options.min_index_bits,
          [&](const codegen::KernelSpec& spec) { return impl_->GetOrCompile(spec, options); });
      if (!compiled.ok()) return compiled.status();
      step.spec = std::move(compiled->spec);
      step.compiled = compiled->compiled;
      std::lock_guard<std::mutex> lock(impl_->mutex);
      impl_->stats.in_place_outputs +=
          static_cast<int64_t>(InPlaceOutputs(kernel, plan->buffers).size());
      if (!step.compiled) impl_->stats.last_interpreted_reason = compiled->not_compiled_reason;
    }
    plan->steps.push_back(std::move(step));
  }
  plan->serves_every_position = true;
  for (const PlanStep& step : plan->steps) {
    plan->serves_every_position = plan->serves_every_position &&
                                  (step.compiled ? step.spec->OffsetsArePositions()
                                                 : InterpretedOffsetsArePositions(*step.kernel));
  }
  return plan;
}

absl::StatusOr<std::vector<ir::HostTensor>> HostExecutor::Run(
    const ir::Graph& graph, absl::Span<const ir::HostTensor> args,
    const std::optional<passes::FusionBudgets>& budgets) {
  const exec::Options options = exec::CurrentOptions();
  absl::StatusOr<std::shared_ptr<const PreparedPlan>> plan =
      Prepare(graph, options, budgets ? *budgets : exec::HostTarget().Budgets(options));
  if (!plan.ok()) return plan.status();
  return Run(**plan, args);
}

namespace {

/// The error for a step whose results (or the plan's intermediates) do not fit in host
/// memory: what was being computed and how many bytes it asked for. The process, and every
/// array made before, stay usable.
absl::Status OutOfHostMemory(const passes::FusedKernel& kernel) {
  int64_t bytes = 0;
  std::vector<std::string> results;
  for (const ir::NodeRef& out : kernel.outputs) {
    bytes += out->shape().num_elements() * ir::DTypeSize(out->dtype());
    results.push_back(absl::StrCat(ir::OpName(out->op()), " ", out->type().ToString()));
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "out of host memory: ", absl::StrJoin(results, ", "), " needs ", bytes, " bytes"));
}

}  // namespace

absl::StatusOr<std::vector<ir::HostTensor>> HostExecutor::Run(const PreparedPlan& plan,
                                                              absl::Span<const ir::HostTensor> args,
                                                              absl::Span<const int64_t> positions) {
  const ir::Graph& graph = plan.graph;
  absl::StatusOr<PlanValues<ir::HostTensor>> bound =
      BindArguments(graph, args, [](const ir::HostTensor& t) { return t.type(); });
  if (!bound.ok()) return bound.status();
  PlanValues<ir::HostTensor>& values = *bound;
  // One allocation for every intermediate (buffer_plan.h); results get storage of their own
  // because they outlive the evaluation.
  std::shared_ptr<std::byte[]> arena;
  if (plan.buffers.arena_bytes > 0) {
    try {
      arena = ir::AllocateHostBlock(static_cast<size_t>(plan.buffers.arena_bytes));
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat("out of host memory: the intermediates of @",
                                                       graph.name, " need ",
                                                       plan.buffers.arena_bytes, " bytes"));
    }
  }
  auto allocate = [&](const ir::Node* n) {
    const passes::BufferAssignment* b = plan.buffers.Find(n);
    ir::HostTensor t = b && b->kind == passes::BufferAssignment::Kind::kIntermediate
                           ? ir::HostTensor::Wrap(n->type(), arena.get() + b->offset, arena)
                           : ir::HostTensor::Uninitialized(n->type());
    // Kernels write every element of their outputs; GPUC_POISON=1 (the tests set it) fills
    // them with a NaN-like pattern first, so an element a kernel forgot shows up.
    if (plan.poison && t.size_in_bytes() > 0) std::memset(t.data(), 0xA5, t.size_in_bytes());
    return t;
  };
  // Values leave the map after their last reader (their storage is the arena's).
  absl::flat_hash_map<const ir::Node*, int> readers = plan.readers;
  for (const PlanStep& step : plan.steps) {
    absl::Status s;
    try {
      if (step.compiled) {
        s = impl_->RunKernel(step, plan.threads, values, allocate, positions);
      } else {
        {
          std::lock_guard<std::mutex> lock(impl_->mutex);
          ++(codegen::IsCompilable(*step.kernel) ? impl_->stats.interpreted_kernels
                                                 : impl_->stats.library_steps);
          for (const ir::NodeRef& m : step.kernel->nodes) {
            if (!ir::IsInPlaceWrite(*m)) continue;
            ++impl_->stats.in_place_writes;
            // The region's bytes (update_slice's value, or the scatter's values).
            impl_->stats.in_place_write_bytes +=
                m->operand(m->num_operands() - 1).shape().num_elements() *
                ir::DTypeSize(m->dtype());
          }
        }
        s = InterpretFusedKernel(*step.kernel, values, positions);
      }
    } catch (const std::bad_alloc&) {
      s = OutOfHostMemory(*step.kernel);
    }
    if (!s.ok()) return s;
    ReleaseAfterLastRead(*step.kernel, plan.kept, readers, values);
  }
  return CollectResults(graph, values, "host executor");
}

absl::StatusOr<std::string> HostExecutor::KernelLlvmIr(const passes::FusedKernel& kernel,
                                                       const passes::BufferPlan& buffers,
                                                       bool optimized,
                                                       const exec::Options& options) {
  if (!impl_->init_status.ok()) return impl_->init_status;
  absl::StatusOr<codegen::KernelSpec> spec =
      codegen::BuildKernelSpec(kernel, InPlaceOutputs(kernel, buffers), options.min_index_bits);
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
  for (const codegen::KernelSpec::Carried& c : spec->carried) {
    absl::StrAppend(&header, "; phase ", c.phase, " leaves its ", ir::OpName(c.value->op()),
                    " in the storage of ", ir::OpName(c.output->op()), " for phase ",
                    spec->phases.size() - 1, "\n");
  }
  absl::StrAppend(&header, "; extents: [", absl::StrJoin(spec->extents, ", "), "]\n");
  return header + codegen::PrintModule(**module);
}

}  // namespace gpuc::detail
