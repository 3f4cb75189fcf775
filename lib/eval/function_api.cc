//===- function_api.cc - compile(): traced plans per signature ------------===//
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gpuc/function.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/eval/evaluator.h"
#include "lib/eval/trace.h"

namespace gpuc::detail {

/// A traced graph whose first parameters are the function's arguments and whose remaining
/// ones are the evaluated arrays it captured (their buffers are held here).
struct Plan {
  ir::Graph graph;
  std::vector<BufferRef> captured;
  std::shared_ptr<const exec::Executable> executable;  // lowered and compiled once
};

class FunctionImpl {
 public:
  std::shared_ptr<const Plan> Find(const std::string& signature) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.calls;
    auto it = plans_.find(signature);
    return it == plans_.end() ? nullptr : it->second;
  }
  std::shared_ptr<const Plan> Insert(const std::string& signature,
                                     std::shared_ptr<const Plan> plan) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = plans_.try_emplace(signature, std::move(plan));
    if (inserted) ++stats_.traces;
    return it->second;
  }
  FunctionStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  mutable std::mutex mutex_;
  // Traced once per signature; tracing runs unlocked (fn may call other compiled functions).
  absl::flat_hash_map<std::string, std::shared_ptr<const Plan>> plans_;
  FunctionStats stats_;
};

namespace {

std::string Signature(const std::vector<Array>& args) {
  std::string key;
  for (const Array& a : args)
    absl::StrAppend(&key, ImplOf(a, "compile").node->type().ToString(), ";");
  return key;
}

std::shared_ptr<const Plan> Trace(const std::vector<Array>& args, const TraceFn& trace) {
  std::vector<ir::TensorType> types;
  for (const Array& a : args) types.push_back(ImplOf(a, "compile").node->type());
  TracedGraph traced = TraceGraph("compile", types, {}, trace);
  auto plan = std::make_shared<Plan>();
  plan->graph = std::move(traced.graph);
  plan->captured = std::move(traced.captured);
  // Once per signature: later calls pay no pass, fusion or compile cost.
  const exec::Options options = exec::CurrentOptions();
  plan->executable = CompileForEvaluation(EvaluationTarget(options), plan->graph, options);
  return plan;
}

}  // namespace

std::shared_ptr<FunctionImpl> NewFunction() { return std::make_shared<FunctionImpl>(); }

FunctionStats GetFunctionStats(const FunctionImpl& function) { return function.stats(); }

std::vector<Array> CallFunction(FunctionImpl& function, const std::vector<Array>& args,
                                const TraceFn& trace) {
  const std::string signature = Signature(args);
  std::shared_ptr<const Plan> plan = function.Find(signature);
  if (!plan) plan = function.Insert(signature, Trace(args, trace));

  std::vector<ArrayImpl*> impls;
  for (const Array& a : args) impls.push_back(&ImplOf(a, "compile"));
  EvaluateArrays(impls);
  std::vector<BufferRef> inputs;
  inputs.reserve(args.size() + plan->captured.size());
  for (ArrayImpl* impl : impls) {
    inputs.push_back(std::static_pointer_cast<const Buffer>(impl->node->binding()));
  }
  inputs.insert(inputs.end(), plan->captured.begin(), plan->captured.end());

  std::vector<BufferRef> values = RunExecutable(*plan->executable, inputs);
  std::vector<Array> out;
  out.reserve(values.size());
  for (BufferRef& v : values) {
    auto impl = std::make_shared<ArrayImpl>();
    BindResult(*impl, std::move(v));
    out.emplace_back(std::move(impl));
  }
  return out;
}

}  // namespace gpuc::detail
