//===- kernel_graph.h - A chain of kernel launches replayed as a CUDA graph -===//
//
// A plan that runs again and again (a compiled Function's) issues the same kernels with the
// same grids each time; only the addresses in their parameters change, because every call
// gets fresh result buffers. KernelGraph builds such a chain once as a CUDA graph of kernel
// nodes (ARCHITECTURE.md decision 7) and replays it with one cuGraphLaunch, after rewriting
// the parameters of the nodes whose words changed (cuGraphExecKernelNodeSetParams: in-flight
// replays keep the values they started with).
//
// Built explicitly, not by stream capture: no pool allocation can slip into the graph, and
// the nodes are at hand for the updates.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_KERNEL_GRAPH_H_
#define GPUC_RUNTIME_KERNEL_GRAPH_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/module.h"

namespace gpuc::runtime {

/// One launch of the chain: every kernel parameter is an 8-byte word.
struct RecordedLaunch {
  const CudaKernel* kernel = nullptr;
  LaunchDims grid, block;
  std::vector<uint64_t> words;
};

/// Launches `launch` on `stream` now (a recorded launch run directly, not through a graph).
absl::Status LaunchNow(CudaStream& stream, const RecordedLaunch& launch);

class KernelGraph {
 public:
  /// The chain as an instantiated graph, each launch after the previous one.
  static absl::StatusOr<std::unique_ptr<KernelGraph>> Create(
      CudaDevice& device, const std::vector<RecordedLaunch>& launches);
  ~KernelGraph();
  KernelGraph(const KernelGraph&) = delete;
  KernelGraph& operator=(const KernelGraph&) = delete;

  /// Whether `launches` are this graph's kernels with its grids and parameter counts (then
  /// Replay can run them).
  bool Matches(const std::vector<RecordedLaunch>& launches) const;

  /// Runs `launches` (which Match) on `stream`: changed parameters rewritten, one launch.
  absl::Status Replay(CudaStream& stream, const std::vector<RecordedLaunch>& launches);

  /// Kernel nodes whose parameters the replays have rewritten, in all.
  int64_t updated_nodes() const { return updated_nodes_; }

 private:
  explicit KernelGraph(CudaDevice* device) : device_(device) {}

  CudaDevice* device_;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  std::vector<CUgraphNode> nodes_;
  std::vector<RecordedLaunch> current_;  // the parameters the instantiated graph holds
  int64_t updated_nodes_ = 0;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_KERNEL_GRAPH_H_
