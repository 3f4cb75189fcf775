//===- cuda_memory_backend.cc - The memory pool's backend over the driver -===//
#include "runtime/cuda_memory_backend.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace gpuc::runtime {
namespace {

/// Events and synchronization, shared by the device-memory and pinned-host backends; both live
/// in one device's primary context, made current by each call because the pools may be used
/// from any host thread.
class CudaBackendBase : public DeviceMemoryBackend {
 public:
  CudaBackendBase(const CudaDriver* driver, CUdevice device, CUcontext context)
      : driver_(driver), device_(device), context_(context) {}
  ~CudaBackendBase() override { driver_->cuDevicePrimaryCtxRelease(device_); }

  absl::StatusOr<EventId> RecordEvent(StreamId stream) override {
    if (absl::Status s = MakeCurrent(); !s.ok()) return s;
    CUevent event = nullptr;
    if (absl::Status s =
            Check(driver_->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = Check(driver_->cuEventRecord(event, reinterpret_cast<CUstream>(stream)),
                               "cuEventRecord");
        !s.ok()) {
      driver_->cuEventDestroy(event);
      return s;
    }
    return reinterpret_cast<EventId>(event);
  }

  bool EventCompleted(EventId event) override {
    // CUDA_ERROR_NOT_READY means pending; any other error also keeps the block out of reuse
    // until the next synchronization reports it.
    return driver_->cuEventQuery(reinterpret_cast<CUevent>(event)) == CUDA_SUCCESS;
  }

  void DestroyEvent(EventId event) override {
    (void)driver_->cuEventDestroy(reinterpret_cast<CUevent>(event));
  }

  absl::Status Synchronize() override {
    if (absl::Status s = MakeCurrent(); !s.ok()) return s;
    return Check(driver_->cuCtxSynchronize(), "cuCtxSynchronize");
  }

 protected:
  absl::Status MakeCurrent() {
    return Check(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  }
  absl::Status Check(CUresult result, absl::string_view call) {
    return CudaStatus(*driver_, result, call);
  }

  const CudaDriver* driver_;
  CUdevice device_;
  CUcontext context_;
};

class CudaMemoryBackend : public CudaBackendBase {
 public:
  using CudaBackendBase::CudaBackendBase;

  absl::StatusOr<uint64_t> Allocate(size_t bytes) override {
    if (absl::Status s = MakeCurrent(); !s.ok()) return s;
    CUdeviceptr address = 0;
    if (absl::Status s = Check(driver_->cuMemAlloc(&address, bytes), "cuMemAlloc"); !s.ok()) {
      return s;
    }
    return static_cast<uint64_t>(address);
  }

  void Free(uint64_t address) override {
    // A failing free means a corrupted context; the pool has nothing better to do than go on.
    (void)MakeCurrent();
    (void)driver_->cuMemFree(static_cast<CUdeviceptr>(address));
  }

  // Only device memory is refused during capture: pinned host blocks are filled by the host,
  // which no graph records, and their "stream" is not a CUDA stream.
  bool IsCapturing(StreamId stream) override {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (driver_->cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &status) != CUDA_SUCCESS) {
      return false;
    }
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
  }

  size_t DeviceFreeBytes() override {
    size_t free_bytes = 0, total_bytes = 0;
    if (!MakeCurrent().ok()) return 0;
    if (driver_->cuMemGetInfo(&free_bytes, &total_bytes) != CUDA_SUCCESS) return 0;
    return free_bytes;
  }
};

class PinnedHostBackend : public CudaBackendBase {
 public:
  using CudaBackendBase::CudaBackendBase;

  absl::StatusOr<uint64_t> Allocate(size_t bytes) override {
    if (absl::Status s = MakeCurrent(); !s.ok()) return s;
    void* pointer = nullptr;
    // PORTABLE: usable from every context, as the pool's blocks may serve any device's copies.
    if (absl::Status s = Check(driver_->cuMemHostAlloc(&pointer, bytes, CU_MEMHOSTALLOC_PORTABLE),
                               "cuMemHostAlloc");
        !s.ok()) {
      return s;
    }
    return reinterpret_cast<uint64_t>(pointer);
  }

  void Free(uint64_t address) override {
    (void)MakeCurrent();
    (void)driver_->cuMemFreeHost(reinterpret_cast<void*>(address));
  }

  size_t DeviceFreeBytes() override {
    return static_cast<size_t>(sysconf(_SC_AVPHYS_PAGES)) *
           static_cast<size_t>(sysconf(_SC_PAGESIZE));
  }
};

/// Retains `ordinal`'s primary context for a backend of type B.
template <typename B>
absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> CreateBackend(int ordinal) {
  absl::StatusOr<const CudaDriver*> driver = GetCudaDriver();
  if (!driver.ok()) return driver.status();
  const CudaDriver& d = **driver;
  if (ordinal < 0 || ordinal >= d.device_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("cuda:", ordinal, " does not exist (", d.device_count, " device(s))"));
  }
  CUdevice device;
  if (absl::Status s = CudaStatus(d, d.cuDeviceGet(&device, ordinal), "cuDeviceGet"); !s.ok()) {
    return s;
  }
  CUcontext context;
  if (absl::Status s =
          CudaStatus(d, d.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<DeviceMemoryBackend>(new B(&d, device, context));
}

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> CreateCudaMemoryBackend(int ordinal) {
  return CreateBackend<CudaMemoryBackend>(ordinal);
}

absl::StatusOr<std::unique_ptr<DeviceMemoryBackend>> CreatePinnedHostBackend(int ordinal) {
  return CreateBackend<PinnedHostBackend>(ordinal);
}

}  // namespace gpuc::runtime
