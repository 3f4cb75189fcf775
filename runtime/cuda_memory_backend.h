//===- cuda_memory_backend.h - The memory pool's backend over the driver --===//
//
// Device allocations with cuMemAlloc/cuMemFree, events with cuEventRecord/cuEventQuery, in one
// device's primary context (made current on the calling thread by each call, since the pool
// may be used from any host thread).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_CUDA_MEMORY_BACKEND_H_
#define GPUC_RUNTIME_CUDA_MEMORY_BACKEND_H_

#include <memory>

#include "runtime/cuda_driver.h"
#include "runtime/device_memory_backend.h"

namespace gpuc::runtime {

/// A backend for device `ordinal`, retaining its primary context; errors if the driver or the
/// device is unavailable.
absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> CreateCudaMemoryBackend(int ordinal);

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_CUDA_MEMORY_BACKEND_H_
