//===- memory_api.cc - gpuc::memory_stats, set_memory_limit, free_all_blocks ===//
#include "gpuc/memory.h"
#include "gpuc/stream.h"
#include "ir/host_blocks.h"
#include "lib/api/status_to_error.h"
#include "runtime/device.h"

namespace gpuc {
namespace {

/// The current device's pool, or null on the host.
runtime::MemoryPool* CurrentPool() {
  runtime::DeviceSpec spec = internal::ValueOrThrow(runtime::ParseDeviceSpec(current_device()));
  if (spec.kind == runtime::DeviceKind::kHost) return nullptr;
  return &internal::ValueOrThrow(runtime::CudaDevice::Get(spec.ordinal))->memory_pool();
}

}  // namespace

MemoryStats memory_stats() {
  MemoryStats out;
  const ir::HostBlockStats host = ir::HostBlockStatistics();
  out.host_bytes_in_use = host.bytes_in_use;
  out.host_bytes_cached = host.bytes_cached;
  out.host_allocations = host.allocations;
  out.host_cache_hits = host.cache_hits;
  runtime::MemoryPool* pool = CurrentPool();
  if (!pool) return out;
  runtime::PoolStats s = pool->stats();
  out.bytes_in_use = s.bytes_in_use;
  out.bytes_cached = s.bytes_cached();
  out.peak_bytes_in_use = s.peak_bytes_in_use;
  out.allocations = s.allocations;
  out.cache_hits = s.cache_hits;
  out.device_allocations = s.device_allocations;
  out.out_of_memory = s.out_of_memory;
  return out;
}

void set_memory_limit(size_t bytes) {
  if (runtime::MemoryPool* pool = CurrentPool()) pool->SetLimit(bytes);
}

void free_all_blocks() {
  ir::ReleaseCachedHostBlocks();
  if (runtime::MemoryPool* pool = CurrentPool()) pool->FreeCachedBlocks();
}

}  // namespace gpuc
