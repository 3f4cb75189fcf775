//===- gpuc/stream.h - Devices, streams and events ------------------------===//
//
// Work is issued on the calling thread's current stream of the current device. A Stream is a
// cheap shared handle; StreamGuard makes one current for a scope; Event marks a point in a
// stream for another stream to wait on, or for timing.
//
//   gpuc::Stream copy_stream;                 // a new stream on the current device
//   gpuc::Event ready;
//   { gpuc::StreamGuard guard(copy_stream); /* work here runs on copy_stream */ ready.record(); }
//   gpuc::Stream::current().wait(ready);      // the default stream waits for it
//
// On the host device the same code runs: work is executed when it is issued, so streams are
// always idle, events complete when recorded, and elapsed time is measured on the host clock.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_STREAM_H_
#define GPUC_STREAM_H_

#include <memory>
#include <string>

#include "gpuc/errors.h"

namespace gpuc {

/// "host" or "cuda:N".
std::string current_device();
/// Selects the device for the calling thread's later work ("host", "cuda", "cuda:N"). The
/// initial device is GPUC_DEVICE's, or cuda:0 where a GPU exists, else the host. Throws
/// gpuc::Error for a device that does not exist.
void set_device(const std::string& device);

class Event;

class Stream {
 public:
  /// A new stream on the current device.
  Stream();
  /// The calling thread's current stream on the current device.
  static Stream current();

  /// Blocks until the stream's work has completed; an asynchronous fault throws gpuc::Error
  /// naming the last kernels launched on the stream.
  void synchronize() const;
  /// Later work on this stream waits for `event`.
  void wait(const Event& event) const;
  const std::string& device() const;

  struct Impl;
  explicit Stream(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl>& impl() const { return impl_; }
  /// Whether both handles denote the same stream.
  friend bool operator==(const Stream& a, const Stream& b);

 private:
  std::shared_ptr<Impl> impl_;
};

class Event {
 public:
  /// `timing` events can measure elapsed time; others are cheaper.
  explicit Event(bool timing = false);
  /// Marks the current point of `stream` (the current stream by default).
  void record();
  void record(const Stream& stream);
  /// Blocks until the work before the event has completed.
  void synchronize() const;
  /// Whether that work has completed; never blocks.
  bool query() const;
  /// Milliseconds between two recorded timing events.
  static float elapsed_ms(const Event& start, const Event& end);

  struct Impl;
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

/// Makes `stream` the current stream of this thread until the guard goes out of scope.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuc

#endif  // GPUC_STREAM_H_
