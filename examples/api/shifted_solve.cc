// A shifted linear solve inside a loop, as a contour-integral eigensolver (FEAST, Sakurai-
// Sugiura) writes it: the spectral projector of a symmetric matrix A onto its eigenvalues
// inside a circle, applied to a block B, by the trapezoid rule on the resolvent,
//
//     P B ~ sum_k w_k (z_k I - A)^-1 B,   z_k = c + r e^(i theta_k), w_k = r e^(i theta_k) / N,
//
// one complex linalg::solve per quadrature point (LAPACK's ?gesv on the host, cuSOLVER's
// getrf/getrs on a GPU). The check: the same sum from A's eigenpairs (linalg::eigh),
// sum_k w_k sum_j v_j (v_j^T B) / (z_k - lambda_j), computed in a plain loop, and the trace of
// the filtered projector from inverses, sum_j sum_k w_k / (z_k - lambda_j): near the number of
// eigenvalues inside the circle (those near the contour count in part).
#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  using Complex = std::complex<double>;
  const int64_t n = 48, block = 4, points = 32;
  // A: the 1-D Laplacian plus a varying diagonal (eigenvalues spread over [0.1, 5.3]).
  std::vector<double> a_values(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    a_values[i * n + i] = 2.0 + 1.2 * std::sin(0.37 * static_cast<double>(i));
    if (i + 1 < n) a_values[i * n + i + 1] = a_values[(i + 1) * n + i] = -1.0;
  }
  const Array a = gpuc::array(a_values, gpuc::Shape{n, n});
  gpuc::random::Generator rng(7);
  const Array b = rng.uniform({n, block}, -1.0, 1.0, gpuc::float64).eval();
  const double center = 1.0, radius = 0.8;
  const Array identity = gpuc::identity(n, gpuc::complex128);
  Array projected = gpuc::zeros({n, block}, gpuc::complex128);
  for (int64_t k = 0; k < points; ++k) {
    const double theta = 2.0 * M_PI * (static_cast<double>(k) + 0.5) / points;
    const Complex z = center + radius * std::polar(1.0, theta);
    const Complex w = radius * std::polar(1.0, theta) / static_cast<double>(points);
    // (z I - A) x = B: a new shift every iteration, one plan for all of them.
    const Array x = gpuc::linalg::solve(identity * z - a, b.astype(gpuc::complex128));
    projected = (projected + x * w).eval();
  }
  // The same sum through A's eigenpairs, in a plain loop.
  const gpuc::linalg::EighResult e = gpuc::linalg::eigh(a);
  const std::vector<double> lambda = e.eigenvalues.to_host<double>();
  const std::vector<double> v = e.eigenvectors.to_host<double>();  // columns
  const std::vector<double> bh = b.to_host<double>();
  std::vector<double> want_re(static_cast<size_t>(n * block)), want_im(want_re.size());
  int inside = 0;
  double want_trace = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    if (std::abs(lambda[j] - center) < radius) ++inside;
  }
  for (int64_t c = 0; c < block; ++c) {
    for (int64_t j = 0; j < n; ++j) {
      double vtb = 0.0;
      for (int64_t i = 0; i < n; ++i) vtb += v[i * n + j] * bh[i * block + c];
      Complex weight = 0.0;
      for (int64_t k = 0; k < points; ++k) {
        const double theta = 2.0 * M_PI * (static_cast<double>(k) + 0.5) / points;
        const Complex z = center + radius * std::polar(1.0, theta);
        weight += radius * std::polar(1.0, theta) / static_cast<double>(points) / (z - lambda[j]);
      }
      if (c == 0) want_trace += weight.real();
      for (int64_t i = 0; i < n; ++i) {
        const Complex term = weight * v[i * n + j] * vtb;
        want_re[i * block + c] += term.real();
        want_im[i * block + c] += term.imag();
      }
    }
  }
  int bad =
      example::CountMismatches("real part", gpuc::real(projected).to_host<double>(), want_re, 1e-9);
  bad += example::CountMismatches("imaginary part", gpuc::imag(projected).to_host<double>(),
                                  want_im, 1e-9);
  // The projector's trace, from n solves against the identity's columns: the count inside.
  Array trace = gpuc::zeros({}, gpuc::complex128);
  for (int64_t k = 0; k < points; ++k) {
    const double theta = 2.0 * M_PI * (static_cast<double>(k) + 0.5) / points;
    const Complex z = center + radius * std::polar(1.0, theta);
    const Complex w = radius * std::polar(1.0, theta) / static_cast<double>(points);
    trace = trace + gpuc::trace(gpuc::linalg::inv(identity * z - a)) * w;
  }
  const double count = gpuc::real(trace).item<double>();
  if (std::abs(count - want_trace) > 1e-9 * n || std::abs(count - inside) > 0.5) {
    std::printf("trace of the projector %.12f, expected %.12f (%d eigenvalues inside)\n", count,
                want_trace, inside);
    ++bad;
  }
  std::printf("shifted_solve: %d of %lld eigenvalues inside |z - %.1f| < %.1f, trace %.9f, %s\n",
              inside, static_cast<long long>(n), center, radius, count, bad ? "MISMATCH" : "ok");
  return bad == 0 ? 0 : 1;
}
