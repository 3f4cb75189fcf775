//===- memory_pool_gpu_test.cc - The caching pool on a real device --------===//
//
// Skips (with the reason) where there is no NVIDIA driver or device.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/cuda_driver.h"
#include "runtime/cuda_memory_backend.h"
#include "runtime/memory_pool.h"

namespace gpuc::runtime {
namespace {

class MemoryPoolGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<const CudaDriver*> driver = GetCudaDriver();
    if (!driver.ok()) GTEST_SKIP() << "no GPU: " << driver.status().message();
    driver_ = *driver;
    absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> backend = CreateCudaMemoryBackend(0);
    ASSERT_TRUE(backend.ok()) << backend.status();
    pool_ = std::make_unique<MemoryPool>(*std::move(backend));
    // The backend holds the primary context; the test's own driver calls need it current.
    Check(driver_->cuDeviceGet(&device_, 0), "cuDeviceGet");
    Check(driver_->cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    Check(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    Check(driver_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    Check(driver_->cuStreamCreate(&other_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  void TearDown() override {
    if (!driver_) return;
    pool_.reset();
    driver_->cuStreamDestroy(stream_);
    driver_->cuStreamDestroy(other_);
    driver_->cuDevicePrimaryCtxRelease(device_);
  }
  void Check(CUresult r, const char* call) {
    absl::Status s = CudaStatus(*driver_, r, call);
    ASSERT_TRUE(s.ok()) << s;
  }
  StreamId Id(CUstream s) { return reinterpret_cast<StreamId>(s); }

  const CudaDriver* driver_ = nullptr;
  std::unique_ptr<MemoryPool> pool_;
  CUstream stream_ = nullptr;
  CUstream other_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

TEST_F(MemoryPoolGpuTest, AllocatedMemoryIsWritableAndReusedFromTheCache) {
  constexpr size_t kBytes = 64 << 20;
  absl::StatusOr<uint64_t> a = pool_->Allocate(kBytes, Id(stream_));
  ASSERT_TRUE(a.ok()) << a.status();
  Check(driver_->cuMemsetD8Async(*a, 0x5a, kBytes, stream_), "cuMemsetD8Async");
  std::vector<unsigned char> host(4096, 0);  // poisoned with 0: the memset must overwrite it
  Check(driver_->cuMemcpyDtoHAsync(host.data(), *a + kBytes - host.size(), host.size(), stream_),
        "cuMemcpyDtoHAsync");
  Check(driver_->cuStreamSynchronize(stream_), "cuStreamSynchronize");
  for (unsigned char byte : host) ASSERT_EQ(byte, 0x5a);
  ASSERT_TRUE(pool_->Free(*a).ok());
  absl::StatusOr<uint64_t> b = pool_->Allocate(kBytes, Id(stream_));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, *a);
  EXPECT_EQ(pool_->stats().device_allocations, 1u);
  ASSERT_TRUE(pool_->Free(*b).ok());
}

TEST_F(MemoryPoolGpuTest, CrossStreamUseWaitsForTheOtherStream) {
  absl::StatusOr<uint64_t> a = pool_->Allocate(1 << 20, Id(stream_));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(pool_->RecordStreamUse(*a, Id(other_)).ok());
  Check(driver_->cuMemsetD8Async(*a, 1, 1 << 20, other_), "cuMemsetD8Async");
  ASSERT_TRUE(pool_->Free(*a).ok());
  Check(driver_->cuStreamSynchronize(other_), "cuStreamSynchronize");
  // The event on `other_` has completed now, so the block is reused.
  absl::StatusOr<uint64_t> b = pool_->Allocate(1 << 20, Id(stream_));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, *a);
}

TEST_F(MemoryPoolGpuTest, OutOfMemoryIsAClearErrorAndThePoolStaysUsable) {
  absl::StatusOr<uint64_t> huge = pool_->Allocate(size_t{1} << 50, Id(stream_));  // 1 PiB
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted) << huge.status();
  EXPECT_NE(huge.status().message().find("asked for"), std::string::npos) << huge.status();
  EXPECT_NE(huge.status().message().find("the device reports"), std::string::npos);
  EXPECT_TRUE(pool_->Allocate(4096, Id(stream_)).ok());
}

TEST(CudaDriver, DescribesDevicesOrWhyThereAreNone) {
  std::string text = DescribeCudaDevices();
  EXPECT_EQ(text.rfind("cuda: ", 0), 0u) << text;
  if (GetCudaDriver().ok()) {
    EXPECT_NE(text.find("cuda:0 "), std::string::npos) << text;
  } else {
    EXPECT_NE(text.find("unavailable ("), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace gpuc::runtime
