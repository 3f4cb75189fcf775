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

#include "absl/strings/match.h"
#include "gpuc/gpuc.h"
#include "lib/exec/options.h"
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

// make_spsolve_fixture.py's system: four entries a row, the diagonal twice (summed).
struct SpsolveSystem {
  std::vector<double> data, b;
  std::vector<int64_t> indices, indptr;
};

SpsolveSystem SpsolveFixtureSystem(int64_t n, int64_t k) {
  SpsolveSystem s;
  s.indptr.push_back(0);
  for (int64_t r = 0; r < n; ++r) {
    for (auto [c, v] :
         {std::pair{(13 * r + 5) % n, -1.5},
          std::pair{(29 * r + 3) % n, 0.25 * static_cast<double>((31 * r) % 17 - 8)},
          std::pair{r, 20.0 + static_cast<double>((7 * r) % 11)}, std::pair{r, 0.5}}) {
      s.data.push_back(v);
      s.indices.push_back(c);
    }
    s.indptr.push_back(static_cast<int64_t>(s.data.size()));
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < k; ++j)
      s.b.push_back(static_cast<double>((37 * i + 11 * j) % 23 - 11) / 4);
  }
  return s;
}

TEST(SparseSolvers, SpsolveMatchesScipysSolutions) {
  const nlohmann::json fixture = test::LoadFixture("api/spsolve.json");
  const int64_t n = fixture["n"].get<int64_t>(), k = fixture["k"].get<int64_t>();
  const SpsolveSystem s = SpsolveFixtureSystem(n, k);
  const Array data = array(s.data), indices = array(s.indices), indptr = array(s.indptr);
  const CsrMatrix a(data, indices, indptr, {n, n});
  const Array b = array(s.b, Shape{n, k});
  const Array column0 = b(Slice(), 0), column1 = b(Slice(), 1);
  const Array pattern = (arange(static_cast<int64_t>(s.data.size())) % 3 - 1).astype(float64);
  const CsrMatrix az(data * (1.0 + pattern * std::complex<double>(0, 0.5)), indices, indptr,
                     {n, n});
  const CsrMatrix a32(data.astype(float32), indices, indptr, {n, n});
  const std::vector<std::pair<std::string, Array>> got = {
      {"f64_vector", sl::spsolve(a, column0)},
      {"f64_matrix", sl::spsolve(a, b)},
      {"f64_column", sl::spsolve(a, b(Slice(), Slice(0, 1)))},
      {"c128_vector", sl::spsolve(az, column0 - column1 * std::complex<double>(0, 0.25))},
      {"f32_vector", sl::spsolve(a32, column0.astype(float32))},
  };
  for (const auto& [name, x] : got) {
    SCOPED_TRACE(name);
    const nlohmann::json& want = fixture["cases"][name];
    std::vector<int64_t> shape = want["shape"].get<std::vector<int64_t>>();
    EXPECT_EQ(x.shape(), Shape(shape));
    EXPECT_EQ(dtype_name(x.dtype()), want["dtype"].get<std::string>() == "float64" ? "float64"
                                     : want["dtype"].get<std::string>() == "float32"
                                         ? "float32"
                                         : "complex128");
    const std::vector<std::complex<double>> values =
        x.astype(complex128).to_host<std::complex<double>>();
    const double tolerance = x.dtype() == float32 ? 2e-6 : 1e-14;
    for (size_t i = 0; i < values.size(); ++i) {
      const double re = std::strtod(want["x"][2 * i].get<std::string>().c_str(), nullptr);
      const double im = std::strtod(want["x"][2 * i + 1].get<std::string>().c_str(), nullptr);
      ASSERT_NEAR(values[i].real(), re, tolerance * (1 + std::abs(re))) << i;
      ASSERT_NEAR(values[i].imag(), im, tolerance * (1 + std::abs(im))) << i;
    }
  }
}

TEST(SparseSolvers, SpsolveOnTheHostAgreesWithTheReferenceAndReportsASingularMatrix) {
  const SpsolveSystem s = SpsolveFixtureSystem(30, 2);
  const CsrMatrix a(array(s.data), array(s.indices), array(s.indptr), {30, 30});
  const Array b = array(s.b, Shape{30, 2});
  const std::vector<double> host = sl::spsolve(a, b).to_host<double>();
  exec::Options reference = exec::CurrentOptions();
  reference.backend = "interpreter";
  std::vector<double> interpreted;
  {
    exec::ScopedOptions scoped(reference);
    interpreted = sl::spsolve(a, b).to_host<double>();
  }
  ASSERT_EQ(host.size(), interpreted.size());
  for (size_t i = 0; i < host.size(); ++i) EXPECT_NEAR(host[i], interpreted[i], 1e-13) << i;
  // Rows 0 and 1 equal: singular, an error naming the op; the process goes on.
  const CsrMatrix singular(array(std::vector<double>{1, 2, 1, 2, 5}),
                           array(std::vector<int64_t>{0, 1, 0, 1, 2}),
                           array(std::vector<int64_t>{0, 2, 4, 5}), {3, 3});
  for (const char* backend : {"", "interpreter"}) {
    exec::Options options = exec::CurrentOptions();
    if (*backend != '\0') options.backend = backend;
    exec::ScopedOptions scoped(options);
    try {
      sl::spsolve(singular, ones({3})).eval();
      ADD_FAILURE() << "no error for a singular matrix on " << backend;
    } catch (const Error& e) {
      EXPECT_TRUE(absl::StrContains(e.what(), "spsolve")) << e.what();
      EXPECT_TRUE(absl::StrContains(e.what(), "singular")) << e.what();
    }
  }
  EXPECT_THROW(sl::spsolve(CsrMatrix(array(std::vector<double>{1}), array(std::vector<int64_t>{0}),
                                     array(std::vector<int64_t>{0, 1, 1}), {2, 1}),
                           ones({2})),
               Error);                              // not square
  EXPECT_THROW(sl::spsolve(a, ones({29})), Error);  // b of the wrong length
  // An integer matrix and right-hand side solve in float64, as SciPy's.
  const CsrMatrix ints(array(std::vector<int64_t>{2, 4}), array(std::vector<int64_t>{0, 1}),
                       array(std::vector<int64_t>{0, 1, 2}), {2, 2});
  const Array x = sl::spsolve(ints, array(std::vector<int64_t>{1, 2}));
  EXPECT_EQ(x.dtype(), float64);
  EXPECT_EQ(x.to_host<double>(), (std::vector<double>{0.5, 0.5}));
}

}  // namespace
}  // namespace gpuc
