//===- host_blocks.h - Large host buffers, reused -------------------------===//
//
// A loop on the host back end makes arrays of the same sizes every step. Fresh large
// allocations come from mmap, and every page of them faults on first touch, which costs more
// than the kernel writing them for arrays of a few hundred KiB. Blocks of 64 KiB or more are
// therefore kept when freed, by size (rounded up to 4 KiB, or to 2 MiB huge pages from 4 MiB
// on, advised to be backed by them), and handed out again; at most kMaxCachedHostBytes are
// kept, the least recently freed going back to the system first. Thread-safe.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_HOST_BLOCKS_H_
#define GPUC_IR_HOST_BLOCKS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace gpuc::ir {

/// The most bytes of freed blocks kept for reuse.
inline constexpr size_t kMaxCachedHostBytes = size_t{256} << 20;

/// `bytes` of uninitialized host memory, 64-byte aligned.
std::shared_ptr<std::byte[]> AllocateHostBlock(size_t bytes);

/// Bytes held in freed blocks now.
size_t CachedHostBytes();

/// What the cache has done (blocks of 64 KiB or more only; smaller ones are malloc's).
struct HostBlockStats {
  size_t bytes_in_use = 0;   // handed out and not yet freed (rounded sizes)
  size_t bytes_cached = 0;   // freed, kept for reuse
  uint64_t allocations = 0;  // blocks handed out
  uint64_t cache_hits = 0;   // of them, served from the cache
};
HostBlockStats HostBlockStatistics();

/// Returns every cached block to the system.
void ReleaseCachedHostBlocks();

}  // namespace gpuc::ir

#endif  // GPUC_IR_HOST_BLOCKS_H_
