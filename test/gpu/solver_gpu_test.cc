//===- solver_gpu_test.cc - linalg's solvers through cuSOLVER --------------===//
//
// solve, inv, det, slogdet, cholesky, eigh and eigvalsh on the GPU (gpu_solver.h) against the
// reference interpreter (complex double LU, Cholesky and Jacobi) on batches of random
// well-conditioned matrices of every dtype; each evaluation a cuSOLVER library call with no
// step on the host; a singular matrix and one that is not positive definite are errors naming
// the batch index. Skips without a GPU.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "absl/strings/match.h"
#include "gpuc/gpuc.h"
#include "lib/backend/cuda/gpu_executor.h"
#include "lib/exec/options.h"
#include "test/gpu/run_on_gpu.h"

namespace gpuc {
namespace {

// A batch of 3 diagonally dominant n x n matrices of `dtype` (symmetric positive definite
// when `spd`: a + a^H + 2n I).
Array Matrices(int64_t n, DType dtype, bool spd, uint64_t seed) {
  random::Generator rng(seed);
  const bool complex = dtype == complex64 || dtype == complex128;
  const DType real = dtype == float32 || dtype == complex64 ? float32 : float64;
  Array a = rng.uniform({3, n, n}, -1.0, 1.0, real);
  if (complex) a = a + rng.uniform({3, n, n}, -1.0, 1.0, real) * std::complex<double>(0, 1);
  a = a.astype(dtype);
  const Array eye = identity(n, dtype) * static_cast<double>(2 * n);
  if (spd) return (a + conj(swapaxes(a, -1, -2)) + eye).eval();
  return (a + eye).eval();
}

// `f` on the GPU and on the interpreter: the largest difference over the largest reference
// magnitude, and the GPU run's library calls and host steps.
double Difference(const std::function<Array()>& f, int64_t& library_calls, int64_t& host_steps) {
  detail::GpuExecutor& gpu = **detail::GpuExecutor::Get();
  const detail::GpuBackendStats before = gpu.stats();
  Array got = f().astype(complex128).eval();
  const detail::GpuBackendStats after = gpu.stats();
  library_calls = after.library_calls - before.library_calls;
  host_steps =
      after.library_steps + after.host_kernels - before.library_steps - before.host_kernels;
  exec::Options reference = exec::CurrentOptions();
  reference.backend = "interpreter";
  exec::ScopedOptions scoped(reference);
  Array want = f().astype(complex128);
  return max(abs(got - want)).item<double>() / std::max(1e-30, max(abs(want)).item<double>());
}

TEST(SolverGpu, EveryRoutineAndDtypeMatchesTheReference) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  for (DType dtype : {float32, float64, complex64, complex128}) {
    const double tolerance = dtype == float32 || dtype == complex64 ? 2e-4 : 1e-11;
    uint64_t seed = 11;
    for (int64_t n : {1, 7, 40}) {
      const Array a = Matrices(n, dtype, false, seed++);
      const Array spd = Matrices(n, dtype, true, seed++);
      random::Generator rng(seed++);
      const Array b = rng.uniform({3, n, 2}, -1.0, 1.0, float32).astype(dtype).eval();
      const std::vector<std::pair<const char*, std::function<Array()>>> cases = {
          {"solve", [&] { return linalg::solve(a, b); }},
          {"inv", [&] { return linalg::inv(a); }},
          {"det", [&] { return linalg::det(a); }},
          {"slogdet", [&] { return linalg::slogdet(a).logabsdet; }},
          {"slogdet sign", [&] { return linalg::slogdet(a).sign; }},
          {"cholesky", [&] { return linalg::cholesky(spd); }},
          {"eigvalsh", [&] { return linalg::eigvalsh(spd); }},
          // Eigenvectors are unique up to a unit factor: compare a v = v diag(w) instead.
          {"eigh",
           [&] {
             const linalg::EighResult e = linalg::eigh(spd);
             return matmul(spd, e.eigenvectors) -
                    e.eigenvectors * expand_dims(e.eigenvalues, -2).astype(dtype);
           }},
      };
      for (const auto& [name, f] : cases) {
        SCOPED_TRACE(::testing::Message() << name << " n=" << n << " " << dtype_name(dtype));
        int64_t library_calls = 0, host_steps = 0;
        const double difference = Difference(f, library_calls, host_steps);
        EXPECT_LE(difference, std::string(name) == "eigh" ? tolerance * n : tolerance);
        EXPECT_GE(library_calls, 1);
        EXPECT_EQ(host_steps, 0) << gpu.stats().last_host_reason;
      }
    }
  }
}

TEST(SolverGpu, ASingularOrIndefiniteMatrixIsAnErrorNamingItsBatchIndex) {
  GPUC_REQUIRE_GPU_EXECUTOR(gpu);
  // The second of three matrices has two equal rows.
  std::vector<double> v = {2, 1, 1, 3, 1, 2, 1, 2, 4, 8, 2, 1, 1, 0, 1, 2};
  Array a = array(v, Shape{4, 2, 2}).eval();
  try {
    linalg::inv(a).eval();
    FAIL() << "inv of a singular matrix gave no error";
  } catch (const Error& e) {
    EXPECT_TRUE(absl::StrContains(e.what(), "batch index 1")) << e.what();
    EXPECT_TRUE(absl::StrContains(e.what(), "singular")) << e.what();
  }
  EXPECT_EQ(linalg::det(a).to_host<double>()[1], 0.0);  // a zero determinant, no error
  try {
    linalg::cholesky(array(std::vector<double>{4, 2, 2, 1, 1, 5, 5, 1}, Shape{2, 2, 2})).eval();
    FAIL() << "cholesky of an indefinite matrix gave no error";
  } catch (const Error& e) {
    EXPECT_TRUE(absl::StrContains(e.what(), "positive definite")) << e.what();
  }
  // The process and other arrays stay usable.
  EXPECT_NEAR(linalg::det(array(std::vector<double>{2, 0, 0, 3}, Shape{2, 2})).item<double>(), 6.0,
              1e-12);
}

}  // namespace
}  // namespace gpuc
