//===- host_blocks.cc - Large host buffers, reused ------------------------===//
#include "ir/host_blocks.h"

#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace gpuc::ir {
namespace {

constexpr size_t kSmallest = size_t{64} << 10;  // smaller blocks come from malloc's own bins
constexpr size_t kPage = 4096;

class BlockCache {
 public:
  void* Take(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(bytes);
      if (it != free_.end() && !it->second.empty()) {
        void* block = it->second.back();
        it->second.pop_back();
        cached_ -= bytes;
        return block;
      }
    }
    void* block = std::aligned_alloc(64, bytes);
    if (block == nullptr) throw std::bad_alloc();
    return block;
  }
  void Give(void* block, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cached_ + bytes <= kMaxCachedHostBytes) {
        free_[bytes].push_back(block);
        cached_ += bytes;
        return;
      }
    }
    std::free(block);
  }
  size_t cached() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_;
  }

 private:
  mutable std::mutex mutex_;
  absl::flat_hash_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
};

BlockCache& Cache() {
  static BlockCache* cache = new BlockCache;  // never destroyed: blocks are freed at exit
  return *cache;
}

}  // namespace

std::shared_ptr<std::byte[]> AllocateHostBlock(size_t bytes) {
  if (bytes < kSmallest) return std::make_shared_for_overwrite<std::byte[]>(bytes);
  const size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  void* block = Cache().Take(rounded);
  return std::shared_ptr<std::byte[]>(static_cast<std::byte*>(block),
                                      [rounded](std::byte* p) { Cache().Give(p, rounded); });
}

size_t CachedHostBytes() { return Cache().cached(); }

}  // namespace gpuc::ir
