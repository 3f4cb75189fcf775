//===- gpu_fft.h - fft nodes as cuFFT plans -------------------------------===//
//
// An fft node on the GPU: when its axes are the trailing ones (up to three) one batched cuFFT
// plan transforms them all; otherwise each axis is its own strided batched 1-D transform
// (a multi-axis DFT is separable), the first out of place, the rest in place in the result.
// Real transforms (ir/fft_semantics.h) are cuFFT's R2C / C2R: an r2c node is one R2C plan
// over trailing axes, or a 1-D R2C of its last axis and complex passes of the others in the
// result; a c2r node is complex inverse passes of its other axes, then a 1-D C2R of the last
// (NumPy's order, exact for any input: cuFFT's multi-dimensional C2R assumes a Hermitian
// input). C2R overwrites its input, so it works in a copy unless the executor donates the
// operand (this step is its last reader), and the imaginary parts of each line's zero and
// Nyquist frequencies are cleared first, as NumPy ignores them.
// cuFFT transforms are unnormalized; NumPy's norm (backward, ortho, forward) becomes one scale
// of the result. Plans live in an LRU cache (gpuc::fft::set_plan_cache_size; 16 by default)
// and take their work areas from gpuc's pool for each execution.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_FFT_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_FFT_H_

#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/fft_semantics.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_blas.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "runtime/cuda_libraries.h"

namespace gpuc::detail {

/// One batched cuFFT execution: `calls` executions, `in_call_stride` / `out_call_stride`
/// elements apart. Lengths `n` are logical (the real length for R2C and C2R); the embeds are
/// the stored extents of rank > 1 layouts (the last halved on the complex side).
struct FftPass {
  ir::FftKind type = ir::FftKind::kC2C;
  int rank = 1;
  std::array<int64_t, 3> n = {0, 0, 0};
  std::array<int64_t, 3> in_embed = {0, 0, 0}, out_embed = {0, 0, 0};
  int64_t in_stride = 1, in_distance = 0, out_stride = 1, out_distance = 0, batch = 1;
  int64_t calls = 1, in_call_stride = 0, out_call_stride = 0;
};

struct FftShape {
  ir::FftKind kind = ir::FftKind::kC2C;
  /// c2c and r2c: the first pass reads the operand, the rest work in place in the result.
  /// c2r: every pass but the last works in place in a complex buffer of the operand's shape,
  /// the last (the C2R) reads it and writes the result.
  std::vector<FftPass> passes;  // empty for empty arrays
  bool inverse = false;
  double scale = 1;  // applied to the result after the passes
  /// c2r: the lines of the last axis in the complex buffer, whose zero (and, for even n,
  /// Nyquist) frequency's imaginary part is cleared before the C2R.
  int64_t line_outer = 0, line_inner = 0, line_length = 0;
  bool clear_nyquist = false;
};

absl::StatusOr<FftShape> PlanFft(const ir::Node& fft);
/// "cufft c2c rank=2 n=[64,64] batch=8, scale 0.015625", for `gpuc --emit=plan`.
std::string DescribeFft(const ir::Node& fft, const FftShape& shape);

class GpuFft {
 public:
  /// Unavailable when cuFFT cannot be loaded.
  static absl::StatusOr<std::unique_ptr<GpuFft>> Create(runtime::CudaDevice& device);
  ~GpuFft();

  /// out = fft(in); `blas` scales the result when the norm asks for it. `in_is_dead`: no
  /// later step reads `in` (the executor donates it), so a C2R may overwrite it.
  absl::Status Run(runtime::CudaStream& stream, const ir::Node& fft, const FftShape& shape,
                   const DeviceTensor& in, const DeviceTensor& out, GpuBlas& blas, bool in_is_dead);
  size_t cached_plans() const;

 private:
  struct PlanKey {
    bool double_precision;
    FftPass pass;
    bool operator==(const PlanKey& o) const;
  };
  /// Executes `pass` from `source` to `destination` (the same for in place).
  absl::Status Execute(runtime::CudaStream& stream, bool double_precision, const FftPass& pass,
                       uint64_t source, uint64_t destination, bool inverse);
  /// Clears the imaginary parts that C2R would otherwise read (FftShape's lines) in `buffer`.
  absl::Status ClearHermitianImaginaryParts(runtime::CudaStream& stream, const FftShape& shape,
                                            uint64_t buffer, int64_t complex_size);
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

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_FFT_H_
