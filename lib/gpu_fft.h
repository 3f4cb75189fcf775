//===- gpu_fft.h - fft nodes as cuFFT plans -------------------------------===//
//
// An fft node on the GPU: when its axes are the trailing ones (up to three) one batched cuFFT
// plan transforms them all; otherwise each axis is its own strided batched 1-D transform
// (a multi-axis DFT is separable), the first out of place, the rest in place in the result.
// cuFFT transforms are unnormalized; NumPy's norm (backward, ortho, forward) becomes one scale
// of the result. Plans live in an LRU cache (gpuc::fft::set_plan_cache_size; 16 by default)
// and take their work areas from gpuc's pool for each execution.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_GPU_FFT_H_
#define GPUC_LIB_GPU_FFT_H_

#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/node.h"
#include "lib/gpu_blas.h"
#include "lib/gpu_executor.h"
#include "runtime/cuda_libraries.h"

namespace gpuc::detail {

/// One batched cuFFT execution: `calls` executions `call_stride` elements apart.
struct FftPass {
  int rank = 1;
  std::array<int64_t, 3> n = {0, 0, 0};
  int64_t stride = 1, distance = 0, batch = 1;
  int64_t calls = 1, call_stride = 0;
};

struct FftShape {
  std::vector<FftPass> passes;  // empty for empty arrays
  bool inverse = false;
  double scale = 1;  // applied to the result after the passes
};

absl::StatusOr<FftShape> PlanFft(const ir::Node& fft);
/// "cufft c2c rank=2 n=[64,64] batch=8, scale 0.015625", for `gpuc --emit=plan`.
std::string DescribeFft(const ir::Node& fft, const FftShape& shape);

class GpuFft {
 public:
  /// Unavailable when cuFFT cannot be loaded.
  static absl::StatusOr<std::unique_ptr<GpuFft>> Create(runtime::CudaDevice& device);
  ~GpuFft();

  /// out = fft(in); `blas` scales the result when the norm asks for it.
  absl::Status Run(runtime::CudaStream& stream, const ir::Node& fft, const FftShape& shape,
                   const DeviceTensor& in, const DeviceTensor& out, GpuBlas& blas);
  size_t cached_plans() const;

 private:
  struct PlanKey {
    bool double_precision;
    FftPass pass;
    bool operator==(const PlanKey& o) const;
  };
  struct CachedPlan {
    PlanKey key;
    cufftHandle handle;
    size_t work_bytes;
  };
  GpuFft(runtime::CudaDevice* device, const runtime::Cufft* cufft)
      : device_(device), cufft_(cufft) {}
  absl::StatusOr<CachedPlan*> GetPlan(const PlanKey& key);  // caller holds mutex_
  void EvictBeyond(size_t capacity);                        // caller holds mutex_

  runtime::CudaDevice* device_;
  const runtime::Cufft* cufft_;
  mutable std::mutex mutex_;
  std::list<CachedPlan> plans_;  // most recently used first
};

/// The process's plan-cache size (gpuc::fft::set_plan_cache_size; at least 1), read by every
/// GpuFft when it adds a plan.
void SetFftPlanCacheCapacity(size_t plans);
size_t FftPlanCacheCapacity();

}  // namespace gpuc::detail

#endif  // GPUC_LIB_GPU_FFT_H_
