//===- cuda_driver.cc - The CUDA driver API, resolved at run time ---------===//
#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpuc::runtime {
namespace {

#define GPUC_STRINGIFY_EXPANDED(x) GPUC_STRINGIFY(x)
#define GPUC_STRINGIFY(x) #x

absl::StatusOr<CudaDriver> LoadDriver() {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("no NVIDIA driver: dlopen(libcuda.so.1) failed: ", dlerror()));
  }
  CudaDriver driver;
#define GPUC_CUDA_DRIVER_LOOKUP(name)                                                           \
  driver.name =                                                                                 \
      reinterpret_cast<decltype(driver.name)>(dlsym(library, GPUC_STRINGIFY_EXPANDED(name)));   \
  if (driver.name == nullptr) {                                                                 \
    return absl::UnavailableError(                                                              \
        absl::StrCat("the NVIDIA driver lacks ", GPUC_STRINGIFY_EXPANDED(name), ": too old?")); \
  }
  GPUC_CUDA_DRIVER_FUNCTIONS(GPUC_CUDA_DRIVER_LOOKUP)
#undef GPUC_CUDA_DRIVER_LOOKUP
  if (CUresult r = driver.cuInit(0); r != CUDA_SUCCESS) {
    return absl::UnavailableError(
        absl::StrCat("cuInit failed: ", CudaStatus(driver, r, "cuInit").message()));
  }
  driver.cuDriverGetVersion(&driver.version);
  if (CUresult r = driver.cuDeviceGetCount(&driver.device_count); r != CUDA_SUCCESS) {
    return absl::UnavailableError(CudaStatus(driver, r, "cuDeviceGetCount").message());
  }
  if (driver.device_count == 0) {
    return absl::UnavailableError("the NVIDIA driver reports no CUDA devices");
  }
  return driver;
}

}  // namespace

absl::StatusOr<const CudaDriver*> GetCudaDriver() {
  // Loaded once; a failure is remembered too, so that every query gives the same reason.
  static const absl::StatusOr<CudaDriver>* loaded = new absl::StatusOr<CudaDriver>(LoadDriver());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::Status CudaStatus(const CudaDriver& driver, CUresult result, absl::string_view call) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  driver.cuGetErrorName(result, &name);
  driver.cuGetErrorString(result, &text);
  std::string message =
      absl::StrCat(call, " failed: ", name ? name : "unknown CUDA error", " (",
                   static_cast<int>(result), ")", text ? ": " : "", text ? text : "");
  if (result == CUDA_ERROR_OUT_OF_MEMORY) return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

absl::StatusOr<std::vector<CudaDeviceProperties>> QueryCudaDevices(const CudaDriver& driver) {
  std::vector<CudaDeviceProperties> devices;
  for (int i = 0; i < driver.device_count; ++i) {
    CUdevice device;
    if (absl::Status s = CudaStatus(driver, driver.cuDeviceGet(&device, i), "cuDeviceGet");
        !s.ok()) {
      return s;
    }
    CudaDeviceProperties p;
    p.ordinal = i;
    char name[256] = {};
    driver.cuDeviceGetName(name, sizeof(name) - 1, device);
    p.name = name;
    struct {
      CUdevice_attribute attribute;
      int* value;
    } attributes[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &p.compute_capability_major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &p.compute_capability_minor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &p.multiprocessors},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &p.l2_cache_bytes},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &p.clock_khz},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &p.memory_clock_khz},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &p.memory_bus_width_bits},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &p.shared_memory_per_block_optin},
    };
    for (auto& a : attributes) {
      if (absl::Status s =
              CudaStatus(driver, driver.cuDeviceGetAttribute(a.value, a.attribute, device),
                         "cuDeviceGetAttribute");
          !s.ok()) {
        return s;
      }
    }
    driver.cuDeviceTotalMem(&p.total_memory_bytes, device);
    devices.push_back(std::move(p));
  }
  return devices;
}

std::string DescribeCudaDevices() {
  absl::StatusOr<const CudaDriver*> driver = GetCudaDriver();
  if (!driver.ok()) return absl::StrCat("cuda: unavailable (", driver.status().message(), ")\n");
  absl::StatusOr<std::vector<CudaDeviceProperties>> devices = QueryCudaDevices(**driver);
  if (!devices.ok()) return absl::StrCat("cuda: unavailable (", devices.status().message(), ")\n");
  std::string out = absl::StrFormat("cuda: driver %d.%d, %d device(s)\n", (*driver)->version / 1000,
                                    (*driver)->version % 1000 / 10, (*driver)->device_count);
  for (const CudaDeviceProperties& p : *devices) {
    absl::StrAppendFormat(&out, "  cuda:%d %s, sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB\n", p.ordinal,
                          p.name, p.compute_capability_major, p.compute_capability_minor,
                          p.multiprocessors, static_cast<double>(p.total_memory_bytes) / (1 << 30),
                          p.l2_cache_bytes >> 20);
  }
  return out;
}

}  // namespace gpuc::runtime
