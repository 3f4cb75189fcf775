//===- gpu_blas.h - matmul nodes as cuBLAS calls --------------------------===//
//
// A matmul node on the GPU is one cublasGemmStridedBatchedEx call (a loop of calls only for
// batch axes broadcast against each other, e.g. [2,1,m,k] @ [1,3,k,n]). Row-major C = A B is
// computed as the column-major C^T = B^T A^T, so no operand is transposed or copied, and an
// operand the matmul reads transposed (ir/matmul_semantics.h) is a cuBLAS transpose flag;
// batches of an untransposed A against one B fold into the rows of a single GEMM. Half types
// multiply in f32 and round once (CUBLAS_COMPUTE_32F), f32 stays IEEE f32 (no TF32), as NumPy
// computes them. One handle per device; each stream gets its own workspace from gpuc's pool.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_BLAS_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_BLAS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "runtime/cuda_libraries.h"

namespace gpuc::detail {

/// The GEMM a matmul node becomes: row-major C[batch][m×n] = op(A)[m×k] · op(B)[k×n], where
/// a transposed operand is stored as its transpose (k×m or n×k) and cuBLAS reads it so.
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;
  int64_t batch = 1;                   // GEMMs in one strided-batched call
  int64_t a_stride = 0, b_stride = 0;  // elements between batches (0: broadcast)
  bool folded = false;                 // batches of A stacked into m against one B
  bool per_batch_loop = false;         // batch axes broadcast against each other: a call per batch
};

/// Ok with the GEMM, or Unimplemented saying why the node stays on the host (integer or bool
/// dtypes, operands of another dtype than the result, sizes beyond cuBLAS's int).
absl::StatusOr<GemmShape> PlanGemm(const ir::Node& matmul);
/// "cublas gemm m=64 n=512 k=256 batch=8 a^T f32", for `gpuc --emit=plan`.
std::string DescribeGemm(const ir::Node& matmul, const GemmShape& gemm);
/// The GEMM of a matmul_bias node (2-D, k > 0), or Unimplemented saying why it stays on the
/// host.
absl::StatusOr<GemmShape> PlanMatmulBias(const ir::Node& node);
/// "cublaslt gemm m=64 n=512 k=256 b^T epilogue=relu_bias f32".
std::string DescribeMatmulBias(const ir::Node& node, const GemmShape& gemm);

class GpuBlas {
 public:
  /// Unavailable when cuBLAS cannot be loaded.
  static absl::StatusOr<std::unique_ptr<GpuBlas>> Create(runtime::CudaDevice& device);
  ~GpuBlas();

  absl::Status Matmul(runtime::CudaStream& stream, const ir::Node& matmul, const GemmShape& gemm,
                      const DeviceTensor& a, const DeviceTensor& b, const DeviceTensor& c);
  /// c = activation(op(a) op(b) + bias) for a matmul_bias node: one cublasLtMatmul with a
  /// BIAS or RELU_BIAS epilogue (the bias is per column of row-major c, per row of the
  /// column-major c^T cuBLASLt computes). Unavailable when cuBLASLt cannot be loaded.
  absl::Status MatmulBias(runtime::CudaStream& stream, const ir::Node& node, const GemmShape& gemm,
                          const DeviceTensor& a, const DeviceTensor& b, const DeviceTensor& bias,
                          const DeviceTensor& c);
  /// x *= factor for float32, float64, complex64 or complex128 x (the FFT's normalization).
  absl::Status Scale(runtime::CudaStream& stream, const DeviceTensor& x, double factor);

 private:
  GpuBlas(runtime::CudaDevice* device, const runtime::Cublas* cublas, cublasHandle_t handle)
      : device_(device), cublas_(cublas), handle_(handle) {}
  /// Binds the handle to `stream` and that stream's workspace; the caller holds mutex_.
  absl::Status Bind(runtime::CudaStream& stream);

  runtime::CudaDevice* device_;
  const runtime::Cublas* cublas_;
  std::mutex mutex_;
  cublasHandle_t handle_;
  absl::flat_hash_map<CUstream, std::shared_ptr<DeviceStorage>> workspaces_;
  cublasLtHandle_t lt_ = nullptr;  // created on the first matmul_bias
  const runtime::CublasLt* lt_library_ = nullptr;
  /// cuBLASLt's chosen algorithm per GEMM shape, dtype, transposes and epilogue: the
  /// heuristic query costs host time every call otherwise.
  absl::flat_hash_map<std::string, cublasLtMatmulAlgo_t> lt_algorithms_;
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_BLAS_H_
