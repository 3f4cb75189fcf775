//===- runtime_bench.cc - The GPU runtime's costs against the bare driver -===//
//
// Side by side in one process on the GPU machine (issue 5's benchmarks):
//  * a cached allocate+free pair from gpuc's pool vs cuMemAllocAsync/cuMemFreeAsync;
//  * submit-to-complete of a tiny kernel through gpuc's launch path, the bare cuLaunchKernel,
//    and a one-launch CUDA graph replay;
//  * pinned host<->device copy bandwidth through gpuc vs the bare driver call.
// Each benchmark skips with the reason where there is no GPU. Run (on the GPU machine):
//   GPUC_SOURCE_DIR=$PWD bench_runtime --benchmark_min_time=0.5
//
//===----------------------------------------------------------------------===//
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runtime/cuda_graph.h"
#include "runtime/module.h"
#include "runtime/stream.h"

namespace gpuc::runtime {
namespace {

struct Fixture {
  CudaDevice* device = nullptr;
  std::unique_ptr<CudaStream> stream;
  std::unique_ptr<CudaModule> module;
  CudaKernel kernel;
  std::string error;
};

/// Set up once: device, a stream and the test kernels (scale_add on 256 floats).
Fixture& GetFixture() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    absl::StatusOr<CudaDevice*> device = CudaDevice::Get(0);
    if (!device.ok()) {
      f->error = std::string(device.status().message());
      return f;
    }
    f->device = *device;
    f->stream = *CudaStream::Create(**device);
    const char* dir = std::getenv("GPUC_SOURCE_DIR");
    std::ifstream in(std::string(dir ? dir : ".") + "/test/gpu/kernels/test_kernels.ptx");
    std::stringstream ptx;
    ptx << in.rdbuf();
    absl::StatusOr<std::unique_ptr<CudaModule>> module = CudaModule::LoadPtx(**device, ptx.str());
    if (!module.ok()) {
      f->error = std::string(module.status().message());
      return f;
    }
    f->module = *std::move(module);
    f->kernel = *f->module->GetKernel("scale_add");
    return f;
  }();
  return *fixture;
}

#define GPUC_BENCH_FIXTURE(state)                        \
  Fixture& f = GetFixture();                             \
  if (!f.error.empty()) {                                \
    state.SkipWithError(("no GPU: " + f.error).c_str()); \
    return;                                              \
  }

void BM_PoolCachedAllocateFree(benchmark::State& state) {
  GPUC_BENCH_FIXTURE(state);
  MemoryPool& pool = f.device->memory_pool();
  const size_t bytes = static_cast<size_t>(state.range(0));
  (void)pool.Free(*pool.Allocate(bytes, f.stream->id()));  // warm the cache
  for (auto _ : state) {
    uint64_t a = *pool.Allocate(bytes, f.stream->id());
    benchmark::DoNotOptimize(a);
    (void)pool.Free(a);
  }
}
BENCHMARK(BM_PoolCachedAllocateFree)->Arg(4096)->Arg(64 << 20);

void BM_CuMemAllocAsyncFree(benchmark::State& state) {
  GPUC_BENCH_FIXTURE(state);
  const CudaDriver& d = f.device->driver();
  (void)f.device->MakeCurrent();
  const size_t bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    CUdeviceptr p = 0;
    d.cuMemAllocAsync(&p, bytes, f.stream->handle());
    benchmark::DoNotOptimize(p);
    d.cuMemFreeAsync(p, f.stream->handle());
  }
  d.cuStreamSynchronize(f.stream->handle());
}
BENCHMARK(BM_CuMemAllocAsyncFree)->Arg(4096)->Arg(64 << 20);

/// scale_add's arguments over a 256-float buffer; one tiny launch and a stream synchronize per
/// iteration measures submit to complete.
struct ScaleAddArgs {
  explicit ScaleAddArgs(Fixture& f) {
    static uint64_t buffer =
        *f.device->memory_pool().Allocate(2 * 256 * sizeof(float), f.stream->id());
    x = buffer;
    y = buffer + 256 * sizeof(float);
  }
  uint64_t x = 0, y = 0;
  float a = 2, b = 1;
  int n = 256;
  void* pointers[5] = {&x, &y, &a, &b, &n};
};

void BM_LaunchSyncGpuc(benchmark::State& state) {
  GPUC_BENCH_FIXTURE(state);
  ScaleAddArgs args(f);
  for (auto _ : state) {
    (void)Launch(*f.stream, f.kernel, {1}, {256}, 0, args.pointers);
    (void)f.stream->Synchronize();
  }
}
BENCHMARK(BM_LaunchSyncGpuc)->UseRealTime();

void BM_LaunchSyncBareDriver(benchmark::State& state) {
  GPUC_BENCH_FIXTURE(state);
  ScaleAddArgs args(f);
  const CudaDriver& d = f.device->driver();
  for (auto _ : state) {
    d.cuLaunchKernel(f.kernel.function, 1, 1, 1, 256, 1, 1, 0, f.stream->handle(), args.pointers,
                     nullptr);
    d.cuStreamSynchronize(f.stream->handle());
  }
}
BENCHMARK(BM_LaunchSyncBareDriver)->UseRealTime();

void BM_GraphReplaySync(benchmark::State& state) {
  GPUC_BENCH_FIXTURE(state);
  ScaleAddArgs args(f);
  absl::StatusOr<CudaGraph> graph = CudaGraph::Capture(
      *f.stream, [&] { return Launch(*f.stream, f.kernel, {1}, {256}, 0, args.pointers); });
  if (!graph.ok()) {
    state.SkipWithError(std::string(graph.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    (void)graph->Replay(*f.stream);
    (void)f.stream->Synchronize();
  }
}
BENCHMARK(BM_GraphReplaySync)->UseRealTime();

/// Pinned host -> device and back, 256 MiB each way, through gpuc and through the bare driver.
void CopyBandwidth(benchmark::State& state, bool through_gpuc, bool to_device) {
  GPUC_BENCH_FIXTURE(state);
  const size_t bytes = size_t{256} << 20;
  static uint64_t host = *f.device->pinned_pool().Allocate(bytes, kHostStreamId);
  static uint64_t device = *f.device->memory_pool().Allocate(bytes, f.stream->id());
  std::memset(reinterpret_cast<void*>(host), 0x3c, bytes);  // not zeros
  const CudaDriver& d = f.device->driver();
  void* h = reinterpret_cast<void*>(host);
  for (auto _ : state) {
    if (through_gpuc) {
      (void)(to_device ? f.stream->CopyPinnedToDevice(device, h, bytes)
                       : f.stream->CopyDeviceToPinned(h, device, bytes));
    } else if (to_device) {
      d.cuMemcpyHtoDAsync(device, h, bytes, f.stream->handle());
    } else {
      d.cuMemcpyDtoHAsync(h, device, bytes, f.stream->handle());
    }
    (void)f.stream->Synchronize();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
void BM_CopyH2DGpuc(benchmark::State& s) { CopyBandwidth(s, true, true); }
void BM_CopyH2DBareDriver(benchmark::State& s) { CopyBandwidth(s, false, true); }
void BM_CopyD2HGpuc(benchmark::State& s) { CopyBandwidth(s, true, false); }
void BM_CopyD2HBareDriver(benchmark::State& s) { CopyBandwidth(s, false, false); }
BENCHMARK(BM_CopyH2DGpuc)->UseRealTime();
BENCHMARK(BM_CopyH2DBareDriver)->UseRealTime();
BENCHMARK(BM_CopyD2HGpuc)->UseRealTime();
BENCHMARK(BM_CopyD2HBareDriver)->UseRealTime();

}  // namespace
}  // namespace gpuc::runtime

BENCHMARK_MAIN();
