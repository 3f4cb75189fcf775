//===- cuda_graph.h - Capture a stream's work once, replay it cheaply -----===//
//
// A compiled plan that repeats with the same shapes is recorded once as a CUDA graph and
// replayed with one launch (ARCHITECTURE.md decision 7). Capture runs `body`, which issues
// launches and copies on the stream; everything it needs from the memory pool must be
// allocated before the capture begins (a device allocation cannot be captured, and a pool hit
// during capture would tie the graph to a block the pool may hand out again).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_CUDA_GRAPH_H_
#define GPUC_RUNTIME_CUDA_GRAPH_H_

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "runtime/stream.h"

namespace gpuc::runtime {

class CudaGraph {
 public:
  /// Captures the work `body` issues on `stream` (thread-local capture mode: other threads'
  /// unrelated CUDA calls are not affected). A failing body ends the capture and is returned.
  static absl::StatusOr<CudaGraph> Capture(CudaStream& stream,
                                           absl::FunctionRef<absl::Status()> body);
  CudaGraph(CudaGraph&& other) noexcept;
  CudaGraph& operator=(CudaGraph&& other) noexcept;
  ~CudaGraph();

  /// Launches the whole recorded sequence on `stream`.
  absl::Status Replay(CudaStream& stream) const;

 private:
  CudaGraph(CudaDevice* device, CUgraph graph, CUgraphExec exec)
      : device_(device), graph_(graph), exec_(exec) {}
  CudaDevice* device_ = nullptr;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_CUDA_GRAPH_H_
