//===- linalg_semantics.cc - What a linalg node computes ------------------===//
#include "ir/linalg_semantics.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/wide_value.h"

namespace gpuc::ir {
namespace {

using Complex = std::complex<double>;

constexpr struct {
  LinalgRoutine routine;
  const char* name;
} kRoutines[] = {
    {LinalgRoutine::kSolve, "solve"},       {LinalgRoutine::kInv, "inv"},
    {LinalgRoutine::kDet, "det"},           {LinalgRoutine::kSlogdet, "slogdet"},
    {LinalgRoutine::kCholesky, "cholesky"}, {LinalgRoutine::kEigh, "eigh"},
    {LinalgRoutine::kEigvalsh, "eigvalsh"},
};

bool IsLinalgDType(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kComplex64 ||
         d == DType::kComplex128;
}

// One matrix of the batch in complex double, row-major.
struct Matrix {
  int64_t n = 0;
  std::vector<Complex> v;
  Complex& at(int64_t i, int64_t j) { return v[i * n + j]; }
  Complex at(int64_t i, int64_t j) const { return v[i * n + j]; }
};

Matrix LoadMatrix(const HostTensor& t, int64_t index, int64_t rows, int64_t cols) {
  Matrix m;
  m.n = cols;
  m.v.resize(static_cast<size_t>(rows * cols));
  const int64_t item = DTypeSize(t.dtype());
  const std::byte* base = t.data() + index * rows * cols * item;
  for (int64_t k = 0; k < rows * cols; ++k) {
    const WideValue w = LoadElement(t.dtype(), base + k * item);
    m.v[k] = w.domain == DTypeKind::kComplex ? w.c : Complex(ToDouble(w), 0.0);
  }
  return m;
}

void StoreValues(HostTensor& t, int64_t offset, const std::vector<Complex>& values) {
  const int64_t item = DTypeSize(t.dtype());
  for (size_t k = 0; k < values.size(); ++k) {
    StoreElement(t.dtype(), t.data() + (offset + static_cast<int64_t>(k)) * item,
                 WideValue::Complex(values[k]));
  }
}

// LU with partial pivoting in place (row swaps as LAPACK's getrf picks them: the largest
// |re| + |im|... LAPACK picks by cabs1 for complex; the largest magnitude for real). Returns
// the first exactly zero pivot (-1: none) and the permutation's sign.
struct Lu {
  Matrix lu;
  std::vector<int64_t> perm;  // row i of lu is row perm[i] of a
  int64_t zero_pivot = -1;
  double sign = 1.0;
};

double PivotSize(Complex z) { return std::abs(z.real()) + std::abs(z.imag()); }

Lu Factor(Matrix a) {
  Lu f;
  const int64_t n = a.n;
  f.perm.resize(static_cast<size_t>(n));
  std::iota(f.perm.begin(), f.perm.end(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i) {
      if (PivotSize(a.at(i, k)) > PivotSize(a.at(p, k))) p = i;
    }
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a.at(k, j), a.at(p, j));
      std::swap(f.perm[k], f.perm[p]);
      f.sign = -f.sign;
    }
    const Complex pivot = a.at(k, k);
    if (pivot == Complex(0.0, 0.0)) {
      if (f.zero_pivot < 0) f.zero_pivot = k;
      continue;  // as getrf: the factorization goes on, U has a zero on its diagonal
    }
    for (int64_t i = k + 1; i < n; ++i) {
      const Complex l = a.at(i, k) / pivot;
      a.at(i, k) = l;
      for (int64_t j = k + 1; j < n; ++j) a.at(i, j) -= l * a.at(k, j);
    }
  }
  f.lu = std::move(a);
  return f;
}

// x with a x = b for the k columns of b (row-major n x k), from a's factorization.
std::vector<Complex> SolveFactored(const Lu& f, const Matrix& b) {
  const int64_t n = f.lu.n, k = b.n;
  std::vector<Complex> x(static_cast<size_t>(n * k));
  for (int64_t c = 0; c < k; ++c) {
    std::vector<Complex> y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      Complex s = b.at(f.perm[i], c);
      for (int64_t j = 0; j < i; ++j) s -= f.lu.at(i, j) * y[j];
      y[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; --i) {
      Complex s = y[i];
      for (int64_t j = i + 1; j < n; ++j) s -= f.lu.at(i, j) * x[j * k + c];
      x[i * k + c] = s / f.lu.at(i, i);
    }
  }
  return x;
}

// The full Hermitian matrix from a's lower triangle (the diagonal's imaginary part ignored,
// as LAPACK does).
Matrix HermitianFromLower(const Matrix& a) {
  Matrix h = a;
  for (int64_t i = 0; i < a.n; ++i) {
    h.at(i, i) = Complex(a.at(i, i).real(), 0.0);
    for (int64_t j = 0; j < i; ++j) h.at(j, i) = std::conj(a.at(i, j));
  }
  return h;
}

// Cyclic Jacobi: each rotation first turns a_pq real by a phase on column q, then zeroes it
// with a real plane rotation (Numerical Recipes' jacobi, in complex arithmetic).
absl::Status JacobiEigen(Matrix& a, Matrix& vectors, std::vector<double>& values) {
  const int64_t n = a.n;
  vectors.n = n;
  vectors.v.assign(static_cast<size_t>(n * n), Complex(0.0, 0.0));
  for (int64_t i = 0; i < n; ++i) vectors.at(i, i) = 1.0;
  double scale = 0.0;
  for (const Complex& z : a.v) scale += std::norm(z);
  bool converged = n <= 1;
  for (int sweep = 0; sweep < 100 && !converged; ++sweep) {
    double off = 0.0;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) off += std::norm(a.at(p, q));
    }
    if (off <= 1e-32 * scale) {
      converged = true;
      break;
    }
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double alpha = std::abs(a.at(p, q));
        if (alpha == 0.0) continue;
        const Complex phase = a.at(p, q) / alpha;  // e^{i phi}
        const Complex undo = std::conj(phase);
        for (int64_t k = 0; k < n; ++k) {
          a.at(k, q) *= undo;
          vectors.at(k, q) *= undo;
        }
        for (int64_t k = 0; k < n; ++k) a.at(q, k) *= phase;
        const double theta = (a.at(q, q).real() - a.at(p, p).real()) / (2.0 * alpha);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::hypot(theta, 1.0));
        const double c = 1.0 / std::hypot(t, 1.0), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns: a R, vectors R
          const Complex kp = a.at(k, p), kq = a.at(k, q);
          a.at(k, p) = c * kp - s * kq;
          a.at(k, q) = s * kp + c * kq;
          const Complex vp = vectors.at(k, p), vq = vectors.at(k, q);
          vectors.at(k, p) = c * vp - s * vq;
          vectors.at(k, q) = s * vp + c * vq;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows: R^T a
          const Complex pk = a.at(p, k), qk = a.at(q, k);
          a.at(p, k) = c * pk - s * qk;
          a.at(q, k) = s * pk + c * qk;
        }
        a.at(p, q) = a.at(q, p) = 0.0;
      }
    }
  }
  if (!converged) return absl::InternalError("the eigenvalues did not converge");
  // Ascending, the vectors with them.
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return a.at(x, x).real() < a.at(y, y).real(); });
  values.resize(static_cast<size_t>(n));
  Matrix sorted = vectors;
  for (int64_t j = 0; j < n; ++j) {
    values[j] = a.at(order[j], order[j]).real();
    for (int64_t i = 0; i < n; ++i) sorted.at(i, j) = vectors.at(i, order[j]);
  }
  vectors = std::move(sorted);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LinalgRoutine> ReadLinalgRoutine(const Attributes& attrs) {
  const std::string* name = attrs.Get<std::string>("routine");
  if (name == nullptr) return absl::InvalidArgumentError("linalg: needs a 'routine' attribute");
  for (const auto& r : kRoutines) {
    if (*name == r.name) return r.routine;
  }
  return absl::InvalidArgumentError(absl::StrCat("linalg: unknown routine '", *name,
                                                 "' (solve, inv, det, slogdet, cholesky, eigh, "
                                                 "eigvalsh)"));
}

const char* LinalgRoutineName(LinalgRoutine routine) {
  for (const auto& r : kRoutines) {
    if (r.routine == routine) return r.name;
  }
  return "?";
}

LinalgBatch BatchOf(const TensorType& a) {
  const int rank = a.shape.rank();
  LinalgBatch b;
  b.n = a.shape[rank - 1];
  b.count = 1;
  for (int d = 0; d + 2 < rank; ++d) b.count *= a.shape[d];
  return b;
}

absl::Status LinalgError(LinalgRoutine routine, const TensorType& a, int64_t index,
                         absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("linalg.", LinalgRoutineName(routine),
                                                 ": the matrix ", a.ToString(), " at batch index ",
                                                 index, " ", what));
}

absl::StatusOr<TensorType> LinalgResultType(LinalgRoutine routine,
                                            absl::Span<const TensorType> operands) {
  const std::string name = absl::StrCat("linalg.", LinalgRoutineName(routine));
  const size_t arity = routine == LinalgRoutine::kSolve ? 2 : 1;
  if (operands.size() != arity) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": takes ", arity, " operands, not ", operands.size()));
  }
  const TensorType& a = operands[0];
  const int rank = a.shape.rank();
  if (!IsLinalgDType(a.dtype) || rank < 2 || a.shape[rank - 1] != a.shape[rank - 2]) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": expects a stack of square matrices [..., n, n] of f32, f64, c64 or c128; got ",
        a.ToString()));
  }
  const int64_t n = a.shape[rank - 1];
  std::vector<int64_t> batch(a.shape.dims().begin(), a.shape.dims().end() - 2);
  std::vector<int64_t> dims = batch;
  switch (routine) {
    case LinalgRoutine::kSolve: {
      const TensorType& b = operands[1];
      const int brank = b.shape.rank();
      bool ok = b.dtype == a.dtype && brank == rank && b.shape[brank - 2] == n;
      for (int d = 0; ok && d + 2 < rank; ++d) ok = b.shape[d] == a.shape[d];
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": b must be [..., ", n,
                                                       ", k] of a's batch and dtype; got a ",
                                                       a.ToString(), " and b ", b.ToString()));
      }
      return b;
    }
    case LinalgRoutine::kInv:
    case LinalgRoutine::kCholesky:
      return a;
    case LinalgRoutine::kDet:
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kSlogdet:
      dims.push_back(2);
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kEigh:
      dims.push_back(n);
      dims.push_back(n + 1);
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kEigvalsh:
      dims.push_back(n);
      return TensorType{RealPart(a.dtype), Shape(std::move(dims))};
  }
  return absl::InternalError("linalg: unhandled routine");
}

absl::StatusOr<HostTensor> EvalLinalgNode(const Node& node, const HostTensor& a,
                                          const HostTensor* b) {
  absl::StatusOr<LinalgRoutine> routine = ReadLinalgRoutine(node.attrs());
  if (!routine.ok()) return routine.status();
  HostTensor out = HostTensor::Uninitialized(node.type());
  const LinalgBatch batch = BatchOf(a.type());
  const int64_t n = batch.n;
  const int64_t out_per_matrix = batch.count == 0 ? 0 : node.shape().num_elements() / batch.count;
  for (int64_t index = 0; index < batch.count; ++index) {
    const Matrix m = LoadMatrix(a, index, n, n);
    std::vector<Complex> result;
    switch (*routine) {
      case LinalgRoutine::kSolve:
      case LinalgRoutine::kInv: {
        const Lu f = Factor(m);
        if (f.zero_pivot >= 0) return LinalgError(*routine, a.type(), index, "is singular");
        Matrix rhs;
        if (*routine == LinalgRoutine::kSolve) {
          const int64_t k = b->shape()[b->shape().rank() - 1];
          rhs = LoadMatrix(*b, index, n, k);
        } else {
          rhs.n = n;
          rhs.v.assign(static_cast<size_t>(n * n), Complex(0.0, 0.0));
          for (int64_t i = 0; i < n; ++i) rhs.at(i, i) = 1.0;
        }
        result = SolveFactored(f, rhs);
        break;
      }
      case LinalgRoutine::kDet:
      case LinalgRoutine::kSlogdet: {
        const Lu f = Factor(m);
        Complex det = f.sign, sign = f.sign;
        double log_abs = 0.0;
        for (int64_t i = 0; i < n; ++i) {
          const Complex d = f.lu.at(i, i);
          det *= d;
          const double magnitude = std::abs(d);
          if (magnitude == 0.0) {
            sign = 0.0;
            log_abs = -std::numeric_limits<double>::infinity();
          } else if (sign != Complex(0.0, 0.0)) {
            sign *= d / magnitude;
            log_abs += std::log(magnitude);
          }
        }
        result = *routine == LinalgRoutine::kDet ? std::vector<Complex>{det}
                                                 : std::vector<Complex>{sign, log_abs};
        break;
      }
      case LinalgRoutine::kCholesky: {
        Matrix l;
        l.n = n;
        l.v.assign(static_cast<size_t>(n * n), Complex(0.0, 0.0));
        for (int64_t j = 0; j < n; ++j) {
          double d = m.at(j, j).real();
          for (int64_t k = 0; k < j; ++k) d -= std::norm(l.at(j, k));
          if (!(d > 0.0)) {
            return LinalgError(*routine, a.type(), index, "is not positive definite");
          }
          l.at(j, j) = std::sqrt(d);
          for (int64_t i = j + 1; i < n; ++i) {
            Complex s = m.at(i, j);
            for (int64_t k = 0; k < j; ++k) s -= l.at(i, k) * std::conj(l.at(j, k));
            l.at(i, j) = s / l.at(j, j).real();
          }
        }
        result = std::move(l.v);
        break;
      }
      case LinalgRoutine::kEigh:
      case LinalgRoutine::kEigvalsh: {
        Matrix h = HermitianFromLower(m), vectors;
        std::vector<double> values;
        if (absl::Status s = JacobiEigen(h, vectors, values); !s.ok()) {
          return LinalgError(*routine, a.type(), index, s.message());
        }
        if (*routine == LinalgRoutine::kEigvalsh) {
          result.assign(values.begin(), values.end());
        } else {
          result.resize(static_cast<size_t>(n * (n + 1)));
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) result[i * (n + 1) + j] = vectors.at(i, j);
            result[i * (n + 1) + n] = values[i];
          }
        }
        break;
      }
    }
    StoreValues(out, index * out_per_matrix, result);
  }
  return out;
}

}  // namespace gpuc::ir
