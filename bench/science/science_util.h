//===- science_util.h - What the bench/science programs share -------------===//
#ifndef GPUC_BENCH_SCIENCE_SCIENCE_UTIL_H_
#define GPUC_BENCH_SCIENCE_SCIENCE_UTIL_H_

#include <cstdint>

#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/host/host_executor.h"
#include "lib/eval/evaluator.h"

namespace gpuc::bench {

/// Steps the evaluation target has run so far: GPU kernel launches, or host compiled kernels
/// plus library steps (a CSR product, a scatter, an in-place write).
inline int64_t KernelsRun() {
  if (detail::EvaluationTarget(exec::CurrentOptions()).name() == "gpu") {
    return (*detail::GpuExecutor::Get())->stats().kernel_launches;
  }
  const detail::HostBackendStats s = detail::HostExecutor::Get().stats();
  return s.kernel_runs + s.library_steps;
}

}  // namespace gpuc::bench

#endif  // GPUC_BENCH_SCIENCE_SCIENCE_UTIL_H_
