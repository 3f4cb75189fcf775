//===- sparse_solvers_test.cc - scipy.sparse.linalg's cg and bicgstab -----===//
//
// Issue 33. Solutions against the dense solve (itself checked against NumPy), SciPy's stopping
// rule and result codes (info 0 on convergence, maxiter without it), x0, the callback, the
// Jacobi preconditioner, and the errors.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gpuc/gpuc.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

using sparse::CsrMatrix;
namespace sl = sparse::linalg;

// The 5-point Laplacian of a side x side grid, plus `convection` times a one-sided difference
// along x (nonsymmetric when nonzero) and a diagonal that grows along the rows by `spread`.
CsrMatrix Poisson(int64_t side, double convection = 0.0, double spread = 0.0, double shift = 0.0) {
  std::vector<int64_t> rows, cols;
  std::vector<double> values;
  auto add = [&](int64_t r, int64_t c, double v) {
    rows.push_back(r);
    cols.push_back(c);
    values.push_back(v);
  };
  for (int64_t i = 0; i < side; ++i) {
    for (int64_t j = 0; j < side; ++j) {
      const int64_t k = i * side + j;
      add(k, k, 4.0 + convection + spread * static_cast<double>(i) - shift);
      if (i > 0) add(k, k - side, -1.0);
      if (i + 1 < side) add(k, k + side, -1.0);
      if (j > 0) add(k, k - 1, -1.0 - convection);
      if (j + 1 < side) add(k, k + 1, -1.0);
    }
  }
  const int64_t n = side * side;
  return CsrMatrix::from_coo(array(rows), array(cols), array(values), {n, n});
}

double RelativeError(const Array& got, const Array& want) {
  return linalg::norm(got - want).item<double>() / linalg::norm(want).item<double>();
}

TEST(SparseSolvers, CgSolvesThePoissonSystemToItsTolerance) {
  const CsrMatrix a = Poisson(16);
  const Array b = array(test::UniformDoubles(256, 1)) - 0.5;
  const Array exact = linalg::solve(a.to_dense(), b);
  sl::SolverOptions options;
  options.rtol = 1e-10;
  int64_t calls = 0;
  options.callback = [&](const Array& xk) {
    ++calls;
    EXPECT_EQ(xk.shape(), (Shape{256}));
  };
  const sl::SolverResult r = sl::cg(a, b, options);
  EXPECT_EQ(r.info, 0);
  EXPECT_GT(r.iterations, 10);
  EXPECT_LT(r.iterations, 200);
  EXPECT_EQ(calls, r.iterations);
  EXPECT_LT(RelativeError(r.x, exact), 1e-8);
  // SciPy's rule: ||b - A x|| < rtol ||b||.
  EXPECT_LT(linalg::norm(b - matmul(a, r.x)).item<double>(),
            1e-10 * linalg::norm(b).item<double>() * 1.0001);
}

TEST(SparseSolvers, JacobiPreconditioningConvergesFasterOnAVaryingDiagonal) {
  const CsrMatrix a = Poisson(12, 0.0, 30.0);
  const Array b = array(test::UniformDoubles(144, 2)) - 0.5;
  const Array exact = linalg::solve(a.to_dense(), b);
  sl::SolverOptions plain;
  plain.rtol = 1e-9;
  sl::SolverOptions preconditioned = plain;
  preconditioned.M = sl::jacobi(a);
  const sl::SolverResult p = sl::cg(a, b, plain), j = sl::cg(a, b, preconditioned);
  EXPECT_EQ(p.info, 0);
  EXPECT_EQ(j.info, 0);
  EXPECT_LT(j.iterations, p.iterations);
  EXPECT_LT(RelativeError(j.x, exact), 1e-7);
}

TEST(SparseSolvers, BicgstabSolvesANonsymmetricSystemWithAndWithoutAPreconditioner) {
  const CsrMatrix a = Poisson(12, 1.5);
  const Array b = array(test::UniformDoubles(144, 3)) - 0.5;
  const Array exact = linalg::solve(a.to_dense(), b);
  sl::SolverOptions options;
  options.rtol = 1e-10;
  const sl::SolverResult r = sl::bicgstab(a, b, options);
  EXPECT_EQ(r.info, 0);
  EXPECT_LT(RelativeError(r.x, exact), 1e-8);
  options.M = sl::jacobi(a);
  const sl::SolverResult m = sl::bicgstab(a, b, options);
  EXPECT_EQ(m.info, 0);
  EXPECT_LT(RelativeError(m.x, exact), 1e-8);
}

TEST(SparseSolvers, RestartedGmresSolvesANonsymmetricSystem) {
  const CsrMatrix a = Poisson(12, 1.5);
  const Array b = array(test::UniformDoubles(144, 5)) - 0.5;
  const Array exact = linalg::solve(a.to_dense(), b);
  sl::SolverOptions options;
  options.rtol = 1e-10;
  int64_t cycles = 0;
  options.callback = [&](const Array&) { ++cycles; };
  // A short restart takes several cycles; a long one converges in one.
  const sl::SolverResult restarted = sl::gmres(a, b, options, 8);
  EXPECT_EQ(restarted.info, 0);
  EXPECT_GT(cycles, 1);
  EXPECT_LT(RelativeError(restarted.x, exact), 1e-8);
  cycles = 0;
  const sl::SolverResult whole = sl::gmres(a, b, options, 200);
  EXPECT_EQ(whole.info, 0);
  EXPECT_EQ(cycles, 1);
  EXPECT_LE(whole.iterations, restarted.iterations);
  EXPECT_LT(RelativeError(whole.x, exact), 1e-8);
  options.M = sl::jacobi(a);
  EXPECT_LT(RelativeError(sl::gmres(a, b, options, 8).x, exact), 1e-8);
  // Not converged within maxiter cycles: info is that count.
  sl::SolverOptions short_run;
  short_run.rtol = 1e-12;
  short_run.maxiter = 2;
  EXPECT_EQ(sl::gmres(a, b, short_run, 3).info, 2);
  EXPECT_THROW((void)sl::gmres(a, b, {}, 0), Error);
}

TEST(SparseSolvers, ComplexSystemsSolveWithGmresAndBicgstab) {
  const CsrMatrix real = Poisson(8, 1.0);
  const Array scale = array(std::vector<std::complex<double>>{{1.0, 0.5}});
  const CsrMatrix a(real.data() * scale(0), real.indices(), real.indptr(), real.shape());
  const Array b = astype(array(test::UniformDoubles(64, 6)) - 0.5, complex128) * scale(0) +
                  array(std::vector<std::complex<double>>{{0.0, 0.25}})(0);
  const Array exact = linalg::solve(a.to_dense(), b);
  sl::SolverOptions options;
  options.rtol = 1e-10;
  const sl::SolverResult g = sl::gmres(a, b, options, 10), s = sl::bicgstab(a, b, options);
  EXPECT_EQ(g.info, 0);
  EXPECT_EQ(s.info, 0);
  EXPECT_EQ(g.x.dtype(), complex128);
  EXPECT_LT(RelativeError(g.x, exact), 1e-8);
  EXPECT_LT(RelativeError(s.x, exact), 1e-8);
}

TEST(SparseSolvers, MinresSolvesSymmetricIndefiniteSystems) {
  // The Laplacian shifted into its spectrum: symmetric, with negative and positive eigenvalues
  // (cg's assumption fails; minres's does not).
  const CsrMatrix a = Poisson(10, 0.0, 0.0, 2.5);
  const Array b = array(test::UniformDoubles(100, 7)) - 0.5;
  const Array exact = linalg::solve(a.to_dense(), b);
  const std::vector<double> eigenvalues = linalg::eigvalsh(a.to_dense()).to_host<double>();
  ASSERT_LT(eigenvalues.front(), 0.0);
  ASSERT_GT(eigenvalues.back(), 0.0);
  sl::SolverOptions options;
  options.rtol = 1e-10;
  int64_t calls = 0;
  options.callback = [&](const Array&) { ++calls; };
  const sl::SolverResult r = sl::minres(a, b, options);
  EXPECT_EQ(r.info, 0);
  EXPECT_EQ(calls, r.iterations);
  EXPECT_LT(RelativeError(r.x, exact), 1e-7);
  EXPECT_LT(linalg::norm(b - matmul(a, r.x)).item<double>(), 1e-9 * linalg::norm(b).item<double>());
  // A positive definite preconditioner (the diagonal's magnitude) on a positive definite system.
  const CsrMatrix spd = Poisson(10, 0.0, 10.0);
  sl::SolverOptions preconditioned;
  preconditioned.rtol = 1e-10;
  preconditioned.M = sl::jacobi(spd);
  const sl::SolverResult p = sl::minres(spd, b, preconditioned);
  EXPECT_EQ(p.info, 0);
  EXPECT_LT(RelativeError(p.x, linalg::solve(spd.to_dense(), b)), 1e-7);
}

TEST(SparseSolvers, MaxiterX0AZeroRightHandSideAndSinglePrecision) {
  const CsrMatrix a = Poisson(10);
  const Array b = array(test::UniformDoubles(100, 4)) - 0.5;
  sl::SolverOptions few;
  few.maxiter = 3;
  few.rtol = 1e-12;
  const sl::SolverResult r = sl::cg(a, b, few);
  EXPECT_EQ(r.info, 3) << "not converged: info is the iteration count, as SciPy's";
  // Starting at the answer takes no iteration.
  sl::SolverOptions start;
  start.x0 = linalg::solve(a.to_dense(), b);
  EXPECT_EQ(sl::cg(a, b, start).iterations, 0);
  EXPECT_EQ(sl::bicgstab(a, zeros({100}), {}).x.to_host<double>(), std::vector<double>(100, 0.0));
  // float32 data and b stay float32.
  const CsrMatrix a32(astype(a.data(), float32), a.indices(), a.indptr(), a.shape());
  const sl::SolverResult s = sl::cg(a32, astype(b, float32), {});
  EXPECT_EQ(s.x.dtype(), float32);
  EXPECT_EQ(s.info, 0);
}

TEST(SparseSolvers, BadOperandsAreErrorsNamingThem) {
  const CsrMatrix a = Poisson(4);
  EXPECT_THROW((void)sl::cg(a, zeros({15}), {}), Error);
  EXPECT_THROW((void)sl::bicgstab(a, zeros({16, 1}), {}), Error);
  const CsrMatrix rect =
      CsrMatrix::from_coo(array(std::vector<int64_t>{0}), array(std::vector<int64_t>{1}),
                          array(std::vector<double>{1.0}), {2, 3});
  EXPECT_THROW((void)sl::cg(rect, zeros({2}), {}), Error);
  const CsrMatrix no_diagonal =
      CsrMatrix::from_coo(array(std::vector<int64_t>{0, 1}), array(std::vector<int64_t>{1, 0}),
                          array(std::vector<double>{1.0, 1.0}), {2, 2});
  try {
    (void)sl::jacobi(no_diagonal);
    FAIL() << "a zero diagonal was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuc
