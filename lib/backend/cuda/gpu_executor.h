//===- gpu_executor.h - Running fused plans on a CUDA device --------------===//
//
// The GPU back end: the same fusion and buffer plans as the host's (passes/), each kernel
// compiled to PTX (codegen/gpu_kernel_emitter.h, nvptx_compiler.h), linked to a cubin by the
// driver and kept in the kernel cache (memory, then disk: a second process pays no JIT),
// launched on the calling thread's current stream with every buffer from the device's pool.
// Values stay on the device between evaluations (DeviceTensor); host data is copied in on
// first use and out when read. Library ops call cuBLAS and cuFFT (lib/backend/cuda/gpu_library.h).
// Scatters, scans and sorts run as gpuc's own CUDA kernels (gpu_scatter.h, gpu_scan.h, gpu_sort.h).
// Steps without a GPU lowering (spmv, integer matmuls, kernels calling the host support
// library) run on the host between a download and an upload, and the statistics count them.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_EXECUTOR_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codegen/nvptx_compiler.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lib/exec/device_tensor.h"
#include "lib/exec/options.h"
#include "lib/exec/target.h"
#include "passes/fusion.h"
#include "runtime/device.h"
#include "runtime/stream.h"

namespace gpuc::detail {

using exec::DeviceStorage;
using exec::DeviceTensor;

struct GpuBackendStats {
  int64_t kernel_launches = 0;      // generated kernels launched (combine kernels included)
  int64_t row_kernel_launches = 0;  // of which row-local kernels (every phase, a block per row)
  int64_t memory_hits = 0;          // kernels found loaded in this process
  int64_t disk_hits = 0;            // cubins loaded from the disk cache
  int64_t compiles = 0;             // compiled through LLVM, NVPTX and the driver's linker
  int64_t compile_microseconds = 0;
  int64_t host_kernels = 0;          // fused kernels without a GPU lowering, run on the host
  int64_t library_calls = 0;         // library ops as vendor-library calls (cuBLAS, cuFFT)
  int64_t library_steps = 0;         // library ops and scans without one, run on the host
  int64_t scatters = 0;              // scatter steps run as GPU kernels (gpu_scatter.h)
  int64_t scans = 0;                 // cumsum/cumprod steps run as GPU kernels (gpu_scan.h)
  int64_t sorts = 0;                 // sort/argsort steps run as GPU kernels (gpu_sort.h)
  int64_t graph_replays = 0;         // runs of a repeated plan as one CUDA graph launch
  int64_t graph_builds = 0;          // graphs built (a plan's second run, or new launch shapes)
  int64_t graph_node_updates = 0;    // kernel nodes whose parameters a replay rewrote
  int64_t in_place_writes = 0;       // update_slices copied into donated storage
  int64_t in_place_write_bytes = 0;  // the bytes of their regions
  int64_t device_loops = 0;          // fori_loops run on the device (gpu_device_loop.cc)
  int64_t device_loop_steps = 0;     // their steps, every one without host work of its own
  int64_t uploads = 0;               // host arrays copied in
  int64_t downloads = 0;             // device arrays copied out
  std::string last_host_reason;      // why the last host step was not a GPU kernel
};

struct GpuPlan;

/// The NVPTX compiler's options for `options`: the architecture is options.gpu_arch, else
/// the device's (when `device` is given), else sm_90.
codegen::GpuCompileOptions GpuCompileOptionsFor(const exec::Options& options,
                                                const runtime::CudaDeviceProperties* device);

class GpuExecutor {
 public:
  /// The executor of the options' CUDA device (GPUC_DEVICE, else cuda:0), or Unavailable
  /// saying why there is none.
  static absl::StatusOr<GpuExecutor*> Get(const exec::Options& options = exec::CurrentOptions());
  ~GpuExecutor();

  runtime::CudaDevice& device();
  /// The calling thread's current stream on the device.
  absl::StatusOr<runtime::CudaStream*> stream();

  /// Fuses, plans and compiles `graph`, which the CUDA target's pipeline has lowered
  /// (lib/backend/cuda/cuda_target.h); the options choose the code and how it runs.
  absl::StatusOr<std::shared_ptr<const GpuPlan>> Prepare(
      const ir::Graph& graph, const exec::Options& options = exec::CurrentOptions(),
      const passes::FusionBudgets& budgets = {});
  /// Queues the plan on the current stream; results are ready when the stream reaches them.
  /// `positions`: the offsets of a plan prepared from a graph with numbered positions
  /// (ir/positions.h); empty runs the offsets it was prepared with.
  absl::StatusOr<std::vector<DeviceTensor>> Run(const GpuPlan& plan,
                                                absl::Span<const DeviceTensor> args,
                                                absl::Span<const int64_t> positions = {});
  /// A fori_loop's steps over `plan` (its body) with no host work per step: each step's
  /// launches recorded once over fixed buffers (the state ping-ponging between two sets, the
  /// index and step key advanced by a one-thread kernel), unrolled into a CUDA graph that is
  /// launched once per many steps (gpu_device_loop.cc). Unimplemented for a body the graph
  /// cannot hold (a library call, a host step, a kernel that reports errors, a state result
  /// that no kernel writes); the caller then runs it a step at a time.
  absl::StatusOr<std::vector<DeviceTensor>> RunLoop(const GpuPlan& plan,
                                                    absl::Span<const DeviceTensor> args,
                                                    const exec::LoopSteps& loop);
  /// Whether every step of `plan` reads its offsets from the numbered positions, so Run
  /// serves the same structure at any positions.
  static bool ServesEveryPosition(const GpuPlan& plan);
  /// The CUDA target's lowering (passes already run stay as they are), Prepare with the
  /// current options and the target's budgets unless `budgets` are given, then Run.
  absl::StatusOr<std::vector<DeviceTensor>> Run(
      const ir::Graph& graph, absl::Span<const DeviceTensor> args,
      const std::optional<passes::FusionBudgets>& budgets = std::nullopt);

  absl::StatusOr<DeviceTensor> Upload(const ir::HostTensor& tensor);
  /// Waits for the stream and copies out; an asynchronous fault is reported here with the
  /// kernels that ran last.
  absl::StatusOr<ir::HostTensor> Download(const DeviceTensor& tensor);
  absl::Status Synchronize();

  GpuBackendStats stats() const;
  /// "sm_90 ptx85 ieee ..." : what the kernels are compiled for with `options`.
  absl::StatusOr<std::string> target_id(const exec::Options& options = exec::CurrentOptions());

 private:
  GpuExecutor();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_EXECUTOR_H_
