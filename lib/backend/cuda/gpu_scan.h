//===- gpu_scan.h - cumsum and cumprod as CUDA kernels ---------------------===//
//
// A scan step on the GPU runs as CUDA kernels over device data (it ran on the host, copied
// over and back). Two shapes of work:
//
//   - lines along a strided axis (inner > 1, e.g. cumsum over axis 0 of a matrix): a thread
//     per line walks it in order, neighbouring threads on neighbouring lines (coalesced). The
//     order is the interpreter's, so every dtype's result is NumPy's bit for bit.
//   - lines along the last axis: each line in tiles of 2048 elements. Three kernels: every
//     tile's total, each line's tile totals scanned in order (a thread per line), then every
//     tile scanned in a block (each thread 8 elements in order, a warp-shuffle scan of the
//     threads' totals) on top of its prefix. Integer results are exact; floating ones are the
//     same every run (a fixed association) but round as a tree, not as NumPy's sequential
//     add.accumulate: within a few ulps of the sums' magnitude. A line of one tile is one
//     kernel.
//
// That is three passes over the data for a long line, where a decoupled look-back scan (CUB's)
// makes two; its prefix order varies run to run, which GPUC_DETERMINISTIC's promise forbids.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_SCAN_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_SCAN_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/node.h"
#include "lib/exec/device_tensor.h"
#include "runtime/kernel_graph.h"
#include "runtime/module.h"
#include "runtime/stream.h"

namespace gpuc::detail {

using exec::DeviceStorage;
using exec::DeviceTensor;

struct GpuScanKernels {
  std::unique_ptr<runtime::CudaModule> module;
  runtime::CudaKernel columns;   // a thread per strided line
  runtime::CudaKernel totals;    // every tile's total
  runtime::CudaKernel prefixes;  // each line's tile totals, scanned exclusively in place
  runtime::CudaKernel tiles;     // every tile on top of its prefix
};

/// Why `scan` (cumsum or cumprod) has no GPU kernels (a dtype they do not cover), or empty.
std::string GpuScanRefusal(const ir::Node& scan);

/// The CUDA source of `scan`'s kernels, for NVRTC.
std::string GpuScanSource(const ir::Node& scan);

/// The key of `scan`'s kernels (input dtype, result dtype, op).
std::string GpuScanKey(const ir::Node& scan);

/// Compiles (or finds in the disk cache) and loads `scan`'s kernels on `device`.
absl::StatusOr<std::shared_ptr<const GpuScanKernels>> LoadGpuScan(runtime::CudaDevice& device,
                                                                  const ir::Node& scan,
                                                                  const std::string& arch);

/// The launches computing `scan` of `input` into `out`; scratch storage for the tile totals
/// is allocated on `stream` and appended to `keep`.
absl::StatusOr<std::vector<runtime::RecordedLaunch>> GpuScanLaunches(
    runtime::CudaDevice& device, runtime::CudaStream& stream, const GpuScanKernels& kernels,
    const ir::Node& scan, const DeviceTensor& input, const DeviceTensor& out,
    std::vector<std::shared_ptr<DeviceStorage>>& keep);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_SCAN_H_
