//===- stream_api_test.cc - gpuc::Stream and gpuc::Event on the host ------===//
//
// Runs where there is no GPU (CI): the host device's streams and events behave as documented
// in gpuc/stream.h, and device errors are gpuc::Error that leave the thread usable.
//
//===----------------------------------------------------------------------===//
#include "gpuc/gpuc.h"
#include "gpuc/memory.h"
#include "gpuc/stream.h"

#include <gtest/gtest.h>

#include "runtime/cuda_driver.h"

namespace gpuc {
namespace {

class HostStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (runtime::GetCudaDriver().ok()) GTEST_SKIP() << "a GPU is present; see test/gpu";
    set_device("host");
  }
};

TEST_F(HostStreamTest, StreamsAreIdleAndGuardsChangeTheCurrentOne) {
  EXPECT_EQ(current_device(), "host");
  Stream a, b;
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.device(), "host");
  Stream before = Stream::current();
  EXPECT_TRUE(before == Stream::current()) << "the default stream is one stream";
  {
    StreamGuard guard(a);
    EXPECT_TRUE(Stream::current() == a);
    {
      StreamGuard inner(b);
      EXPECT_TRUE(Stream::current() == b);
    }
    EXPECT_TRUE(Stream::current() == a);
  }
  EXPECT_TRUE(Stream::current() == before);
  a.synchronize();
}

TEST_F(HostStreamTest, EventsCompleteWhenRecordedAndMeasureTime) {
  Event start(/*timing=*/true), end(/*timing=*/true);
  start.record();
  end.record(Stream::current());
  EXPECT_TRUE(start.query());
  end.synchronize();
  EXPECT_GE(Event::elapsed_ms(start, end), 0.0f);
  Stream other;
  other.wait(end);
  Event untimed;
  untimed.record();
  try {
    Event::elapsed_ms(start, untimed);
    FAIL() << "elapsed_ms of an untimed event must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "invalid_argument");
    EXPECT_NE(std::string(e.what()).find("timing events"), std::string::npos) << e.what();
  }
}

TEST_F(HostStreamTest, DeviceErrorsThrowAndLeaveTheThreadUsable) {
  try {
    set_device("cuda:0");
    FAIL() << "there is no CUDA device here";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "unavailable");
    EXPECT_NE(std::string(e.what()).find("libcuda.so.1"), std::string::npos) << e.what();
  }
  try {
    set_device("gpu7");
    FAIL() << "not a device name";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "invalid_argument");
    EXPECT_NE(std::string(e.what()).find("use host, cuda or cuda:N"), std::string::npos);
  }
  EXPECT_EQ(current_device(), "host");
  Stream still_fine;
  still_fine.synchronize();
}

TEST_F(HostStreamTest, MemoryControlsAreHarmlessOnTheHost) {
  set_memory_limit(1 << 20);
  free_all_blocks();
  MemoryStats s = memory_stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.allocations, 0u);
  EXPECT_EQ(s.host_bytes_cached, 0u) << "free_all_blocks keeps no host blocks";
}

TEST_F(HostStreamTest, HostBlocksAreCountedAndReusedInALoop) {
  // A loop's per-step result of 2 MiB: the first step asks the system, the next ones reuse
  // the block the previous step freed.
  free_all_blocks();
  const MemoryStats before = memory_stats();
  Array x = arange(0.0, 262144.0) * 0.5;  // 2 MiB of float64
  x.eval();
  for (int i = 0; i < 5; ++i) {
    x = x + 1.0;
    x.eval();
  }
  const MemoryStats after = memory_stats();
  EXPECT_GE(after.host_allocations - before.host_allocations, 6u);
  EXPECT_GE(after.host_cache_hits - before.host_cache_hits, 4u);
  EXPECT_GE(after.host_bytes_in_use, size_t{2} << 20);
  EXPECT_EQ(x(0).item<double>(), 5.0);  // 0 * 0.5 + five steps of 1
}

}  // namespace
}  // namespace gpuc
