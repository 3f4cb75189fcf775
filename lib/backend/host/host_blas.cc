//===- host_blas.cc - Library ops on the host through a CPU BLAS ----------===//
#include "lib/backend/host/host_blas.h"

#include <cblas.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/interpreter_kernels.h"
#include "ir/matmul_semantics.h"
#include "ir/shape.h"
#include "ir/wide_value.h"
#include "lib/backend/host/strided_view.h"

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

/// A logical rows x cols matrix in memory: element (i, j) at data + (i * row + j * col)
/// elements. Operands stored contiguously, strided views of a stored array
/// (strided_view.h), and transposed operands are all this.
struct StridedMatrix {
  const std::byte* data;
  int64_t rows, cols, row, col;
};

/// How the BLAS reads a StridedMatrix: stored row-major with rows `ld` elements apart,
/// transposed when `trans`.
struct BlasForm {
  bool trans;
  blasint ld;
};

/// The BLAS needs one axis of unit stride and the other at least the first's extent apart;
/// an axis of extent 1 has any stride.
std::optional<BlasForm> FormOf(const StridedMatrix& x) {
  if (x.col == 1 || x.cols == 1) {
    const int64_t ld = x.rows == 1 ? std::max<int64_t>(1, x.cols) : x.row;
    if (ld >= std::max<int64_t>(1, x.cols)) return BlasForm{false, static_cast<blasint>(ld)};
  }
  if (x.row == 1 || x.rows == 1) {
    const int64_t ld = x.cols == 1 ? std::max<int64_t>(1, x.rows) : x.col;
    if (ld >= std::max<int64_t>(1, x.rows)) return BlasForm{true, static_cast<blasint>(ld)};
  }
  return std::nullopt;
}

/// The elements' distance along a vector operand (a matrix with one extent 1); the BLAS
/// wants it positive.
blasint Increment(const StridedMatrix& v) {
  const int64_t inc = v.rows == 1 ? v.col : v.row;
  return static_cast<blasint>(std::max<int64_t>(1, inc));
}

bool IsVector(const StridedMatrix& v) {
  return (v.rows == 1 || v.cols == 1) && (v.rows == 1 ? v.col : v.row) >= 1;
}

/// y = op(M) x through ?gemv, M stored rows x cols with leading dimension `ld`, x's elements
/// `inc` apart: the matrix-vector shapes NumPy's matmul sends to GEMV too (OpenBLAS's GEMV
/// is faster than its GEMM with a dimension of 1).
void GemvCall(DType dtype, bool trans, int64_t rows, int64_t cols, const std::byte* mat, blasint ld,
              const std::byte* x, blasint inc, std::byte* y) {
  const blasint R = static_cast<blasint>(rows), C = static_cast<blasint>(cols);
  const CBLAS_TRANSPOSE op = trans ? CblasTrans : CblasNoTrans;
  switch (dtype) {
    case DType::kFloat32:
      cblas_sgemv(CblasRowMajor, op, R, C, 1.0f, reinterpret_cast<const float*>(mat), ld,
                  reinterpret_cast<const float*>(x), inc, 0.0f, reinterpret_cast<float*>(y), 1);
      break;
    case DType::kFloat64:
      cblas_dgemv(CblasRowMajor, op, R, C, 1.0, reinterpret_cast<const double*>(mat), ld,
                  reinterpret_cast<const double*>(x), inc, 0.0, reinterpret_cast<double*>(y), 1);
      break;
    case DType::kComplex64: {
      const std::complex<float> one(1), zero(0);
      cblas_cgemv(CblasRowMajor, op, R, C, &one, mat, ld, x, inc, &zero, y, 1);
      break;
    }
    default: {  // complex128
      const std::complex<double> one(1), zero(0);
      cblas_zgemv(CblasRowMajor, op, R, C, &one, mat, ld, x, inc, &zero, y, 1);
      break;
    }
  }
}

/// Two vectors: one ?dot (BLAS-1), what np.dot calls; a GEMV of one row costs twice as
/// long at 10^4..10^6 elements.
void DotCall(DType dtype, int64_t k, const std::byte* a, blasint inc_a, const std::byte* b,
             blasint inc_b, std::byte* c) {
  const blasint K = static_cast<blasint>(k);
  switch (dtype) {
    case DType::kFloat32:
      *reinterpret_cast<float*>(c) = cblas_sdot(K, reinterpret_cast<const float*>(a), inc_a,
                                                reinterpret_cast<const float*>(b), inc_b);
      return;
    case DType::kFloat64:
      *reinterpret_cast<double*>(c) = cblas_ddot(K, reinterpret_cast<const double*>(a), inc_a,
                                                 reinterpret_cast<const double*>(b), inc_b);
      return;
    case DType::kComplex64:
      cblas_cdotu_sub(K, a, inc_a, b, inc_b, c);
      return;
    default:  // complex128
      cblas_zdotu_sub(K, a, inc_a, b, inc_b, c);
      return;
  }
}

/// C (m x n, row-major, contiguous) = A (m x k) B (k x n) through the BLAS, k > 0; false
/// (nothing written) when an operand's strides are not a form the BLAS takes.
bool Gemm(DType dtype, const StridedMatrix& a, const StridedMatrix& b, std::byte* c) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 1 && n == 1) {
    if (!IsVector(a) || !IsVector(b)) return false;
    DotCall(dtype, k, a.data, Increment(a), b.data, Increment(b), c);
    return true;
  }
  if (m == 1) {
    // c (1 x n) = a B: y = B^T a.
    const std::optional<BlasForm> fb = FormOf(b);
    if (!fb || !IsVector(a)) return false;
    if (fb->trans) {
      GemvCall(dtype, false, n, k, b.data, fb->ld, a.data, Increment(a), c);
    } else {
      GemvCall(dtype, true, k, n, b.data, fb->ld, a.data, Increment(a), c);
    }
    return true;
  }
  const std::optional<BlasForm> fa = FormOf(a);
  if (n == 1) {
    // c (m x 1) = A b.
    if (!fa || !IsVector(b)) return false;
    if (fa->trans) {
      GemvCall(dtype, true, k, m, a.data, fa->ld, b.data, Increment(b), c);
    } else {
      GemvCall(dtype, false, m, k, a.data, fa->ld, b.data, Increment(b), c);
    }
    return true;
  }
  const std::optional<BlasForm> fb = FormOf(b);
  if (!fa || !fb) return false;
  const blasint M = static_cast<blasint>(m), N = static_cast<blasint>(n),
                K = static_cast<blasint>(k), ldc = static_cast<blasint>(n);
  const CBLAS_TRANSPOSE ta = fa->trans ? CblasTrans : CblasNoTrans,
                        tb = fb->trans ? CblasTrans : CblasNoTrans;
  switch (dtype) {
    case DType::kFloat32:
      cblas_sgemm(CblasRowMajor, ta, tb, M, N, K, 1.0f, reinterpret_cast<const float*>(a.data),
                  fa->ld, reinterpret_cast<const float*>(b.data), fb->ld, 0.0f,
                  reinterpret_cast<float*>(c), ldc);
      break;
    case DType::kFloat64:
      cblas_dgemm(CblasRowMajor, ta, tb, M, N, K, 1.0, reinterpret_cast<const double*>(a.data),
                  fa->ld, reinterpret_cast<const double*>(b.data), fb->ld, 0.0,
                  reinterpret_cast<double*>(c), ldc);
      break;
    case DType::kComplex64: {
      const std::complex<float> one(1), zero(0);
      cblas_cgemm(CblasRowMajor, ta, tb, M, N, K, &one, a.data, fa->ld, b.data, fb->ld, &zero, c,
                  ldc);
      break;
    }
    default: {  // complex128
      const std::complex<double> one(1), zero(0);
      cblas_zgemm(CblasRowMajor, ta, tb, M, N, K, &one, a.data, fa->ld, b.data, fb->ld, &zero, c,
                  ldc);
      break;
    }
  }
  return true;
}

/// The logical matrix of a contiguous operand block: stored `rows_stored` x `cols_stored`
/// row-major, transposed when `trans`.
StridedMatrix Contiguous(const std::byte* data, int64_t rows_stored, int64_t cols_stored,
                         bool trans) {
  return trans ? StridedMatrix{data, cols_stored, rows_stored, 1, cols_stored}
               : StridedMatrix{data, rows_stored, cols_stored, cols_stored, 1};
}

bool IsBlasDType(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kComplex64 ||
         dtype == DType::kComplex128;
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
    const StridedMatrix am =
        Contiguous(a.element(a_offset), transposes.a ? k : m, transposes.a ? m : k, transposes.a);
    const StridedMatrix bm =
        Contiguous(b.element(b_offset), transposes.b ? n : k, transposes.b ? k : n, transposes.b);
    Gemm(dtype, am, bm, c);  // contiguous operands always have a BLAS form
  }
  return Converted(out, loop);
}

absl::StatusOr<std::optional<HostTensor>> HostMatmulOfViews(const ir::Node& node,
                                                            const StridedView& a,
                                                            const StridedView& b) {
  const DType dtype = node.dtype();
  if (!IsBlasDType(dtype) || a.base.dtype() != dtype || b.base.dtype() != dtype ||
      a.shape.size() > 2 || b.shape.size() > 2 || a.shape.empty() || b.shape.empty()) {
    return std::nullopt;
  }
  // NumPy's promotion of 1-D operands: a row (a), a column (b).
  auto matrix = [](const StridedView& v, bool is_a) {
    if (v.shape.size() == 1) {
      return is_a ? StridedMatrix{v.data(), 1, v.shape[0], 0, v.strides[0]}
                  : StridedMatrix{v.data(), v.shape[0], 1, v.strides[0], 0};
    }
    return StridedMatrix{v.data(), v.shape[0], v.shape[1], v.strides[0], v.strides[1]};
  };
  StridedMatrix am = matrix(a, true), bm = matrix(b, false);
  const ir::MatmulTransposes transposes = ir::TransposesOf(node);
  if (transposes.a) am = {am.data, am.cols, am.rows, am.col, am.row};
  if (transposes.b) bm = {bm.data, bm.cols, bm.rows, bm.col, bm.row};
  if (am.cols != bm.rows) {
    return absl::InvalidArgumentError(absl::StrCat("matmul: inner dimensions of ",
                                                   ir::Shape(a.shape).ToString(), " and ",
                                                   ir::Shape(b.shape).ToString(), " differ"));
  }
  if (am.rows == 0 || bm.cols == 0 || am.cols == 0) return std::nullopt;
  HostTensor out = HostTensor::Uninitialized(node.type());
  if (!Gemm(dtype, am, bm, out.data())) return std::nullopt;
  return out;
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
