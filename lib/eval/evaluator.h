//===- evaluator.h - Turning pending arrays into stored values ------------===//
//
// Evaluation collects the pending graph behind the requested arrays (evaluated arrays it meets
// are bound parameters, i.e. inputs), runs it as one plan, and rebinds each array to its
// result. The plan is the execution layer's (lib/exec/target.h): compiled for the GPU where
// there is a device, else for the host; the options' backend (GPUC_BACKEND) chooses one
// (interpreter: the reference interpreter, the oracle).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_EVAL_EVALUATOR_H_
#define GPUC_LIB_EVAL_EVALUATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gpuc/evaluation.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lib/api/array_impl.h"
#include "lib/exec/target.h"

namespace gpuc::detail {

/// Evaluates every pending array of `targets` together (evaluated ones are skipped).
void EvaluateArrays(const std::vector<ArrayImpl*>& targets);

/// Evaluates `impl` because its data is read by `reader` ("to_host"); logged.
void EvaluateForRead(ArrayImpl& impl, absl::string_view reader);

/// Evaluates `impl` if its pending graph passed the auto-evaluation limits; logged.
void EvaluateIfPastLimits(ArrayImpl& impl);

/// Remembers a pending array recorded on this thread: a loop-step cut evaluates the ones
/// still alive (the loop's carried state, named or written, evaluated or not by the user).
void NotePending(const std::shared_ptr<ArrayImpl>& impl);
/// A loop step ended: the statement at `site` is recording again while what it recorded the
/// previous time is still pending. Evaluates every pending array of this thread that is still
/// alive, together as one plan, so a literal NumPy loop with no eval() runs one plan per step
/// (the same plan every step); logged.
void EvaluateLoopStep(absl::string_view site);

/// A stored value as evaluation passes it around.
using BufferRef = exec::BufferRef;

/// Moves the parameters that FromResults left in `graph.nodes` to the end of `graph.params`,
/// keeping `graph.params`' existing entries first. Returns the bound ones' buffers in order
/// after the existing params; throws when an unbound one is not among the existing params
/// (a placeholder of a gpuc::compile trace escaped it).
std::vector<BufferRef> CollectBoundInputs(ir::Graph& graph);

/// Where evaluation runs with the current options (exec::DefaultTarget); throws gpuc::Error
/// when the options ask for a target that is not there.
exec::Target& EvaluationTarget(const exec::Options& options);

/// `graph` lowered and compiled for `target` (what the plan cache and a gpuc::compile
/// Function keep); throws gpuc::Error.
std::shared_ptr<const exec::Executable> CompileForEvaluation(exec::Target& target,
                                                             const ir::Graph& graph,
                                                             const exec::Options& options);

/// Runs `executable` on `args`, throwing gpuc::Error for data-dependent failures. On the GPU
/// the results stay in device memory until read.
std::vector<BufferRef> RunExecutable(const exec::Executable& executable,
                                     const std::vector<BufferRef>& args,
                                     absl::Span<const int64_t> positions = {});

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVAL_EVALUATOR_H_
