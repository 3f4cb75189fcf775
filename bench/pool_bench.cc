//===- pool_bench.cc - Host cost of the caching memory pool's policy ------===//
//
// A cached allocate+free pair must cost at most 1 us (issue 5). This measures the pool's own
// bookkeeping over a backend that does nothing, so it is the floor under the CUDA figure that
// the GPU benchmark reports. Run: build/bench/bench_pool
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include "runtime/memory_pool.h"

namespace gpuc::runtime {
namespace {

class NullBackend : public DeviceMemoryBackend {
 public:
  absl::StatusOr<uint64_t> Allocate(size_t bytes) override {
    uint64_t address = next_;
    next_ += bytes;
    return address;
  }
  void Free(uint64_t) override {}
  absl::StatusOr<EventId> RecordEvent(StreamId) override { return ++events_; }
  bool EventCompleted(EventId) override { return true; }
  void DestroyEvent(EventId) override {}
  absl::Status Synchronize() override { return absl::OkStatus(); }
  size_t DeviceFreeBytes() override { return 0; }

 private:
  uint64_t next_ = 1 << 20;
  EventId events_ = 0;
};

void BM_CachedAllocateFree(benchmark::State& state) {
  MemoryPool pool(std::make_unique<NullBackend>());
  const size_t bytes = static_cast<size_t>(state.range(0));
  // Keep some blocks live so that the free lists are not trivially empty.
  std::vector<uint64_t> live;
  for (int i = 0; i < 64; ++i) live.push_back(*pool.Allocate(bytes * (i % 7 + 1), 1));
  for (auto _ : state) {
    uint64_t a = *pool.Allocate(bytes, 1);
    benchmark::DoNotOptimize(a);
    (void)pool.Free(a);
  }
  for (uint64_t a : live) (void)pool.Free(a);
}
BENCHMARK(BM_CachedAllocateFree)->Arg(4096)->Arg(64 << 20);

}  // namespace
}  // namespace gpuc::runtime

BENCHMARK_MAIN();
