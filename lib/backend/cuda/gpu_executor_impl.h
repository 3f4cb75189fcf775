//===- gpu_executor_impl.h - What the CUDA executor's files share ---------===//
//
// The CUDA executor is one class in several files, one job each: gpu_executor.cc (the
// executor per device, preparing and walking a plan, transfers), gpu_kernel_compile.cc (the
// NVPTX compilers per option set and the get-or-compile of a kernel), gpu_kernel_launch.cc
// (a kernel's launches and a repeated plan's CUDA graph), gpu_library_steps.cc (vendor-
// library calls and the steps that run on the host). This header is theirs alone.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_EXECUTOR_IMPL_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_EXECUTOR_IMPL_H_

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "codegen/gpu_kernel_emitter.h"
#include "codegen/kernel_spec.h"
#include "codegen/nvptx_compiler.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/cuda/gpu_library.h"
#include "lib/backend/cuda/gpu_scan.h"
#include "lib/backend/cuda/gpu_scatter.h"
#include "lib/backend/cuda/gpu_sort.h"
#include "lib/exec/compile_cache.h"
#include "lib/exec/plan_values.h"
#include "runtime/kernel_graph.h"
#include "runtime/module.h"

namespace gpuc::detail {

/// A recorded kernel's error words, read after its launches ran (a device loop's end).
struct DeferredErrorCheck {
  std::shared_ptr<DeviceStorage> words;  // codegen::kErrorSlots of them, cleared when recorded
  const codegen::KernelSpec* spec = nullptr;
};

/// One fused kernel loaded on the device.
struct GpuKernel {
  std::unique_ptr<runtime::CudaModule> module;
  codegen::GpuKernelLayout layout;
  std::vector<runtime::CudaKernel> kernels;   // per phase
  std::vector<runtime::CudaKernel> combines;  // per phase (reduce phases)
  std::optional<runtime::CudaKernel> rows;    // the row-local kernel, if any
};

struct GpuPlanStep {
  const passes::FusedKernel* kernel = nullptr;
  std::optional<codegen::KernelSpec> spec;
  std::shared_ptr<const GpuKernel> compiled;  // null: a library call, or runs on the host
  std::optional<LibraryCall> library;         // a vendor-library call (cuBLAS, cuFFT, cuSPARSE)
  bool region_write = false;                  // an update_slice copied into its donated storage
  std::shared_ptr<const GpuScatterKernels> scatter;  // a scatter as GPU kernels
  std::shared_ptr<const GpuScanKernels> scan;        // a cumsum or cumprod as GPU kernels
  std::shared_ptr<const GpuSortKernels> sort;        // a sort or argsort as GPU kernels
};

struct GpuPlan : ScheduledGraph {
  std::vector<GpuPlanStep> steps;  // one per kernel of the fusion plan
  bool poison = false;             // the options' poison: fill outputs before kernels run
  /// Whether the plan can replay as a CUDA graph: every step a GPU kernel, none reporting
  /// errors (their check reads the error words back between launches).
  bool replayable = false;
  /// Whether a device loop can record the plan's steps (gpu_device_loop.cc): kernels, scans
  /// and scatters (the checks of kernels and scatters read once at the loop's end).
  bool loopable = false;
  bool serves_every_position = false;  // see GpuExecutor::ServesEveryPosition
  /// The plan's launches as a graph, built on the second run (a plan run once pays nothing)
  /// and rebuilt when the launches change shape (other grids for other sizes).
  mutable std::mutex graph_mutex;
  mutable int64_t runs = 0;
  mutable std::unique_ptr<runtime::KernelGraph> cuda_graph;
};

/// What kernels compiled with one set of code-changing options share: the compiler and the
/// kernels it made.
struct GpuCodegen {
  std::unique_ptr<codegen::NvptxCompiler> compiler;
  std::unique_ptr<exec::CompileCache<GpuKernel>> cache;
};

struct GpuExecutor::Impl {
  runtime::CudaDevice* device = nullptr;
  mutable std::mutex mutex;
  // By GpuCompileOptionsFor(options)'s text; an entry is never removed (kernels point in).
  absl::flat_hash_map<std::string, std::unique_ptr<GpuCodegen>> codegens;
  GpuBackendStats stats;
  std::unique_ptr<GpuLibraries> libraries;
  // The device loop's counter kernel (gpu_device_loop.cc), loaded on first use.
  std::unique_ptr<runtime::CudaModule> loop_module;
  runtime::CudaKernel loop_advance;
  // Scatter kernels by GpuScatterKey, loaded on first use.
  absl::flat_hash_map<std::string, std::shared_ptr<const GpuScatterKernels>> scatters;

  /// `scatter`'s kernels, or why it runs on the host (empty when it is a GPU scatter).
  std::shared_ptr<const GpuScatterKernels> ScatterKernelsFor(const ir::Node& scatter,
                                                             const exec::Options& options,
                                                             std::string& host_reason);
  /// `scan`'s kernels, or why it runs on the host (null then, with `host_reason` set).
  std::shared_ptr<const GpuScanKernels> ScanKernelsFor(const ir::Node& scan,
                                                       const exec::Options& options,
                                                       std::string& host_reason);
  // Scan kernels by GpuScanKey, loaded on first use.
  absl::flat_hash_map<std::string, std::shared_ptr<const GpuScanKernels>> scans;
  /// `sort`'s kernels, or why it runs on the host (null then, with `host_reason` set).
  std::shared_ptr<const GpuSortKernels> SortKernelsFor(const ir::Node& sort,
                                                       const exec::Options& options,
                                                       std::string& host_reason);
  // Sort kernels by GpuSortKey, loaded on first use.
  absl::flat_hash_map<std::string, std::shared_ptr<const GpuSortKernels>> sorts;
  /// Runs a scan or sort step's kernels into a fresh buffer, or with `record`, appends them
  /// there (and the scratch buffers they use to `keep`).
  absl::Status RunScanOrSort(
      runtime::CudaStream& stream, const GpuPlanStep& step,
      absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
      const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
      std::vector<runtime::RecordedLaunch>* record = nullptr,
      std::vector<std::shared_ptr<DeviceStorage>>* keep = nullptr);
  /// Runs a scatter step's kernels into a copy of its data (or, written in place, into the
  /// data's donated storage).
  absl::Status RunScatter(
      runtime::CudaStream& stream, const GpuPlanStep& step,
      absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
      const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate);

  absl::StatusOr<GpuCodegen*> CodegenFor(const exec::Options& options);
  absl::StatusOr<std::shared_ptr<const GpuKernel>> GetOrCompile(const codegen::KernelSpec& spec,
                                                                const exec::Options& options);
  /// Launches `step`'s kernels, or with `record`, appends them there and adds the temporary
  /// buffers they use to `keep` (they must outlive the later launch); a recorded kernel that
  /// checks bounds leaves its error words to `deferred` (without it, it reads them now).
  absl::Status RunKernel(
      runtime::CudaStream& stream, const GpuPlanStep& step,
      absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
      const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
      absl::Span<const int64_t> positions, std::vector<runtime::RecordedLaunch>* record = nullptr,
      std::vector<std::shared_ptr<DeviceStorage>>* keep = nullptr,
      std::vector<DeferredErrorCheck>* deferred = nullptr);
  /// Launches a replayable plan's recorded launches as its graph (built or rebuilt first when
  /// it has none of their shape).
  absl::Status Replay(runtime::CudaStream& stream, const GpuPlan& plan,
                      const std::vector<runtime::RecordedLaunch>& launches);
  /// Queues the step's vendor-library call, its result in a fresh buffer.
  absl::Status RunLibrary(
      runtime::CudaStream& stream, const GpuPlanStep& step,
      absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
      const std::function<absl::StatusOr<DeviceTensor>(const ir::Node*)>& allocate,
      bool first_operand_is_dead);
  /// Copies an in-place update_slice's region into its old value's storage
  /// (gpu_region_write.h), which becomes the write's value.
  absl::Status WriteRegion(runtime::CudaStream& stream, const passes::FusedKernel& kernel,
                           absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
                           absl::Span<const int64_t> positions);
  absl::Status RunOnHost(runtime::CudaStream& stream, const passes::FusedKernel& kernel,
                         absl::flat_hash_map<const ir::Node*, DeviceTensor>& values,
                         absl::Span<const int64_t> positions);
  absl::Status Fill(runtime::CudaStream& stream, uint64_t address, unsigned char byte,
                    size_t bytes) {
    return device->Check(device->driver().cuMemsetD8Async(address, byte, bytes, stream.handle()),
                         "cuMemsetD8Async");
  }
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_EXECUTOR_IMPL_H_
