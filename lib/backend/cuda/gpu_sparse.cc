//===- gpu_sparse.cc - spmv nodes as cuSPARSE calls -----------------------===//
#include "lib/backend/cuda/gpu_sparse.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace gpuc::detail {

using ir::DType;

std::optional<cudaDataType> InexactCudaType(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return CUDA_R_32F;
    case DType::kFloat64:
      return CUDA_R_64F;
    case DType::kComplex64:
      return CUDA_C_32F;
    case DType::kComplex128:
      return CUDA_C_64F;
    default:
      return std::nullopt;
  }
}

absl::StatusOr<SpmvShape> PlanSpmv(const ir::Node& spmv) {
  const DType dtype = spmv.dtype();
  if (!InexactCudaType(dtype)) {
    return absl::UnimplementedError(
        absl::StrCat("cuSPARSE has no ", ir::DTypeName(dtype), " SpMV"));
  }
  absl::StatusOr<bool> validated = spmv.attrs().GetBool("validated", false);
  if (!validated.ok()) return validated.status();
  if (!*validated) {
    return absl::UnimplementedError(
        "its CSR structure was not checked (only gpuc::sparse matrices are; cuSPARSE reads "
        "indices unchecked)");
  }
  const ir::TensorType& values = spmv.operand(0).type();
  const ir::TensorType& x = spmv.operand(3).type();
  if (values.dtype != dtype || x.dtype != dtype) {
    return absl::UnimplementedError(absl::StrCat("spmv operands ", values.ToString(), " and ",
                                                 x.ToString(), " are not of the result dtype ",
                                                 ir::DTypeName(dtype)));
  }
  SpmvShape shape;
  shape.rows = spmv.type().shape[0];
  shape.cols = x.shape[0];
  shape.k = x.shape.rank() == 2 ? x.shape[1] : 0;
  shape.nnz = values.shape[0];
  shape.index64 = spmv.operand(1).dtype() == DType::kInt64;
  return shape;
}

std::string DescribeSpmv(const ir::Node& spmv, const SpmvShape& s) {
  return absl::StrCat(
      "cusparse ", spmv.operand(3).shape().rank() == 2 ? "spmm" : "spmv", " rows=", s.rows,
      " cols=", s.cols, spmv.operand(3).shape().rank() == 2 ? absl::StrCat(" k=", s.k) : "",
      " nnz=", s.nnz, " ", ir::DTypeName(spmv.dtype()), s.index64 ? " i64" : " i32");
}

absl::StatusOr<std::unique_ptr<GpuSparse>> GpuSparse::Create(runtime::CudaDevice& device) {
  absl::StatusOr<const runtime::Cusparse*> cusparse = runtime::GetCusparse();
  if (!cusparse.ok()) return cusparse.status();
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  cusparseHandle_t handle = nullptr;
  if (absl::Status s =
          runtime::CusparseStatus((*cusparse)->cusparseCreate(&handle), "cusparseCreate");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<GpuSparse>(new GpuSparse(&device, *cusparse, handle));
}

GpuSparse::~GpuSparse() {
  if (device_->MakeCurrent().ok()) cusparse_->cusparseDestroy(handle_);
}

absl::Status GpuSparse::Spmv(runtime::CudaStream& stream, const ir::Node& spmv,
                             const SpmvShape& shape, const DeviceTensor& values,
                             const DeviceTensor& columns, const DeviceTensor& offsets,
                             const DeviceTensor& x, const DeviceTensor& y) {
  const bool matrix = x.type.shape.rank() == 2;
  if (shape.rows == 0 || (matrix && shape.k == 0)) return absl::OkStatus();
  if (shape.nnz == 0 || shape.cols == 0) {  // no entries: zeros
    return device_->Check(
        device_->driver().cuMemsetD8Async(y.address, 0, static_cast<size_t>(y.size_in_bytes()),
                                          stream.handle()),
        "cuMemsetD8Async");
  }
  const cudaDataType type = *InexactCudaType(spmv.dtype());
  const cusparseIndexType_t index = shape.index64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const bool wide = type == CUDA_R_64F || type == CUDA_C_64F;
  const float one_f[2] = {1, 0}, zero_f[2] = {0, 0};
  const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
  const void* alpha = wide ? static_cast<const void*>(one_d) : one_f;
  const void* beta = wide ? static_cast<const void*>(zero_d) : zero_f;
  std::lock_guard<std::mutex> lock(mutex_);
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  if (absl::Status s = runtime::CusparseStatus(
          cusparse_->cusparseSetStream(handle_, stream.handle()), "cusparseSetStream");
      !s.ok()) {
    return s;
  }
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  cusparseDnMatDescr_t mx = nullptr, my = nullptr;
  // The descriptors are host-side metadata, released on every path once the call is queued.
  struct Release {
    const runtime::Cusparse* lib;
    cusparseSpMatDescr_t* a;
    cusparseDnVecDescr_t *vx, *vy;
    cusparseDnMatDescr_t *mx, *my;
    ~Release() {
      if (*a) lib->cusparseDestroySpMat(*a);
      if (*vx) lib->cusparseDestroyDnVec(*vx);
      if (*vy) lib->cusparseDestroyDnVec(*vy);
      if (*mx) lib->cusparseDestroyDnMat(*mx);
      if (*my) lib->cusparseDestroyDnMat(*my);
    }
  } release{cusparse_, &a, &vx, &vy, &mx, &my};
  auto check = [](cusparseStatus_t status, const char* call) {
    return runtime::CusparseStatus(status, call);
  };
  if (absl::Status s = check(
          cusparse_->cusparseCreateCsr(
              &a, shape.rows, shape.cols, shape.nnz, reinterpret_cast<void*>(offsets.address),
              reinterpret_cast<void*>(columns.address), reinterpret_cast<void*>(values.address),
              index, index, CUSPARSE_INDEX_BASE_ZERO, type),
          "cusparseCreateCsr");
      !s.ok()) {
    return s;
  }
  void* x_data = reinterpret_cast<void*>(x.address);
  void* y_data = reinterpret_cast<void*>(y.address);
  absl::Status made = matrix
                          ? check(cusparse_->cusparseCreateDnMat(&mx, shape.cols, shape.k, shape.k,
                                                                 x_data, type, CUSPARSE_ORDER_ROW),
                                  "cusparseCreateDnMat")
                          : check(cusparse_->cusparseCreateDnVec(&vx, shape.cols, x_data, type),
                                  "cusparseCreateDnVec");
  if (made.ok()) {
    made = matrix ? check(cusparse_->cusparseCreateDnMat(&my, shape.rows, shape.k, shape.k, y_data,
                                                         type, CUSPARSE_ORDER_ROW),
                          "cusparseCreateDnMat")
                  : check(cusparse_->cusparseCreateDnVec(&vy, shape.rows, y_data, type),
                          "cusparseCreateDnVec");
  }
  if (!made.ok()) return made;
  const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bytes = 0;
  absl::Status sized =
      matrix ? check(cusparse_->cusparseSpMM_bufferSize(handle_, n, n, alpha, a, mx, beta, my, type,
                                                        CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
                     "cusparseSpMM_bufferSize")
             : check(cusparse_->cusparseSpMV_bufferSize(handle_, n, alpha, a, vx, beta, vy, type,
                                                        CUSPARSE_SPMV_CSR_ALG1, &bytes),
                     "cusparseSpMV_bufferSize");
  if (!sized.ok()) return sized;
  // Stream-ordered: freed back to the pool after the call is queued, reused only behind it.
  std::shared_ptr<DeviceStorage> buffer;
  if (bytes > 0) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> b =
        DeviceStorage::Allocate(*device_, stream, bytes);
    if (!b.ok()) return b.status();
    buffer = *std::move(b);
  }
  void* work = buffer ? reinterpret_cast<void*>(buffer->address()) : nullptr;
  return matrix ? check(cusparse_->cusparseSpMM(handle_, n, n, alpha, a, mx, beta, my, type,
                                                CUSPARSE_SPMM_ALG_DEFAULT, work),
                        "cusparseSpMM")
                : check(cusparse_->cusparseSpMV(handle_, n, alpha, a, vx, beta, vy, type,
                                                CUSPARSE_SPMV_CSR_ALG1, work),
                        "cusparseSpMV");
}

}  // namespace gpuc::detail
