//===- device_test.cc - Device selection without a GPU ---------------------===//
#include "runtime/device.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "lib/exec/options.h"

namespace gpuc::runtime {
namespace {

TEST(DeviceSpec, ParsesHostAndCudaOrdinals) {
  EXPECT_EQ(*ParseDeviceSpec("host"), (DeviceSpec{DeviceKind::kHost, 0}));
  EXPECT_EQ(*ParseDeviceSpec("cuda"), (DeviceSpec{DeviceKind::kCuda, 0}));
  EXPECT_EQ(*ParseDeviceSpec("cuda:3"), (DeviceSpec{DeviceKind::kCuda, 3}));
  EXPECT_EQ(ParseDeviceSpec("cuda:3")->ToString(), "cuda:3");
  for (const char* bad : {"gpu", "cuda:", "cuda:-1", "cuda:x", ""}) {
    absl::StatusOr<DeviceSpec> s = ParseDeviceSpec(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("use host, cuda or cuda:N"), std::string::npos);
  }
}

// The device the execution options read from the environment (GPUC_DEVICE), as evaluation
// chooses it.
absl::StatusOr<DeviceSpec> DefaultFromEnvironment() {
  return DefaultDeviceSpec(exec::Options::FromEnvironment().device);
}

TEST(DeviceSpec, DefaultFollowsGpucDeviceThenTheDriver) {
  ASSERT_EQ(setenv("GPUC_DEVICE", "host", 1), 0);
  EXPECT_EQ(DefaultFromEnvironment()->kind, DeviceKind::kHost);
  ASSERT_EQ(setenv("GPUC_DEVICE", "cuda:1", 1), 0);
  EXPECT_EQ(*DefaultFromEnvironment(), (DeviceSpec{DeviceKind::kCuda, 1}));
  ASSERT_EQ(setenv("GPUC_DEVICE", "tpu", 1), 0);
  absl::StatusOr<DeviceSpec> bad = DefaultFromEnvironment();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("GPUC_DEVICE"), std::string::npos);
  ASSERT_EQ(unsetenv("GPUC_DEVICE"), 0);
  // Without the variable: cuda:0 exactly when a driver with a device is present.
  EXPECT_EQ(DefaultFromEnvironment()->kind,
            GetCudaDriver().ok() ? DeviceKind::kCuda : DeviceKind::kHost);
}

TEST(CudaDevice, WithoutADriverGetSaysWhy) {
  if (GetCudaDriver().ok()) GTEST_SKIP() << "a driver is present";
  absl::StatusOr<CudaDevice*> device = CudaDevice::Get(0);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(device.status().message().find("libcuda.so.1"), std::string::npos) << device.status();
}

}  // namespace
}  // namespace gpuc::runtime
