//===- gpu_sort.h - sort and argsort as CUDA kernels -----------------------===//
//
// A sort or argsort step on the GPU runs as CUDA kernels over device data (it ran on the
// host, copied over and back). Every element becomes an unsigned key whose order is NumPy's
// (ir/sort_order.h): integers with the sign bit flipped, floats by their bits made monotone,
// -0.0 keyed as 0.0 and every NaN as the largest key, so equal values tie and ties keep their
// order (the sort is stable, NumPy's kind="stable"). What the output holds comes back from the
// input, not the key: a sorted float is the input element at its sorted position (a -0.0 or
// a NaN's payload survive); an integer is its key turned back.
//
// Three shapes of work, by the length of the sorted lines:
//   - at most 32 elements: a thread per line, insertion sort in registers;
//   - at most 2048: a block per line, a bitonic network in shared memory on (key, position)
//     pairs (the position makes every pair distinct, so the network's order is the stable one);
//   - longer: a least-significant-digit radix sort, 8 bits a pass, over contiguous copies of
//     the lines: per pass, every 4096-element tile's digit counts, each digit's tile offsets
//     scanned, and a stable scatter (ranks within a tile by warp-level matching). An argsort
//     or a float sort carries each element's position along as a 32-bit payload.
//
// Complex numbers and lines of 2^32 elements or more have no kernels (the host sorts them).
// A partition (attribute kth) is served by the full sort, which meets its contract.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_SORT_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_SORT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/node.h"
#include "lib/exec/device_tensor.h"
#include "runtime/kernel_graph.h"
#include "runtime/module.h"
#include "runtime/stream.h"

namespace gpuc::detail {

using exec::DeviceStorage;
using exec::DeviceTensor;

struct GpuSortKernels {
  std::unique_ptr<runtime::CudaModule> module;
  runtime::CudaKernel tiny;     // a thread per line of at most 32
  runtime::CudaKernel block;    // a block per line of at most 2048
  runtime::CudaKernel load;     // keys (and positions) of every line, contiguous
  runtime::CudaKernel count;    // one pass's digit counts per tile
  runtime::CudaKernel offsets;  // each digit's tile counts scanned, and its total
  runtime::CudaKernel scatter;  // one pass's stable scatter
  runtime::CudaKernel store;    // the sorted keys (or positions) into the result's layout
};

/// Whether `node` is a sort or an argsort.
bool IsGpuSortNode(const ir::Node& node);

/// Why `sort` has no GPU kernels (complex elements, a line of 2^32), or empty.
std::string GpuSortRefusal(const ir::Node& sort);

/// The CUDA source of `sort`'s kernels, for NVRTC.
std::string GpuSortSource(const ir::Node& sort);

/// The key of `sort`'s kernels (op and element dtype).
std::string GpuSortKey(const ir::Node& sort);

/// Compiles (or finds in the disk cache) and loads `sort`'s kernels on `device`.
absl::StatusOr<std::shared_ptr<const GpuSortKernels>> LoadGpuSort(runtime::CudaDevice& device,
                                                                  const ir::Node& sort,
                                                                  const std::string& arch);

/// The launches sorting `input` into `out`; scratch storage (keys, positions, counts) is
/// allocated on `stream` and appended to `keep`.
absl::StatusOr<std::vector<runtime::RecordedLaunch>> GpuSortLaunches(
    runtime::CudaDevice& device, runtime::CudaStream& stream, const GpuSortKernels& kernels,
    const ir::Node& sort, const DeviceTensor& input, const DeviceTensor& out,
    std::vector<std::shared_ptr<DeviceStorage>>& keep);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_SORT_H_
