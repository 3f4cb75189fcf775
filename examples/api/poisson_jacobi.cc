// A sparse solver step: Jacobi iterations x <- x + (b - A x) / 4 for the 5-point Laplacian A on
// a 32 x 32 grid, a gpuc::sparse::CsrMatrix built from COO triplets (checked when built). Each
// iteration is one sparse product (cuSPARSE on a GPU) and one fused elementwise kernel; the
// residual norm must fall, and the last iterate must match a plain loop.
#include <cmath>
#include <cstdio>
#include <vector>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  const int64_t side = 32, n = side * side, iterations = 20;
  std::vector<int64_t> rows, cols;
  std::vector<double> values;
  for (int64_t i = 0; i < side; ++i) {
    for (int64_t j = 0; j < side; ++j) {
      const int64_t r = i * side + j;
      auto add = [&](int64_t c, double v) {
        rows.push_back(r);
        cols.push_back(c);
        values.push_back(v);
      };
      add(r, 4.0);
      if (i > 0) add(r - side, -1.0);
      if (i + 1 < side) add(r + side, -1.0);
      if (j > 0) add(r - 1, -1.0);
      if (j + 1 < side) add(r + 1, -1.0);
    }
  }
  const auto a = gpuc::sparse::CsrMatrix::from_coo(gpuc::array(rows), gpuc::array(cols),
                                                   gpuc::array(values), {n, n});
  gpuc::random::Generator rng(3);
  Array b = rng.uniform({n}, -1.0, 1.0, gpuc::float64).eval();
  Array x = gpuc::zeros({n});
  auto residual = [&](const Array& v) {
    return gpuc::linalg::norm(b - gpuc::sparse::matmul(a, v)).item<double>();
  };
  const double first = residual(x);
  for (int64_t k = 0; k < iterations; ++k) {
    x = (x + (b - gpuc::sparse::matmul(a, x)) * 0.25).eval();
  }
  const double last = residual(x);

  // The same iterations as a plain loop.
  const std::vector<double> bs = b.to_host<double>();
  std::vector<double> want(n, 0.0), next(n);
  for (int64_t k = 0; k < iterations; ++k) {
    for (int64_t r = 0; r < n; ++r) {
      double ax = 0;
      for (size_t e = 0; e < rows.size(); ++e) {
        if (rows[e] == r) ax += values[e] * want[cols[e]];
      }
      next[r] = want[r] + (bs[r] - ax) * 0.25;
    }
    want = next;
  }
  int bad = example::CountMismatches("x", x.to_host<double>(), want, 1e-12);
  if (!(last < 0.5 * first)) {
    std::printf("poisson_jacobi: the residual did not fall (%g -> %g)\n", first, last);
    ++bad;
  }
  std::printf(
      "poisson_jacobi: %lld Jacobi steps on a %lldx%lld grid (nnz %lld), residual %.4g -> %.4g: "
      "%s\n",
      static_cast<long long>(iterations), static_cast<long long>(side),
      static_cast<long long>(side), static_cast<long long>(a.nnz()), first, last,
      bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
