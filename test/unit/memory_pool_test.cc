//===- memory_pool_test.cc - The caching pool's policy on a fake device ---===//
#include "runtime/memory_pool.h"

#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

namespace gpuc::runtime {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

/// A device with `capacity` bytes, whose events complete only when the test says so (or on
/// Synchronize), and which records every call.
struct FakeDevice {
  size_t capacity = size_t{1} << 40;
  size_t used = 0;
  uint64_t next_address = 0x10000000;
  std::map<uint64_t, size_t> live;
  std::map<EventId, bool> events;  // completed?
  std::map<EventId, StreamId> event_streams;
  EventId next_event = 1;
  int synchronizes = 0;
  StreamId capturing = 0;  // a stream in graph capture, or 0
};

class FakeBackend : public DeviceMemoryBackend {
 public:
  explicit FakeBackend(FakeDevice* device) : d_(device) {}
  absl::StatusOr<uint64_t> Allocate(size_t bytes) override {
    if (d_->used + bytes > d_->capacity) return absl::ResourceExhaustedError("fake device full");
    uint64_t address = d_->next_address;
    d_->next_address += bytes + 4096;  // gaps catch arithmetic that strays between segments
    d_->live[address] = bytes;
    d_->used += bytes;
    return address;
  }
  void Free(uint64_t address) override {
    ASSERT_TRUE(d_->live.count(address)) << "double or foreign free";
    d_->used -= d_->live[address];
    d_->live.erase(address);
  }
  absl::StatusOr<EventId> RecordEvent(StreamId stream) override {
    EventId e = d_->next_event++;
    d_->events[e] = false;
    d_->event_streams[e] = stream;
    return e;
  }
  bool EventCompleted(EventId event) override { return d_->events.at(event); }
  void DestroyEvent(EventId event) override { d_->events.erase(event); }
  absl::Status Synchronize() override {
    ++d_->synchronizes;
    for (auto& [id, done] : d_->events) done = true;
    return absl::OkStatus();
  }
  size_t DeviceFreeBytes() override { return d_->capacity - d_->used; }
  bool IsCapturing(StreamId stream) override { return stream == d_->capturing; }

 private:
  FakeDevice* d_;
};

class MemoryPoolTest : public ::testing::Test {
 protected:
  FakeDevice device;
  MemoryPool pool{std::make_unique<FakeBackend>(&device)};
};

TEST_F(MemoryPoolTest, SmallAllocationsShareASegmentAndAreReused) {
  uint64_t a = *pool.Allocate(1000, 1);
  uint64_t b = *pool.Allocate(1000, 1);
  EXPECT_EQ(device.live.size(), 1u) << "both from one 2 MiB segment";
  EXPECT_EQ(b, a + MemoryPool::RoundedSize(1000));
  EXPECT_EQ(a % MemoryPool::kRoundBytes, 0u);
  ASSERT_TRUE(pool.Free(a).ok());
  uint64_t c = *pool.Allocate(900, 1);
  EXPECT_EQ(c, a) << "the freed block is reused";
  PoolStats s = pool.stats();
  EXPECT_EQ(s.allocations, 3u);
  EXPECT_EQ(s.device_allocations, 1u);
  EXPECT_EQ(s.cache_hits, 2u);
  EXPECT_EQ(s.bytes_in_use, 2 * MemoryPool::RoundedSize(1000));
  EXPECT_EQ(s.bytes_reserved, MemoryPool::kSmallSegmentBytes);
}

TEST_F(MemoryPoolTest, NeighboursMergeBackIntoOneSegment) {
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(*pool.Allocate(100 * 1024, 1));
  // Free in an interleaved order so that merges happen on both sides.
  for (int i : {1, 3, 0, 2, 7, 5, 6, 4}) ASSERT_TRUE(pool.Free(blocks[i]).ok());
  pool.FreeCachedBlocks();
  EXPECT_EQ(device.live.size(), 0u) << "a fully merged segment is released";
  EXPECT_EQ(pool.stats().bytes_reserved, 0u);
}

TEST_F(MemoryPoolTest, BestFitPicksTheSmallestBlockThatFits) {
  uint64_t big = *pool.Allocate(8 * kMiB, 1);
  uint64_t mid = *pool.Allocate(4 * kMiB, 1);
  ASSERT_TRUE(pool.Free(big).ok());
  ASSERT_TRUE(pool.Free(mid).ok());
  EXPECT_EQ(*pool.Allocate(3 * kMiB, 1), mid);
  EXPECT_EQ(*pool.Allocate(5 * kMiB, 1), big);
}

TEST_F(MemoryPoolTest, LargeBlocksSplitOnlyIntoLargeRemainders) {
  uint64_t a = *pool.Allocate(10 * kMiB, 1);
  ASSERT_TRUE(pool.Free(a).ok());
  // 10 MiB - 9.5 MiB leaves 0.5 MiB: not split, the whole block is handed out.
  uint64_t b = *pool.Allocate(9 * kMiB + kMiB / 2, 1);
  EXPECT_EQ(b, a);
  EXPECT_EQ(pool.stats().bytes_in_use, 10 * kMiB);
  ASSERT_TRUE(pool.Free(b).ok());
  // 10 MiB - 4 MiB leaves 6 MiB: split, and the rest serves the next request.
  uint64_t c = *pool.Allocate(4 * kMiB, 1);
  uint64_t d = *pool.Allocate(6 * kMiB, 1);
  EXPECT_EQ(c, a);
  EXPECT_EQ(d, a + 4 * kMiB);
  EXPECT_EQ(device.live.size(), 1u);
}

TEST_F(MemoryPoolTest, FreeListsArePerStream) {
  uint64_t a = *pool.Allocate(4096, /*stream=*/1);
  ASSERT_TRUE(pool.Free(a).ok());
  uint64_t b = *pool.Allocate(4096, /*stream=*/2);
  EXPECT_NE(b, a) << "a block freed on stream 1 is not reused on stream 2";
  EXPECT_EQ(*pool.Allocate(4096, 1), a);
}

TEST_F(MemoryPoolTest, CrossStreamUseDelaysReuseUntilTheEventCompletes) {
  uint64_t a = *pool.Allocate(4096, 1);
  ASSERT_TRUE(pool.RecordStreamUse(a, 2).ok());
  ASSERT_TRUE(pool.RecordStreamUse(a, 1).ok());  // the owning stream needs no event
  ASSERT_TRUE(pool.Free(a).ok());
  ASSERT_EQ(device.events.size(), 1u);
  EXPECT_EQ(device.event_streams.begin()->second, 2u) << "the event is on the using stream";
  uint64_t b = *pool.Allocate(4096, 1);
  EXPECT_NE(b, a) << "stream 2 may still read the block";
  device.events.begin()->second = true;  // stream 2 reaches the event
  uint64_t c = *pool.Allocate(4096, 1);
  EXPECT_EQ(c, a);
  EXPECT_TRUE(device.events.empty()) << "completed events are destroyed";
}

TEST_F(MemoryPoolTest, LimitCapsReservedBytes) {
  pool.SetLimit(16 * kMiB);
  uint64_t a = *pool.Allocate(10 * kMiB, 1);
  absl::StatusOr<uint64_t> b = pool.Allocate(8 * kMiB, 1);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(pool.Free(a).ok());
  // The ladder releases the cached 10 MiB segment, then the 8 MiB request fits.
  EXPECT_TRUE(pool.Allocate(8 * kMiB, 2).ok());
  EXPECT_LE(pool.stats().bytes_reserved, 16 * kMiB);
}

TEST_F(MemoryPoolTest, OutOfMemoryLadderFreesCacheThenSynchronizesThenFails) {
  device.capacity = 32 * kMiB;
  uint64_t a = *pool.Allocate(20 * kMiB, 1);
  ASSERT_TRUE(pool.Free(a).ok());
  // Rung 1: the cached 20 MiB segment goes back to the device, then 24 MiB fits.
  uint64_t b = *pool.Allocate(24 * kMiB, 2);
  EXPECT_EQ(device.synchronizes, 0);
  // Rung 2: a block freed with a pending cross-stream use becomes reusable after a sync.
  ASSERT_TRUE(pool.RecordStreamUse(b, 3).ok());
  ASSERT_TRUE(pool.Free(b).ok());
  EXPECT_TRUE(pool.Allocate(24 * kMiB, 2).ok());
  EXPECT_EQ(device.synchronizes, 1);
  // Rung 3: nothing left to give back; the error names the sizes.
  absl::StatusOr<uint64_t> c = pool.Allocate(16 * kMiB, 2);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("asked for 16777216 bytes (16.0 MiB)"), std::string::npos)
      << c.status();
  EXPECT_NE(c.status().message().find("in use"), std::string::npos);
  EXPECT_EQ(pool.stats().out_of_memory, 1u);
  // The pool is still usable after the error.
  EXPECT_TRUE(pool.Allocate(1024, 2).ok());
}

TEST_F(MemoryPoolTest, BadFreesAreErrorsNotCrashes) {
  uint64_t a = *pool.Allocate(100, 1);
  ASSERT_TRUE(pool.Free(a).ok());
  absl::Status twice = pool.Free(a);
  EXPECT_EQ(twice.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(twice.message().find("freed twice"), std::string::npos);
  EXPECT_FALSE(pool.Free(12345).ok());
  EXPECT_FALSE(pool.RecordStreamUse(12345, 2).ok());
  EXPECT_FALSE(pool.Allocate(~size_t{0}, 1).ok());
}

TEST_F(MemoryPoolTest, NoAllocationOnAStreamInGraphCapture) {
  uint64_t cached = *pool.Allocate(4096, 1);
  ASSERT_TRUE(pool.Free(cached).ok());
  device.capturing = 1;
  absl::StatusOr<uint64_t> inside = pool.Allocate(4096, 1);
  ASSERT_FALSE(inside.ok()) << "not even a cache hit: the graph would keep a reusable block";
  EXPECT_EQ(inside.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(pool.Allocate(4096, 2).ok()) << "other streams are not affected";
  device.capturing = 0;
  EXPECT_EQ(*pool.Allocate(4096, 1), cached);
}

TEST_F(MemoryPoolTest, ZeroBytesGetsAUniqueAddress) {
  uint64_t a = *pool.Allocate(0, 1);
  uint64_t b = *pool.Allocate(0, 1);
  EXPECT_NE(a, b);
}

TEST_F(MemoryPoolTest, RandomWorkloadKeepsBlocksDisjointAndReturnsAllMemory) {
  // Random allocate/free/cross-stream traffic: live blocks never overlap, in-use bytes cover
  // what was asked, and after freeing everything the pool gives all memory back.
  std::mt19937_64 rng(std::random_device{}());
  std::map<uint64_t, std::pair<size_t, StreamId>> live;  // address -> (size, stream)
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      size_t bytes = rng() % 4 == 0 ? rng() % (12 * kMiB) : rng() % 65536;
      StreamId stream = 1 + rng() % 3;
      absl::StatusOr<uint64_t> a = pool.Allocate(bytes, stream);
      ASSERT_TRUE(a.ok()) << a.status();
      size_t size = MemoryPool::RoundedSize(bytes);
      auto next = live.lower_bound(*a);
      if (next != live.end()) {
        ASSERT_LE(*a + size, next->first) << "overlaps the next block";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.first, *a) << "overlaps the previous block";
      }
      live[*a] = {size, stream};
      if (rng() % 5 == 0) {
        ASSERT_TRUE(pool.RecordStreamUse(*a, 1 + rng() % 3).ok());
      }
    } else {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      ASSERT_TRUE(pool.Free(it->first).ok());
      live.erase(it);
    }
    if (rng() % 50 == 0) {
      for (auto& [id, done] : device.events) done = done || rng() % 2;
    }
  }
  size_t in_use = pool.stats().bytes_in_use;
  size_t model = 0;
  for (auto& [address, entry] : live) model += entry.first;
  EXPECT_GE(in_use, model) << "blocks may be larger than asked (unsplit remainders), never smaller";
  for (auto& [address, entry] : live) ASSERT_TRUE(pool.Free(address).ok());
  EXPECT_EQ(pool.stats().bytes_in_use, 0u);
  for (auto& [id, done] : device.events) done = true;
  pool.FreeCachedBlocks();
  EXPECT_EQ(pool.stats().bytes_reserved, 0u);
  EXPECT_TRUE(device.live.empty()) << "every segment went back to the device";
}

}  // namespace
}  // namespace gpuc::runtime
