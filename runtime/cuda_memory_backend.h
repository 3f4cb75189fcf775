//===- cuda_memory_backend.h - The memory pools' backends over the driver -===//
//
// Device allocations with cuMemAlloc/cuMemFree and pinned host allocations with cuMemHostAlloc,
// events with cuEventRecord/cuEventQuery, in one device's primary context. The same caching pool
// serves both: pinned staging buffers need exactly its event-tracked reuse.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_CUDA_MEMORY_BACKEND_H_
#define GPUC_RUNTIME_CUDA_MEMORY_BACKEND_H_

#include <memory>

#include "runtime/cuda_driver.h"
#include "runtime/device_memory_backend.h"

namespace gpuc::runtime {

/// A backend of device memory on `ordinal`, retaining its primary context; errors if the driver
/// or the device is unavailable.
absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> CreateCudaMemoryBackend(int ordinal);
/// A backend of page-locked host memory (cuMemHostAlloc), for the pinned pool.
absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> CreatePinnedHostBackend(int ordinal);

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_CUDA_MEMORY_BACKEND_H_
