//===- stream.h - CUDA streams and events, the current stream, copies -----===//
//
// A CudaStream orders work on one device; a CudaEvent marks a point in a stream for another
// stream to wait on or for timing. Each host thread has its own default stream per device
// (created on first use, non-blocking), which CurrentStream() returns unless a ScopedStream
// guard has set another. Copies between host and device run on a stream; pageable host memory
// is staged through the device's pinned pool so that the copy itself is asynchronous.
// Synchronize() reports an asynchronous fault with the names of the last kernels launched on
// the stream.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_RUNTIME_STREAM_H_
#define GPUC_RUNTIME_STREAM_H_

#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace gpuc::runtime {

class CudaStream;

class CudaEvent {
 public:
  /// `timing` events can measure elapsed time; others are cheaper to record.
  static absl::StatusOr<CudaEvent> Create(CudaDevice& device, bool timing = false);
  CudaEvent(CudaEvent&& other) noexcept;
  CudaEvent& operator=(CudaEvent&& other) noexcept;
  ~CudaEvent();

  absl::Status Record(const CudaStream& stream);
  absl::Status Synchronize() const;
  /// Whether the work before the event has completed (never blocks).
  absl::StatusOr<bool> Completed() const;
  /// Milliseconds between two recorded timing events.
  static absl::StatusOr<float> ElapsedMilliseconds(const CudaEvent& start, const CudaEvent& end);
  CUevent handle() const { return event_; }

 private:
  CudaEvent(CudaDevice* device, CUevent event) : device_(device), event_(event) {}
  CudaDevice* device_ = nullptr;
  CUevent event_ = nullptr;
};

class CudaStream {
 public:
  static absl::StatusOr<std::unique_ptr<CudaStream>> Create(CudaDevice& device);
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  CudaDevice& device() const { return *device_; }
  CUstream handle() const { return stream_; }
  StreamId id() const { return reinterpret_cast<StreamId>(stream_); }

  /// Waits for the stream's work; an asynchronous fault names the last kernels launched here.
  absl::Status Synchronize();
  /// Later work on this stream waits for `event`.
  absl::Status WaitFor(const CudaEvent& event);

  /// Asynchronous copies. Pageable host memory is staged through the pinned pool: the host
  /// side of CopyHostToDevice returns once `src` has been copied to staging, and
  /// CopyDeviceToHost into pageable memory waits for the stream before copying out.
  absl::Status CopyHostToDevice(uint64_t dst, const void* src, size_t bytes);
  absl::Status CopyDeviceToHost(void* dst, uint64_t src, size_t bytes);
  absl::Status CopyDeviceToDevice(uint64_t dst, uint64_t src, size_t bytes);
  /// Copies with pinned host memory (from the pinned pool): fully asynchronous.
  absl::Status CopyPinnedToDevice(uint64_t dst, const void* pinned_src, size_t bytes);
  absl::Status CopyDeviceToPinned(void* pinned_dst, uint64_t src, size_t bytes);

  /// Remembers a launch for fault messages (the last kMaxRememberedLaunches names).
  void NoteLaunch(absl::string_view kernel_name);
  /// "k1, k2, k3" (oldest first), or "none".
  std::string RecentLaunches() const;

 private:
  CudaStream(CudaDevice* device, CUstream stream) : device_(device), stream_(stream) {}
  /// Enough history to identify the culprit of a fault without keeping unbounded state.
  static constexpr size_t kMaxRememberedLaunches = 8;

  CudaDevice* device_;
  CUstream stream_;
  mutable std::mutex launches_mutex_;
  std::deque<std::string> recent_launches_;
};

/// The calling thread's current stream on `device`: a ScopedStream's, or the thread's default.
absl::StatusOr<CudaStream*> CurrentStream(CudaDevice& device);

/// Makes `stream` current on this thread (for its device) until the guard is destroyed.
class ScopedStream {
 public:
  explicit ScopedStream(CudaStream& stream);
  ~ScopedStream();
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;

 private:
  CudaStream* previous_;
  int ordinal_;
};

/// The pools' stream id for host-side use of pinned memory, which no device stream orders.
inline constexpr StreamId kHostStreamId = ~StreamId{0};

}  // namespace gpuc::runtime

#endif  // GPUC_RUNTIME_STREAM_H_
