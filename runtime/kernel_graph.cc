//===- kernel_graph.cc - A chain of kernel launches replayed as a CUDA graph -===//
#include "runtime/kernel_graph.h"

#include "absl/strings/str_cat.h"

namespace gpuc::runtime {
namespace {

/// The node parameters of `launch`; `pointers` receives the addresses of its words (the
/// driver copies the values during the call that takes them).
CUDA_KERNEL_NODE_PARAMS NodeParams(const RecordedLaunch& launch, std::vector<void*>& pointers) {
  pointers.clear();
  for (const uint64_t& w : launch.words) pointers.push_back(const_cast<uint64_t*>(&w));
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = launch.kernel->function;
  p.gridDimX = launch.grid.x;
  p.gridDimY = launch.grid.y;
  p.gridDimZ = launch.grid.z;
  p.blockDimX = launch.block.x;
  p.blockDimY = launch.block.y;
  p.blockDimZ = launch.block.z;
  p.sharedMemBytes = 0;
  p.kernelParams = pointers.data();
  p.extra = nullptr;
  return p;
}

bool SameShape(const RecordedLaunch& a, const RecordedLaunch& b) {
  return a.kernel->function == b.kernel->function && a.grid.x == b.grid.x && a.grid.y == b.grid.y &&
         a.grid.z == b.grid.z && a.block.x == b.block.x && a.block.y == b.block.y &&
         a.block.z == b.block.z && a.words.size() == b.words.size();
}

}  // namespace

absl::Status LaunchNow(CudaStream& stream, const RecordedLaunch& launch) {
  std::vector<uint64_t> words = launch.words;
  std::vector<void*> args;
  args.reserve(words.size());
  for (uint64_t& w : words) args.push_back(&w);
  return Launch(stream, *launch.kernel, launch.grid, launch.block, 0, args.data());
}

absl::StatusOr<std::unique_ptr<KernelGraph>> KernelGraph::Create(
    CudaDevice& device, const std::vector<RecordedLaunch>& launches) {
  const CudaDriver& driver = device.driver();
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  std::unique_ptr<KernelGraph> g(new KernelGraph(&device));
  if (absl::Status s = device.Check(driver.cuGraphCreate(&g->graph_, 0), "cuGraphCreate");
      !s.ok()) {
    return s;
  }
  std::vector<void*> pointers;
  for (const RecordedLaunch& launch : launches) {
    CUDA_KERNEL_NODE_PARAMS p = NodeParams(launch, pointers);
    CUgraphNode node = nullptr;
    const CUgraphNode* after = g->nodes_.empty() ? nullptr : &g->nodes_.back();
    if (absl::Status s =
            device.Check(driver.cuGraphAddKernelNode(&node, g->graph_, after, after ? 1 : 0, &p),
                         absl::StrCat("cuGraphAddKernelNode (", launch.kernel->name, ")"));
        !s.ok()) {
      return s;
    }
    g->nodes_.push_back(node);
  }
  if (absl::Status s =
          device.Check(driver.cuGraphInstantiate(&g->exec_, g->graph_, 0), "cuGraphInstantiate");
      !s.ok()) {
    return s;
  }
  g->current_ = launches;
  return g;
}

KernelGraph::~KernelGraph() {
  if (exec_) (void)device_->driver().cuGraphExecDestroy(exec_);
  if (graph_) (void)device_->driver().cuGraphDestroy(graph_);
}

bool KernelGraph::Matches(const std::vector<RecordedLaunch>& launches) const {
  if (launches.size() != current_.size()) return false;
  for (size_t i = 0; i < launches.size(); ++i) {
    if (!SameShape(launches[i], current_[i])) return false;
  }
  return true;
}

absl::Status KernelGraph::Replay(CudaStream& stream, const std::vector<RecordedLaunch>& launches) {
  if (!Matches(launches)) {
    return absl::InternalError("KernelGraph::Replay: the launches are not this graph's");
  }
  const CudaDriver& driver = device_->driver();
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  std::vector<void*> pointers;
  for (size_t i = 0; i < launches.size(); ++i) {
    if (launches[i].words == current_[i].words) continue;
    CUDA_KERNEL_NODE_PARAMS p = NodeParams(launches[i], pointers);
    if (absl::Status s = device_->Check(driver.cuGraphExecKernelNodeSetParams(exec_, nodes_[i], &p),
                                        "cuGraphExecKernelNodeSetParams");
        !s.ok()) {
      return s;
    }
    current_[i].words = launches[i].words;
    ++updated_nodes_;
  }
  // Fault messages name the kernels of the replay.
  for (const RecordedLaunch& launch : launches) stream.NoteLaunch(launch.kernel->name);
  return device_->Check(driver.cuGraphLaunch(exec_, stream.handle()), "cuGraphLaunch");
}

}  // namespace gpuc::runtime
