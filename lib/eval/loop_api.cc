//===- loop_api.cc - fori_loop and while_loop: a step traced once ----------===//
//
// The body is traced once over placeholders (lib/eval/trace.h) and compiled for the
// evaluation target; each step runs that executable on the previous step's buffers. On the
// host the state is donated from the second step on: the loop holds the only reference to
// each state buffer then, so a plan compiled with the body's writes in place
// (lib/eval/in_place_writes.h) runs whenever every state buffer is the loop's alone.
//
//===----------------------------------------------------------------------===//
#include <atomic>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "gpuc/elementwise.h"
#include "gpuc/loops.h"
#include "ir/philox.h"
#include "ir/structural_key.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"
#include "lib/api/status_to_error.h"
#include "lib/eval/evaluator.h"
#include "lib/eval/in_place_writes.h"
#include "lib/eval/loop_api.h"
#include "lib/eval/plan_cache.h"
#include "lib/eval/trace.h"
#include "lib/exec/current_options.h"

namespace gpuc::detail {
namespace {

std::atomic<int64_t> g_loops{0}, g_steps{0}, g_traces{0}, g_in_place_steps{0};

std::vector<ir::TensorType> TypesOf(const std::vector<Array>& arrays, const char* what) {
  std::vector<ir::TensorType> types;
  for (const Array& a : arrays) types.push_back(ImplOf(a, what).node->type());
  return types;
}

// The loop's start: not inside another trace, a state to carry, every state array evaluated
// (a loop's inputs are stored values) and its buffer.
std::vector<BufferRef> StartLoop(const std::string& loop, const std::vector<Array>& state) {
  if (!CurrentTrace().empty()) {
    ThrowInvalid(absl::StrCat(loop, ": a loop inside a traced function (", CurrentTrace(),
                              ") is not supported yet; write the inner loop as C++ code or "
                              "run it outside"));
  }
  if (state.empty()) ThrowInvalid(absl::StrCat(loop, ": the state holds no arrays"));
  std::vector<ArrayImpl*> impls;
  for (const Array& a : state) impls.push_back(&ImplOf(a, loop.c_str()));
  EvaluateArrays(impls);
  std::vector<BufferRef> buffers;
  for (ArrayImpl* impl : impls) {
    buffers.push_back(std::static_pointer_cast<const Buffer>(impl->node->binding()));
  }
  ++g_loops;
  return buffers;
}

// What the body returned must be the state again: as many arrays, each of its dtype and shape.
void CheckStateTypes(const std::string& loop, const std::vector<ir::TensorType>& results,
                     const std::vector<ir::TensorType>& state) {
  const size_t returned = results.size();
  if (returned != state.size()) {
    ThrowInvalid(absl::StrCat(loop, ": the body returned ", returned, " array",
                              returned == 1 ? "" : "s", " for a state of ", state.size()));
  }
  for (size_t i = 0; i < state.size(); ++i) {
    const ir::TensorType& got = results[i];
    if (got != state[i]) {
      ThrowInvalid(absl::StrCat(loop, ": the body returned ", got.ToString(), " for state ", i,
                                ", which is ", state[i].ToString(),
                                "; the body must return the state's dtypes and shapes (cast or "
                                "broadcast inside it)"));
    }
  }
}

void CheckStateTypes(const std::string& loop, const ir::Graph& body,
                     const std::vector<ir::TensorType>& state) {
  std::vector<ir::TensorType> results;
  for (const ir::NodeRef& r : body.results) results.push_back(r->type());
  CheckStateTypes(loop, results, state);
}

void CheckCondition(const ir::TensorType& type) {
  if (type != ir::TensorType{ir::DType::kBool, {}}) {
    ThrowInvalid(absl::StrCat("while_loop: the condition returned ", type.ToString(),
                              "; it must return a bool 0-d array"));
  }
}

// A traced function compiled for the evaluation target: as traced, and (host only) with its
// writes into the donated parameters [first_donated, first_donated + donated_count) in place.
class CompiledTrace {
 public:
  CompiledTrace(TracedGraph traced, size_t first_donated, size_t donated_count)
      : traced_(std::move(traced)), first_donated_(first_donated), donated_count_(donated_count) {
    const std::shared_ptr<const exec::OptionsSnapshot> snapshot = exec::CurrentSnapshot();
    exec::Target& target = EvaluationTarget(snapshot->options);
    // A loop called again (inside an outer C++ loop, or a program run twice) finds its plans
    // by structure in the evaluation's plan cache, as a recorded step does.
    const std::string key = absl::StrCat(ir::StructuralKey(traced_.graph), "\n", target.name(), " ",
                                         snapshot->plan_key, "\ntraced loop step");
    copying_ = FindOrCompile(target, snapshot->options, key, {});
    if (target.name() != "host" || donated_count == 0) return;
    std::vector<bool> donated(traced_.graph.params.size(), false);
    for (size_t i = 0; i < donated_count; ++i) donated[first_donated + i] = true;
    const absl::flat_hash_set<const ir::Node*> writes =
        FindInPlaceWritesOverParams(traced_.graph, donated);
    if (!writes.empty()) {
      in_place_ = FindOrCompile(target, snapshot->options,
                                absl::StrCat(key, " donating ", first_donated, "+", donated_count,
                                             InPlaceKey(traced_.graph, writes)),
                                writes);
    }
  }

  const std::vector<BufferRef>& captured() const { return traced_.captured; }

  /// The loop's steps run by the executable with no host work between them (on the GPU:
  /// recorded once, replayed as CUDA graphs), or nothing when it runs a step at a time.
  std::optional<std::vector<BufferRef>> RunLoop(const std::vector<BufferRef>& inputs,
                                                const exec::LoopSteps& loop) const {
    absl::StatusOr<std::vector<BufferRef>> out = copying_->RunLoop(inputs, loop);
    if (absl::IsUnimplemented(out.status())) {
      // Said once per loop: the device could not take the whole loop, and why.
      if (!explained_ && exec::CurrentSnapshot()->options.explain &&
          out.status().message() != exec::kNoDeviceLoops) {
        std::cerr << "gpuc: explain: the loop runs a step at a time: " << out.status().message()
                  << "\n";
      }
      explained_ = true;
      return std::nullopt;
    }
    return internal::ValueOrThrow(std::move(out));
  }

  /// Runs on `inputs` (the placeholders' buffers, then the captured ones), writing in place
  /// when every donated input is held by `inputs` alone.
  std::vector<BufferRef> Run(const std::vector<BufferRef>& inputs) const {
    bool donated = in_place_ != nullptr;
    for (size_t i = 0; donated && i < donated_count_; ++i) {
      const BufferRef& b = inputs[first_donated_ + i];
      donated = b.use_count() == 1 && b->HostOnlyAndUnshared();
    }
    if (donated) ++g_in_place_steps;
    return RunExecutable(donated ? *in_place_ : *copying_, inputs);
  }

 private:
  std::shared_ptr<const exec::Executable> FindOrCompile(
      exec::Target& target, const exec::Options& options, const std::string& key,
      const absl::flat_hash_set<const ir::Node*>& writes) const {
    PlanCache& cache = PlanCache::Get();
    if (std::shared_ptr<const CachedPlan> plan = cache.Find(key)) return plan->executable;
    auto plan = std::make_shared<CachedPlan>();
    plan->executable =
        CompileForEvaluation(target, WithUnboundParameters(traced_.graph, writes), options);
    cache.Insert(key, plan);
    return plan->executable;
  }

  TracedGraph traced_;
  size_t first_donated_, donated_count_;
  std::shared_ptr<const exec::Executable> copying_, in_place_;
  mutable bool explained_ = false;  // why the device could not run the loop, said once
};

std::vector<std::string> StateNames(size_t count, const char* first = nullptr) {
  std::vector<std::string> names;
  if (first != nullptr) names.emplace_back(first);
  for (size_t i = 0; i < count; ++i) names.push_back(absl::StrCat("state", i));
  return names;
}

// The step key placeholder's type, and its value at step `step` (splitmix64 of the step, so
// consecutive steps' random draws use unrelated Philox keys).
const ir::TensorType kStepKeyType{ir::DType::kUInt64, ir::Shape()};

BufferRef StepKeyBuffer(int64_t step) {
  ir::HostTensor key(kStepKeyType);
  *reinterpret_cast<uint64_t*>(key.data()) = ir::SplitMix64(static_cast<uint64_t>(step));
  return std::make_shared<const exec::Buffer>(std::move(key));
}

BufferRef IndexBuffer(int64_t i) {
  ir::HostTensor index(ir::TensorType{ir::DType::kInt64, ir::Shape()});
  *reinterpret_cast<int64_t*>(index.data()) = i;
  return std::make_shared<const exec::Buffer>(std::move(index));
}

std::vector<Array> ArraysOf(std::vector<BufferRef> buffers) {
  std::vector<Array> out;
  for (BufferRef& b : buffers) {
    auto impl = std::make_shared<ArrayImpl>();
    BindResult(*impl, std::move(b));
    out.emplace_back(std::move(impl));
  }
  return out;
}

}  // namespace

std::vector<Array> ForiLoop(int64_t lower, int64_t upper, const ForiBody& body,
                            const std::vector<Array>& state) {
  const std::string loop = "fori_loop";
  std::vector<BufferRef> carried = StartLoop(loop, state);
  if (lower >= upper) return ArraysOf(std::move(carried));
  const std::vector<ir::TensorType> state_types = TypesOf(state, "fori_loop");
  std::vector<ir::TensorType> types = {ir::TensorType{ir::DType::kInt64, ir::Shape()}};
  types.insert(types.end(), state_types.begin(), state_types.end());
  types.push_back(kStepKeyType);
  std::vector<std::string> names = StateNames(state.size(), "index");
  names.push_back("step_key");
  TracedGraph traced = TraceGraph(
      "fori_loop body", types, names,
      [&](const std::vector<Array>& p) {
        return body(p[0], std::vector<Array>(p.begin() + 1, p.end()));
      },
      WithStepKey());
  ++g_traces;
  CheckStateTypes(loop, traced.graph, state_types);
  const CompiledTrace step(std::move(traced), 1, state.size());
  {
    std::vector<BufferRef> inputs = {IndexBuffer(lower)};
    inputs.insert(inputs.end(), carried.begin(), carried.end());
    inputs.push_back(StepKeyBuffer(0));
    inputs.insert(inputs.end(), step.captured().begin(), step.captured().end());
    const exec::LoopSteps steps{.index_param = 0,
                                .key_param = static_cast<int>(1 + carried.size()),
                                .first_state = 1,
                                .state_count = static_cast<int>(carried.size()),
                                .lower = lower,
                                .steps = upper - lower};
    std::optional<std::vector<BufferRef>> out;
    try {
      out = step.RunLoop(inputs, steps);
    } catch (const Error& e) {
      throw Error(e.kind(), absl::StrCat(loop, " over [", lower, ", ", upper, "): ", e.what()));
    }
    if (out) {
      g_steps += upper - lower;
      return ArraysOf(*std::move(out));
    }
  }
  for (int64_t i = lower; i < upper; ++i) {
    std::vector<BufferRef> inputs;
    inputs.reserve(1 + carried.size() + step.captured().size());
    inputs.push_back(IndexBuffer(i));
    for (BufferRef& b : carried) inputs.push_back(std::move(b));
    inputs.push_back(StepKeyBuffer(i - lower));
    inputs.insert(inputs.end(), step.captured().begin(), step.captured().end());
    try {
      carried = step.Run(inputs);
    } catch (const Error& e) {
      throw Error(e.kind(), absl::StrCat(loop, " step ", i - lower, " (index ", i, " of [", lower,
                                         ", ", upper, ")): ", e.what()));
    }
    ++g_steps;
  }
  return ArraysOf(std::move(carried));
}

namespace {

BufferRef BoolBuffer(bool value) {
  ir::HostTensor b(ir::TensorType{ir::DType::kBool, ir::Shape()});
  *reinterpret_cast<bool*>(b.data()) = value;
  return std::make_shared<const exec::Buffer>(std::move(b));
}

template <typename T>
T ScalarOf(const BufferRef& b) {
  const ir::HostTensor& value = *internal::ValueOrThrow(b->Host());
  return *reinterpret_cast<const T*>(value.data());
}

}  // namespace

// A while_loop on a target that runs loops on the device (the GPU; lib/eval/loop_api.h).
// One traced step applies
// the body only while the condition holds and carries that fact: (state, alive, applied) ->
// (where(go, body(state), state), go, applied + go) with go = alive and cond(state). Once the
// condition fails the state stays as it is, so the steps run as device loops of growing
// length (4, 8, ... 256 steps; the flag read back once per run) give the loop's result, at the
// cost of at most one run's worth of steps past the end. A step the device loop cannot hold
// runs a step at a time, reading the flag each step. Its steps are numbered as the host's
// (the keys of random draws), frozen ones after the last.
std::vector<Array> GuardedWhileLoop(const WhileCondition& cond, const WhileBody& body,
                                    const std::vector<Array>& state) {
  const std::string loop = "while_loop";
  std::vector<BufferRef> carried = StartLoop(loop, state);
  const std::vector<ir::TensorType> state_types = TypesOf(state, "while_loop");
  const int n = static_cast<int>(state_types.size());
  const ir::TensorType kIndex{ir::DType::kInt64, ir::Shape()};
  std::vector<ir::TensorType> types = {kIndex};
  types.insert(types.end(), state_types.begin(), state_types.end());
  types.push_back(ir::TensorType{ir::DType::kBool, ir::Shape()});
  types.push_back(kIndex);
  types.push_back(kStepKeyType);
  std::vector<std::string> names = StateNames(state_types.size(), "index");
  names.insert(names.end(), {"alive", "applied", "step_key"});
  TracedGraph traced = TraceGraph(
      "while_loop", types, names,
      [&](const std::vector<Array>& p) {
        const std::vector<Array> s(p.begin() + 1, p.begin() + 1 + n);
        const Array& alive = p[n + 1];
        const Array& applied = p[n + 2];
        const Array c = cond(s);
        CheckCondition(ImplOf(c, "while_loop").node->type());
        const std::vector<Array> next = body(s);
        CheckStateTypes(loop, TypesOf(next, "while_loop"), state_types);
        const Array go = gpuc::where(alive, c, alive);
        std::vector<Array> out;
        for (int j = 0; j < n; ++j) out.push_back(gpuc::where(go, next[j], s[j]));
        out.push_back(go);
        out.push_back(gpuc::where(go, applied + 1, applied));
        return out;
      },
      WithStepKey());
  g_traces += 2;  // the condition and the body, once each
  const CompiledTrace step(std::move(traced), 0, 0);
  BufferRef alive = BoolBuffer(true), applied = IndexBuffer(0);
  int64_t numbered = 0, run = 4;
  bool on_device = true;
  while (true) {
    std::vector<BufferRef> inputs = {IndexBuffer(0)};
    for (BufferRef& b : carried) inputs.push_back(std::move(b));
    inputs.push_back(std::move(alive));
    inputs.push_back(std::move(applied));
    inputs.push_back(StepKeyBuffer(numbered));
    inputs.insert(inputs.end(), step.captured().begin(), step.captured().end());
    std::optional<std::vector<BufferRef>> out;
    int64_t ran = 1;
    try {
      if (on_device) {
        out = step.RunLoop(inputs, exec::LoopSteps{.index_param = 0,
                                                   .key_param = n + 3,
                                                   .first_state = 1,
                                                   .state_count = n + 2,
                                                   .lower = 0,
                                                   .steps = run,
                                                   .first_step = numbered});
        on_device = out.has_value();
        if (out) ran = run;
      }
      if (!out) out = step.Run(inputs);
    } catch (const Error& e) {
      throw Error(e.kind(), absl::StrCat(loop, " step ", numbered, ": ", e.what()));
    }
    numbered += ran;
    carried.assign(out->begin(), out->begin() + n);
    alive = (*out)[n];
    applied = (*out)[n + 1];
    if (!ScalarOf<bool>(alive)) break;
    run = std::min<int64_t>(run * 2, 256);
  }
  g_steps += ScalarOf<int64_t>(applied);
  return ArraysOf(std::move(carried));
}

std::vector<Array> WhileLoop(const WhileCondition& cond, const WhileBody& body,
                             const std::vector<Array>& state) {
  if (EvaluationTarget(exec::CurrentSnapshot()->options).name() == "gpu") {
    return GuardedWhileLoop(cond, body, state);
  }
  const std::string loop = "while_loop";
  std::vector<BufferRef> carried = StartLoop(loop, state);
  const std::vector<ir::TensorType> state_types = TypesOf(state, "while_loop");
  TracedGraph traced_cond =
      TraceGraph("while_loop condition", state_types, StateNames(state.size()),
                 [&](const std::vector<Array>& p) { return std::vector<Array>{cond(p)}; });
  CheckCondition(traced_cond.graph.results[0]->type());
  std::vector<ir::TensorType> body_types = state_types;
  body_types.push_back(kStepKeyType);
  std::vector<std::string> body_names = StateNames(state.size());
  body_names.push_back("step_key");
  TracedGraph traced_body = TraceGraph(
      "while_loop body", body_types, body_names,
      [&](const std::vector<Array>& p) { return body(p); }, WithStepKey());
  g_traces += 2;
  CheckStateTypes(loop, traced_body.graph, state_types);
  const CompiledTrace test(std::move(traced_cond), 0, 0);
  const CompiledTrace step(std::move(traced_body), 0, state.size());
  int64_t steps = 0;
  while (true) {
    std::vector<BufferRef> inputs = carried;
    inputs.insert(inputs.end(), test.captured().begin(), test.captured().end());
    const BufferRef holds = test.Run(inputs).at(0);
    const ir::HostTensor& value = *internal::ValueOrThrow(holds->Host());
    if (*reinterpret_cast<const bool*>(value.data()) == false) break;
    inputs.clear();
    for (BufferRef& b : carried) inputs.push_back(std::move(b));
    inputs.push_back(StepKeyBuffer(steps));
    inputs.insert(inputs.end(), step.captured().begin(), step.captured().end());
    try {
      carried = step.Run(inputs);
    } catch (const Error& e) {
      throw Error(e.kind(), absl::StrCat(loop, " step ", steps, ": ", e.what()));
    }
    ++steps;
    ++g_steps;
  }
  return ArraysOf(std::move(carried));
}

}  // namespace gpuc::detail

namespace gpuc {

std::vector<Array> fori_loop(int64_t lower, int64_t upper, const ForiBody& body,
                             const std::vector<Array>& state) {
  return detail::ForiLoop(lower, upper, body, state);
}

Array fori_loop(int64_t lower, int64_t upper,
                const std::function<Array(const Array& index, const Array& state)>& body,
                const Array& state) {
  return detail::ForiLoop(lower, upper,
                          [&](const Array& i, const std::vector<Array>& s) {
                            return std::vector<Array>{body(i, s[0])};
                          },
                          {state})[0];
}

std::vector<Array> while_loop(const WhileCondition& cond, const WhileBody& body,
                              const std::vector<Array>& state) {
  return detail::WhileLoop(cond, body, state);
}

Array while_loop(const std::function<Array(const Array& state)>& cond,
                 const std::function<Array(const Array& state)>& body, const Array& state) {
  return detail::WhileLoop(
      [&](const std::vector<Array>& s) { return cond(s[0]); },
      [&](const std::vector<Array>& s) { return std::vector<Array>{body(s[0])}; }, {state})[0];
}

LoopStats loop_stats() {
  return {detail::g_loops.load(), detail::g_steps.load(), detail::g_traces.load(),
          detail::g_in_place_steps.load()};
}

}  // namespace gpuc
