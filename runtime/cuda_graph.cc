//===- cuda_graph.cc - Capture a stream's work once, replay it cheaply ----===//
#include "runtime/cuda_graph.h"

#include <utility>

namespace gpuc::runtime {

absl::StatusOr<CudaGraph> CudaGraph::Capture(CudaStream& stream,
                                             absl::FunctionRef<absl::Status()> body) {
  CudaDevice& device = stream.device();
  const CudaDriver& driver = device.driver();
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  if (absl::Status s = device.Check(
          driver.cuStreamBeginCapture(stream.handle(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
          "cuStreamBeginCapture");
      !s.ok()) {
    return s;
  }
  absl::Status body_status = body();
  CUgraph graph = nullptr;
  // The capture must end whatever the body did, or the stream stays in capture mode.
  absl::Status end =
      device.Check(driver.cuStreamEndCapture(stream.handle(), &graph), "cuStreamEndCapture");
  if (!body_status.ok() || !end.ok()) {
    if (graph) driver.cuGraphDestroy(graph);
    return body_status.ok() ? end : body_status;
  }
  CUgraphExec exec = nullptr;
  if (absl::Status s =
          device.Check(driver.cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
      !s.ok()) {
    driver.cuGraphDestroy(graph);
    return s;
  }
  return CudaGraph(&device, graph, exec);
}

CudaGraph::CudaGraph(CudaGraph&& other) noexcept
    : device_(other.device_),
      graph_(std::exchange(other.graph_, nullptr)),
      exec_(std::exchange(other.exec_, nullptr)) {}

CudaGraph& CudaGraph::operator=(CudaGraph&& other) noexcept {
  std::swap(device_, other.device_);
  std::swap(graph_, other.graph_);
  std::swap(exec_, other.exec_);
  return *this;
}

CudaGraph::~CudaGraph() {
  if (exec_) (void)device_->driver().cuGraphExecDestroy(exec_);
  if (graph_) (void)device_->driver().cuGraphDestroy(graph_);
}

absl::Status CudaGraph::Replay(CudaStream& stream) const {
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  stream.NoteLaunch("<graph replay>");
  return device_->Check(device_->driver().cuGraphLaunch(exec_, stream.handle()), "cuGraphLaunch");
}

}  // namespace gpuc::runtime
