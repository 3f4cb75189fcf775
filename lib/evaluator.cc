//===- evaluator.cc - Turning pending arrays into stored values -----------===//
#include "lib/evaluator.h"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <iostream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "lib/recorder.h"
#include "lib/status_to_error.h"
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

std::vector<ir::HostTensor> CollectBoundInputs(ir::Graph& graph) {
  absl::flat_hash_set<const ir::Node*> declared;
  for (const ir::NodeRef& p : graph.params) declared.insert(p.get());
  std::vector<ir::HostTensor> inputs;
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
    inputs.push_back(static_cast<const Buffer&>(*n->binding()).tensor());
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

namespace {

// GPUC_BACKEND=interpreter runs the reference interpreter instead: the oracle, for telling
// a code generation bug from a front-end one.
bool Interprets() {
  static const bool interpret = [] {
    const char* backend = std::getenv("GPUC_BACKEND");
    return backend && std::string(backend) == "interpreter";
  }();
  return interpret;
}

}  // namespace

std::vector<ir::HostTensor> RunGraph(const ir::Graph& graph,
                                     const std::vector<ir::HostTensor>& args) {
  if (Interprets()) return internal::ValueOrThrow(ir::Interpret(graph, args));
  return internal::ValueOrThrow(HostExecutor::Get().Run(graph, args));
}

std::shared_ptr<const PreparedPlan> PrepareGraph(const ir::Graph& graph) {
  if (Interprets()) return nullptr;
  return internal::ValueOrThrow(HostExecutor::Get().Prepare(graph));
}

std::vector<ir::HostTensor> RunPrepared(const ir::Graph& graph,
                                        const std::shared_ptr<const PreparedPlan>& prepared,
                                        const std::vector<ir::HostTensor>& args) {
  if (!prepared) return RunGraph(graph, args);
  return internal::ValueOrThrow(HostExecutor::Get().Run(*prepared, args));
}

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
  std::vector<ir::HostTensor> inputs = CollectBoundInputs(graph);
  OptimizeGraph(graph);
  std::vector<ir::HostTensor> values = RunGraph(graph, inputs);
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
