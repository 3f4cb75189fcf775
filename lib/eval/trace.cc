//===- trace.cc - Recording a C++ function of arrays once, over placeholders ===//
#include "lib/eval/trace.h"

#include "absl/strings/str_cat.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc::detail {
namespace {

thread_local std::string t_trace;
thread_local const Array* t_step_key = nullptr;

// Names the trace in progress for the errors of evaluations inside it; restores the outer
// name (a compile Function called while tracing another traces its own).
class TraceScope {
 public:
  explicit TraceScope(const std::string& what) : outer_(std::move(t_trace)) { t_trace = what; }
  ~TraceScope() { t_trace = std::move(outer_); }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  std::string outer_;
};

}  // namespace

const std::string& CurrentTrace() { return t_trace; }

const Array* CurrentStepKey() { return t_step_key; }

namespace {

TracedGraph Trace(const std::string& what, const std::vector<ir::TensorType>& types,
                  const std::vector<std::string>& names,
                  const std::function<std::vector<Array>(const std::vector<Array>&)>& fn,
                  bool step_key) {
  std::vector<Array> placeholders;
  std::vector<ir::NodeRef> params;
  for (size_t i = 0; i < types.size(); ++i) {
    ir::NodeRef p = ir::Node::Create(ir::OpCode::kParameter, types[i], {}, {},
                                     i < names.size() ? names[i] : absl::StrCat("arg", i));
    std::shared_ptr<ArrayImpl> impl = MakePending(p, {});
    impl->traced = true;
    impl->pending_depth = 0;
    impl->pending_nodes = 0;
    placeholders.emplace_back(std::move(impl));
    params.push_back(std::move(p));
  }
  std::vector<Array> outputs;
  {
    TraceScope scope(what);
    const Array* outer_key = t_step_key;
    t_step_key = step_key ? &placeholders.back() : nullptr;
    try {
      // The step key is the trace's own: fn sees the placeholders before it.
      outputs = fn(step_key ? std::vector<Array>(placeholders.begin(), placeholders.end() - 1)
                            : placeholders);
    } catch (...) {
      t_step_key = outer_key;
      throw;
    }
    t_step_key = outer_key;
  }
  if (outputs.empty()) ThrowInvalid(absl::StrCat(what, ": the traced function returned no arrays"));
  std::vector<ir::NodeRef> results;
  for (const Array& out : outputs) results.push_back(ImplOf(out, what.c_str()).node);
  TracedGraph traced;
  traced.graph = ir::Graph::FromResults("traced", std::move(params), std::move(results));
  traced.captured = CollectBoundInputs(traced.graph);
  return traced;
}

}  // namespace

TracedGraph TraceGraph(const std::string& what, const std::vector<ir::TensorType>& types,
                       const std::vector<std::string>& names,
                       const std::function<std::vector<Array>(const std::vector<Array>&)>& fn) {
  return Trace(what, types, names, fn, false);
}

TracedGraph TraceGraph(const std::string& what, const std::vector<ir::TensorType>& types,
                       const std::vector<std::string>& names,
                       const std::function<std::vector<Array>(const std::vector<Array>&)>& fn,
                       WithStepKey) {
  return Trace(what, types, names, fn, true);
}

}  // namespace gpuc::detail
