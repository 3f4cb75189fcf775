//===- run_on_gpu.h - One graph through the GPU executor, host to host ----===//
#ifndef GPUC_TEST_GPU_RUN_ON_GPU_H_
#define GPUC_TEST_GPU_RUN_ON_GPU_H_

#include <vector>

#include <gtest/gtest.h>

#include "absl/status/statusor.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "lib/backend/cuda/gpu_executor.h"

namespace gpuc::test {

/// The process's GPU executor as `var`, or skips the test with the reason there is none.
#define GPUC_REQUIRE_GPU_EXECUTOR(var)                                           \
  absl::StatusOr<detail::GpuExecutor*> var##_or = detail::GpuExecutor::Get();    \
  if (!var##_or.ok()) GTEST_SKIP() << "no GPU: " << var##_or.status().message(); \
  detail::GpuExecutor& var = **var##_or

/// Uploads `args`, runs `graph` on the GPU and downloads every result.
inline absl::StatusOr<std::vector<ir::HostTensor>> RunOnGpu(
    detail::GpuExecutor& gpu, const ir::Graph& graph, const std::vector<ir::HostTensor>& args) {
  std::vector<detail::DeviceTensor> device_args;
  for (const ir::HostTensor& a : args) {
    absl::StatusOr<detail::DeviceTensor> d = gpu.Upload(a);
    if (!d.ok()) return d.status();
    device_args.push_back(*d);
  }
  absl::StatusOr<std::vector<detail::DeviceTensor>> results = gpu.Run(graph, device_args);
  if (!results.ok()) return results.status();
  std::vector<ir::HostTensor> host;
  for (const detail::DeviceTensor& r : *results) {
    absl::StatusOr<ir::HostTensor> h = gpu.Download(r);
    if (!h.ok()) return h.status();
    host.push_back(*h);
  }
  return host;
}

}  // namespace gpuc::test

#endif  // GPUC_TEST_GPU_RUN_ON_GPU_H_
