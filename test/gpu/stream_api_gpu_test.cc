//===- stream_api_gpu_test.cc - gpuc::Stream and gpuc::Event on a GPU ------===//
#include <gtest/gtest.h>

#include "gpuc/memory.h"
#include "gpuc/stream.h"
#include "runtime/cuda_driver.h"
#include "runtime/device.h"

namespace gpuc {
namespace {

TEST(StreamApiGpuTest, StreamsEventsAndGuardsOnCuda) {
  if (absl::StatusOr<const runtime::CudaDriver*> d = runtime::GetCudaDriver(); !d.ok()) {
    GTEST_SKIP() << "no GPU: " << d.status().message();
  }
  set_device("cuda:0");
  EXPECT_EQ(current_device(), "cuda:0");
  Stream work;
  EXPECT_EQ(work.device(), "cuda:0");
  Stream before = Stream::current();
  EXPECT_TRUE(before == Stream::current());
  Event start(true), done(true);
  {
    StreamGuard guard(work);
    EXPECT_TRUE(Stream::current() == work);
    start.record();
    done.record();
  }
  EXPECT_TRUE(Stream::current() == before);
  before.wait(done);
  before.synchronize();
  EXPECT_TRUE(done.query());
  EXPECT_GE(Event::elapsed_ms(start, done), 0.0f);
  try {
    set_device("cuda:99");
    FAIL() << "cuda:99 does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "invalid_argument");
    EXPECT_NE(std::string(e.what()).find("cuda:99 does not exist"), std::string::npos) << e.what();
  }
  EXPECT_EQ(current_device(), "cuda:0");
  // An event of one device cannot be waited on by a stream of another.
  set_device("host");
  Stream host_stream;
  EXPECT_THROW(host_stream.wait(done), Error);
}

TEST(StreamApiGpuTest, MemoryStatisticsAndControls) {
  if (absl::StatusOr<const runtime::CudaDriver*> d = runtime::GetCudaDriver(); !d.ok()) {
    GTEST_SKIP() << "no GPU: " << d.status().message();
  }
  set_device("cuda:0");
  runtime::MemoryPool& pool = (*runtime::CudaDevice::Get(0))->memory_pool();
  uint64_t block = *pool.Allocate(32 << 20, 0);
  MemoryStats with_block = memory_stats();
  EXPECT_GE(with_block.bytes_in_use, size_t{32} << 20);
  EXPECT_GE(with_block.allocations, 1u);
  ASSERT_TRUE(pool.Free(block).ok());
  EXPECT_GE(memory_stats().bytes_cached, size_t{32} << 20) << "freed memory stays cached";
  free_all_blocks();
  EXPECT_LT(memory_stats().bytes_cached, size_t{32} << 20) << "free_all_blocks returns it";
  set_memory_limit(size_t{64} << 20);
  absl::StatusOr<uint64_t> too_big = pool.Allocate(size_t{128} << 20, 0);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted) << too_big.status();
  set_memory_limit(0);
  EXPECT_TRUE(pool.Allocate(size_t{128} << 20, 0).ok()) << "no cap any more";
}

}  // namespace
}  // namespace gpuc
