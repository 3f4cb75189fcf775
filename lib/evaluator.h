//===- evaluator.h - Turning pending arrays into stored values ------------===//
//
// Evaluation collects the pending graph behind the requested arrays (evaluated arrays it meets
// are bound parameters, i.e. inputs), runs it as one plan, and rebinds each array to its
// result. Until the compiled back ends land the plan runs on the reference interpreter; the
// callers do not change when they do.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EVALUATOR_H_
#define GPUC_LIB_EVALUATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gpuc/evaluation.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lib/array_impl.h"
#include "lib/host_executor.h"

namespace gpuc::detail {

/// Evaluates every pending array of `targets` together (evaluated ones are skipped).
void EvaluateArrays(const std::vector<ArrayImpl*>& targets);

/// Evaluates `impl` because its data is read by `reader` ("to_host"); logged.
void EvaluateForRead(ArrayImpl& impl, absl::string_view reader);

/// Evaluates `impl` if its pending graph passed the auto-evaluation limits; logged.
void EvaluateIfPastLimits(ArrayImpl& impl);

/// Moves the parameters that FromResults left in `graph.nodes` to the end of `graph.params`,
/// keeping `graph.params`' existing entries first. Returns the bound ones' tensors in order
/// after the existing params; throws when an unbound one is not among the existing params
/// (a placeholder of a gpuc::compile trace escaped it).
std::vector<ir::HostTensor> CollectBoundInputs(ir::Graph& graph);

/// Runs `graph` on `args`, throwing gpuc::Error for data-dependent failures.
/// Runs the default pass pipeline (passes::DefaultPipeline()) over a graph about to be
/// evaluated or kept as a compiled plan; its parameters stay as they are.
void OptimizeGraph(ir::Graph& graph);

std::vector<ir::HostTensor> RunGraph(const ir::Graph& graph,
                                     const std::vector<ir::HostTensor>& args);

/// Fuses, plans and compiles `graph` once for many runs (null when evaluation interprets).
std::shared_ptr<const PreparedPlan> PrepareGraph(const ir::Graph& graph);
/// RunGraph for a graph PrepareGraph prepared.
std::vector<ir::HostTensor> RunPrepared(const ir::Graph& graph,
                                        const std::shared_ptr<const PreparedPlan>& prepared,
                                        const std::vector<ir::HostTensor>& args);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVALUATOR_H_
