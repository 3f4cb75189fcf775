//===- linalg_solvers_test.cc - numpy.linalg's solvers on every target ----===//
//
// Issue 33. The NumPy fixtures (api_fixtures_test.cc, linalg_* cases) fix the results; here
// the reference interpreter's own algorithms (LU, Cholesky, Jacobi) and LAPACK on the
// evaluation target agree on random inputs of every dtype, larger systems solve to their
// residual, and each failure is an error naming the routine, the shape and the batch index
// that leaves the process and its other arrays usable.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpuc/gpuc.h"
#include "lib/exec/options.h"
#include "test/unit/test_util.h"

namespace gpuc {
namespace {

// A random [batch..., m, n] stack in `dtype` (complex dtypes get imaginary parts too).
Array Rectangular(const std::vector<int64_t>& batch, int64_t m, int64_t n, DType dtype,
                  uint32_t seed) {
  std::vector<int64_t> dims = batch;
  dims.push_back(m);
  dims.push_back(n);
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  Array a = array(test::UniformDoubles(count, seed), Shape(dims)) - 0.5;
  if (dtype == complex64 || dtype == complex128) {
    a = a + Array(array(test::UniformDoubles(count, seed + 1), Shape(dims)) - 0.5) *
                array(std::vector<std::complex<double>>{{0.0, 1.0}});
  }
  return astype(a, dtype);
}

// A random [batch..., n, n] stack with `shift` added on the diagonal (well conditioned for a
// shift of about n), in `dtype`.
Array Square(const std::vector<int64_t>& batch, int64_t n, DType dtype, double shift,
             uint32_t seed) {
  return astype(Rectangular(batch, n, n, dtype, seed) + shift * eye(n), dtype);
}

// a @ a^H + n I: Hermitian positive definite.
Array PositiveDefinite(int64_t n, DType dtype, uint32_t seed) {
  const Array a = Square({}, n, dtype, 0.0, seed);
  return matmul(a, conj(a.T())) + static_cast<double>(n) * eye(n);
}

double Tolerance(DType dtype) { return dtype == float32 || dtype == complex64 ? 2e-4 : 1e-10; }

void ExpectClose(const Array& got, const Array& want, DType dtype, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const double error = max(abs(astype(got, complex128) - astype(want, complex128))).item<double>();
  const double scale = std::max(1.0, max(abs(astype(want, complex128))).item<double>());
  EXPECT_LE(error / scale, Tolerance(dtype)) << what << " (" << dtype_name(dtype) << ")";
}

// `fn` evaluated on the current target and on the reference interpreter.
void ExpectMatchesTheInterpreter(const std::function<Array()>& fn, DType dtype,
                                 const std::string& what) {
  Array got = fn();
  got.eval();
  exec::Options options = exec::CurrentOptions();
  options.backend = "interpreter";
  Array want;
  {
    exec::ScopedOptions scoped(options);
    want = fn();
    want.eval();
  }
  ExpectClose(got, want, dtype, what);
}

TEST(LinalgSolvers, EveryRoutineAgreesWithTheInterpretersReferenceInEveryDtype) {
  for (DType dtype : {float32, float64, complex64, complex128}) {
    const Array a = Square({2}, 5, dtype, 3.0, 1);
    const Array b = astype(Square({2}, 5, float64, 0.0, 3)(ellipsis, Slice(0, 2)), dtype);
    const Array spd = PositiveDefinite(6, dtype, 5);
    const Array herm = spd + Square({}, 6, dtype, 0.0, 7) + conj(Square({}, 6, dtype, 0.0, 7).T());
    ExpectMatchesTheInterpreter([&] { return linalg::solve(a, b); }, dtype, "solve");
    ExpectMatchesTheInterpreter([&] { return linalg::inv(a); }, dtype, "inv");
    ExpectMatchesTheInterpreter([&] { return linalg::det(a); }, dtype, "det");
    ExpectMatchesTheInterpreter([&] { return linalg::slogdet(a).sign; }, dtype, "slogdet sign");
    ExpectMatchesTheInterpreter([&] { return linalg::slogdet(a).logabsdet; }, dtype,
                                "slogdet logabsdet");
    ExpectMatchesTheInterpreter([&] { return linalg::cholesky(spd); }, dtype, "cholesky");
    ExpectMatchesTheInterpreter([&] { return linalg::eigvalsh(herm); }, dtype, "eigvalsh");
    ExpectMatchesTheInterpreter([&] { return linalg::eigh(herm, "U").eigenvalues; }, dtype,
                                "eigh values");
    // Eigenvectors are fixed up to a phase: compare a v = v w instead.
    const linalg::EighResult e = linalg::eigh(herm);
    ExpectClose(matmul(herm, e.eigenvectors), e.eigenvectors * e.eigenvalues, dtype, "a v = v w");
  }
}

// A general matrix's eigenpairs (real ones with complex conjugate pairs, complex ones, a batch)
// satisfy a v = v w with unit columns whose largest component is real, on the evaluation
// target (LAPACK's geev) and on the interpreter (Hessenberg QR and inverse iteration), and
// eigvals gives eig's eigenvalues; sorted, the two targets' eigenvalues of a complex matrix
// agree.
TEST(LinalgSolvers, EigenpairsOfGeneralMatricesSatisfyTheirEquationOnEveryTarget) {
  for (DType dtype : {float32, float64, complex64, complex128}) {
    const Array a = Square({2}, 6, dtype, 0.5, 11);
    for (const char* backend : {"", "interpreter"}) {
      exec::Options options = exec::CurrentOptions();
      if (*backend != '\0') options.backend = backend;
      exec::ScopedOptions scoped(options);
      const linalg::EigResult e = linalg::eig(a);
      const std::string what =
          absl::StrCat(dtype_name(dtype), " on ", *backend ? backend : "the target");
      EXPECT_EQ(e.eigenvalues.dtype(),
                dtype == float64 || dtype == complex128 ? complex128 : complex64);
      const Array v = astype(e.eigenvectors, complex128), w = astype(e.eigenvalues, complex128);
      const Array av = matmul(astype(a, complex128), v), vw = v * expand_dims(w, -2);
      ExpectClose(av, vw, dtype, "a v = v w, " + what);
      ExpectClose(sum(real(v * conj(v)), {-2}), ones({2, 6}), dtype, "unit columns, " + what);
      ExpectClose(linalg::eigvals(a), e.eigenvalues, dtype, "eigvals = eig's, " + what);
      // The largest component of each column is real.
      const std::vector<std::complex<double>> vs = v.to_host<std::complex<double>>();
      for (int b = 0; b < 2; ++b) {
        for (int j = 0; j < 6; ++j) {
          int largest = 0;
          for (int i = 1; i < 6; ++i) {
            if (std::abs(vs[b * 36 + i * 6 + j]) > std::abs(vs[b * 36 + largest * 6 + j]))
              largest = i;
          }
          EXPECT_LE(std::abs(vs[b * 36 + largest * 6 + j].imag()), Tolerance(dtype)) << what;
        }
      }
    }
    // Sorted, the eigenvalues of a complex matrix agree (a real one's conjugate pairs share a
    // real part only to the last bit, which orders them either way).
    if (dtype == complex64 || dtype == complex128) {
      ExpectMatchesTheInterpreter([&] { return sort(linalg::eigvals(a), -1); }, dtype,
                                  "sorted eigenvalues");
    }
  }
}

TEST(LinalgSolvers, SingularValuesAndVectorsAgreeWithTheReferenceTallAndWide) {
  for (DType dtype : {float32, float64, complex64, complex128}) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{6, 4}, {3, 5}}) {
      const Array a = Rectangular({2}, m, n, dtype, 31);
      ExpectMatchesTheInterpreter([&] { return linalg::svdvals(a); }, dtype, "svdvals");
      ExpectMatchesTheInterpreter([&] { return linalg::pinv(a); }, dtype, "pinv");
      for (bool full : {false, true}) {
        // Each target's own vectors rebuild a, and the full ones are unitary.
        auto rebuilt = [&] {
          const linalg::SvdResult r = linalg::svd(a, full);
          const int64_t k = std::min(m, n);
          return matmul(r.U(ellipsis, Slice(0, k)) * expand_dims(astype(r.S, dtype), -2),
                        r.Vh(ellipsis, Slice(0, k), Slice()));
        };
        ExpectMatchesTheInterpreter(rebuilt, dtype, full ? "u s vh (full)" : "u s vh");
        ExpectClose(rebuilt(), a, dtype, "u s vh = a");
        const linalg::SvdResult r = linalg::svd(a, true);
        ExpectClose(matmul(conj(swapaxes(r.U, -1, -2)), r.U),
                    broadcast_to(astype(eye(m), dtype), Shape{2, m, m}), dtype, "u^H u = 1");
      }
    }
  }
}

TEST(LinalgSolvers, QrAgreesWithTheReferenceAndRebuildsItsMatrix) {
  for (DType dtype : {float32, float64, complex64, complex128}) {
    for (auto [m, n] : {std::pair<int64_t, int64_t>{6, 4}, {3, 5}, {4, 4}}) {
      const Array a = Rectangular({2}, m, n, dtype, 41);
      for (const char* mode : {"reduced", "complete"}) {
        // Both use LAPACK's reflections, so even the signs agree.
        ExpectMatchesTheInterpreter([&] { return linalg::qr(a, mode).R; }, dtype, "r");
        ExpectMatchesTheInterpreter([&] { return linalg::qr(a, mode).Q; }, dtype, "q");
        const linalg::QrResult r = linalg::qr(a, mode);
        ExpectClose(matmul(r.Q, r.R), a, dtype, "q r = a");
        const int64_t q_cols = r.Q.shape()[2];
        ExpectClose(matmul(conj(swapaxes(r.Q, -1, -2)), r.Q),
                    broadcast_to(astype(eye(q_cols), dtype), Shape{2, q_cols, q_cols}), dtype,
                    "q^H q = 1");
      }
    }
  }
  EXPECT_THROW((void)linalg::qr(eye(3), "raw"), Error);
}

TEST(LinalgSolvers, ALargerSystemSolvesToItsResidual) {
  const int64_t n = 200;
  const Array a = Square({}, n, float64, 20.0, 11);
  const Array x = array(test::UniformDoubles(n, 12));
  const Array b = matmul(a, x);
  ExpectClose(linalg::solve(a, b), x, float64, "solve");
  ExpectClose(matmul(a, linalg::inv(a)), eye(n), float64, "a inv(a)");
  const Array l = linalg::cholesky(PositiveDefinite(n, float64, 13));
  ExpectClose(matmul(l, l.T()), PositiveDefinite(n, float64, 13), float64, "l l^T");
}

// Empty stacks, one statement a test (each runs a different plan on every back end).
TEST(LinalgSolvers, AnEmptyStackEvaluates) {
  const std::vector<double> values = zeros({3, 0, 0}).to_host<double>();
  EXPECT_TRUE(values.empty());
}

TEST(LinalgSolvers, TheInverseOfEmptyMatricesIsEmpty) {
  const Array inverse = linalg::inv(zeros({3, 0, 0}));
  EXPECT_EQ(inverse.shape(), (Shape{3, 0, 0}));
  EXPECT_TRUE(inverse.to_host<double>().empty());
}

TEST(LinalgSolvers, TheDeterminantOfAnEmptyMatrixIsOne) {
  const std::vector<double> dets = linalg::det(zeros({3, 0, 0})).to_host<double>();
  EXPECT_EQ(dets, (std::vector<double>{1.0, 1.0, 1.0}));  // the empty product, as NumPy
}

TEST(LinalgSolvers, AnEmptyBatchHasEmptyResults) {
  const Array values = linalg::eigvalsh(zeros({0, 4, 4}));
  EXPECT_EQ(values.shape(), (Shape{0, 4}));
  EXPECT_TRUE(values.to_host<double>().empty());
}

TEST(LinalgSolvers, ASingularMatrixIsAnErrorNamingTheRoutineShapeAndBatchIndex) {
  std::vector<double> values = test::UniformDoubles(2 * 3 * 3, 21);
  for (int j = 0; j < 3; ++j) values[9 + 3 + j] = 2.0 * values[9 + j];  // batch 1: row 1 = 2 row 0
  // Exactly twice: LU meets an exact zero pivot only when the rows are exactly dependent.
  for (int j = 0; j < 3; ++j) values[9 + j] = static_cast<double>(j + 1);
  for (int j = 0; j < 3; ++j) values[9 + 3 + j] = static_cast<double>(2 * (j + 1));
  const Array a = array(values, Shape{2, 3, 3});
  const Array kept = a * 2.0;
  try {
    linalg::inv(a).eval();
    FAIL() << "inv of a singular matrix did not fail";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("linalg.inv"), std::string::npos) << message;
    EXPECT_NE(message.find("f64[2,3,3]"), std::string::npos) << message;
    EXPECT_NE(message.find("batch index 1"), std::string::npos) << message;
    EXPECT_NE(message.find("singular"), std::string::npos) << message;
  }
  EXPECT_THROW(linalg::solve(a, ones({2, 3})).eval(), Error);
  // det of the same is zero, not an error (NumPy's det).
  EXPECT_EQ(linalg::det(a).to_host<double>()[1], 0.0);
  EXPECT_EQ(linalg::slogdet(a).logabsdet.to_host<double>()[1], -INFINITY);
  // The process and the other arrays are fine.
  EXPECT_EQ(kept.to_host<double>()[0], values[0] * 2.0);
}

TEST(LinalgSolvers, NotPositiveDefiniteAndBadOperandsAreErrors) {
  try {
    linalg::cholesky(-1.0 * eye(3)).eval();
    FAIL() << "cholesky of a negative definite matrix did not fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)linalg::inv(zeros({3, 4})), Error);            // not square, at record time
  EXPECT_THROW((void)linalg::det(zeros({4})), Error);               // not a matrix
  EXPECT_THROW((void)linalg::inv(astype(eye(3), float16)), Error);  // as NumPy
  EXPECT_THROW((void)linalg::solve(eye(3), ones({4})), Error);      // b does not fit
  EXPECT_THROW((void)linalg::solve(zeros({2, 3, 3}), zeros({4, 3, 1})), Error);  // batches
  EXPECT_THROW((void)linalg::eigh(eye(3), "X"), Error);
  // Integers compute in float64.
  EXPECT_EQ(linalg::inv(astype(eye(3), int32)).dtype(), float64);
}

}  // namespace
}  // namespace gpuc
