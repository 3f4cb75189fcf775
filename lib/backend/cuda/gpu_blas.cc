//===- gpu_blas.cc - matmul nodes as cuBLAS calls -------------------------===//
#include "lib/backend/cuda/gpu_blas.h"

#include <climits>
#include <complex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_kernels.h"
#include "ir/matmul_semantics.h"
#include "ir/shape.h"

namespace gpuc::detail {
namespace {

using ir::DType;

/// cuBLAS's spelling of a dtype, its compute type and the type alpha and beta have.
struct CublasTypes {
  cudaDataType data;
  cublasComputeType_t compute;
};

std::optional<CublasTypes> TypesFor(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return CublasTypes{CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::kBFloat16:
      return CublasTypes{CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case DType::kFloat32:
      return CublasTypes{CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case DType::kFloat64:
      return CublasTypes{CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::kComplex64:
      return CublasTypes{CUDA_C_32F, CUBLAS_COMPUTE_32F};
    case DType::kComplex128:
      return CublasTypes{CUDA_C_64F, CUBLAS_COMPUTE_64F};
    default:
      return std::nullopt;
  }
}

/// The operand dims with NumPy's 1-D promotion: a row for a, a column for b.
std::vector<int64_t> MatrixDims(const ir::Shape& shape, bool is_a) {
  std::vector<int64_t> d = shape.ToVector();
  if (d.size() == 1) is_a ? void(d.insert(d.begin(), 1)) : d.push_back(1);
  return d;
}

ir::Shape BatchOf(const std::vector<int64_t>& dims) {
  return ir::Shape(std::vector<int64_t>(dims.begin(), dims.end() - 2));
}

constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // cuBLAS's recommendation for Hopper

}  // namespace

absl::StatusOr<GemmShape> PlanGemm(const ir::Node& matmul) {
  const DType dtype = matmul.dtype();
  const ir::TensorType& a = matmul.operand(0).type();
  const ir::TensorType& b = matmul.operand(1).type();
  if (!TypesFor(dtype)) {
    return absl::UnimplementedError(absl::StrCat("cuBLAS has no ", ir::DTypeName(dtype), " GEMM"));
  }
  if (a.dtype != dtype || b.dtype != dtype) {
    return absl::UnimplementedError(absl::StrCat("matmul operands ", a.ToString(), " and ",
                                                 b.ToString(), " are not of the result dtype ",
                                                 ir::DTypeName(dtype)));
  }
  const ir::MatmulTransposes transposes = ir::TransposesOf(matmul);
  std::vector<int64_t> ad = MatrixDims(a.shape, true), bd = MatrixDims(b.shape, false);
  if (transposes.a) std::swap(ad[ad.size() - 2], ad.back());
  if (transposes.b) std::swap(bd[bd.size() - 2], bd.back());
  GemmShape g;
  g.transpose_a = transposes.a;
  g.transpose_b = transposes.b;
  g.m = ad[ad.size() - 2];
  g.k = ad.back();
  g.n = bd.back();
  const ir::Shape a_batch = BatchOf(ad), b_batch = BatchOf(bd);
  absl::StatusOr<ir::Shape> batch = ir::BroadcastShapes(a_batch, b_batch);
  if (!batch.ok()) return batch.status();
  const int64_t count = batch->num_elements();
  const bool a_full = a_batch.num_elements() == count, b_full = b_batch.num_elements() == count;
  const bool a_single = a_batch.num_elements() == 1, b_single = b_batch.num_elements() == 1;
  // A batch operand equal in size to the result's batch has the result's batch layout (a
  // broadcast can only add unit or missing axes then); otherwise it must be a single matrix.
  if ((a_full || a_single) && (b_full || b_single)) {
    // Stacked batches of A are more rows only when A is stored untransposed.
    if (b_single && !a_single && !g.transpose_a) {
      g.folded = true;
      g.m *= count;
    } else {
      g.batch = count;
      g.a_stride = a_single ? 0 : g.m * g.k;
      g.b_stride = b_single ? 0 : g.k * g.n;
    }
  } else {
    g.per_batch_loop = true;
    g.batch = count;
  }
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX || g.batch > INT_MAX) {
    return absl::UnimplementedError(absl::StrCat("matmul of ", a.ToString(), " and ", b.ToString(),
                                                 " exceeds cuBLAS's int sizes"));
  }
  return g;
}

std::string DescribeGemm(const ir::Node& matmul, const GemmShape& g) {
  return absl::StrCat("cublas gemm m=", g.m, " n=", g.n, " k=", g.k, " batch=", g.batch,
                      g.folded ? " (batches folded into m)" : "",
                      g.per_batch_loop ? " (a call per batch)" : "", g.transpose_a ? " a^T" : "",
                      g.transpose_b ? " b^T" : "", " ", ir::DTypeName(matmul.dtype()));
}

absl::StatusOr<GemmShape> PlanMatmulBias(const ir::Node& node) {
  absl::StatusOr<GemmShape> g = PlanGemm(node);
  if (!g.ok()) return g.status();
  // An empty sum would leave the epilogue alone to write the result; the host does that.
  if (g->k == 0) return absl::UnimplementedError("an empty product (k = 0)");
  if (g->batch != 1 || g->per_batch_loop) {
    return absl::UnimplementedError("a batched GEMM with an epilogue (one 2-D GEMM only)");
  }
  return g;
}

std::string DescribeMatmulBias(const ir::Node& node, const GemmShape& g) {
  const bool relu = ir::AppliesRelu(node);
  return absl::StrCat("cublaslt gemm m=", g.m, " n=", g.n, " k=", g.k,
                      g.folded ? " (batches folded into m)" : "", g.transpose_a ? " a^T" : "",
                      g.transpose_b ? " b^T" : "", " epilogue=", relu ? "relu_bias" : "bias", " ",
                      ir::DTypeName(node.dtype()));
}

absl::StatusOr<std::unique_ptr<GpuBlas>> GpuBlas::Create(runtime::CudaDevice& device) {
  absl::StatusOr<const runtime::Cublas*> cublas = runtime::GetCublas();
  if (!cublas.ok()) return cublas.status();
  if (absl::Status s = device.MakeCurrent(); !s.ok()) return s;
  cublasHandle_t handle = nullptr;
  if (absl::Status s = runtime::CublasStatus((*cublas)->cublasCreate(&handle), "cublasCreate");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<GpuBlas>(new GpuBlas(&device, *cublas, handle));
}

GpuBlas::~GpuBlas() {
  if (device_->MakeCurrent().ok()) {
    cublas_->cublasDestroy(handle_);
    if (lt_) lt_library_->cublasLtDestroy(lt_);
  }
}

absl::Status GpuBlas::Bind(runtime::CudaStream& stream) {
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  if (absl::Status s = runtime::CublasStatus(cublas_->cublasSetStream(handle_, stream.handle()),
                                             "cublasSetStream");
      !s.ok()) {
    return s;
  }
  // cublasSetStream resets the workspace to cuBLAS's own; each stream has one from the pool
  // (one workspace shared by two streams could be used by both at once).
  std::shared_ptr<DeviceStorage>& workspace = workspaces_[stream.handle()];
  if (!workspace) {
    absl::StatusOr<std::shared_ptr<DeviceStorage>> w =
        DeviceStorage::Allocate(*device_, stream, kWorkspaceBytes);
    if (!w.ok()) return w.status();
    workspace = *std::move(w);
  }
  return runtime::CublasStatus(
      cublas_->cublasSetWorkspace(handle_, reinterpret_cast<void*>(workspace->address()),
                                  kWorkspaceBytes),
      "cublasSetWorkspace");
}

absl::Status GpuBlas::Matmul(runtime::CudaStream& stream, const ir::Node& matmul,
                             const GemmShape& g, const DeviceTensor& a, const DeviceTensor& b,
                             const DeviceTensor& c) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return absl::OkStatus();
  if (g.k == 0) {  // an empty sum: zeros
    return device_->Check(
        device_->driver().cuMemsetD8Async(c.address, 0, static_cast<size_t>(c.size_in_bytes()),
                                          stream.handle()),
        "cuMemsetD8Async");
  }
  const DType dtype = matmul.dtype();
  const CublasTypes types = *TypesFor(dtype);
  const int64_t size = ir::DTypeSize(dtype);
  // alpha = 1, beta = 0 in the compute type's scale type.
  const float one_f[2] = {1, 0}, zero_f[2] = {0, 0};
  const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
  const bool wide = types.compute == CUBLAS_COMPUTE_64F;
  const void* alpha = wide ? static_cast<const void*>(one_d) : one_f;
  const void* beta = wide ? static_cast<const void*>(zero_d) : zero_f;
  std::lock_guard<std::mutex> lock(mutex_);
  if (absl::Status s = Bind(stream); !s.ok()) return s;
  // Column-major C^T (n×m) = B^T (n×k) · A^T (k×m): the row-major buffers as they are. A
  // buffer holding an operand's transpose is, read column-major, the operand itself: cuBLAS
  // transposes it (OP_T), with the stored rows' length as its leading dimension.
  const cublasOperation_t op_b = g.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = static_cast<int>(g.transpose_b ? g.k : g.n);
  auto gemm = [&](uint64_t a_address, uint64_t b_address, uint64_t c_address, int64_t m,
                  int64_t batch, int64_t a_stride, int64_t b_stride) {
    const int lda = static_cast<int>(g.transpose_a ? m : g.k);
    return runtime::CublasStatus(
        cublas_->cublasGemmStridedBatchedEx(
            handle_, op_b, op_a, static_cast<int>(g.n), static_cast<int>(m), static_cast<int>(g.k),
            alpha, reinterpret_cast<const void*>(b_address), types.data, ldb, b_stride,
            reinterpret_cast<const void*>(a_address), types.data, lda, a_stride, beta,
            reinterpret_cast<void*>(c_address), types.data, static_cast<int>(g.n), m * g.n,
            static_cast<int>(batch), types.compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
  };
  if (!g.per_batch_loop) {
    return gemm(a.address, b.address, c.address, g.m, g.batch, g.a_stride, g.b_stride);
  }
  // Batch axes are the leading ones whether or not the matrices are stored transposed.
  const ir::Shape a_batch = BatchOf(MatrixDims(a.type.shape, true));
  const ir::Shape b_batch = BatchOf(MatrixDims(b.type.shape, false));
  const ir::Shape batch = *ir::BroadcastShapes(a_batch, b_batch);
  std::vector<int64_t> index(batch.rank());
  for (int64_t i = 0; i < g.batch; ++i) {
    ir::UnflattenIndex(i, batch, absl::MakeSpan(index));
    const int64_t a_offset = ir::interp::BroadcastOffset(index, a_batch) * g.m * g.k;
    const int64_t b_offset = ir::interp::BroadcastOffset(index, b_batch) * g.k * g.n;
    if (absl::Status s = gemm(a.address + a_offset * size, b.address + b_offset * size,
                              c.address + i * g.m * g.n * size, g.m, 1, 0, 0);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status GpuBlas::MatmulBias(runtime::CudaStream& stream, const ir::Node& node,
                                 const GemmShape& g, const DeviceTensor& a, const DeviceTensor& b,
                                 const DeviceTensor& bias, const DeviceTensor& c) {
  if (g.m == 0 || g.n == 0) return absl::OkStatus();
  absl::StatusOr<const runtime::CublasLt*> library = runtime::GetCublasLt();
  if (!library.ok()) return library.status();
  const runtime::CublasLt& lt = **library;
  const DType dtype = node.dtype();
  const CublasTypes types = *TypesFor(dtype);
  const bool wide = dtype == DType::kFloat64;
  const cudaDataType scale_type = wide ? CUDA_R_64F : CUDA_R_32F;
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void* alpha = wide ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = wide ? static_cast<const void*>(&zero_d) : &zero_f;
  const bool relu = ir::AppliesRelu(node);
  std::lock_guard<std::mutex> lock(mutex_);
  if (absl::Status s = Bind(stream); !s.ok()) return s;
  if (!lt_) {
    if (absl::Status s = runtime::CublasStatus(lt.cublasLtCreate(&lt_), "cublasLtCreate");
        !s.ok()) {
      return s;
    }
    lt_library_ = &lt;
  }
  // Descriptors are host metadata, released on every path once the call is queued.
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layout_b = nullptr, layout_a = nullptr, layout_c = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  struct Release {
    const runtime::CublasLt& lt;
    cublasLtMatmulDesc_t& desc;
    cublasLtMatrixLayout_t &b, &a, &c;
    cublasLtMatmulPreference_t& preference;
    ~Release() {
      if (desc) lt.cublasLtMatmulDescDestroy(desc);
      for (cublasLtMatrixLayout_t l : {b, a, c}) {
        if (l) lt.cublasLtMatrixLayoutDestroy(l);
      }
      if (preference) lt.cublasLtMatmulPreferenceDestroy(preference);
    }
  } release{lt, desc, layout_b, layout_a, layout_c, preference};
  auto check = [](cublasStatus_t status, const char* call) {
    return runtime::CublasStatus(status, call);
  };
  // Column-major C^T (n×m) = op(B^T) op(A^T), as Matmul: cuBLASLt's first operand is our B.
  const cublasOperation_t op_b = g.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasLtEpilogue_t epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  const void* bias_pointer = reinterpret_cast<const void*>(bias.address);
  absl::Status s = check(lt.cublasLtMatmulDescCreate(&desc, types.compute, scale_type),
                         "cublasLtMatmulDescCreate");
  if (s.ok()) {
    s = check(
        lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_b, sizeof(op_b)),
        "cublasLtMatmulDescSetAttribute");
  }
  if (s.ok()) {
    s = check(
        lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_a, sizeof(op_a)),
        "cublasLtMatmulDescSetAttribute");
  }
  if (s.ok()) {
    s = check(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                sizeof(epilogue)),
              "cublasLtMatmulDescSetAttribute");
  }
  if (s.ok()) {
    s = check(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                &bias_pointer, sizeof(bias_pointer)),
              "cublasLtMatmulDescSetAttribute");
  }
  // Each layout is the stored matrix, column-major: rows × cols with the rows contiguous.
  if (s.ok()) {
    s = check(lt.cublasLtMatrixLayoutCreate(&layout_b, types.data, g.transpose_b ? g.k : g.n,
                                            g.transpose_b ? g.n : g.k, g.transpose_b ? g.k : g.n),
              "cublasLtMatrixLayoutCreate");
  }
  if (s.ok()) {
    s = check(lt.cublasLtMatrixLayoutCreate(&layout_a, types.data, g.transpose_a ? g.m : g.k,
                                            g.transpose_a ? g.k : g.m, g.transpose_a ? g.m : g.k),
              "cublasLtMatrixLayoutCreate");
  }
  if (s.ok()) {
    s = check(lt.cublasLtMatrixLayoutCreate(&layout_c, types.data, g.n, g.m, g.n),
              "cublasLtMatrixLayoutCreate");
  }
  if (!s.ok()) return s;
  const std::string key = absl::StrCat(ir::DTypeName(dtype), " ", g.m, " ", g.n, " ", g.k, " ",
                                       g.transpose_a, g.transpose_b, relu);
  auto found = lt_algorithms_.find(key);
  if (found == lt_algorithms_.end()) {
    const uint64_t workspace_bytes = kWorkspaceBytes;
    s = check(lt.cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    if (s.ok()) {
      s = check(lt.cublasLtMatmulPreferenceSetAttribute(preference,
                                                        CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                        &workspace_bytes, sizeof(workspace_bytes)),
                "cublasLtMatmulPreferenceSetAttribute");
    }
    cublasLtMatmulHeuristicResult_t result = {};
    int returned = 0;
    if (s.ok()) {
      s = check(lt.cublasLtMatmulAlgoGetHeuristic(lt_, desc, layout_b, layout_a, layout_c, layout_c,
                                                  preference, 1, &result, &returned),
                "cublasLtMatmulAlgoGetHeuristic");
    }
    if (!s.ok()) return s;
    if (returned == 0) {
      return absl::UnimplementedError(
          absl::StrCat("cuBLASLt has no algorithm for this epilogue GEMM (", key, ")"));
    }
    found = lt_algorithms_.emplace(key, result.algo).first;
  }
  void* workspace = reinterpret_cast<void*>(workspaces_.at(stream.handle())->address());
  void* out = reinterpret_cast<void*>(c.address);
  return check(
      lt.cublasLtMatmul(lt_, desc, alpha, reinterpret_cast<const void*>(b.address), layout_b,
                        reinterpret_cast<const void*>(a.address), layout_a, beta, out, layout_c,
                        out, layout_c, &found->second, workspace, kWorkspaceBytes, stream.handle()),
      "cublasLtMatmul");
}

absl::Status GpuBlas::Scale(runtime::CudaStream& stream, const DeviceTensor& x, double factor) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (absl::Status s = Bind(stream); !s.ok()) return s;
  const DType dtype = x.type.dtype;
  const int64_t size = ir::DTypeSize(dtype);
  const float factor_f = static_cast<float>(factor);
  for (int64_t done = 0, total = x.type.shape.num_elements(); done < total;) {
    const int count = static_cast<int>(std::min<int64_t>(total - done, INT_MAX));
    void* p = reinterpret_cast<void*>(x.address + done * size);
    cublasStatus_t status = CUBLAS_STATUS_NOT_SUPPORTED;
    const char* call = "cublas scal";
    switch (dtype) {
      case DType::kFloat32:
        status = cublas_->cublasSscal(handle_, count, &factor_f, static_cast<float*>(p), 1);
        call = "cublasSscal";
        break;
      case DType::kFloat64:
        status = cublas_->cublasDscal(handle_, count, &factor, static_cast<double*>(p), 1);
        call = "cublasDscal";
        break;
      case DType::kComplex64:
        status = cublas_->cublasCsscal(handle_, count, &factor_f, static_cast<cuComplex*>(p), 1);
        call = "cublasCsscal";
        break;
      case DType::kComplex128:
        status =
            cublas_->cublasZdscal(handle_, count, &factor, static_cast<cuDoubleComplex*>(p), 1);
        call = "cublasZdscal";
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("cannot scale ", ir::DTypeName(dtype), " with cuBLAS"));
    }
    if (absl::Status s = runtime::CublasStatus(status, call); !s.ok()) return s;
    done += count;
  }
  return absl::OkStatus();
}

}  // namespace gpuc::detail
