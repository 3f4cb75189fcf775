//===- sparse_solvers_api.cc - scipy.sparse.linalg's cg and bicgstab ------===//
//
// Written as SciPy writes them (scipy/sparse/linalg/_isolve/iterative.py), over lazy arrays:
// each iteration's vector updates fuse around the sparse product, and the residual norm is
// read once an iteration for the stopping test.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpuc/creation.h"
#include "gpuc/elementwise.h"
#include "gpuc/evaluation.h"
#include "gpuc/linalg.h"
#include "gpuc/reductions.h"
#include "gpuc/sparse_linalg.h"
#include "lib/api/array_impl.h"
#include "lib/api/recorder.h"

namespace gpuc::sparse::linalg {
namespace {

std::string TypeText(const Array& a) {
  return detail::ImplOf(a, "sparse.linalg").node->type().ToString();
}

// The solver's dtype and checked operands: a square a and b [n].
DType CheckOperands(const char* op, const CsrMatrix& a, const Array& b) {
  if (a.rows() != a.cols() || b.ndim() != 1 || b.shape()[0] != a.rows()) {
    detail::ThrowInvalid(absl::StrCat("sparse.linalg.", op,
                                      ": expects a square matrix and b [n]; got ", a.rows(), "x",
                                      a.cols(), " and ", TypeText(b)));
  }
  const DType d = a.data().dtype();
  const bool complex =
      d == complex64 || d == complex128 || b.dtype() == complex64 || b.dtype() == complex128;
  const bool single =
      (d == float32 || d == complex64) && (b.dtype() == float32 || b.dtype() == complex64);
  return complex ? (single ? complex64 : complex128) : (single ? float32 : float64);
}

double Norm(const Array& v) { return gpuc::linalg::norm(v).item<double>(); }

// scipy.sparse's _asfptype: the smallest of f32, f64, c64, c128 holding `d`.
DType InexactFor(DType d) {
  if (d == float32 || d == float64 || d == complex64 || d == complex128) return d;
  if (d == bool_ || d == int8 || d == uint8 || d == int16 || d == uint16 || d == float16) {
    return float32;
  }
  return float64;
}

// The conjugated dot product as a 0-d array (it stays lazy and fuses).
Array Dot(const Array& x, const Array& y) { return vdot(x, y); }

struct Setup {
  DType dtype;
  Array b, x, r;
  double bound = 0;  // max(rtol ||b||, atol)
  int64_t maxiter = 0;
  bool done = false;  // b = 0: x = 0 is the answer
};

Setup Start(const char* op, const CsrMatrix& a, const Array& b, const SolverOptions& o) {
  Setup s;
  s.dtype = CheckOperands(op, a, b);
  s.b = astype(b, s.dtype);
  const double bnorm = Norm(s.b);
  s.bound = std::max(o.rtol * bnorm, o.atol);
  s.maxiter = o.maxiter > 0 ? o.maxiter : 10 * a.rows();
  if (bnorm == 0.0) {
    s.x = zeros({a.rows()}, s.dtype);
    s.done = true;
    return s;
  }
  if (o.x0) {
    s.x = astype(*o.x0, s.dtype);
    s.r = s.b - matmul(a, s.x);
  } else {
    s.x = zeros({a.rows()}, s.dtype);
    s.r = s.b;
  }
  return s;
}

Array Apply(const SolverOptions& o, const Array& r) { return o.M ? o.M(r) : r; }

}  // namespace

Preconditioner jacobi(const CsrMatrix& a) {
  if (a.rows() != a.cols()) {
    detail::ThrowInvalid(absl::StrCat("sparse.linalg.jacobi: the matrix is ", a.rows(), "x",
                                      a.cols(), ", not square"));
  }
  const std::vector<int64_t> indptr = astype(a.indptr(), int64).to_host<int64_t>();
  const std::vector<int64_t> indices = astype(a.indices(), int64).to_host<int64_t>();
  const std::vector<std::complex<double>> data =
      astype(a.data(), complex128).to_host<std::complex<double>>();
  std::vector<std::complex<double>> inverse(static_cast<size_t>(a.rows()));
  for (int64_t row = 0; row < a.rows(); ++row) {
    std::complex<double> d = 0.0;
    for (int64_t k = indptr[row]; k < indptr[row + 1]; ++k) {
      if (indices[k] == row) d += data[k];
    }
    if (d == 0.0) {
      detail::ThrowInvalid(
          absl::StrCat("sparse.linalg.jacobi: row ", row, " has a zero on the diagonal"));
    }
    inverse[row] = 1.0 / d;
  }
  const DType d = a.data().dtype();
  const bool complex = d == complex64 || d == complex128;
  Array scale = complex ? astype(array(inverse), d)
                        : astype(real(array(inverse)), d == float32 ? float32 : float64);
  scale.eval();
  return [scale](const Array& r) { return r * scale; };
}

SolverResult cg(const CsrMatrix& a, const Array& b, const SolverOptions& options) {
  Setup s = Start("cg", a, b, options);
  if (s.done) return {s.x, 0, 0};
  Array p, rho_prev;
  // The residual's norm is computed in the same evaluation as the residual (one plan an
  // iteration) and read at the top of the next.
  Array r_norm = gpuc::linalg::norm(s.r);
  for (int64_t iteration = 0; iteration < s.maxiter; ++iteration) {
    if (r_norm.item<double>() < s.bound) return {s.x, 0, iteration};
    const Array z = Apply(options, s.r);
    const Array rho = Dot(s.r, z);
    p = iteration == 0 ? z : z + (rho / rho_prev) * p;
    const Array q = matmul(a, p);
    const Array alpha = rho / Dot(p, q);
    s.x = s.x + alpha * p;
    s.r = s.r - alpha * q;
    rho_prev = rho;
    r_norm = gpuc::linalg::norm(s.r);
    eval({s.x, s.r, p, rho_prev, r_norm});
    if (options.callback) options.callback(s.x);
  }
  if (r_norm.item<double>() < s.bound) return {s.x, 0, s.maxiter};
  return {s.x, s.maxiter, s.maxiter};
}

SolverResult bicgstab(const CsrMatrix& a, const Array& b, const SolverOptions& options) {
  Setup s = Start("bicgstab", a, b, options);
  if (s.done) return {s.x, 0, 0};
  const Array rtilde = s.r;
  Array p, v, rho_prev, alpha, omega;
  Array r_norm = gpuc::linalg::norm(s.r), rho = Dot(rtilde, s.r);  // evaluated together
  for (int64_t iteration = 0; iteration < s.maxiter; ++iteration) {
    eval({r_norm, rho});
    if (r_norm.item<double>() < s.bound) return {s.x, 0, iteration};
    if (std::abs(astype(rho, complex128).item<std::complex<double>>()) == 0.0) {
      return {s.x, -1, iteration};  // breakdown
    }
    p = iteration == 0 ? s.r : s.r + (rho / rho_prev) * (alpha / omega) * (p - omega * v);
    const Array phat = Apply(options, p);
    v = matmul(a, phat);
    alpha = rho / Dot(rtilde, v);
    const Array half = s.r - alpha * v;
    s.x = s.x + alpha * phat;
    Array half_norm = gpuc::linalg::norm(half);
    eval({s.x, half, half_norm, alpha, v});
    if (half_norm.item<double>() < s.bound) {
      s.x.eval();
      if (options.callback) options.callback(s.x);
      return {s.x, 0, iteration + 1};
    }
    const Array shat = Apply(options, half);
    const Array t = matmul(a, shat);
    omega = Dot(t, half) / Dot(t, t);
    s.x = s.x + omega * shat;
    s.r = half - omega * t;
    rho_prev = rho;
    r_norm = gpuc::linalg::norm(s.r);
    rho = Dot(rtilde, s.r);
    eval({s.x, s.r, p, v, rho_prev, alpha, omega, r_norm, rho});
    if (std::abs(astype(omega, complex128).item<std::complex<double>>()) == 0.0) {
      return {s.x, -1, iteration + 1};
    }
    if (options.callback) options.callback(s.x);
  }
  if (r_norm.item<double>() < s.bound) return {s.x, 0, s.maxiter};
  return {s.x, s.maxiter, s.maxiter};
}

SolverResult gmres(const CsrMatrix& a, const Array& b, const SolverOptions& options,
                   int64_t restart) {
  using Complex = std::complex<double>;
  if (restart < 1) {
    detail::ThrowInvalid(
        absl::StrCat("sparse.linalg.gmres: restart must be positive, not ", restart));
  }
  Setup s = Start("gmres", a, b, options);
  if (s.done) return {s.x, 0, 0};
  const int64_t m = std::min<int64_t>(restart, a.rows());
  int64_t steps = 0;
  auto read = [](const Array& scalar) { return astype(scalar, complex128).item<Complex>(); };
  for (int64_t cycle = 0; cycle < s.maxiter; ++cycle) {
    const Array r = s.b - matmul(a, s.x);
    Array r_norm = gpuc::linalg::norm(r);
    const Array z = Apply(options, r);
    Array beta = gpuc::linalg::norm(z);
    eval({r_norm, beta});
    if (r_norm.item<double>() < s.bound) return {s.x, 0, steps};
    const double beta_value = beta.item<double>();
    if (beta_value == 0.0) return {s.x, -1, steps};
    std::vector<Array> basis = {z / beta_value};
    basis.back().eval();
    // Column j of the Hessenberg matrix, rotated by the Givens rotations so far; g is the
    // rotated right-hand side beta e_0, |g[j + 1]| the preconditioned residual's norm.
    std::vector<std::vector<Complex>> h;
    std::vector<double> cs;
    std::vector<Complex> sn, g = {Complex(beta_value, 0.0)};
    int64_t used = 0;
    for (int64_t j = 0; j < m; ++j) {
      Array w = Apply(options, matmul(a, basis[j]));
      std::vector<Array> dots;
      for (int64_t i = 0; i <= j; ++i) {  // modified Gram-Schmidt, one plan for the whole step
        dots.push_back(Dot(basis[i], w));
        w = w - dots.back() * basis[i];
      }
      Array w_norm = gpuc::linalg::norm(w);
      std::vector<Array> evaluated = dots;
      evaluated.push_back(w_norm);
      evaluated.push_back(w);
      eval(evaluated);
      std::vector<Complex> column;
      for (const Array& d : dots) column.push_back(read(d));
      const double next = w_norm.item<double>();
      column.push_back(Complex(next, 0.0));
      for (int64_t i = 0; i < j; ++i) {  // the earlier rotations
        const Complex t = cs[i] * column[i] + sn[i] * column[i + 1];
        column[i + 1] = -std::conj(sn[i]) * column[i] + cs[i] * column[i + 1];
        column[i] = t;
      }
      const double norm = std::hypot(std::abs(column[j]), std::abs(column[j + 1]));
      const double c = norm == 0.0 ? 1.0 : std::abs(column[j]) / norm;
      const Complex phase =
          std::abs(column[j]) == 0.0 ? Complex(1.0, 0.0) : column[j] / std::abs(column[j]);
      const Complex sv = norm == 0.0 ? Complex(0.0, 0.0) : phase * std::conj(column[j + 1]) / norm;
      column[j] = c * column[j] + sv * column[j + 1];
      column[j + 1] = 0.0;
      cs.push_back(c);
      sn.push_back(sv);
      g.push_back(-std::conj(sv) * g[j]);
      g[j] = c * g[j];
      h.push_back(std::move(column));
      ++used;
      ++steps;
      if (std::abs(g[j + 1]) < s.bound || next == 0.0) break;
      basis.push_back(w / next);
    }
    // y from the rotated upper triangle, then x += V y.
    std::vector<Complex> y(static_cast<size_t>(used));
    for (int64_t i = used - 1; i >= 0; --i) {
      Complex sum = g[i];
      for (int64_t k = i + 1; k < used; ++k) sum -= h[k][i] * y[k];
      y[i] = sum / h[i][i];
    }
    const bool complex = s.dtype == complex64 || s.dtype == complex128;
    for (int64_t i = 0; i < used; ++i) {
      const Array coefficient = complex ? astype(array(std::vector<Complex>{y[i]}), s.dtype)
                                        : astype(array(std::vector<double>{y[i].real()}), s.dtype);
      s.x = s.x + coefficient(0) * basis[i];
    }
    s.x.eval();
    if (options.callback) options.callback(s.x);
  }
  Array r_norm = gpuc::linalg::norm(s.b - matmul(a, s.x));
  if (r_norm.item<double>() < s.bound) return {s.x, 0, steps};
  return {s.x, s.maxiter, steps};
}

SolverResult minres(const CsrMatrix& a, const Array& b, const SolverOptions& options) {
  Setup s = Start("minres", a, b, options);
  if (s.done) return {s.x, 0, 0};
  // Lanczos on M a with the M-inner product: y = M r1, beta1 = sqrt(r1 . y).
  Array r1 = s.r, y = Apply(options, r1);
  Array beta_array = sqrt(real(Dot(r1, y)));
  Array r_norm = gpuc::linalg::norm(r1);
  eval({y, beta_array, r_norm});
  if (r_norm.item<double>() < s.bound) return {s.x, 0, 0};
  double beta1 = beta_array.item<double>();
  if (!(beta1 > 0.0)) return {s.x, -1, 0};  // M is not positive definite here
  double beta = beta1, old_beta = 0.0, dbar = 0.0, epsln = 0.0, phibar = beta1;
  double cs = -1.0, sn = 0.0;
  Array r2 = r1, w = zeros({a.rows()}, s.dtype), w2 = w;
  for (int64_t iteration = 0; iteration < s.maxiter; ++iteration) {
    const Array v = y * (1.0 / beta);
    Array next = matmul(a, v);
    if (iteration > 0) next = next - (beta / old_beta) * r1;
    Array alpha_array = real(Dot(v, next));
    eval({next, alpha_array});
    const double alpha = alpha_array.item<double>();
    next = next - (alpha / beta) * r2;
    r1 = r2;
    r2 = next;
    y = Apply(options, r2);
    Array beta_next = sqrt(real(Dot(r2, y)));
    eval({r2, y, beta_next});
    old_beta = beta;
    beta = beta_next.item<double>();
    // The previous rotation on the new column, then a new rotation.
    const double oldeps = epsln;
    const double delta = cs * dbar + sn * alpha;
    const double gbar = sn * dbar - cs * alpha;
    epsln = sn * beta;
    dbar = -cs * beta;
    const double gamma = std::max(std::hypot(gbar, beta), 1e-300);
    cs = gbar / gamma;
    sn = beta / gamma;
    const double phi = cs * phibar;
    phibar = sn * phibar;
    // x += phi w, w = (v - oldeps w1 - delta w2) / gamma.
    const Array w1 = w2;
    w2 = w;
    w = (v - oldeps * w1 - delta * w2) * (1.0 / gamma);
    s.x = s.x + phi * w;
    eval({s.x, w, w2});
    if (options.callback) options.callback(s.x);
    // phibar is ||b - a x|| in the M^-1 norm; without M it is the residual's norm.
    if (!options.M && std::abs(phibar) < s.bound) return {s.x, 0, iteration + 1};
    if (options.M || beta == 0.0) {
      Array true_norm = gpuc::linalg::norm(s.b - matmul(a, s.x));
      if (true_norm.item<double>() < s.bound) return {s.x, 0, iteration + 1};
      if (beta == 0.0) return {s.x, -1, iteration + 1};
    }
  }
  Array final_norm = gpuc::linalg::norm(s.b - matmul(a, s.x));
  if (final_norm.item<double>() < s.bound) return {s.x, 0, s.maxiter};
  return {s.x, s.maxiter, s.maxiter};
}

Array spsolve(const CsrMatrix& a, const Array& b) {
  detail::ImplOf(b, "sparse.linalg.spsolve");
  if (a.rows() != a.cols()) {
    detail::ThrowInvalid(absl::StrCat("sparse.linalg.spsolve: matrix must be square (has shape (",
                                      a.rows(), ", ", a.cols(), "))"));
  }
  if ((b.ndim() != 1 && b.ndim() != 2) || b.shape()[0] != a.rows()) {
    detail::ThrowInvalid(absl::StrCat("sparse.linalg.spsolve: b ", TypeText(b),
                                      " must be [n] or [n, k] for a matrix of order ", a.rows()));
  }
  const DType dtype = detail::FromIr(
      ir::PromoteTypes(detail::ToIr(InexactFor(a.dtype())), detail::ToIr(b.dtype())));
  // SciPy returns a vector for b [n, 1] too.
  const Array rhs = b.ndim() == 2 && b.shape()[1] == 1 ? b.reshape({a.rows()}) : b;
  return detail::Record(ir::OpCode::kSpsolve,
                        {a.data().astype(dtype), a.indices(), a.indptr(), rhs.astype(dtype)});
}

}  // namespace gpuc::sparse::linalg
