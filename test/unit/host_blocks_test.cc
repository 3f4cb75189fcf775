//===- host_blocks_test.cc - The host block cache: reuse, eviction, huge pages ===//
#include "ir/host_blocks.h"

#include <cstring>

#include <gtest/gtest.h>

namespace gpuc::ir {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(HostBlocksTest, AFreedBlockIsHandedOutAgainForTheSameSize) {
  const size_t size = 3 * kMiB + 123;
  void* first;
  {
    std::shared_ptr<std::byte[]> a = AllocateHostBlock(size);
    first = a.get();
    std::memset(a.get(), 1, size);  // writable over its whole size
  }
  std::shared_ptr<std::byte[]> b = AllocateHostBlock(size);
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.get()) % 64, 0u);
}

TEST(HostBlocksTest, HugeBlocksAreAlignedToHugePages) {
  std::shared_ptr<std::byte[]> a = AllocateHostBlock(9 * kMiB);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.get()) % (2 * kMiB), 0u);
  std::memset(a.get(), 2, 9 * kMiB);
}

TEST(HostBlocksTest, PastTheCapTheLeastRecentlyFreedBlockIsEvicted) {
  // Three blocks of distinct sizes that together pass the cap: freeing the third evicts the
  // first, not the newcomer.
  const size_t size = kMaxCachedHostBytes * 2 / 5;
  const size_t sizes[] = {size, size + 4 * kMiB, size + 8 * kMiB};
  void* addresses[3];
  {
    std::shared_ptr<std::byte[]> blocks[3];
    for (int i = 0; i < 3; ++i) {
      blocks[i] = AllocateHostBlock(sizes[i]);
      addresses[i] = blocks[i].get();
    }
    for (auto& b : blocks) b.reset();  // freed in order 0, 1, 2
  }
  EXPECT_LE(CachedHostBytes(), kMaxCachedHostBytes);
  std::shared_ptr<std::byte[]> newest = AllocateHostBlock(sizes[2]);
  EXPECT_EQ(newest.get(), addresses[2]) << "the last freed block was not kept";
  std::shared_ptr<std::byte[]> middle = AllocateHostBlock(sizes[1]);
  EXPECT_EQ(middle.get(), addresses[1]);
}

}  // namespace
}  // namespace gpuc::ir
