//===- gpu_sparse.h - spmv nodes as cuSPARSE calls ------------------------===//
//
// An spmv node on the GPU is one cusparseSpMV (CSR, the deterministic CSR_ALG1), or for a
// matrix x ([cols, k], k right-hand sides) one cusparseSpMM over row-major dense matrices
// (non-transposed A: deterministic), when the front end checked its structure (the node's
// `validated` attribute: cuSPARSE reads indices unchecked, so an unchecked .gir graph keeps the
// interpreter's checking loop on the host) and its values, vector and result share a floating or
// complex dtype. The work buffer comes from gpuc's pool per call.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_LIB_BACKEND_CUDA_GPU_SPARSE_H_
#define GPUC_LIB_BACKEND_CUDA_GPU_SPARSE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ir/node.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "runtime/cuda_libraries.h"

namespace gpuc::detail {

struct SpmvShape {
  int64_t rows = 0, cols = 0, nnz = 0;
  int64_t k = 0;  // x's columns when x is a matrix (an SpMM); 0 for a vector
  bool index64 = false;
};

/// The CUDA data type of an inexact dtype (f32, f64, c64, c128), as cuSPARSE and cuSOLVER
/// take it; none for other dtypes.
std::optional<cudaDataType> InexactCudaType(ir::DType dtype);

/// Ok with the call, or Unimplemented saying why the node stays on the host.
absl::StatusOr<SpmvShape> PlanSpmv(const ir::Node& spmv);
/// "cusparse spmv rows=4 cols=5 nnz=7 f32 i32" ("cusparse spmm rows=4 cols=5 k=3 ..."), for
/// `gpuc --emit=plan`.
std::string DescribeSpmv(const ir::Node& spmv, const SpmvShape& shape);

class GpuSparse {
 public:
  /// Unavailable when cuSPARSE cannot be loaded.
  static absl::StatusOr<std::unique_ptr<GpuSparse>> Create(runtime::CudaDevice& device);
  ~GpuSparse();

  /// y = A x for A = (values, columns, offsets), x a vector or a row-major matrix.
  absl::Status Spmv(runtime::CudaStream& stream, const ir::Node& spmv, const SpmvShape& shape,
                    const DeviceTensor& values, const DeviceTensor& columns,
                    const DeviceTensor& offsets, const DeviceTensor& x, const DeviceTensor& y);

 private:
  GpuSparse(runtime::CudaDevice* device, const runtime::Cusparse* cusparse, cusparseHandle_t handle)
      : device_(device), cusparse_(cusparse), handle_(handle) {}

  runtime::CudaDevice* device_;
  const runtime::Cusparse* cusparse_;
  std::mutex mutex_;
  cusparseHandle_t handle_;
};

}  // namespace gpuc::detail

#endif  // GPUC_LIB_BACKEND_CUDA_GPU_SPARSE_H_
