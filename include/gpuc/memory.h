//===- gpuc/memory.h - The device memory pool's statistics and controls ---===//
//
// All device memory gpuc uses comes from one caching pool per device. These functions act on
// the current device's pool (gpuc/stream.h, set_device); on the host device there is no pool,
// the statistics are zero and the controls do nothing.
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
};

MemoryStats memory_stats();
/// Caps the bytes the pool holds from the device (0: no cap). An allocation beyond it first
/// frees cached blocks, then fails with gpuc::Error naming the bytes asked and available.
void set_memory_limit(size_t bytes);
/// Returns every cached block that is entirely free to the driver.
void free_all_blocks();

}  // namespace gpuc

#endif  // GPUC_MEMORY_H_
