//===- device.cc - Device selection and the per-device CUDA state ---------===//
#include "runtime/device.h"

#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "runtime/cuda_memory_backend.h"

namespace gpuc::runtime {

std::string DeviceSpec::ToString() const {
  return kind == DeviceKind::kHost ? "host" : absl::StrCat("cuda:", ordinal);
}

absl::StatusOr<DeviceSpec> ParseDeviceSpec(absl::string_view text) {
  if (text == "host") return DeviceSpec{DeviceKind::kHost, 0};
  if (text == "cuda") return DeviceSpec{DeviceKind::kCuda, 0};
  int ordinal = -1;
  absl::string_view number = text;
  if (absl::ConsumePrefix(&number, "cuda:") && absl::SimpleAtoi(number, &ordinal) && ordinal >= 0) {
    return DeviceSpec{DeviceKind::kCuda, ordinal};
  }
  return absl::InvalidArgumentError(
      absl::StrCat("'", text, "' is not a device: use host, cuda or cuda:N"));
}

absl::StatusOr<DeviceSpec> DefaultDeviceSpec(absl::string_view requested) {
  if (!requested.empty()) {
    absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(requested);
    if (!spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the device (GPUC_DEVICE): ", spec.status().message()));
    }
    return spec;
  }
  return GetCudaDriver().ok() ? DeviceSpec{DeviceKind::kCuda, 0} : DeviceSpec{DeviceKind::kHost, 0};
}

absl::StatusOr<CudaDevice*> CudaDevice::Get(int ordinal) {
  static std::mutex mutex;
  static auto* devices = new absl::flat_hash_map<int, std::unique_ptr<CudaDevice>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = devices->find(ordinal); it != devices->end()) return it->second.get();
  absl::StatusOr<const CudaDriver*> driver = GetCudaDriver();
  if (!driver.ok()) return driver.status();
  absl::StatusOr<std::vector<CudaDeviceProperties>> all = QueryCudaDevices(**driver);
  if (!all.ok()) return all.status();
  if (ordinal < 0 || ordinal >= static_cast<int>(all->size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cuda:", ordinal, " does not exist (", all->size(), " device(s))"));
  }
  auto device = std::unique_ptr<CudaDevice>(new CudaDevice);
  device->driver_ = *driver;
  device->properties_ = (*all)[ordinal];
  CUdevice handle;
  const CudaDriver& d = **driver;
  if (absl::Status s = CudaStatus(d, d.cuDeviceGet(&handle, ordinal), "cuDeviceGet"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CudaStatus(d, d.cuDevicePrimaryCtxRetain(&device->context_, handle),
                                  "cuDevicePrimaryCtxRetain");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> memory = CreateCudaMemoryBackend(ordinal);
  if (!memory.ok()) return memory.status();
  absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> pinned = CreatePinnedHostBackend(ordinal);
  if (!pinned.ok()) return pinned.status();
  device->memory_pool_ = std::make_unique<MemoryPool>(*std::move(memory));
  device->pinned_pool_ = std::make_unique<MemoryPool>(*std::move(pinned));
  CudaDevice* result = device.get();
  (*devices)[ordinal] = std::move(device);
  return result;
}

absl::Status CudaDevice::MakeCurrent() const {
  return Check(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

}  // namespace gpuc::runtime
