//===- stream_api.cc - gpuc::Stream, gpuc::Event, devices -----------------===//
//
// The public face of runtime/stream.h. On a CUDA device each handle wraps a runtime stream or
// event; on the host device work runs when issued, so streams are always idle and events are
// timestamps.
//
//===----------------------------------------------------------------------===//
#include <atomic>
#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "gpuc/stream.h"
#include "lib/api/status_to_error.h"
#include "lib/exec/options.h"
#include "runtime/stream.h"

namespace gpuc {

using runtime::DeviceKind;
using runtime::DeviceSpec;

struct Stream::Impl {
  DeviceSpec spec;
  std::string device_name;
  std::unique_ptr<runtime::CudaStream> owned;  // streams made by Stream()
  runtime::CudaStream* cuda = nullptr;         // null on the host
  uint64_t host_id = 0;                        // identity of a host stream
};

struct Event::Impl {
  DeviceSpec spec;
  bool timing = false;
  std::optional<runtime::CudaEvent> cuda;
  bool recorded = false;
  std::chrono::steady_clock::time_point host_time;
};

namespace {

DeviceSpec& ThreadDevice() {
  thread_local std::optional<DeviceSpec> device;
  if (!device)
    device = internal::ValueOrThrow(runtime::DefaultDeviceSpec(exec::CurrentOptions().device));
  return *device;
}

runtime::CudaDevice& CudaDeviceFor(const DeviceSpec& spec) {
  return *internal::ValueOrThrow(runtime::CudaDevice::Get(spec.ordinal));
}

uint64_t NextHostStreamId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

/// The host device's current stream per thread: the default, or a StreamGuard's.
std::shared_ptr<Stream::Impl>& HostCurrentStream() {
  thread_local std::shared_ptr<Stream::Impl> current;
  return current;
}

std::shared_ptr<Stream::Impl> HostDefaultStream() {
  thread_local std::shared_ptr<Stream::Impl> host_default = [] {
    auto impl = std::make_shared<Stream::Impl>();
    impl->spec = DeviceSpec{DeviceKind::kHost, 0};
    impl->device_name = "host";
    impl->host_id = NextHostStreamId();
    return impl;
  }();
  return host_default;
}

}  // namespace

std::string current_device() { return ThreadDevice().ToString(); }

void set_device(const std::string& device) {
  DeviceSpec spec = internal::ValueOrThrow(runtime::ParseDeviceSpec(device));
  if (spec.kind == DeviceKind::kCuda) CudaDeviceFor(spec);  // throws if it does not exist
  ThreadDevice() = spec;
}

Stream::Stream() {
  auto impl = std::make_shared<Impl>();
  impl->spec = ThreadDevice();
  impl->device_name = impl->spec.ToString();
  if (impl->spec.kind == DeviceKind::kCuda) {
    impl->owned = internal::ValueOrThrow(runtime::CudaStream::Create(CudaDeviceFor(impl->spec)));
    impl->cuda = impl->owned.get();
  } else {
    impl->host_id = NextHostStreamId();
  }
  impl_ = std::move(impl);
}

Stream Stream::current() {
  const DeviceSpec& spec = ThreadDevice();
  if (spec.kind == DeviceKind::kHost) {
    std::shared_ptr<Impl> guarded = HostCurrentStream();
    return Stream(guarded ? guarded : HostDefaultStream());
  }
  auto impl = std::make_shared<Impl>();
  impl->spec = spec;
  impl->device_name = spec.ToString();
  impl->cuda = internal::ValueOrThrow(runtime::CurrentStream(CudaDeviceFor(spec)));
  return Stream(std::move(impl));
}

bool operator==(const Stream& a, const Stream& b) {
  const Stream::Impl& x = *a.impl();
  const Stream::Impl& y = *b.impl();
  return x.spec == y.spec && x.cuda == y.cuda && x.host_id == y.host_id;
}

void Stream::synchronize() const {
  if (impl_->cuda) internal::ThrowIfError(impl_->cuda->Synchronize());
}

void Stream::wait(const Event& event) const {
  if (!(event.impl()->spec == impl_->spec)) {
    internal::ThrowError(absl::InvalidArgumentError(
        absl::StrCat("Stream::wait: the event is on ", event.impl()->spec.ToString(),
                     ", the stream on ", impl_->device_name)));
  }
  if (impl_->cuda && event.impl()->recorded) {
    internal::ThrowIfError(impl_->cuda->WaitFor(*event.impl()->cuda));
  }
}

const std::string& Stream::device() const { return impl_->device_name; }

Event::Event(bool timing) : impl_(std::make_shared<Impl>()) {
  impl_->spec = ThreadDevice();
  impl_->timing = timing;
  if (impl_->spec.kind == DeviceKind::kCuda) {
    impl_->cuda =
        internal::ValueOrThrow(runtime::CudaEvent::Create(CudaDeviceFor(impl_->spec), timing));
  }
}

void Event::record() { record(Stream::current()); }

void Event::record(const Stream& stream) {
  if (!(stream.impl()->spec == impl_->spec)) {
    internal::ThrowError(absl::InvalidArgumentError(
        absl::StrCat("Event::record: the event is on ", impl_->spec.ToString(), ", the stream on ",
                     stream.device())));
  }
  if (impl_->cuda) {
    internal::ThrowIfError(impl_->cuda->Record(*stream.impl()->cuda));
  } else {
    impl_->host_time = std::chrono::steady_clock::now();
  }
  impl_->recorded = true;
}

void Event::synchronize() const {
  if (impl_->cuda && impl_->recorded) internal::ThrowIfError(impl_->cuda->Synchronize());
}

bool Event::query() const {
  if (!impl_->cuda || !impl_->recorded) return true;
  return internal::ValueOrThrow(impl_->cuda->Completed());
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  const Impl& a = *start.impl_;
  const Impl& b = *end.impl_;
  if (!a.timing || !b.timing || !a.recorded || !b.recorded || !(a.spec == b.spec)) {
    internal::ThrowError(absl::InvalidArgumentError(
        "Event::elapsed_ms needs two recorded timing events (Event(true)) of one device"));
  }
  if (a.cuda)
    return internal::ValueOrThrow(runtime::CudaEvent::ElapsedMilliseconds(*a.cuda, *b.cuda));
  return std::chrono::duration<float, std::milli>(b.host_time - a.host_time).count();
}

struct StreamGuard::State {
  std::optional<runtime::ScopedStream> cuda_guard;
  std::shared_ptr<Stream::Impl> previous_host;
  bool host = false;
};

StreamGuard::StreamGuard(const Stream& stream) : state_(std::make_unique<State>()) {
  if (stream.impl()->cuda) {
    state_->cuda_guard.emplace(*stream.impl()->cuda);
  } else {
    state_->host = true;
    state_->previous_host = HostCurrentStream();
    HostCurrentStream() = stream.impl();
  }
}

StreamGuard::~StreamGuard() {
  if (state_->host) HostCurrentStream() = state_->previous_host;
}

}  // namespace gpuc
