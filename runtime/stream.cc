//===- stream.cc - CUDA streams and events, the current stream, copies ----===//
#include "runtime/stream.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gpuc::runtime {
namespace {

/// Per thread and device: the default stream (owned) and the current override (not owned).
struct ThreadStreams {
  absl::flat_hash_map<int, std::unique_ptr<CudaStream>> defaults;
  absl::flat_hash_map<int, CudaStream*> current;
};
ThreadStreams& ThisThreadStreams() {
  thread_local ThreadStreams streams;
  return streams;
}

}  // namespace

absl::StatusOr<CudaEvent> CudaEvent::Create(CudaDevice& device, bool timing) {
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  CUevent event = nullptr;
  if (absl::Status s =
          device.Check(device.driver().cuEventCreate(
                           &event, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
                       "cuEventCreate");
      !s.ok()) {
    return s;
  }
  return CudaEvent(&device, event);
}

CudaEvent::CudaEvent(CudaEvent&& other) noexcept
    : device_(other.device_), event_(std::exchange(other.event_, nullptr)) {}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
  std::swap(device_, other.device_);
  std::swap(event_, other.event_);
  return *this;
}

CudaEvent::~CudaEvent() {
  if (event_) (void)device_->driver().cuEventDestroy(event_);
}

absl::Status CudaEvent::Record(const CudaStream& stream) {
  return device_->Check(device_->driver().cuEventRecord(event_, stream.handle()), "cuEventRecord");
}

absl::Status CudaEvent::Synchronize() const {
  return device_->Check(device_->driver().cuEventSynchronize(event_), "cuEventSynchronize");
}

absl::StatusOr<bool> CudaEvent::Completed() const {
  CUresult r = device_->driver().cuEventQuery(event_);
  if (r == CUDA_ERROR_NOT_READY) return false;
  if (absl::Status s = device_->Check(r, "cuEventQuery"); !s.ok()) return s;
  return true;
}

absl::StatusOr<float> CudaEvent::ElapsedMilliseconds(const CudaEvent& start, const CudaEvent& end) {
  float ms = 0;
  if (absl::Status s = start.device_->Check(
          start.device_->driver().cuEventElapsedTime(&ms, start.event_, end.event_),
          "cuEventElapsedTime");
      !s.ok()) {
    return s;
  }
  return ms;
}

absl::StatusOr<std::unique_ptr<CudaStream>> CudaStream::Create(CudaDevice& device) {
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  CUstream stream = nullptr;
  // Non-blocking: gpuc's streams never serialize against the legacy default stream.
  if (absl::Status s = device.Check(device.driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                                    "cuStreamCreate");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<CudaStream>(new CudaStream(&device, stream));
}

CudaStream::~CudaStream() { (void)device_->driver().cuStreamDestroy(stream_); }

void CudaStream::NoteLaunch(absl::string_view kernel_name) {
  std::lock_guard<std::mutex> lock(launches_mutex_);
  if (recent_launches_.size() == kMaxRememberedLaunches) recent_launches_.pop_front();
  recent_launches_.emplace_back(kernel_name);
}

std::string CudaStream::RecentLaunches() const {
  std::lock_guard<std::mutex> lock(launches_mutex_);
  return recent_launches_.empty() ? "none" : absl::StrJoin(recent_launches_, ", ");
}

absl::Status CudaStream::Synchronize() {
  absl::Status s =
      device_->Check(device_->driver().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  if (s.ok()) return s;
  return absl::Status(
      s.code(),
      absl::StrCat(s.message(), "; last kernels launched on this stream: ", RecentLaunches()));
}

absl::Status CudaStream::WaitFor(const CudaEvent& event) {
  return device_->Check(device_->driver().cuStreamWaitEvent(stream_, event.handle(), 0),
                        "cuStreamWaitEvent");
}

absl::Status CudaStream::CopyPinnedToDevice(uint64_t dst, const void* pinned_src, size_t bytes) {
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  return device_->Check(device_->driver().cuMemcpyHtoDAsync(dst, pinned_src, bytes, stream_),
                        "cuMemcpyHtoDAsync");
}

absl::Status CudaStream::CopyDeviceToPinned(void* pinned_dst, uint64_t src, size_t bytes) {
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  return device_->Check(device_->driver().cuMemcpyDtoHAsync(pinned_dst, src, bytes, stream_),
                        "cuMemcpyDtoHAsync");
}

absl::Status CudaStream::CopyDeviceToDevice(uint64_t dst, uint64_t src, size_t bytes) {
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  return device_->Check(device_->driver().cuMemcpyDtoDAsync(dst, src, bytes, stream_),
                        "cuMemcpyDtoDAsync");
}

absl::Status CudaStream::CopyHostToDevice(uint64_t dst, const void* src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  // The staging block belongs to the host (which fills it now) and is used by this stream: the
  // pool reuses it only after the copy has run.
  MemoryPool& pinned = device_->pinned_pool();
  absl::StatusOr<uint64_t> staging = pinned.Allocate(bytes, kHostStreamId);
  if (!staging.ok()) return staging.status();
  std::memcpy(reinterpret_cast<void*>(*staging), src, bytes);
  absl::Status copied = CopyPinnedToDevice(dst, reinterpret_cast<void*>(*staging), bytes);
  if (absl::Status s = pinned.RecordStreamUse(*staging, id()); !s.ok()) return s;
  if (absl::Status s = pinned.Free(*staging); !s.ok()) return s;
  return copied;
}

absl::Status CudaStream::CopyDeviceToHost(void* dst, uint64_t src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  MemoryPool& pinned = device_->pinned_pool();
  absl::StatusOr<uint64_t> staging = pinned.Allocate(bytes, kHostStreamId);
  if (!staging.ok()) return staging.status();
  absl::Status s = CopyDeviceToPinned(reinterpret_cast<void*>(*staging), src, bytes);
  if (s.ok()) s = Synchronize();
  if (s.ok()) std::memcpy(dst, reinterpret_cast<const void*>(*staging), bytes);
  // After the synchronization (or a failure) nothing on the device reads the block any more.
  if (absl::Status f = pinned.Free(*staging); !f.ok() && s.ok()) s = f;
  return s;
}

absl::StatusOr<CudaStream*> CurrentStream(CudaDevice& device) {
  ThreadStreams& streams = ThisThreadStreams();
  if (auto it = streams.current.find(device.ordinal()); it != streams.current.end() && it->second) {
    return it->second;
  }
  std::unique_ptr<CudaStream>& default_stream = streams.defaults[device.ordinal()];
  if (!default_stream) {
    absl::StatusOr<std::unique_ptr<CudaStream>> created = CudaStream::Create(device);
    if (!created.ok()) return created.status();
    default_stream = *std::move(created);
  }
  return default_stream.get();
}

ScopedStream::ScopedStream(CudaStream& stream) : ordinal_(stream.device().ordinal()) {
  CudaStream*& slot = ThisThreadStreams().current[ordinal_];
  previous_ = slot;
  slot = &stream;
}

ScopedStream::~ScopedStream() { ThisThreadStreams().current[ordinal_] = previous_; }

}  // namespace gpuc::runtime
