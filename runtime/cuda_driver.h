//===- cuda_driver.h - The CUDA driver API, resolved at run time ----------===//
//
// gpuc never links libcuda (ARCHITECTURE.md decision 7): the driver is opened with
// dlopen("libcuda.so.1") and its entry points are looked up once into a table. On a machine
// without a driver or device, GetCudaDriver() explains why in one line and gpuc runs on the
// host. Only the CUDA headers are needed to build.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_CUDA_DRIVER_H_
#define GPUC_RUNTIME_CUDA_DRIVER_H_

#include <cuda.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpuc::runtime {

/// Every driver entry point gpuc calls. cuda.h maps names to their current versions
/// (cuMemAlloc -> cuMemAlloc_v2), and the lookup uses the mapped name.
#define GPUC_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                           \
  X(cuDriverGetVersion)               \
  X(cuDeviceGetCount)                 \
  X(cuDeviceGet)                      \
  X(cuDeviceGetName)                  \
  X(cuDeviceGetAttribute)             \
  X(cuDeviceTotalMem)                 \
  X(cuDevicePrimaryCtxRetain)         \
  X(cuDevicePrimaryCtxRelease)        \
  X(cuCtxSetCurrent)                  \
  X(cuCtxSynchronize)                 \
  X(cuMemAlloc)                       \
  X(cuMemFree)                        \
  X(cuMemGetInfo)                     \
  X(cuMemAllocAsync)                  \
  X(cuMemFreeAsync)                   \
  X(cuMemsetD8Async)                  \
  X(cuMemsetD2D32Async)               \
  X(cuMemcpyHtoDAsync)                \
  X(cuMemcpyDtoHAsync)                \
  X(cuMemcpyDtoDAsync)                \
  X(cuMemcpy2DAsync)                  \
  X(cuStreamCreate)                   \
  X(cuStreamDestroy)                  \
  X(cuStreamSynchronize)              \
  X(cuStreamWaitEvent)                \
  X(cuEventCreate)                    \
  X(cuEventRecord)                    \
  X(cuEventQuery)                     \
  X(cuEventSynchronize)               \
  X(cuEventElapsedTime)               \
  X(cuEventDestroy)                   \
  X(cuModuleLoadDataEx)               \
  X(cuModuleUnload)                   \
  X(cuModuleGetFunction)              \
  X(cuFuncGetAttribute)               \
  X(cuFuncSetAttribute)               \
  X(cuFuncGetParamInfo)               \
  X(cuModuleGetGlobal)                \
  X(cuLaunchKernel)                   \
  X(cuMemHostAlloc)                   \
  X(cuMemFreeHost)                    \
  X(cuStreamBeginCapture)             \
  X(cuStreamIsCapturing)              \
  X(cuLinkCreate)                     \
  X(cuLinkAddData)                    \
  X(cuLinkComplete)                   \
  X(cuLinkDestroy)                    \
  X(cuStreamEndCapture)               \
  X(cuGraphInstantiate)               \
  X(cuGraphCreate)                    \
  X(cuGraphAddKernelNode)             \
  X(cuGraphExecKernelNodeSetParams)   \
  X(cuGraphLaunch)                    \
  X(cuGraphExecDestroy)               \
  X(cuGraphDestroy)                   \
  X(cuGetErrorName)                   \
  X(cuGetErrorString)

struct CudaDriver {
#define GPUC_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  GPUC_CUDA_DRIVER_FUNCTIONS(GPUC_CUDA_DRIVER_MEMBER)
#undef GPUC_CUDA_DRIVER_MEMBER
  int version = 0;  // e.g. 13000
  int device_count = 0;
};

/// The loaded and initialized driver with at least one device, or Unavailable with the one-line
/// reason (no libcuda.so.1, a missing entry point, cuInit failing, no devices, or
/// GPUC_DEVICE=host). Loaded once per process; thread-safe.
absl::StatusOr<const CudaDriver*> GetCudaDriver();

/// Ok for CUDA_SUCCESS; otherwise an error naming the call and the driver's error name and text.
absl::Status CudaStatus(const CudaDriver& driver, CUresult result, absl::string_view call);

/// Facts read once per device, for launch sizing and `gpuc --info`.
struct CudaDeviceProperties {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  int l2_cache_bytes = 0;
  int clock_khz = 0;         // the SMs' peak clock
  int memory_clock_khz = 0;  // the memory's peak clock (data moves on both edges)
  int memory_bus_width_bits = 0;
  int shared_memory_per_block_optin = 0;
  size_t total_memory_bytes = 0;
};
absl::StatusOr<std::vector<CudaDeviceProperties>> QueryCudaDevices(const CudaDriver& driver);

/// One line per device, or the reason there is none, for `gpuc --info`.
std::string DescribeCudaDevices();

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_CUDA_DRIVER_H_
