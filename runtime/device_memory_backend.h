//===- device_memory_backend.h - What the memory pool needs from a device -===//
//
// The caching pool (runtime/memory_pool.h) decides policy; a backend carries it out: raw device
// allocations, events recorded on streams, and synchronization. The CUDA backend implements it
// over the driver API; tests implement it with a fake device so that the pool's policy is tested
// on machines without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_DEVICE_MEMORY_BACKEND_H_
#define GPUC_RUNTIME_DEVICE_MEMORY_BACKEND_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace gpuc::runtime {

/// An opaque stream identity (a CUstream's value for CUDA); 0 is the legacy default stream.
using StreamId = uint64_t;
/// An opaque event handle from RecordEvent.
using EventId = uint64_t;

class DeviceMemoryBackend {
 public:
  virtual ~DeviceMemoryBackend() = default;

  /// Allocates `bytes` of device memory; ResourceExhausted when the device has no room.
  virtual absl::StatusOr<uint64_t> Allocate(size_t bytes) = 0;
  virtual void Free(uint64_t address) = 0;

  /// Records an event on `stream` that completes when the work queued so far completes.
  virtual absl::StatusOr<EventId> RecordEvent(StreamId stream) = 0;
  /// Whether the event has completed (never blocks).
  virtual bool EventCompleted(EventId event) = 0;
  virtual void DestroyEvent(EventId event) = 0;

  /// Waits for all work on the device.
  virtual absl::Status Synchronize() = 0;
  /// Whether `stream` is being captured into a CUDA graph: the pool refuses to allocate for it,
  /// because a graph must not depend on blocks the pool may hand out again.
  virtual bool IsCapturing(StreamId stream) { return false; }
  /// Free memory as the backend's allocator reports it (device or host), for out-of-memory
  /// messages.
  virtual size_t DeviceFreeBytes() = 0;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_DEVICE_MEMORY_BACKEND_H_
