//===- gpu_solver.h - linalg nodes as cuSOLVER calls -----------------------===//
//
// numpy.linalg's solve, inv, det, slogdet, cholesky, eigh and eigvalsh (ir/linalg_semantics.h)
// on the GPU through cuSOLVER's dense 64-bit routines (getrf/getrs, potrf, syevd), loaded at
// run time like cuBLAS; each matrix of a batch is its own call on the stream. Row-major memory
// read as column-major is the transpose, so, as on the host (host_linalg.h): solve and inv
// factor a's memory as it lies (a^T) — inv solves a^T X = I, whose column-major X is inv(a)
// row-major; solve solves with the factor's transpose — and det/slogdet read the factor's
// diagonal (det a^T = det a); cholesky and eigh factor a column-major copy. Small CUDA kernels
// of gpuc's own (NVRTC, per dtype) make those copies, the identity, the lower triangle, the
// eigh layout and the determinants.
//
// Errors as NumPy raises them: the factorizations' info words are read back once per call
// (so a linalg step synchronizes its stream), and a singular matrix (solve, inv), one that is
// not positive definite (cholesky) or eigenvalues that do not converge (eigh) are
// ir::LinalgError naming the routine, the type and the batch index. svd, qr, lstsq and eig
// have no GPU routine yet: their steps run LAPACK on the host.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_SOLVER_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_SOLVER_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/linalg_semantics.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "runtime/cuda_libraries.h"
#include "runtime/module.h"

namespace gpuc::detail {

struct LinalgShape {
  ir::LinalgRoutine routine = ir::LinalgRoutine::kSolve;
  int64_t batch = 0, n = 0;
  int64_t k = 0;  // solve's right-hand sides
};

/// Ok with the call, or Unimplemented saying why the node runs on the host.
absl::StatusOr<LinalgShape> PlanLinalg(const ir::Node& linalg);
/// "cusolver getrf+getrs n=64 k=3 batch=8 f64", for `gpuc --emit=plan`.
std::string DescribeLinalg(const ir::Node& linalg, const LinalgShape& shape);

/// The CUDA source of the helper kernels for element type `dtype`, for NVRTC.
std::string GpuSolverKernelSource(ir::DType dtype);

class GpuSolver {
 public:
  /// Unavailable when cuSOLVER cannot be loaded.
  static absl::StatusOr<std::unique_ptr<GpuSolver>> Create(runtime::CudaDevice& device);
  ~GpuSolver();

  /// The routine of `shape` on a (and b for solve), into `out`.
  absl::Status Run(runtime::CudaStream& stream, const ir::Node& linalg, const LinalgShape& shape,
                   const DeviceTensor& a, const DeviceTensor* b, const DeviceTensor& out);

 private:
  // The helper kernels (copies, identity, lower triangle, eigh's layout, determinants).
  struct Kernels {
    std::unique_ptr<runtime::CudaModule> module;
    runtime::CudaKernel transpose, identity, lower, eigh_out, det;
  };
  GpuSolver(runtime::CudaDevice* device, const runtime::Cusolver* cusolver,
            cusolverDnHandle_t handle, cusolverDnParams_t params)
      : device_(device), cusolver_(cusolver), handle_(handle), params_(params) {}
  absl::StatusOr<const Kernels*> KernelsFor(ir::DType dtype);

  runtime::CudaDevice* device_;
  const runtime::Cusolver* cusolver_;
  std::mutex mutex_;
  cusolverDnHandle_t handle_;
  cusolverDnParams_t params_;
  absl::flat_hash_map<ir::DType, std::unique_ptr<Kernels>> kernels_;
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_SOLVER_H_
