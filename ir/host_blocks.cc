//===- host_blocks.cc - Large host buffers, reused ------------------------===//
#include "ir/host_blocks.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <list>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace gpuc::ir {
namespace {

constexpr size_t kSmallest = size_t{64} << 10;  // smaller blocks come from malloc's own bins
constexpr size_t kPage = 4096;
// Blocks this large are aligned to and rounded up to huge pages, and advised to be backed by
// them (the kernel's transparent huge pages in "madvise" mode, Debian's default): a fresh
// 200 MB result faults 100 times instead of 49k.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeFrom = size_t{4} << 20;

size_t RoundedSize(size_t bytes) {
  const size_t unit = bytes >= kHugeFrom ? kHugePage : kPage;
  return (bytes + unit - 1) / unit * unit;
}

void* FreshBlock(size_t bytes) {
  void* block = nullptr;
  const size_t alignment = bytes >= kHugeFrom ? kHugePage : 64;
  if (posix_memalign(&block, alignment, bytes) != 0) throw std::bad_alloc();
  if (bytes >= kHugeFrom) madvise(block, bytes, MADV_HUGEPAGE);  // advice: failure is harmless
  return block;
}

// Freed blocks by size, the least recently freed evicted first when a newly freed block would
// pass the cap: a program that moves on to other sizes keeps reusing its current ones (an
// exact-size cache that refused new blocks when full kept the sizes of programs long gone).
class BlockCache {
 public:
  void* Take(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++allocations_;
      in_use_ += bytes;
      auto it = free_.find(bytes);
      if (it != free_.end() && !it->second.empty()) {
        std::list<Entry>::iterator entry = it->second.back();
        it->second.pop_back();
        void* block = entry->block;
        lru_.erase(entry);
        cached_ -= bytes;
        ++hits_;
        return block;
      }
    }
    try {
      return FreshBlock(bytes);
    } catch (const std::bad_alloc&) {
      std::lock_guard<std::mutex> lock(mutex_);
      --allocations_;
      in_use_ -= bytes;
      throw;
    }
  }
  void Give(void* block, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      in_use_ -= bytes;
    }
    if (bytes > kMaxCachedHostBytes) {
      std::free(block);
      return;
    }
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (cached_ + bytes > kMaxCachedHostBytes && !lru_.empty()) {
        const Entry oldest = lru_.front();
        std::vector<std::list<Entry>::iterator>& same = free_[oldest.bytes];
        same.erase(std::find(same.begin(), same.end(), lru_.begin()));
        lru_.pop_front();
        cached_ -= oldest.bytes;
        evicted.push_back(oldest.block);
      }
      lru_.push_back({bytes, block});
      free_[bytes].push_back(std::prev(lru_.end()));
      cached_ += bytes;
    }
    for (void* b : evicted) std::free(b);  // unmapping outside the lock
  }
  size_t cached() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }
  HostBlockStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {in_use_, cached_, allocations_, hits_};
  }
  void Release() {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const Entry& e : lru_) blocks.push_back(e.block);
      lru_.clear();
      free_.clear();
      cached_ = 0;
    }
    for (void* b : blocks) std::free(b);
  }

 private:
  struct Entry {
    size_t bytes;
    void* block;
  };
  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // least recently freed first
  absl::flat_hash_map<size_t, std::vector<std::list<Entry>::iterator>> free_;
  size_t cached_ = 0;
  size_t in_use_ = 0;
  uint64_t allocations_ = 0, hits_ = 0;
};

BlockCache& Cache() {
  static BlockCache* cache = new BlockCache;  // never destroyed: blocks are freed at exit
  return *cache;
}

}  // namespace

std::shared_ptr<std::byte[]> AllocateHostBlock(size_t bytes) {
  if (bytes < kSmallest) return std::make_shared_for_overwrite<std::byte[]>(bytes);
  const size_t rounded = RoundedSize(bytes);
  void* block = Cache().Take(rounded);
  return std::shared_ptr<std::byte[]>(static_cast<std::byte*>(block),
                                      [rounded](std::byte* p) { Cache().Give(p, rounded); });
}

size_t CachedHostBytes() { return Cache().cached(); }

HostBlockStats HostBlockStatistics() { return Cache().stats(); }

void ReleaseCachedHostBlocks() { Cache().Release(); }

}  // namespace gpuc::ir
