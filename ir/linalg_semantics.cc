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
    {LinalgRoutine::kSolve, "solve"},
    {LinalgRoutine::kInv, "inv"},
    {LinalgRoutine::kDet, "det"},
    {LinalgRoutine::kSlogdet, "slogdet"},
    {LinalgRoutine::kCholesky, "cholesky"},
    {LinalgRoutine::kEigh, "eigh"},
    {LinalgRoutine::kEigvalsh, "eigvalsh"},
    {LinalgRoutine::kSvd, "svd"},
    {LinalgRoutine::kSvdFull, "svd_full"},
    {LinalgRoutine::kSvdvals, "svdvals"},
    {LinalgRoutine::kQr, "qr"},
    {LinalgRoutine::kQrComplete, "qr_complete"},
    {LinalgRoutine::kEig, "eig"},
    {LinalgRoutine::kEigvals, "eigvals"},
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

// Columns that extend the orthonormal columns `q` (rows x have) to `want` by Gram-Schmidt
// over the unit vectors.
void Complete(std::vector<std::vector<Complex>>& columns, int64_t rows, int64_t want) {
  for (int64_t e = 0; e < rows && static_cast<int64_t>(columns.size()) < want; ++e) {
    std::vector<Complex> v(static_cast<size_t>(rows), 0.0);
    v[e] = 1.0;
    for (int pass = 0; pass < 2; ++pass) {
      for (const std::vector<Complex>& q : columns) {
        Complex dot = 0.0;
        for (int64_t i = 0; i < rows; ++i) dot += std::conj(q[i]) * v[i];
        for (int64_t i = 0; i < rows; ++i) v[i] -= dot * q[i];
      }
    }
    double norm = 0.0;
    for (const Complex& z : v) norm += std::norm(z);
    norm = std::sqrt(norm);
    if (norm < 1e-6) continue;
    for (Complex& z : v) z /= norm;
    columns.push_back(std::move(v));
  }
}

// a (m x n) = u diag(s) vh, s descending: the eigenpairs of the smaller Gram matrix give one
// side's vectors and s; the other side's are a's image divided by s, completed to an
// orthonormal set of `other_count` columns.
struct Svd {
  std::vector<std::vector<Complex>> u;  // columns, m each
  std::vector<double> s;
  std::vector<std::vector<Complex>> v;  // columns, n each (vh = v^H)
};

absl::StatusOr<Svd> SingularValues(const Matrix& a, int64_t m, bool full) {
  const int64_t n = a.n, k = std::min(m, n);
  const bool tall = m >= n;  // Gram matrix a^H a (n x n), else a a^H (m x m)
  const int64_t g = tall ? n : m;
  Matrix gram;
  gram.n = g;
  gram.v.assign(static_cast<size_t>(g * g), 0.0);
  for (int64_t i = 0; i < g; ++i) {
    for (int64_t j = 0; j < g; ++j) {
      Complex sum = 0.0;
      if (tall) {
        for (int64_t r = 0; r < m; ++r) sum += std::conj(a.v[r * n + i]) * a.v[r * n + j];
      } else {
        for (int64_t c = 0; c < n; ++c) sum += a.v[i * n + c] * std::conj(a.v[j * n + c]);
      }
      gram.at(i, j) = sum;
    }
  }
  Matrix vectors;
  std::vector<double> values;
  if (absl::Status s = JacobiEigen(gram, vectors, values); !s.ok()) return s;
  Svd out;
  std::vector<std::vector<Complex>> near, far;  // the Gram side's columns, the other side's
  for (int64_t j = g - 1; j >= 0; --j) {        // descending
    std::vector<Complex> column(static_cast<size_t>(g));
    for (int64_t i = 0; i < g; ++i) column[i] = vectors.at(i, j);
    near.push_back(std::move(column));
    if (static_cast<int64_t>(out.s.size()) < k)
      out.s.push_back(std::sqrt(std::max(values[j], 0.0)));
  }
  const int64_t other = tall ? m : n;
  for (int64_t j = 0; j < k; ++j) {
    if (out.s[j] <= 1e-12 * std::max(out.s[0], 1e-300)) break;
    std::vector<Complex> column(static_cast<size_t>(other), 0.0);
    for (int64_t i = 0; i < other; ++i) {
      Complex sum = 0.0;
      for (int64_t t = 0; t < g; ++t) {
        sum += tall ? a.v[i * n + t] * near[j][t] : std::conj(a.v[t * n + i]) * near[j][t];
      }
      column[i] = sum / out.s[j];
    }
    far.push_back(std::move(column));
  }
  Complete(far, other, full ? other : k);
  if (!full) near.resize(static_cast<size_t>(k));
  out.u = tall ? std::move(far) : std::move(near);
  out.v = tall ? std::move(near) : std::move(far);
  return out;
}

// a (m x n) = q r by Householder reflections as LAPACK's geqrf makes them (R's diagonal
// real). q is m x q_cols, r q_cols x n.
void HouseholderQr(Matrix a, int64_t m, int64_t q_cols, std::vector<Complex>& out) {
  const int64_t n = a.n, k = std::min(m, n);
  Matrix q;
  q.n = m;
  q.v.assign(static_cast<size_t>(m * m), 0.0);
  for (int64_t i = 0; i < m; ++i) q.at(i, i) = 1.0;
  for (int64_t j = 0; j < k; ++j) {
    // LAPACK's zlarfg: beta = -sign(re alpha) |x| is real, tau = (beta - alpha) / beta,
    // v = [1, x[1:] / (alpha - beta)], H = I - tau v v^H (not Hermitian for complex tau);
    // H^H is applied to a, and q gathers H.
    const Complex alpha = a.at(j, j);
    double tail = 0.0;
    for (int64_t i = j + 1; i < m; ++i) tail += std::norm(a.at(i, j));
    if (tail == 0.0 && alpha.imag() == 0.0) continue;  // tau = 0: H is the identity
    const double beta = -std::copysign(std::sqrt(std::norm(alpha) + tail), alpha.real());
    const Complex tau = (beta - alpha) / beta;
    std::vector<Complex> v(static_cast<size_t>(m - j));
    v[0] = 1.0;
    for (int64_t i = j + 1; i < m; ++i) v[i - j] = a.at(i, j) / (alpha - beta);
    for (int64_t c = j; c < n; ++c) {  // a <- (I - conj(tau) v v^H) a
      Complex dot = 0.0;
      for (int64_t i = j; i < m; ++i) dot += std::conj(v[i - j]) * a.at(i, c);
      for (int64_t i = j; i < m; ++i) a.at(i, c) -= std::conj(tau) * v[i - j] * dot;
    }
    for (int64_t r = 0; r < m; ++r) {  // q <- q (I - tau v v^H)
      Complex dot = 0.0;
      for (int64_t i = j; i < m; ++i) dot += q.at(r, i) * v[i - j];
      for (int64_t i = j; i < m; ++i) q.at(r, i) -= tau * dot * std::conj(v[i - j]);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t c = 0; c < q_cols; ++c) out.push_back(q.at(i, c));
  }
  for (int64_t i = 0; i < q_cols; ++i) {
    for (int64_t c = 0; c < n; ++c) out.push_back(c >= i ? a.at(i, c) : Complex(0.0, 0.0));
  }
}

}  // namespace

// The eigenvalues of a general matrix: reduced to upper Hessenberg form by Householder
// reflections, then single-shift QR steps (Wilkinson's shift, Givens rotations) on the
// unreduced trailing block, deflating where a subdiagonal element falls below the precision.
absl::Status HessenbergQrEigenvalues(Matrix h, std::vector<Complex>& values) {
  const int64_t n = h.n;
  for (int64_t k = 0; k + 2 < n; ++k) {
    double norm = 0.0;
    for (int64_t i = k + 1; i < n; ++i) norm += std::norm(h.at(i, k));
    norm = std::sqrt(norm);
    if (norm == 0.0) continue;
    const Complex x0 = h.at(k + 1, k);
    const Complex alpha =
        x0 == Complex(0.0, 0.0) ? Complex(-norm, 0.0) : -std::polar(norm, std::arg(x0));
    std::vector<Complex> v(static_cast<size_t>(n), Complex(0.0, 0.0));
    v[k + 1] = x0 - alpha;
    double v2 = std::norm(v[k + 1]);
    for (int64_t i = k + 2; i < n; ++i) {
      v[i] = h.at(i, k);
      v2 += std::norm(v[i]);
    }
    if (v2 == 0.0) continue;
    for (int64_t j = 0; j < n; ++j) {  // h = (I - 2 v v^H / v^H v) h
      Complex s(0.0, 0.0);
      for (int64_t i = k + 1; i < n; ++i) s += std::conj(v[i]) * h.at(i, j);
      s *= 2.0 / v2;
      for (int64_t i = k + 1; i < n; ++i) h.at(i, j) -= v[i] * s;
    }
    for (int64_t i = 0; i < n; ++i) {  // h = h (I - 2 v v^H / v^H v)
      Complex s(0.0, 0.0);
      for (int64_t j = k + 1; j < n; ++j) s += h.at(i, j) * v[j];
      s *= 2.0 / v2;
      for (int64_t j = k + 1; j < n; ++j) h.at(i, j) -= s * std::conj(v[j]);
    }
  }
  values.assign(static_cast<size_t>(n), Complex(0.0, 0.0));
  const double eps = std::numeric_limits<double>::epsilon();
  int64_t hi = n - 1, iterations = 0;
  while (hi >= 0) {
    int64_t l = hi;
    for (; l > 0; --l) {
      const double scale = std::abs(h.at(l - 1, l - 1)) + std::abs(h.at(l, l));
      if (std::abs(h.at(l, l - 1)) <= eps * (scale == 0.0 ? 1.0 : scale)) {
        h.at(l, l - 1) = 0.0;
        break;
      }
    }
    if (l == hi) {
      values[hi] = h.at(hi, hi);
      --hi;
      iterations = 0;
      continue;
    }
    if (++iterations > 100 * n) return absl::InternalError("did not converge (its eigenvalues)");
    // The trailing 2x2 block's eigenvalue nearer its last diagonal element; now and then
    // an exceptional shift breaks a cycle.
    const Complex a = h.at(hi - 1, hi - 1), b = h.at(hi - 1, hi), c = h.at(hi, hi - 1),
                  d = h.at(hi, hi);
    const Complex half = (a - d) * 0.5, root = std::sqrt(half * half + b * c);
    const Complex den = std::abs(half + root) >= std::abs(half - root) ? half + root : half - root;
    Complex mu = den == Complex(0.0, 0.0) ? d : d - b * c / den;
    if (iterations % 11 == 10) mu = d + std::abs(c);
    for (int64_t i = l; i <= hi; ++i) h.at(i, i) -= mu;
    std::vector<std::pair<double, Complex>> rotations;
    for (int64_t k = l; k < hi; ++k) {
      const Complex x = h.at(k, k), y = h.at(k + 1, k);
      const double r = std::hypot(std::abs(x), std::abs(y));
      double cs = 1.0;
      Complex sn(0.0, 0.0);
      if (r != 0.0) {
        cs = std::abs(x) / r;
        sn = (std::abs(x) == 0.0 ? Complex(1.0, 0.0) : x / std::abs(x)) * std::conj(y) / r;
      }
      rotations.push_back({cs, sn});
      for (int64_t j = k; j <= hi; ++j) {
        const Complex t1 = h.at(k, j), t2 = h.at(k + 1, j);
        h.at(k, j) = cs * t1 + sn * t2;
        h.at(k + 1, j) = -std::conj(sn) * t1 + cs * t2;
      }
    }
    for (int64_t k = l; k < hi; ++k) {
      const auto [cs, sn] = rotations[k - l];
      for (int64_t i = l; i <= std::min(k + 2, hi); ++i) {
        const Complex t1 = h.at(i, k), t2 = h.at(i, k + 1);
        h.at(i, k) = t1 * cs + t2 * std::conj(sn);
        h.at(i, k + 1) = -t1 * sn + t2 * cs;
      }
    }
    for (int64_t i = l; i <= hi; ++i) h.at(i, i) += mu;
  }
  return absl::OkStatus();
}

// A right eigenvector of `a` for `value` by inverse iteration (a shift just off the value,
// two solves from a vector of ones), of unit norm with its largest component real and
// positive, as LAPACK's geev scales them.
std::vector<Complex> EigenvectorOf(const Matrix& a, Complex value) {
  const int64_t n = a.n;
  double scale = 0.0;
  for (const Complex& z : a.v) scale = std::max(scale, std::abs(z));
  Matrix shifted = a;
  const Complex shift = value + Complex(1e-10 * (scale + std::abs(value) + 1.0), 0.0);
  for (int64_t i = 0; i < n; ++i) shifted.at(i, i) -= shift;
  const Lu f = Factor(shifted);
  Matrix x;
  x.n = 1;
  x.v.assign(static_cast<size_t>(n), Complex(1.0, 0.0));
  for (int round = 0; round < 3; ++round) {
    if (f.zero_pivot >= 0) break;
    x.v = SolveFactored(f, x);
    double norm = 0.0;
    for (const Complex& z : x.v) norm += std::norm(z);
    norm = std::sqrt(norm);
    if (!(norm > 0.0) || !std::isfinite(norm)) break;
    for (Complex& z : x.v) z /= norm;
  }
  size_t largest = 0;
  for (size_t i = 1; i < x.v.size(); ++i) {
    if (std::abs(x.v[i]) > std::abs(x.v[largest])) largest = i;
  }
  if (!x.v.empty() && std::abs(x.v[largest]) > 0.0) {
    const Complex phase = std::conj(x.v[largest]) / std::abs(x.v[largest]);
    for (Complex& z : x.v) z *= phase;
  }
  return x.v;
}

absl::StatusOr<LinalgRoutine> ReadLinalgRoutine(const Attributes& attrs) {
  const std::string* name = attrs.Get<std::string>("routine");
  if (name == nullptr) return absl::InvalidArgumentError("linalg: needs a 'routine' attribute");
  for (const auto& r : kRoutines) {
    if (*name == r.name) return r.routine;
  }
  return absl::InvalidArgumentError(absl::StrCat("linalg: unknown routine '", *name,
                                                 "' (solve, inv, det, slogdet, cholesky, eigh, "
                                                 "eigvalsh, svd, svd_full, svdvals, qr, "
                                                 "qr_complete, eig, eigvals)"));
}

bool TakesRectangular(LinalgRoutine routine) {
  return routine == LinalgRoutine::kSvd || routine == LinalgRoutine::kSvdFull ||
         routine == LinalgRoutine::kSvdvals || routine == LinalgRoutine::kQr ||
         routine == LinalgRoutine::kQrComplete;
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
  const bool rectangular = TakesRectangular(routine);
  if (!IsLinalgDType(a.dtype) || rank < 2 ||
      (!rectangular && a.shape[rank - 1] != a.shape[rank - 2])) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": expects a stack of ", rectangular ? "" : "square ", "matrices [..., ",
                     rectangular ? "m" : "n", ", n] of f32, f64, c64 or c128; got ", a.ToString()));
  }
  const int64_t m = a.shape[rank - 2];
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
    case LinalgRoutine::kSvd:
      dims.push_back(m * std::min(m, n) + std::min(m, n) + std::min(m, n) * n);
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kSvdFull:
      dims.push_back(m * m + std::min(m, n) + n * n);
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kSvdvals:
      dims.push_back(std::min(m, n));
      return TensorType{RealPart(a.dtype), Shape(std::move(dims))};
    case LinalgRoutine::kQr:
      dims.push_back(m * std::min(m, n) + std::min(m, n) * n);
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kQrComplete:
      dims.push_back(m * m + m * n);
      return TensorType{a.dtype, Shape(std::move(dims))};
    case LinalgRoutine::kEig:
      dims.push_back(n);
      dims.push_back(n + 1);
      return TensorType{ComplexOf(a.dtype), Shape(std::move(dims))};
    case LinalgRoutine::kEigvals:
      dims.push_back(n);
      return TensorType{ComplexOf(a.dtype), Shape(std::move(dims))};
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
  const int64_t rows = a.shape()[a.shape().rank() - 2];
  const int64_t out_per_matrix = batch.count == 0 ? 0 : node.shape().num_elements() / batch.count;
  for (int64_t index = 0; index < batch.count; ++index) {
    const Matrix m = LoadMatrix(a, index, rows, n);
    std::vector<Complex> result;
    switch (*routine) {
      case LinalgRoutine::kQr:
      case LinalgRoutine::kQrComplete:
        HouseholderQr(m, rows, *routine == LinalgRoutine::kQr ? std::min(rows, n) : rows, result);
        break;
      case LinalgRoutine::kSvd:
      case LinalgRoutine::kSvdFull:
      case LinalgRoutine::kSvdvals: {
        const bool full = *routine == LinalgRoutine::kSvdFull;
        absl::StatusOr<Svd> svd = SingularValues(m, rows, full);
        if (!svd.ok()) return LinalgError(*routine, a.type(), index, svd.status().message());
        if (*routine == LinalgRoutine::kSvdvals) {
          result.assign(svd->s.begin(), svd->s.end());
          break;
        }
        const int64_t ucols = static_cast<int64_t>(svd->u.size());
        const int64_t vrows = static_cast<int64_t>(svd->v.size());
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < ucols; ++j) result.push_back(svd->u[j][i]);
        }
        result.insert(result.end(), svd->s.begin(), svd->s.end());
        for (int64_t i = 0; i < vrows; ++i) {
          for (int64_t j = 0; j < n; ++j) result.push_back(std::conj(svd->v[i][j]));
        }
        break;
      }
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
      case LinalgRoutine::kEig:
      case LinalgRoutine::kEigvals: {
        std::vector<Complex> values;
        if (absl::Status s = HessenbergQrEigenvalues(m, values); !s.ok()) {
          return LinalgError(*routine, a.type(), index, s.message());
        }
        if (*routine == LinalgRoutine::kEigvals) {
          result = std::move(values);
          break;
        }
        result.assign(static_cast<size_t>(n * (n + 1)), Complex(0.0, 0.0));
        for (int64_t j = 0; j < n; ++j) {
          const std::vector<Complex> v = EigenvectorOf(m, values[j]);
          for (int64_t i = 0; i < n; ++i) result[i * (n + 1) + j] = v[i];
          result[j * (n + 1) + n] = values[j];
        }
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

absl::Status SpsolveError(const Node& spsolve, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("sparse.linalg.spsolve: the matrix of order ", spsolve.shape()[0], " (nnz ",
                   spsolve.operand(0).shape()[0], ", ", DTypeName(spsolve.dtype()), ") ", what));
}

absl::StatusOr<HostTensor> EvalSpsolveNode(const Node& node, const HostTensor& values,
                                           const HostTensor& columns, const HostTensor& offsets,
                                           const HostTensor& b) {
  using Complex = std::complex<double>;
  const int64_t n = node.shape()[0], nnz = values.num_elements();
  const int64_t k = b.shape().rank() == 2 ? b.shape()[1] : 1;
  auto index_at = [](const HostTensor& t, int64_t i) {
    return LoadElement(t.dtype(), t.element(i)).i;
  };
  auto complex_at = [](const HostTensor& t, int64_t i) {
    const WideValue v = LoadElement(t.dtype(), t.element(i));
    return v.domain == DTypeKind::kComplex ? v.c : Complex(v.f, 0.0);
  };
  std::vector<Complex> a(static_cast<size_t>(n * n));
  for (int64_t r = 0; r < n; ++r) {
    const int64_t begin = index_at(offsets, r), end = index_at(offsets, r + 1);
    if ((r == 0 && begin != 0) || end < begin || end > nnz) {
      return SpsolveError(node, absl::StrCat("has row offsets out of order at row ", r));
    }
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = index_at(columns, p);
      if (c < 0 || c >= n) {
        return SpsolveError(node, absl::StrCat("has column index ", c, " at position ", p));
      }
      a[static_cast<size_t>(r * n + c)] += complex_at(values, p);
    }
  }
  if (n > 0 && index_at(offsets, n) != nnz) {
    return SpsolveError(node, "has row offsets that do not end at nnz");
  }
  std::vector<Complex> x(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < n * k; ++i) x[static_cast<size_t>(i)] = complex_at(b, i);
  // Gaussian elimination with partial pivoting on all right-hand sides at once.
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
    }
    if (a[pivot * n + col] == Complex(0.0)) return SpsolveError(node, "is singular");
    if (pivot != col) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[col * n + j], a[pivot * n + j]);
      for (int64_t j = 0; j < k; ++j) std::swap(x[col * k + j], x[pivot * k + j]);
    }
    for (int64_t r = col + 1; r < n; ++r) {
      const Complex f = a[r * n + col] / a[col * n + col];
      if (f == Complex(0.0)) continue;
      for (int64_t j = col; j < n; ++j) a[r * n + j] -= f * a[col * n + j];
      for (int64_t j = 0; j < k; ++j) x[r * k + j] -= f * x[col * k + j];
    }
  }
  for (int64_t col = n - 1; col >= 0; --col) {
    for (int64_t j = 0; j < k; ++j) {
      Complex s = x[col * k + j];
      for (int64_t c = col + 1; c < n; ++c) s -= a[col * n + c] * x[c * k + j];
      x[col * k + j] = s / a[col * n + col];
    }
  }
  HostTensor out(node.type());
  const bool complex = IsComplex(node.dtype());
  for (int64_t i = 0; i < n * k; ++i) {
    const Complex v = x[static_cast<size_t>(i)];
    StoreElement(node.dtype(), out.element(i),
                 complex ? WideValue::Complex(v) : WideValue::Float(v.real()));
  }
  return out;
}

}  // namespace gpuc::ir
