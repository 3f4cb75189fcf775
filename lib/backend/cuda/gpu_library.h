//===- gpu_library.h - Library steps of a GPU plan ------------------------===//
//
// The GPU lowering of library nodes: matmul through cuBLAS (lib/backend/cuda/gpu_blas.h), fft
// through cuFFT (lib/backend/cuda/gpu_fft.h), spmv through cuSPARSE
// (lib/backend/cuda/gpu_sparse.h), linalg's solvers through cuSOLVER (gpu_solver.h). Prepare
// decides once per plan step whether the node has a vendor call and describes it for `gpuc
// --emit=plan`; a node without one (integer matmuls, an unchecked spmv, a library that is not
// installed) runs on the host as before.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_LIBRARY_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_LIBRARY_H_

#include <memory>
#include <string>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_blas.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/backend/cuda/gpu_fft.h"
#include "lib/backend/cuda/gpu_solver.h"
#include "lib/backend/cuda/gpu_sparse.h"

namespace gpuc::detail {

/// What a library step calls, decided when the plan is prepared.
struct LibraryCall {
  std::variant<GemmShape, FftShape, SpmvShape, LinalgShape> shape;
  std::string description;  // "cublas gemm m=... " / "cufft c2c ..."
};

class GpuLibraries {
 public:
  explicit GpuLibraries(runtime::CudaDevice& device) : device_(&device) {}

  /// The vendor call for `node`, or Unimplemented / Unavailable saying why it runs on the host.
  absl::StatusOr<LibraryCall> Prepare(const ir::Node& node);
  /// Queues `call` on `stream`, writing `out`. `first_operand_is_dead`: no later step reads
  /// operands[0], so the call may use it as scratch (a C2R transform does).
  absl::Status Run(runtime::CudaStream& stream, const ir::Node& node, const LibraryCall& call,
                   absl::Span<const DeviceTensor* const> operands, const DeviceTensor& out,
                   bool first_operand_is_dead);

 private:
  absl::StatusOr<GpuBlas*> Blas();  // loaded on first use
  absl::StatusOr<GpuFft*> Fft();
  absl::StatusOr<GpuSparse*> Sparse();
  absl::StatusOr<GpuSolver*> Solver();

  /// A library handle created on first use, or the reason it could not be (kept, so a missing
  /// library is tried once).
  template <typename Library>
  struct Lazy {
    std::unique_ptr<Library> library;
    absl::Status status;
    bool tried = false;
  };
  template <typename Library>
  absl::StatusOr<Library*> Load(Lazy<Library>& lazy);

  runtime::CudaDevice* device_;
  std::mutex mutex_;
  Lazy<GpuBlas> blas_;
  Lazy<GpuFft> fft_;
  Lazy<GpuSparse> sparse_;
  Lazy<GpuSolver> solver_;
};

/// "matmul", "fft", ...: whether the plan display and the executor know the op as a library
/// call on the GPU at all.
bool HasGpuLibraryLowering(const ir::Node& node);

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_LIBRARY_H_
