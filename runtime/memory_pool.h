//===- memory_pool.h - The stream-ordered caching device memory pool ------===//
//
// All device memory gpuc uses comes from one pool per device (ARCHITECTURE.md decision 7).
// Freed blocks are cached, not returned to the driver, and reused by later allocations on the
// same stream, which is safe without synchronization because work on one stream runs in order.
//
//  * Best fit with split and merge: a free block is found by (size, address); the remainder of
//    a split goes back to the free lists; neighbours in one segment merge when both are free.
//  * Per-stream free lists: a block freed on stream S is only reused on S.
//  * Cross-stream use: after RecordStreamUse(ptr, T), freeing the block records an event on T,
//    and the block is reused only once that event has completed.
//  * Statistics, a settable limit, FreeCachedBlocks(), and an out-of-memory ladder: free cached
//    blocks and retry, then synchronize, collect completed frees and retry, then fail with a
//    message naming the bytes asked, in use, cached and free on the device.
//
// Thread-safe: one mutex guards the pool (allocation is a few map operations under it).
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_MEMORY_POOL_H_
#define GPUC_RUNTIME_MEMORY_POOL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/device_memory_backend.h"

namespace gpuc::runtime {

struct PoolStats {
  size_t bytes_in_use = 0;    // handed out to callers (rounded sizes)
  size_t bytes_reserved = 0;  // held from the device, in use or cached
  size_t peak_bytes_in_use = 0;
  size_t peak_bytes_reserved = 0;
  uint64_t allocations = 0;  // successful Allocate calls
  uint64_t cache_hits = 0;   // allocations served without a device allocation
  uint64_t device_allocations = 0;
  uint64_t device_frees = 0;
  uint64_t out_of_memory = 0;  // allocations that failed after the whole ladder

  size_t bytes_cached() const { return bytes_reserved - bytes_in_use; }
  std::string ToString() const;
};

class MemoryPool {
 public:
  /// Allocations are rounded up to this many bytes: the alignment vector loads need and a
  /// granularity that keeps the free lists short.
  static constexpr size_t kRoundBytes = 512;
  /// Requests up to this size are "small" and carved out of kSmallSegmentBytes segments, so
  /// many small buffers cost one driver call; larger ones get a segment of their own.
  static constexpr size_t kSmallLimitBytes = size_t{1} << 20;
  static constexpr size_t kSmallSegmentBytes = size_t{2} << 20;
  /// Large segments are rounded to this granularity (the driver's own page size for large
  /// allocations), so that a slightly larger request later can reuse the same segment.
  static constexpr size_t kLargeSegmentRounding = size_t{2} << 20;
  /// A large block is split only when the remainder is itself large: splitting off small
  /// slivers of big segments is what fragments a pool over time.
  static constexpr size_t kMinLargeSplitRemainder = kSmallLimitBytes;

  explicit MemoryPool(std::unique_ptr<DeviceMemoryBackend> backend);
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  /// A block of at least `bytes` usable on `stream`. Zero bytes gives a valid, unique address.
  /// ResourceExhausted (naming the sizes) when the ladder cannot find room.
  absl::StatusOr<uint64_t> Allocate(size_t bytes, StreamId stream);
  /// Returns a block to the cache. InvalidArgument for an address the pool did not hand out.
  absl::Status Free(uint64_t address);
  /// Notes that `stream` (other than the allocating one) may use the block: its reuse waits
  /// for the work queued on `stream` at the time of the Free.
  absl::Status RecordStreamUse(uint64_t address, StreamId stream);

  /// Returns every fully free segment to the device (after collecting completed frees).
  void FreeCachedBlocks();
  /// Caps bytes_reserved; 0 means no limit. Lowering it frees cached segments as needed.
  void SetLimit(size_t bytes);
  size_t limit() const;

  PoolStats stats() const;
  /// The rounded size a request of `bytes` occupies.
  static size_t RoundedSize(size_t bytes);

 private:
  struct Block;
  struct Segment;
  struct BySizeThenAddress {
    bool operator()(const Block* a, const Block* b) const;
  };
  using FreeList = std::set<Block*, BySizeThenAddress>;

  /// The live block at `address`, or an error naming `operation` and the address.
  absl::StatusOr<Block*> FindAllocated(uint64_t address, absl::string_view operation) const;
  FreeList& FreeListFor(StreamId stream, bool small);
  Block* FindFreeBlock(size_t size, StreamId stream, bool small);
  absl::StatusOr<Block*> AllocateSegment(size_t size, StreamId stream, bool small);
  Block* SplitAndTake(Block* block, size_t size);
  void InsertFree(Block* block);
  void ProcessPendingFrees();
  size_t ReleaseFreeSegments();
  absl::Status OutOfMemory(size_t size);

  std::unique_ptr<DeviceMemoryBackend> backend_;
  mutable std::mutex mutex_;
  std::map<std::pair<StreamId, bool>, FreeList> free_lists_;
  absl::flat_hash_map<uint64_t, Block*> allocated_;  // address -> block handed out
  std::vector<std::unique_ptr<Segment>> segments_;
  struct PendingFree {
    Block* block;
    std::vector<EventId> events;
  };
  std::vector<PendingFree> pending_frees_;
  PoolStats stats_;
  size_t limit_ = 0;
};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_MEMORY_POOL_H_
