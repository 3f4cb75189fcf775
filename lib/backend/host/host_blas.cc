//===- host_blas.cc - Library ops on the host through a CPU BLAS ----------===//
#include "lib/backend/host/host_blas.h"

#include <cblas.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_kernels.h"
#include "ir/matmul_semantics.h"
#include "ir/shape.h"
#include "ir/wide_value.h"

namespace gpuc::detail {
namespace {

using ir::DType;
using ir::HostTensor;

/// `t` with every element converted to `dtype` (itself when it already has it).
HostTensor Converted(const HostTensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  HostTensor out(ir::TensorType{dtype, t.shape()});
  for (int64_t i = 0; i < t.shape().num_elements(); ++i) {
    ir::StoreElement(dtype, out.element(i),
                     ir::ConvertTo(dtype, ir::LoadElement(t.dtype(), t.element(i))));
  }
  return out;
}

/// y = op(M) x through ?gemv (matrix at `mat`, stored rows × cols row-major, transposed when
/// `trans`), for the matrix-vector shapes of Gemm: NumPy's matmul takes this path for them,
/// and OpenBLAS's GEMV is faster than its GEMM with a dimension of 1.
void GemvCall(DType dtype, bool trans, int64_t rows, int64_t cols, const std::byte* mat,
              const std::byte* x, std::byte* y) {
  const blasint R = static_cast<blasint>(rows), C = static_cast<blasint>(cols),
                ld = std::max<blasint>(1, C);
  const CBLAS_TRANSPOSE op = trans ? CblasTrans : CblasNoTrans;
  switch (dtype) {
    case DType::kFloat32:
      cblas_sgemv(CblasRowMajor, op, R, C, 1.0f, reinterpret_cast<const float*>(mat), ld,
                  reinterpret_cast<const float*>(x), 1, 0.0f, reinterpret_cast<float*>(y), 1);
      break;
    case DType::kFloat64:
      cblas_dgemv(CblasRowMajor, op, R, C, 1.0, reinterpret_cast<const double*>(mat), ld,
                  reinterpret_cast<const double*>(x), 1, 0.0, reinterpret_cast<double*>(y), 1);
      break;
    case DType::kComplex64: {
      const std::complex<float> one(1), zero(0);
      cblas_cgemv(CblasRowMajor, op, R, C, &one, mat, ld, x, 1, &zero, y, 1);
      break;
    }
    default: {  // complex128
      const std::complex<double> one(1), zero(0);
      cblas_zgemv(CblasRowMajor, op, R, C, &one, mat, ld, x, 1, &zero, y, 1);
      break;
    }
  }
}

/// Gemm's m = 1 or n = 1 shapes as one GEMV (k > 0). The vector operand is contiguous
/// whichever way it is stored.
void Gemv(DType dtype, ir::MatmulTransposes t, int64_t m, int64_t n, int64_t k, const std::byte* a,
          const std::byte* b, std::byte* c) {
  if (m == 1 && n == 1) {
    // Two vectors: one ?dot (BLAS-1), what np.dot calls; a GEMV of one row costs twice as
    // long at 10^4..10^6 elements.
    const blasint K = static_cast<blasint>(k);
    switch (dtype) {
      case DType::kFloat32:
        *reinterpret_cast<float*>(c) = cblas_sdot(K, reinterpret_cast<const float*>(a), 1,
                                                  reinterpret_cast<const float*>(b), 1);
        return;
      case DType::kFloat64:
        *reinterpret_cast<double*>(c) = cblas_ddot(K, reinterpret_cast<const double*>(a), 1,
                                                   reinterpret_cast<const double*>(b), 1);
        return;
      case DType::kComplex64:
        cblas_cdotu_sub(K, a, 1, b, 1, c);
        return;
      case DType::kComplex128:
        cblas_zdotu_sub(K, a, 1, b, 1, c);
        return;
      default:
        break;
    }
  }
  if (m == 1) {
    // c (1×n) = a (1×k) · op(B): y = op(B)ᵀ a, B stored k×n (or n×k when transposed).
    if (t.b) {
      GemvCall(dtype, false, n, k, b, a, c);
    } else {
      GemvCall(dtype, true, k, n, b, a, c);
    }
    return;
  }
  // c (m×1) = op(A) (m×k) · b (k×1): A stored m×k (or k×m when transposed).
  if (t.a) {
    GemvCall(dtype, true, k, m, a, b, c);
  } else {
    GemvCall(dtype, false, m, k, a, b, c);
  }
}

/// C (m×n) = op(A) · op(B), all row-major and contiguous; a transposed operand is stored as
/// its k×m (A) or n×k (B) transpose.
void Gemm(DType dtype, ir::MatmulTransposes t, int64_t m, int64_t n, int64_t k, const std::byte* a,
          const std::byte* b, std::byte* c) {
  const blasint M = static_cast<blasint>(m), N = static_cast<blasint>(n),
                K = static_cast<blasint>(k);
  // Leading dimensions (the stored rows' lengths) must be at least 1 even for empty matrices.
  const blasint lda = std::max<blasint>(1, t.a ? M : K), ldb = std::max<blasint>(1, t.b ? K : N),
                ldc = std::max<blasint>(1, N);
  const CBLAS_TRANSPOSE ta = t.a ? CblasTrans : CblasNoTrans, tb = t.b ? CblasTrans : CblasNoTrans;
  if ((m == 1 || n == 1) && k > 0) {
    Gemv(dtype, t, m, n, k, a, b, c);
    return;
  }
  switch (dtype) {
    case DType::kFloat32:
      cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, reinterpret_cast<const float*>(a), lda,
                  reinterpret_cast<const float*>(b), ldb, 0.0f, reinterpret_cast<float*>(c), ldc);
      break;
    case DType::kFloat64:
      cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, reinterpret_cast<const double*>(a), lda,
                  reinterpret_cast<const double*>(b), ldb, 0.0, reinterpret_cast<double*>(c), ldc);
      break;
    case DType::kComplex64: {
      const std::complex<float> one(1), zero(0);
      cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, &one, a, lda, b, ldb, &zero, c, ldc);
      break;
    }
    default: {  // complex128
      const std::complex<double> one(1), zero(0);
      cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, &one, a, lda, b, ldb, &zero, c, ldc);
      break;
    }
  }
}

}  // namespace

bool HostBlasHandles(const ir::Node& node) {
  if (node.op() != ir::OpCode::kMatmul) return false;
  switch (node.dtype()) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kComplex64:
    case DType::kComplex128:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<HostTensor> HostMatmul(const ir::Node& node, const HostTensor& a_in,
                                      const HostTensor& b_in) {
  // Half types compute in float32 and round once, as NumPy's float16 matmul does.
  const DType loop = node.dtype();
  const bool half = loop == DType::kFloat16 || loop == DType::kBFloat16;
  const DType dtype = half ? DType::kFloat32 : loop;
  const HostTensor a = Converted(Converted(a_in, loop), dtype);
  const HostTensor b = Converted(Converted(b_in, loop), dtype);
  // 1-D operands become a row (a) or a column (b) matrix, as NumPy's matmul does.
  const ir::MatmulTransposes transposes = ir::TransposesOf(node);
  std::vector<int64_t> ad = a.shape().ToVector(), bd = b.shape().ToVector();
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  if (transposes.a) std::swap(ad[ad.size() - 2], ad.back());
  if (transposes.b) std::swap(bd[bd.size() - 2], bd.back());
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  if (bd[bd.size() - 2] != k) {
    return absl::InvalidArgumentError(absl::StrCat("matmul: inner dimensions of ",
                                                   a.type().ToString(), " and ",
                                                   b.type().ToString(), " differ"));
  }
  const ir::Shape a_batch(std::vector<int64_t>(ad.begin(), ad.end() - 2));
  const ir::Shape b_batch(std::vector<int64_t>(bd.begin(), bd.end() - 2));
  absl::StatusOr<ir::Shape> batch = ir::BroadcastShapes(a_batch, b_batch);
  if (!batch.ok()) return batch.status();
  HostTensor out(ir::TensorType{dtype, node.type().shape});
  const int64_t size = ir::DTypeSize(dtype);
  std::vector<int64_t> index(batch->rank());
  for (int64_t i = 0; i < batch->num_elements(); ++i) {
    ir::UnflattenIndex(i, *batch, absl::MakeSpan(index));
    const int64_t a_offset = ir::interp::BroadcastOffset(index, a_batch) * m * k;
    const int64_t b_offset = ir::interp::BroadcastOffset(index, b_batch) * k * n;
    std::byte* c = out.element(i * m * n);
    if (m == 0 || n == 0) continue;
    if (k == 0) {  // an empty sum: zeros (the BLAS need not touch C then)
      std::memset(c, 0, static_cast<size_t>(m * n * size));
      continue;
    }
    Gemm(dtype, transposes, m, n, k, a.element(a_offset), b.element(b_offset), c);
  }
  return Converted(out, loop);
}

namespace {

template <typename T>
void AddBiasAndActivate(HostTensor& out, const HostTensor& bias, int64_t cols, bool relu) {
  T* y = reinterpret_cast<T*>(out.data());
  const T* row = reinterpret_cast<const T*>(bias.data());
  const int64_t count = out.num_elements();
  for (int64_t i = 0; i < count; ++i) {
    T v = y[i] + row[i % cols];
    // maximum(v, 0): NaN stays NaN, and a zero of either sign comes out +0.
    if (relu && !(v > 0) && v == v) v = 0;
    y[i] = v;
  }
}

}  // namespace

absl::StatusOr<HostTensor> HostMatmulBias(const ir::Node& node, const HostTensor& a,
                                          const HostTensor& b, const HostTensor& bias) {
  absl::StatusOr<HostTensor> product = HostMatmul(node, a, b);
  if (!product.ok()) return product.status();
  const bool relu = ir::AppliesRelu(node);
  const int64_t cols = node.shape()[node.shape().rank() - 1];
  if (node.dtype() == DType::kFloat32) {
    AddBiasAndActivate<float>(*product, bias, cols, relu);
  } else {
    AddBiasAndActivate<double>(*product, bias, cols, relu);
  }
  return product;
}

}  // namespace gpuc::detail
