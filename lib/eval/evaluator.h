//===- evaluator.h - Turning pending arrays into stored values ------------===//
//
// Evaluation collects the pending graph behind the requested arrays (evaluated arrays it meets
// are bound parameters, i.e. inputs), runs it as one plan, and rebinds each array to its
// result. The plan runs on the GPU back end where there is a device, else on the compiled host
// back end; GPUC_BACKEND chooses one (interpreter: the reference interpreter, the oracle).
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
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/host/host_executor.h"

namespace gpuc::detail {

/// Evaluates every pending array of `targets` together (evaluated ones are skipped).
void EvaluateArrays(const std::vector<ArrayImpl*>& targets);

/// Evaluates `impl` because its data is read by `reader` ("to_host"); logged.
void EvaluateForRead(ArrayImpl& impl, absl::string_view reader);

/// Evaluates `impl` if its pending graph passed the auto-evaluation limits; logged.
void EvaluateIfPastLimits(ArrayImpl& impl);

/// A stored value as evaluation passes it around.
using BufferRef = std::shared_ptr<const Buffer>;

/// Moves the parameters that FromResults left in `graph.nodes` to the end of `graph.params`,
/// keeping `graph.params`' existing entries first. Returns the bound ones' buffers in order
/// after the existing params; throws when an unbound one is not among the existing params
/// (a placeholder of a gpuc::compile trace escaped it).
std::vector<BufferRef> CollectBoundInputs(ir::Graph& graph);

/// Runs the default pass pipeline (passes::DefaultPipeline()) over a graph about to be
/// evaluated or kept as a compiled plan; its parameters stay as they are.
void OptimizeGraph(ir::Graph& graph);

/// Where evaluation runs: GPUC_BACKEND=interpreter|host|gpu, else the GPU when there is a
/// CUDA device (GPUC_DEVICE may say host), else the host.
enum class Backend { kInterpreter, kHost, kGpu };
Backend CurrentBackend();

/// Runs `graph` on `args`, throwing gpuc::Error for data-dependent failures. On the GPU the
/// results stay in device memory until read.
std::vector<BufferRef> RunGraph(const ir::Graph& graph, const std::vector<BufferRef>& args);

/// A graph fused, planned and compiled once for many runs (what a gpuc::compile Function
/// keeps), for the backend that prepared it.
struct PreparedGraph {
  Backend backend = Backend::kInterpreter;
  std::shared_ptr<const PreparedPlan> host;
  std::shared_ptr<const GpuPlan> gpu;
};
std::shared_ptr<const PreparedGraph> PrepareGraph(const ir::Graph& graph);
/// RunGraph for a graph PrepareGraph prepared.
std::vector<BufferRef> RunPrepared(const ir::Graph& graph, const PreparedGraph& prepared,
                                   const std::vector<BufferRef>& args);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_EVAL_EVALUATOR_H_
