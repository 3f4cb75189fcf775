//===- evaluator.cc - Turning pending arrays into stored values -----------===//
#include "lib/eval/evaluator.h"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <iostream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "ir/structural_key.h"
#include "lib/eval/plan_cache.h"
#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"
#include "passes/pass_manager.h"

namespace gpuc::detail {
namespace {

std::atomic<int64_t> g_max_depth{AutoEvalLimits{}.max_depth};
std::atomic<int64_t> g_max_nodes{AutoEvalLimits{}.max_nodes};

constexpr size_t kLogCapacity = 1024;  // enough to see a pattern, bounded for long runs

std::deque<EvalRecord>& ThreadLog() {
  thread_local std::deque<EvalRecord> log;
  return log;
}

bool ExplainEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("GPUC_EXPLAIN");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return enabled;
}

void Log(EvalRecord::Reason reason, std::string description) {
  if (ExplainEnabled()) std::cerr << "gpuc: explain: " << description << "\n";
  std::deque<EvalRecord>& log = ThreadLog();
  if (log.size() == kLogCapacity) log.pop_front();
  log.push_back({reason, std::move(description)});
}

}  // namespace

std::vector<BufferRef> CollectBoundInputs(ir::Graph& graph) {
  absl::flat_hash_set<const ir::Node*> declared;
  for (const ir::NodeRef& p : graph.params) declared.insert(p.get());
  std::vector<BufferRef> inputs;
  std::vector<ir::NodeRef> body;
  body.reserve(graph.nodes.size());
  for (ir::NodeRef& n : graph.nodes) {
    if (n->op() != ir::OpCode::kParameter) {
      body.push_back(std::move(n));
      continue;
    }
    if (declared.contains(n.get())) continue;
    if (!n->binding()) {
      ThrowInvalid(absl::StrCat("eval: an array of type ", n->type().ToString(),
                                " depends on an argument of a gpuc::compile trace; such arrays "
                                "exist only inside the traced function"));
    }
    inputs.push_back(std::static_pointer_cast<const Buffer>(n->binding()));
    graph.params.push_back(std::move(n));
  }
  graph.nodes = std::move(body);
  return inputs;
}

void OptimizeGraph(ir::Graph& graph) {
  // Passes are stateless between runs, but a manager is built per call: evaluation may run on
  // several threads at once, and building one is a few small allocations.
  absl::StatusOr<passes::PassManager> pipeline =
      passes::BuildPipeline(passes::DefaultPipeline(), passes::PassManagerOptions{});
  internal::ThrowIfError(pipeline.status());
  internal::ThrowIfError(pipeline->Run(graph));
}

Backend CurrentBackend() {
  static const Backend backend = [] {
    const char* chosen = std::getenv("GPUC_BACKEND");
    const std::string name = chosen ? chosen : "";
    if (name == "interpreter") return Backend::kInterpreter;
    if (name == "host") return Backend::kHost;
    absl::StatusOr<GpuExecutor*> gpu = GpuExecutor::Get();
    if (name == "gpu") {
      // Asked for explicitly: no silent fallback.
      internal::ThrowIfError(gpu.status());
      return Backend::kGpu;
    }
    return gpu.ok() ? Backend::kGpu : Backend::kHost;
  }();
  return backend;
}

namespace {

std::vector<ir::HostTensor> HostValues(const std::vector<BufferRef>& args) {
  std::vector<ir::HostTensor> values;
  values.reserve(args.size());
  for (const BufferRef& b : args) values.push_back(b->tensor());
  return values;
}

std::vector<DeviceTensor> DeviceValues(GpuExecutor& gpu, const std::vector<BufferRef>& args) {
  std::vector<DeviceTensor> values;
  values.reserve(args.size());
  for (const BufferRef& b : args) values.push_back(internal::ValueOrThrow(b->OnDevice(gpu)));
  return values;
}

template <typename T>
std::vector<BufferRef> Wrap(std::vector<T> values) {
  std::vector<BufferRef> out;
  out.reserve(values.size());
  for (T& v : values) out.push_back(std::make_shared<const Buffer>(std::move(v)));
  return out;
}

GpuExecutor& Gpu() { return *internal::ValueOrThrow(GpuExecutor::Get()); }

}  // namespace

std::vector<BufferRef> RunGraph(const ir::Graph& graph, const std::vector<BufferRef>& args) {
  switch (CurrentBackend()) {
    case Backend::kInterpreter:
      return Wrap(internal::ValueOrThrow(ir::Interpret(graph, HostValues(args))));
    case Backend::kHost:
      return Wrap(internal::ValueOrThrow(HostExecutor::Get().Run(graph, HostValues(args))));
    case Backend::kGpu:
      return Wrap(internal::ValueOrThrow(Gpu().Run(graph, DeviceValues(Gpu(), args))));
  }
  return {};
}

std::shared_ptr<const PreparedGraph> PrepareGraph(const ir::Graph& graph) {
  auto prepared = std::make_shared<PreparedGraph>();
  prepared->backend = CurrentBackend();
  if (prepared->backend == Backend::kHost) {
    prepared->host = internal::ValueOrThrow(HostExecutor::Get().Prepare(graph));
  } else if (prepared->backend == Backend::kGpu) {
    prepared->gpu = internal::ValueOrThrow(Gpu().Prepare(graph));
  }
  return prepared;
}

std::vector<BufferRef> RunPrepared(const ir::Graph& graph, const PreparedGraph& prepared,
                                   const std::vector<BufferRef>& args) {
  if (prepared.host) {
    return Wrap(internal::ValueOrThrow(HostExecutor::Get().Run(*prepared.host, HostValues(args))));
  }
  if (prepared.gpu) {
    return Wrap(internal::ValueOrThrow(Gpu().Run(*prepared.gpu, DeviceValues(Gpu(), args))));
  }
  return RunGraph(graph, args);
}

namespace {

// The plan for `graph`'s structure: found in the plan cache, or optimized, prepared and stored.
std::shared_ptr<const CachedPlan> FindOrPlan(const ir::Graph& graph) {
  PlanCache& cache = PlanCache::Get();
  const std::string key = ir::StructuralKey(graph);
  if (std::shared_ptr<const CachedPlan> plan = cache.Find(key)) return plan;
  auto plan = std::make_shared<CachedPlan>();
  plan->graph = WithUnboundParameters(graph);
  OptimizeGraph(plan->graph);
  plan->prepared = PrepareGraph(plan->graph);
  cache.Insert(key, plan);
  return plan;
}

std::vector<BufferRef> RunCached(const ir::Graph& graph, const std::vector<BufferRef>& inputs) {
  std::shared_ptr<const CachedPlan> plan = FindOrPlan(graph);
  return RunPrepared(plan->graph, *plan->prepared, inputs);
}

}  // namespace

void EvaluateArrays(const std::vector<ArrayImpl*>& targets) {
  std::vector<ir::NodeRef> results;
  // Several handles may share one pending node; it is computed once.
  absl::flat_hash_map<const ir::Node*, size_t> result_index;
  std::vector<std::pair<ArrayImpl*, size_t>> to_bind;
  for (ArrayImpl* t : targets) {
    if (t->evaluated()) continue;
    if (t->traced) {
      ThrowInvalid(absl::StrCat("cannot evaluate an array of type ", t->node->type().ToString(),
                                " inside gpuc::compile: it depends on the traced arguments, "
                                "which are placeholders while tracing"));
    }
    auto [it, inserted] = result_index.try_emplace(t->node.get(), results.size());
    if (inserted) results.push_back(t->node);
    to_bind.emplace_back(t, it->second);
  }
  if (results.empty()) return;
  ir::Graph graph = ir::Graph::FromResults("eval", {}, results);
  std::vector<BufferRef> inputs = CollectBoundInputs(graph);
  std::vector<BufferRef> values = RunCached(graph, inputs);
  for (auto& [impl, index] : to_bind) BindResult(*impl, values[index]);
}

void EvaluateForRead(ArrayImpl& impl, absl::string_view reader) {
  if (impl.evaluated()) return;
  std::string what = absl::StrCat(reader, " of ", impl.node->type().ToString(), " (",
                                  ir::OpName(impl.node->op()), "): reading data");
  EvaluateArrays({&impl});
  Log(EvalRecord::Reason::kRead, std::move(what));
}

void EvaluateIfPastLimits(ArrayImpl& impl) {
  if (impl.traced || impl.evaluated()) return;
  const int64_t max_depth = g_max_depth.load(std::memory_order_relaxed);
  const int64_t max_nodes = g_max_nodes.load(std::memory_order_relaxed);
  std::string what;
  EvalRecord::Reason reason;
  if (impl.pending_depth > max_depth) {
    reason = EvalRecord::Reason::kDepthLimit;
    what =
        absl::StrCat("pending graph depth ", impl.pending_depth, " passed the limit ", max_depth);
  } else if (impl.pending_nodes > max_nodes) {
    reason = EvalRecord::Reason::kSizeLimit;
    what = absl::StrCat("pending graph size (up to ", impl.pending_nodes,
                        " nodes) passed the limit ", max_nodes);
  } else {
    return;
  }
  absl::StrAppend(&what, ": evaluated ", impl.node->type().ToString(), " at ",
                  ir::OpName(impl.node->op()));
  EvaluateArrays({&impl});
  Log(reason, std::move(what));
}

}  // namespace gpuc::detail

namespace gpuc {

void eval(const std::vector<Array>& arrays) {
  std::vector<detail::ArrayImpl*> impls;
  impls.reserve(arrays.size());
  for (const Array& a : arrays) {
    impls.push_back(&detail::ImplOf(a, "eval"));
  }
  detail::EvaluateArrays(impls);
}

std::vector<EvalRecord> eval_log() {
  const std::deque<EvalRecord>& log = detail::ThreadLog();
  return {log.begin(), log.end()};
}

void clear_eval_log() { detail::ThreadLog().clear(); }

AutoEvalLimits auto_eval_limits() {
  return {detail::g_max_depth.load(), detail::g_max_nodes.load()};
}

void set_auto_eval_limits(AutoEvalLimits limits) {
  if (limits.max_depth < 1 || limits.max_nodes < 1) {
    detail::ThrowInvalid(absl::StrCat("set_auto_eval_limits: limits must be positive, got depth ",
                                      limits.max_depth, " and nodes ", limits.max_nodes));
  }
  detail::g_max_depth.store(limits.max_depth);
  detail::g_max_nodes.store(limits.max_nodes);
}

}  // namespace gpuc
