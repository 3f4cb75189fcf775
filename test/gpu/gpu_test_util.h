//===- gpu_test_util.h - Shared set-up of the GPU tests -------------------===//
#ifndef GPUC_TEST_GPU_GPU_TEST_UTIL_H_
#define GPUC_TEST_GPU_GPU_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/device.h"

namespace gpuc::runtime {

/// cuda:0, or skips the test with the reason there is none.
#define GPUC_REQUIRE_CUDA_DEVICE(device_var)                          \
  absl::StatusOr<CudaDevice*> device_var##_or = CudaDevice::Get(0);   \
  if (!device_var##_or.ok()) {                                        \
    GTEST_SKIP() << "no GPU: " << device_var##_or.status().message(); \
  }                                                                   \
  CudaDevice& device_var = **device_var##_or

/// The text of a file under the source tree (GPUC_SOURCE_DIR overrides the build's path).
inline std::string ReadSourceFile(const std::string& relative) {
  const char* dir = std::getenv("GPUC_SOURCE_DIR");
  std::ifstream in(std::string(dir ? dir : GPUC_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpuc::runtime

#endif  // GPUC_TEST_GPU_GPU_TEST_UTIL_H_
