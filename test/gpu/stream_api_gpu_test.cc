//===- stream_api_gpu_test.cc - gpuc::Stream and gpuc::Event on a GPU ------===//
#include <gtest/gtest.h>

#include "gpuc/stream.h"
#include "runtime/cuda_driver.h"

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

}  // namespace
}  // namespace gpuc
