//===- plan_values.h - What both executors do with a plan's values --------===//
//
// The host and GPU executors walk a prepared plan the same way: the arguments are bound to
// the graph's parameters (count and types checked), each step's inputs leave the value map
// after their last reader unless they are arguments or results, and the results are
// collected at the end (steps without a compiled kernel: lib/backend/host/host_library_steps.h).
// Only the value type differs (HostTensor, DeviceTensor).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EXEC_PLAN_VALUES_H_
#define GPUC_LIB_EXEC_PLAN_VALUES_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "codegen/kernel_spec.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "passes/buffer_plan.h"
#include "passes/fusion.h"

namespace gpuc::detail {

/// A graph cut into kernels with its buffer plan, and what walking it needs: how many kernels
/// read each value and which values outlive the walk (arguments and results). Each executor's
/// plan adds its steps.
struct ScheduledGraph {
  ir::Graph graph;  // keeps every node the plan points at alive
  passes::FusionPlan fusion;
  passes::BufferPlan buffers;
  absl::flat_hash_map<const ir::Node*, int> readers;  // kernels reading each value
  absl::flat_hash_set<const ir::Node*> kept;          // arguments and results

  /// Fuses and plans a copy of `source`, which the kernels then point into.
  void Schedule(const ir::Graph& source, const passes::FusionBudgets& budgets);
};

/// The outputs of `kernel` that the buffer plan writes over an input (output -> input).
absl::flat_hash_map<const ir::Node*, const ir::Node*> InPlaceOutputs(
    const passes::FusedKernel& kernel, const passes::BufferPlan& buffers);

/// A fused kernel of a plan compiled for a target: its spec and the target's compiled form,
/// or, where code generation has no lowering for it, no compiled form and the reason.
template <typename Compiled>
struct CompiledStep {
  std::optional<codegen::KernelSpec> spec;
  std::shared_ptr<const Compiled> compiled;  // holds the code loaded while the plan lives
  std::string not_compiled_reason;
};

/// The one compile sequence of a plan's kernel, for every target: the spec (the buffer plan's
/// in-place outputs, the options' index width), then the target's get-or-compile
/// (exec::CompileCache). Errors other than a missing lowering are returned.
template <typename Compiled, typename GetOrCompile>
absl::StatusOr<CompiledStep<Compiled>> CompileStep(const passes::FusedKernel& kernel,
                                                   const passes::BufferPlan& buffers,
                                                   int min_index_bits,
                                                   GetOrCompile get_or_compile) {
  absl::StatusOr<codegen::KernelSpec> spec =
      codegen::BuildKernelSpec(kernel, InPlaceOutputs(kernel, buffers), min_index_bits);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::shared_ptr<const Compiled>> compiled = get_or_compile(*spec);
  CompiledStep<Compiled> step;
  if (compiled.ok()) {
    step.spec = *std::move(spec);
    step.compiled = *compiled;
  } else if (absl::IsUnimplemented(compiled.status())) {
    step.not_compiled_reason = std::string(compiled.status().message());
  } else {
    return compiled.status();
  }
  return step;
}

template <typename Value>
using PlanValues = absl::flat_hash_map<const ir::Node*, Value>;

/// The graph's parameters bound to `args`; `type_of(arg)` gives an argument's TensorType.
/// InvalidArgument naming the argument when the count or a type differs.
template <typename Value, typename TypeOf>
absl::StatusOr<PlanValues<Value>> BindArguments(const ir::Graph& graph,
                                                absl::Span<const Value> args, TypeOf type_of) {
  if (args.size() != graph.params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("@", graph.name, " takes ", graph.params.size(),
                                                   " arguments, got ", args.size()));
  }
  PlanValues<Value> values;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Node& p = *graph.params[i];
    if (!(type_of(args[i]) == p.type())) {
      return absl::InvalidArgumentError(
          absl::StrCat("@", graph.name, ": argument ", i, " (%", p.name(), ") has type ",
                       type_of(args[i]).ToString(), ", expected ", p.type().ToString()));
    }
    values[&p] = args[i];
  }
  return values;
}

/// Drops the inputs of `kernel` that no later step reads (`readers` counts the readers
/// left), except the arguments and results in `kept`.
template <typename Value>
void ReleaseAfterLastRead(const passes::FusedKernel& kernel,
                          const absl::flat_hash_set<const ir::Node*>& kept,
                          absl::flat_hash_map<const ir::Node*, int>& readers,
                          PlanValues<Value>& values) {
  for (const ir::NodeRef& in : kernel.inputs) {
    if (--readers[in.get()] == 0 && !kept.contains(in.get())) values.erase(in.get());
  }
}

/// The graph's results in order; Internal naming `executor` if a step did not produce one.
template <typename Value>
absl::StatusOr<std::vector<Value>> CollectResults(const ir::Graph& graph,
                                                  const PlanValues<Value>& values,
                                                  absl::string_view executor) {
  std::vector<Value> results;
  for (const ir::NodeRef& r : graph.results) {
    auto it = values.find(r.get());
    if (it == values.end()) {
      return absl::InternalError(
          absl::StrCat(executor, ": no step produced result %", r->name(), " of @", graph.name));
    }
    results.push_back(it->second);
  }
  return results;
}

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EXEC_PLAN_VALUES_H_
