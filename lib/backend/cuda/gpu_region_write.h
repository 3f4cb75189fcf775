//===- gpu_region_write.h - An update_slice's region copied in place ------===//
//
// When the evaluator donates an update_slice's old value (lib/eval/in_place_writes.h), the
// CUDA executor copies the computed region into the old value's device memory with the
// driver's 2-D copies instead of running a kernel that writes the whole array: writing one
// row of a matrix moves the row's bytes. Only where that is cheaper and simple: the region
// is at most half the array (beyond that, computing the region and copying it in moves more
// bytes than the fused kernel that writes the whole array once) and takes at most
// kMaxRegionCopies 2-D copies (each a driver call).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_REGION_WRITE_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_REGION_WRITE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "ir/node.h"
#include "lib/exec/device_tensor.h"
#include "runtime/device.h"
#include "runtime/stream.h"

namespace gpuc::detail {

inline constexpr int64_t kMaxRegionCopies = 16;

/// Whether the CUDA executor writes `write` in place (see above): an update_slice with
/// positive steps whose region is at most half its array's bytes and kMaxRegionCopies 2-D
/// copies.
bool GpuWritesRegionInPlace(const ir::Node& write);

/// Queues on `stream` the copies of `value` (dense, the region's shape) into the region of
/// `old`'s memory that update_slice `write` names (its start as this run places it).
absl::Status CopyRegionOnDevice(runtime::CudaDevice& device, runtime::CudaStream& stream,
                                const ir::Node& write, const exec::DeviceTensor& old,
                                const exec::DeviceTensor& value);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_REGION_WRITE_H_
