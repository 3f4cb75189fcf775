//===- fault_gpu_test.cc - An asynchronous fault becomes an error ---------===//
//
// Its own executable: a device fault poisons the CUDA context for the rest of the process, so
// it must not share a process with other GPU tests.
//
//===----------------------------------------------------------------------===//
#include "runtime/module.h"
#include "runtime/stream.h"
#include "test/gpu/gpu_test_util.h"

namespace gpuc::runtime {
namespace {

TEST(FaultGpuTest, IllegalAddressSurfacesAtSynchronizeWithTheKernelName) {
  GPUC_REQUIRE_CUDA_DEVICE(device);
  absl::StatusOr<std::unique_ptr<CudaModule>> module =
      CudaModule::LoadPtx(device, ReadSourceFile("test/gpu/kernels/test_kernels.ptx"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<CudaKernel> kernel = (*module)->GetKernel("write_through");
  ASSERT_TRUE(kernel.ok());
  absl::StatusOr<std::unique_ptr<CudaStream>> stream = CudaStream::Create(device);
  ASSERT_TRUE(stream.ok());
  uint64_t null_pointer = 0;
  void* args[] = {&null_pointer};
  ASSERT_TRUE(Launch(**stream, *kernel, {1}, {32}, 0, args).ok()) << "launching is asynchronous";
  absl::Status fault = (*stream)->Synchronize();
  ASSERT_FALSE(fault.ok());
  EXPECT_NE(fault.message().find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << fault;
  EXPECT_NE(fault.message().find("last kernels launched on this stream: write_through"),
            std::string::npos)
      << fault;
  // The process goes on: this line runs, and the error is an ordinary Status.
  SUCCEED();
}

}  // namespace
}  // namespace gpuc::runtime
