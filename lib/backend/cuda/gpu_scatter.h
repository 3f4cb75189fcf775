//===- gpu_scatter.h - scatter (np.ufunc.at, bincount) as CUDA kernels ----===//
//
// A scatter step on the GPU is two kernels over device data, with no copy to the host: the
// first checks every index (recording the first one out of range) and, for "set", finds the
// last value written to each position; the second, which does nothing when an index was out
// of range, combines each value into its position with an atomic operation (a native atomic
// where the hardware has one, else a compare-and-swap loop on the word holding the element).
//
// Order: NumPy applies repeated indices one after another. Every combiner whose result does
// not depend on that order is exact here: "set" (the last value wins, found by an atomic max
// of the value's index), integer add/sub/mul/minimum/maximum (wrapping), and floating
// minimum/maximum (gpuc's rule orders -0 below +0, so ties have one answer). Floating
// add/sub/mul/div with a repeated index round in the order the atomics happened to run,
// as CuPy's and JAX's scatters do: the same values to within rounding, not bit for bit. With
// GPUC_DETERMINISTIC=1 those scatters run in NumPy's order instead (on the host, named by
// GPUC_EXPLAIN=1 and counted in --stats' library steps): a sort-based device path is
// issue 35's remaining work.
//
// The kernels are CUDA C++ (gpu_scatter.cc) compiled by NVRTC per data dtype, index dtype and
// combiner into the disk kernel cache: a few lines of atomics read better as CUDA than as
// LLVM IR, and none of the fused code generator's machinery is needed.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_SCATTER_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_SCATTER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ir/node.h"
#include "lib/exec/device_tensor.h"
#include "runtime/kernel_graph.h"
#include "runtime/module.h"
#include "runtime/stream.h"

namespace gpuc::detail {

using exec::DeviceStorage;
using exec::DeviceTensor;

/// The kernels of one (data dtype, index dtype, combiner), loaded on a device: the check and
/// the combine, and for recorded steps the winners' reset and the data's copy.
struct GpuScatterKernels {
  std::unique_ptr<runtime::CudaModule> module;
  runtime::CudaKernel check;
  runtime::CudaKernel apply;
  runtime::CudaKernel unclaim;
  runtime::CudaKernel copy;
  std::optional<runtime::CudaKernel> add_shared;  // an add through shared memory (few positions)
};

/// Why `scatter` cannot run as GPU kernels (a dtype or combiner they do not cover, or
/// GPUC_DETERMINISTIC=1 with an order-dependent one), or empty when it can.
std::string GpuScatterRefusal(const ir::Node& scatter, bool deterministic);

/// The CUDA source of `scatter`'s kernels (the instantiation's definitions, then the
/// kernels), for NVRTC; only for a scatter GpuScatterRefusal accepts.
std::string GpuScatterSource(const ir::Node& scatter);

/// The disk-cache and in-memory key of `scatter`'s kernels.
std::string GpuScatterKey(const ir::Node& scatter);

/// Compiles (or finds in the disk cache) and loads `scatter`'s kernels on `device`.
absl::StatusOr<std::shared_ptr<const GpuScatterKernels>> LoadGpuScatter(runtime::CudaDevice& device,
                                                                        const ir::Node& scatter,
                                                                        const std::string& arch);

/// Runs `scatter` over device operands into `out` (already holding data's values: a copy, or
/// data's own storage for an in-place scatter), and reads back whether an index was out of
/// range (the error names it, and `out` is then unchanged).
absl::Status RunGpuScatter(runtime::CudaDevice& device, runtime::CudaStream& stream,
                           const GpuScatterKernels& kernels, const ir::Node& scatter,
                           const DeviceTensor& indices, const DeviceTensor& values,
                           const DeviceTensor& out);

/// Appends `scatter`'s launches from `data` into `out` (copying data there first unless they
/// are one storage) to `launches`, for a device loop's recorded step: the check records an
/// index out of range in the word at `error` (cleared by the caller, read after the loop),
/// and the combine then writes nothing. Scratch storage goes to `keep`.
absl::Status RecordGpuScatter(runtime::CudaDevice& device, runtime::CudaStream& stream,
                              const GpuScatterKernels& kernels, const ir::Node& scatter,
                              const DeviceTensor& data, const DeviceTensor& indices,
                              const DeviceTensor& values, const DeviceTensor& out, uint64_t error,
                              std::vector<runtime::RecordedLaunch>& launches,
                              std::vector<std::shared_ptr<DeviceStorage>>& keep);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_SCATTER_H_
