//===- evaluator.cc - Turning pending arrays into stored values -----------===//
#include "lib/eval/evaluator.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <iostream>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ir/interpreter.h"
#include "ir/structural_key.h"
#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"
#include "lib/eval/in_place_writes.h"
#include "lib/eval/plan_cache.h"
#include "lib/eval/trace.h"
#include "lib/exec/current_options.h"

namespace gpuc::detail {
namespace {

std::atomic<int64_t> g_max_depth{AutoEvalLimits{}.max_depth};
std::atomic<int64_t> g_max_nodes{AutoEvalLimits{}.max_nodes};

constexpr size_t kLogCapacity = 1024;  // enough to see a pattern, bounded for long runs

std::deque<EvalRecord>& ThreadLog() {
  thread_local std::deque<EvalRecord> log;
  return log;
}

void Log(EvalRecord::Reason reason, std::string description) {
  if (exec::CurrentSnapshot()->options.explain)
    std::cerr << "gpuc: explain: " << description << "\n";
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
                                " depends on a placeholder of a traced function (gpuc::compile, "
                                "fori_loop, while_loop); such arrays exist only inside it"));
    }
    inputs.push_back(std::static_pointer_cast<const Buffer>(n->binding()));
    graph.params.push_back(std::move(n));
  }
  graph.nodes = std::move(body);
  return inputs;
}

exec::Target& EvaluationTarget(const exec::Options& options) {
  return *internal::ValueOrThrow(exec::DefaultTarget(options));
}

std::shared_ptr<const exec::Executable> CompileForEvaluation(exec::Target& target,
                                                             const ir::Graph& graph,
                                                             const exec::Options& options) {
  return internal::ValueOrThrow(target.LowerAndCompile(graph, options));
}

std::vector<BufferRef> RunExecutable(const exec::Executable& executable,
                                     const std::vector<BufferRef>& args,
                                     absl::Span<const int64_t> positions) {
  return internal::ValueOrThrow(executable.Run(args, positions));
}

namespace {

// What runs `graph`: an executable and the positions to run it at (empty: as compiled).
struct Runnable {
  std::shared_ptr<const exec::Executable> executable;
  std::vector<int64_t> positions;
  bool planned = false;  // made now (a plan-cache miss)
};

// Plans made by the last evaluation on this thread (for the loop-step report).
thread_local bool t_last_evaluation_planned = false;

// The executable for `graph`'s structure with these options: found in the plan cache, or
// compiled and stored. On the compiling targets (host and GPU), a graph is keyed without its
// slice positions, so a loop over a moving window plans once; a plan that turns out to depend
// on them (an offset the passes could not trace to a position) is keyed with them instead.
Runnable FindOrCompile(const ir::Graph& graph, const std::vector<BufferRef>& inputs) {
  // The target of the current options, found once per options snapshot and thread (finding
  // it formats a key; a loop evaluates thousands of times under the same options).
  thread_local std::shared_ptr<const exec::OptionsSnapshot> cached_options;
  thread_local exec::Target* cached_target = nullptr;
  std::shared_ptr<const exec::OptionsSnapshot> snapshot = exec::CurrentSnapshot();
  if (snapshot != cached_options) {
    cached_target = &EvaluationTarget(snapshot->options);
    cached_options = snapshot;
  }
  exec::Target& target = *cached_target;
  PlanCache& cache = PlanCache::Get();
  const bool host = target.name() == "host";
  // Writes over storage nothing else can see happen in place (the host back end runs them
  // as region copies); which ones is part of the plan's identity.
  absl::flat_hash_set<const ir::Node*> in_place;
  if (host || target.name() == "gpu") {
    in_place = FindInPlaceWrites(
        graph, inputs, {.device_storage = !host, .writes = [&target](const ir::Node& write) {
                          return target.WritesInPlace(write);
                        }});
  }
  const std::string suffix =
      absl::StrCat("\n", target.name(), " ", snapshot->plan_key, InPlaceKey(graph, in_place));
  Runnable run;
  std::string key;
  // The interpreter keeps the graph it was given: its plans are keyed with their positions.
  const bool positional = host || target.name() == "gpu";
  if (positional) {
    key = absl::StrCat(ir::StructuralKey(graph, run.positions), suffix, "\npositions");
    std::shared_ptr<const CachedPlan> plan = cache.Find(key);
    if (plan && plan->executable) {
      run.executable = plan->executable;
      return run;
    }
    if (!plan) {
      auto made = std::make_shared<CachedPlan>();
      made->executable = CompileForEvaluation(target, WithUnboundParameters(graph, in_place, true),
                                              snapshot->options);
      if (made->executable->ServesEveryPosition()) {
        cache.Insert(key, made);
        run.executable = made->executable;
        run.planned = true;
        return run;
      }
      cache.Insert(key, std::make_shared<CachedPlan>());  // positions matter here
      // The plan just made holds this graph's offsets: it serves these positions.
      cache.Insert(absl::StrCat(ir::StructuralKey(graph), suffix), made);
      run.positions.clear();
      run.executable = made->executable;
      run.planned = true;
      return run;
    }
    run.positions.clear();
  }
  key = absl::StrCat(ir::StructuralKey(graph), suffix);
  if (std::shared_ptr<const CachedPlan> plan = cache.Find(key)) {
    run.executable = plan->executable;
    return run;
  }
  auto plan = std::make_shared<CachedPlan>();
  plan->executable =
      CompileForEvaluation(target, WithUnboundParameters(graph, in_place), snapshot->options);
  cache.Insert(key, plan);
  run.executable = plan->executable;
  run.planned = true;
  return run;
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
      const std::string& trace = CurrentTrace();
      ThrowInvalid(absl::StrCat("cannot evaluate an array of type ", t->node->type().ToString(),
                                " inside ", trace.empty() ? "a traced function" : trace,
                                ": it depends on the traced arguments, which are placeholders "
                                "while tracing (their values exist only when the plan runs)"));
    }
    auto [it, inserted] = result_index.try_emplace(t->node.get(), results.size());
    if (inserted) results.push_back(t->node);
    to_bind.emplace_back(t, it->second);
  }
  if (results.empty()) return;
  ir::Graph graph = ir::Graph::FromResults("eval", {}, results);
  std::vector<BufferRef> inputs = CollectBoundInputs(graph);
  Runnable run = FindOrCompile(graph, inputs);
  t_last_evaluation_planned = run.planned;
  graph = ir::Graph();  // drops the graph's references to donated storage before it is written
  std::vector<BufferRef> values = RunExecutable(*run.executable, inputs, run.positions);
  for (auto& [impl, index] : to_bind) BindResult(*impl, values[index]);
}

void EvaluateForRead(ArrayImpl& impl, absl::string_view reader) {
  if (impl.evaluated()) return;
  std::string what = absl::StrCat(reader, " of ", impl.node->type().ToString(), " (",
                                  ir::OpName(impl.node->op()), "): reading data");
  EvaluateArrays({&impl});
  Log(EvalRecord::Reason::kRead, std::move(what));
}

namespace {

// Pending arrays recorded on this thread since its last loop-step cut. Dead entries are
// dropped whenever the list doubles, so straight-line code that never repeats a statement
// keeps it at twice the arrays alive.
struct PendingRegistry {
  std::vector<std::weak_ptr<ArrayImpl>> arrays;
  size_t compact_at = 1024;
};

PendingRegistry& ThreadPending() {
  thread_local PendingRegistry registry;
  return registry;
}

}  // namespace

void NotePending(const std::shared_ptr<ArrayImpl>& impl) {
  if (impl->traced) return;
  PendingRegistry& r = ThreadPending();
  r.arrays.push_back(impl);
  if (r.arrays.size() < r.compact_at) return;
  std::erase_if(r.arrays, [](const std::weak_ptr<ArrayImpl>& w) {
    std::shared_ptr<ArrayImpl> a = w.lock();
    return !a || a->evaluated();
  });
  r.compact_at = std::max<size_t>(1024, 2 * r.arrays.size());
}

namespace {

// Every pending array of this thread still alive (held by the caller until evaluated), and
// the registry emptied: what a cut evaluates.
std::vector<std::shared_ptr<ArrayImpl>> TakeAlivePending() {
  PendingRegistry& r = ThreadPending();
  std::vector<std::shared_ptr<ArrayImpl>> alive;
  for (const std::weak_ptr<ArrayImpl>& w : r.arrays) {
    std::shared_ptr<ArrayImpl> a = w.lock();
    if (a && !a->evaluated() && !a->traced) alive.push_back(std::move(a));
  }
  r.arrays.clear();
  r.compact_at = 1024;
  return alive;
}

}  // namespace

namespace {

// How far back a chain of views is followed to the value it views.
constexpr int kMaxViewChain = 4;

bool IsViewOp(ir::OpCode op) {
  return op == ir::OpCode::kSlice || op == ir::OpCode::kReshape || op == ir::OpCode::kTranspose ||
         op == ir::OpCode::kBroadcastTo;
}

// A pending array that is a chain of views (slices, reshapes, transposes, broadcasts) of the
// value of another array the cut evaluates: the statement now running took it (`u(lo, in)`
// of the next step) before the op that ended the step recorded.
struct CarriedView {
  std::shared_ptr<ArrayImpl> view;
  std::vector<ir::NodeRef> chain;  // from the base's old node (excluded) up to the view's node
  ArrayImpl* base;
};

std::optional<CarriedView> ViewOfEvaluated(
    const std::shared_ptr<ArrayImpl>& a,
    const absl::flat_hash_map<const ir::Node*, ArrayImpl*>& evaluated) {
  std::vector<ir::NodeRef> chain;
  ir::NodeRef n = a->node;
  for (int depth = 0; depth < kMaxViewChain && IsViewOp(n->op()) && n->num_operands() == 1;
       ++depth) {
    chain.push_back(n);
    ir::NodeRef operand = n->operands()[0];
    auto it = evaluated.find(operand.get());
    if (it != evaluated.end()) {
      std::reverse(chain.begin(), chain.end());
      return CarriedView{a, std::move(chain), it->second};
    }
    n = std::move(operand);
  }
  return std::nullopt;
}

// Whether `a` is a chain of views of a value already stored: nothing to compute, so a cut
// leaves it pending, and the next step's library call or kernel reads the stored value
// through it (evaluating it would copy the window: `data(colon, Slice(i, none))` taken for
// the next step's matmul copied half the matrix every step).
bool ViewsStoredValue(const ArrayImpl& a) {
  const ir::Node* n = a.node.get();
  for (int depth = 0; depth < kMaxViewChain && IsViewOp(n->op()) && n->num_operands() == 1;
       ++depth) {
    n = n->operands()[0].get();
    if (n->binding() != nullptr) return true;
  }
  return false;
}

}  // namespace

void EvaluateLoopStep(absl::string_view site) {
  const std::vector<std::shared_ptr<ArrayImpl>> alive = TakeAlivePending();
  std::vector<ArrayImpl*> targets;
  absl::flat_hash_map<const ir::Node*, ArrayImpl*> evaluated;
  for (const std::shared_ptr<ArrayImpl>& a : alive) {
    if (!IsViewOp(a->node->op())) evaluated.emplace(a->node.get(), a.get());
  }
  // Views of the carried arrays taken by the statement now running are re-pointed at the
  // evaluated values instead of being evaluated too: as results, each would be stored (a
  // kernel and a pass over memory apiece), where as views they fuse into the next step.
  std::vector<CarriedView> views;
  for (const std::shared_ptr<ArrayImpl>& a : alive) {
    if (IsViewOp(a->node->op()) && ViewsStoredValue(*a)) {
      NotePending(a);  // still pending, and considered again at the next cut
      continue;
    }
    std::optional<CarriedView> view;
    if (IsViewOp(a->node->op())) view = ViewOfEvaluated(a, evaluated);
    if (view) {
      views.push_back(*std::move(view));
    } else {
      targets.push_back(a.get());
    }
  }
  if (targets.empty()) return;
  std::string what = absl::StrCat("loop step: ", site,
                                  " records again while its last result is pending: evaluated ",
                                  targets.size(), " pending array", targets.size() == 1 ? "" : "s");
  EvaluateArrays(targets);
  for (CarriedView& v : views) {
    ir::NodeRef rebuilt = v.base->node;  // the evaluated value, a bound parameter now
    for (const ir::NodeRef& n : v.chain) {
      rebuilt =
          ir::Node::Create(n->op(), n->type(), {rebuilt}, n->attrs(), n->name(), n->location());
    }
    v.view->node = std::move(rebuilt);
    v.view->pending_depth = static_cast<int64_t>(v.chain.size());
    v.view->pending_nodes = static_cast<int64_t>(v.chain.size()) + 1;
    NotePending(v.view);
  }
  Log(EvalRecord::Reason::kLoopStep, std::move(what));
  // A loop whose steps keep making new plans recompiles or replans every step: say so once
  // per site, with the site (shapes that change, or scalars passing through 0 and 1, are
  // structure; docs/science.md).
  constexpr int kNewPlansBeforeReport = 8;
  thread_local absl::flat_hash_map<std::string, int> new_plans;
  if (t_last_evaluation_planned && exec::CurrentSnapshot()->options.explain) {
    int& count = new_plans[site];
    if (++count == kNewPlansBeforeReport) {
      std::cerr << "gpuc: explain: the loop at " << site << " made a new plan for "
                << kNewPlansBeforeReport
                << " of its steps: its structure changes from step to step (a shape, a zero "
                   "offset, a scalar 0 or 1, the ops); each new structure is planned, and "
                   "compiled unless its kernels exist\n";
    }
  }
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
  // The cut takes every pending array still alive with it (the loop's carried arrays, written
  // or not), so what is left pending afterwards starts from stored values, not from an
  // intermediate of a graph that keeps growing.
  const std::vector<std::shared_ptr<ArrayImpl>> alive = TakeAlivePending();
  std::vector<ArrayImpl*> targets = {&impl};
  for (const std::shared_ptr<ArrayImpl>& a : alive) {
    if (a.get() != &impl) targets.push_back(a.get());
  }
  absl::StrAppend(&what, ": evaluated ", impl.node->type().ToString(), " at ",
                  ir::OpName(impl.node->op()), targets.size() > 1 ? " with " : "",
                  targets.size() > 1 ? absl::StrCat(targets.size() - 1, " other pending") : "");
  EvaluateArrays(targets);
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
