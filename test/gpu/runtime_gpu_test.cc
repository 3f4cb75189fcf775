//===- runtime_gpu_test.cc - Streams, events, copies, modules, graphs -----===//
//
// Skips (with the reason) where there is no NVIDIA driver or device.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "runtime/cuda_graph.h"
#include "runtime/module.h"
#include "runtime/stream.h"
#include "test/gpu/gpu_test_util.h"

namespace gpuc::runtime {
namespace {

#define ASSERT_OK(expr)                   \
  do {                                    \
    absl::Status _s = (expr);             \
    ASSERT_TRUE(_s.ok()) << _s.message(); \
  } while (0)

std::vector<float> RandomFloats(size_t n) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

class RuntimeGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUC_REQUIRE_CUDA_DEVICE(device);
    device_ = &device;
    absl::StatusOr<std::unique_ptr<CudaModule>> module =
        CudaModule::LoadPtx(device, ReadSourceFile("test/gpu/kernels/test_kernels.ptx"));
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
  }

  /// A device buffer of n floats from the pool, on `stream`.
  uint64_t Buffer(size_t n, CudaStream& stream) {
    absl::StatusOr<uint64_t> b = device_->memory_pool().Allocate(n * sizeof(float), stream.id());
    EXPECT_TRUE(b.ok()) << b.status();
    return b.value_or(0);
  }

  absl::Status ScaleAdd(CudaStream& stream, uint64_t x, uint64_t y, float a, float b, int n) {
    absl::StatusOr<CudaKernel> kernel = module_->GetKernel("scale_add");
    if (!kernel.ok()) return kernel.status();
    void* args[] = {&x, &y, &a, &b, &n};
    return Launch(stream, *kernel, {static_cast<unsigned>((n + 255) / 256)}, {256}, 0, args);
  }

  CudaDevice* device_ = nullptr;
  std::unique_ptr<CudaModule> module_;
};

TEST_F(RuntimeGpuTest, PageableCopiesRoundTripThroughALaunch) {
  absl::StatusOr<CudaStream*> stream = CurrentStream(*device_);
  ASSERT_TRUE(stream.ok()) << stream.status();
  const int n = 1 << 20;
  std::vector<float> x = RandomFloats(n);
  uint64_t dx = Buffer(n, **stream), dy = Buffer(n, **stream);
  ASSERT_OK((*stream)->CopyHostToDevice(dx, x.data(), n * sizeof(float)));
  ASSERT_OK(ScaleAdd(**stream, dx, dy, 2.0f, 1.0f, n));
  std::vector<float> y(n, NAN);  // poisoned: every element must be written
  ASSERT_OK((*stream)->CopyDeviceToHost(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i] + 1.0f) << i;
  ASSERT_OK(device_->memory_pool().Free(dx));
  ASSERT_OK(device_->memory_pool().Free(dy));
}

TEST_F(RuntimeGpuTest, PinnedCopiesAndDeviceToDevice) {
  absl::StatusOr<std::unique_ptr<CudaStream>> stream = CudaStream::Create(*device_);
  ASSERT_TRUE(stream.ok());
  const size_t n = 4096, bytes = n * sizeof(float);
  MemoryPool& pinned = device_->pinned_pool();
  uint64_t host_in = *pinned.Allocate(bytes, kHostStreamId);
  uint64_t host_out = *pinned.Allocate(bytes, kHostStreamId);
  std::vector<float> x = RandomFloats(n);
  std::memcpy(reinterpret_cast<void*>(host_in), x.data(), bytes);
  std::fill_n(reinterpret_cast<float*>(host_out), n, NAN);
  uint64_t a = Buffer(n, **stream), b = Buffer(n, **stream);
  ASSERT_OK((*stream)->CopyPinnedToDevice(a, reinterpret_cast<void*>(host_in), bytes));
  ASSERT_OK((*stream)->CopyDeviceToDevice(b, a, bytes));
  ASSERT_OK((*stream)->CopyDeviceToPinned(reinterpret_cast<void*>(host_out), b, bytes));
  ASSERT_OK((*stream)->Synchronize());
  EXPECT_EQ(std::memcmp(reinterpret_cast<void*>(host_out), x.data(), bytes), 0);
  ASSERT_OK(pinned.Free(host_in));
  ASSERT_OK(pinned.Free(host_out));
  ASSERT_OK(device_->memory_pool().Free(a));
  ASSERT_OK(device_->memory_pool().Free(b));
}

TEST_F(RuntimeGpuTest, EventsOrderStreamsAndMeasureTime) {
  absl::StatusOr<std::unique_ptr<CudaStream>> producer = CudaStream::Create(*device_);
  absl::StatusOr<std::unique_ptr<CudaStream>> consumer = CudaStream::Create(*device_);
  ASSERT_TRUE(producer.ok() && consumer.ok());
  const int n = 1 << 16;
  std::vector<float> x = RandomFloats(n);
  uint64_t dx = Buffer(n, **producer), dy = Buffer(n, **producer);
  ASSERT_OK((*producer)->CopyHostToDevice(dx, x.data(), n * sizeof(float)));
  absl::StatusOr<CudaEvent> start = CudaEvent::Create(*device_, /*timing=*/true);
  absl::StatusOr<CudaEvent> done = CudaEvent::Create(*device_, /*timing=*/true);
  ASSERT_TRUE(start.ok() && done.ok());
  ASSERT_OK(start->Record(**producer));
  // Make the producer slow, then write y: the consumer must wait for it.
  absl::StatusOr<CudaKernel> spin = module_->GetKernel("spin");
  ASSERT_TRUE(spin.ok());
  long long cycles = 20'000'000;  // ~10 ms at ~2 GHz
  void* spin_args[] = {&cycles};
  ASSERT_OK(Launch(**producer, *spin, {1}, {1}, 0, spin_args));
  ASSERT_OK(ScaleAdd(**producer, dx, dy, -1.0f, 0.5f, n));
  ASSERT_OK(done->Record(**producer));
  ASSERT_OK((*consumer)->WaitFor(*done));
  ASSERT_OK(device_->memory_pool().RecordStreamUse(dy, (*consumer)->id()));
  std::vector<float> y(n, NAN);
  ASSERT_OK((*consumer)->CopyDeviceToHost(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], -x[i] + 0.5f) << i;
  absl::StatusOr<float> ms = CudaEvent::ElapsedMilliseconds(*start, *done);
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GT(*ms, 1.0f) << "the spin kernel lies between the events";
  ASSERT_OK(device_->memory_pool().Free(dx));
  ASSERT_OK(device_->memory_pool().Free(dy));
}

TEST_F(RuntimeGpuTest, GraphReplaysTheCapturedLaunches) {
  absl::StatusOr<std::unique_ptr<CudaStream>> stream = CudaStream::Create(*device_);
  ASSERT_TRUE(stream.ok());
  const int n = 1 << 18;
  std::vector<float> x = RandomFloats(n);
  // Buffers are allocated before the capture, as the plan replay will do.
  uint64_t dx = Buffer(n, **stream), dy = Buffer(n, **stream);
  ASSERT_OK((*stream)->CopyHostToDevice(dx, x.data(), n * sizeof(float)));
  ASSERT_OK((*stream)->Synchronize());
  absl::StatusOr<CudaGraph> graph = CudaGraph::Capture(**stream, [&] {
    // y = 3x + 1, then x = y - 1 (so each replay multiplies x by 3).
    if (absl::Status s = ScaleAdd(**stream, dx, dy, 3.0f, 1.0f, n); !s.ok()) return s;
    return ScaleAdd(**stream, dy, dx, 1.0f, -1.0f, n);
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<float> y(n, NAN);
  ASSERT_OK((*stream)->CopyDeviceToHost(y.data(), dx, n * sizeof(float)));
  for (int i = 0; i < 16; ++i) ASSERT_EQ(y[i], x[i]) << "capturing does not execute";
  ASSERT_OK(graph->Replay(**stream));
  ASSERT_OK(graph->Replay(**stream));
  ASSERT_OK((*stream)->CopyDeviceToHost(y.data(), dx, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    float once = (3.0f * x[i] + 1.0f) - 1.0f;
    ASSERT_EQ(y[i], (3.0f * once + 1.0f) - 1.0f) << i;
  }
  // A failing body ends the capture and leaves the stream usable.
  absl::StatusOr<CudaGraph> failed =
      CudaGraph::Capture(**stream, [] { return absl::InternalError("body failed"); });
  EXPECT_FALSE(failed.ok());
  ASSERT_OK(ScaleAdd(**stream, dx, dy, 1.0f, 0.0f, n));
  ASSERT_OK((*stream)->Synchronize());
  ASSERT_OK(device_->memory_pool().Free(dx));
  ASSERT_OK(device_->memory_pool().Free(dy));
}

TEST_F(RuntimeGpuTest, PoolRefusesToAllocateDuringCapture) {
  absl::StatusOr<std::unique_ptr<CudaStream>> stream = CudaStream::Create(*device_);
  ASSERT_TRUE(stream.ok());
  absl::Status inside;
  absl::StatusOr<CudaGraph> graph = CudaGraph::Capture(**stream, [&] {
    absl::StatusOr<uint64_t> b = device_->memory_pool().Allocate(4096, (*stream)->id());
    inside = b.status();
    return absl::OkStatus();
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(inside.code(), absl::StatusCode::kFailedPrecondition) << inside;
  EXPECT_NE(inside.message().find("before the capture begins"), std::string::npos) << inside;
  EXPECT_TRUE(device_->memory_pool().Allocate(4096, (*stream)->id()).ok()) << "after capture";
}

TEST_F(RuntimeGpuTest, PtxCompiledToCubinLoadsAndRuns) {
  absl::StatusOr<std::string> cubin =
      CompilePtxToCubin(*device_, ReadSourceFile("test/gpu/kernels/test_kernels.ptx"));
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  ASSERT_GT(cubin->size(), 4u);
  EXPECT_EQ(cubin->substr(0, 4),
            "\x7f"
            "ELF")
      << "a cubin is an ELF image";
  absl::StatusOr<std::unique_ptr<CudaModule>> module = CudaModule::LoadCubin(*device_, *cubin);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<CudaStream*> stream = CurrentStream(*device_);
  ASSERT_TRUE(stream.ok());
  const int n = 1000;
  std::vector<float> x = RandomFloats(n);
  uint64_t dx = Buffer(n, **stream), dy = Buffer(n, **stream);
  ASSERT_OK((*stream)->CopyHostToDevice(dx, x.data(), n * sizeof(float)));
  absl::StatusOr<CudaKernel> kernel = (*module)->GetKernel("scale_add");
  ASSERT_TRUE(kernel.ok());
  float a = 0.5f, b = -2.0f;
  int count = n;
  void* args[] = {&dx, &dy, &a, &b, &count};
  ASSERT_OK(Launch(**stream, *kernel, {4}, {256}, 0, args));
  std::vector<float> y(n, NAN);
  ASSERT_OK((*stream)->CopyDeviceToHost(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 0.5f * x[i] - 2.0f) << i;
  ASSERT_OK(device_->memory_pool().Free(dx));
  ASSERT_OK(device_->memory_pool().Free(dy));
}

TEST_F(RuntimeGpuTest, ScopedStreamChangesTheCurrentStream) {
  absl::StatusOr<CudaStream*> default_stream = CurrentStream(*device_);
  absl::StatusOr<std::unique_ptr<CudaStream>> other = CudaStream::Create(*device_);
  ASSERT_TRUE(default_stream.ok() && other.ok());
  {
    ScopedStream guard(**other);
    EXPECT_EQ(*CurrentStream(*device_), other->get());
  }
  EXPECT_EQ(*CurrentStream(*device_), *default_stream);
  CudaStream* from_thread = nullptr;
  std::thread([&] { from_thread = *CurrentStream(*device_); }).join();
  EXPECT_NE(from_thread, *default_stream) << "each thread has its own default stream";
}

TEST_F(RuntimeGpuTest, ModuleErrorsAreClear) {
  absl::StatusOr<std::unique_ptr<CudaModule>> bad =
      CudaModule::LoadPtx(*device_, ".version 8.0\n.target sm_90\n.address_size 64\nnot ptx\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cuModuleLoadDataEx (PTX)"), std::string::npos)
      << bad.status();
  EXPECT_NE(bad.status().message().find("ptxas"), std::string::npos) << "the JIT log is included";
  absl::StatusOr<CudaKernel> missing = module_->GetKernel("no_such_kernel");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace gpuc::runtime
