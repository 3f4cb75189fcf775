//===- gpuc/memory.h - The device memory pool's statistics and controls ---===//
//
// All device memory gpuc uses comes from one caching pool per device. These functions act on
// the current device's pool (gpuc/stream.h, set_device); on the host device there is no pool,
// the device statistics are zero and set_memory_limit does nothing. Host arrays of 64 KiB or
// more come from a cache of freed blocks (at most 256 MiB kept, least recently freed evicted
// first, huge pages from 4 MiB): its figures are the host_ fields, whatever the device.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_MEMORY_H_
#define GPUC_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpuc {

struct MemoryStats {
  size_t bytes_in_use = 0;  // handed out (rounded to the pool's granularity)
  size_t bytes_cached = 0;  // held from the driver but free for reuse
  size_t peak_bytes_in_use = 0;
  uint64_t allocations = 0;
  uint64_t cache_hits = 0;  // allocations served without a driver call
  uint64_t device_allocations = 0;
  uint64_t out_of_memory = 0;  // allocations that failed after freeing cache and retrying
  // The host block cache (blocks of 64 KiB or more):
  size_t host_bytes_in_use = 0;   // handed out, not yet freed
  size_t host_bytes_cached = 0;   // freed and kept for reuse
  uint64_t host_allocations = 0;  // blocks handed out
  uint64_t host_cache_hits = 0;   // of them, reused without asking the system
};

MemoryStats memory_stats();
/// Caps the bytes the pool holds from the device (0: no cap). An allocation beyond it first
/// frees cached blocks, then fails with gpuc::Error naming the bytes asked and available.
void set_memory_limit(size_t bytes);
/// Returns every cached block that is entirely free to the driver, and every cached host
/// block to the system.
void free_all_blocks();

}  // namespace gpuc

#endif  // GPUC_MEMORY_H_
