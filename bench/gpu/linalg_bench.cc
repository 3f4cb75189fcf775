//===- linalg_bench.cc - Dense solvers on the GPU, timed -------------------===//
#include "bench/gpu/linalg_bench.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/gpu/bench_util.h"
#include "gpuc/gpuc.h"

namespace gpuc::bench {

void RunLinalgWorkloads(bool quick) {
  struct Problem {
    int64_t batch, n;
    DType dtype;
  };
  std::vector<Problem> problems = {{1, 1024, float64}, {1, 1024, float32}, {256, 64, float64}};
  if (!quick) {
    problems.push_back({1, 4096, float64});
    problems.push_back({1, 4096, float32});
  }
  for (const Problem& p : problems) {
    random::Generator rng(33);
    // Diagonally dominant (solve, inv, det) and symmetric positive definite (cholesky, eigh).
    const Shape square = p.batch == 1 ? Shape{p.n, p.n} : Shape{p.batch, p.n, p.n};
    const Array eye = identity(p.n, p.dtype) * static_cast<double>(p.n);
    Array a = (rng.uniform(square, -1.0, 1.0, p.dtype) + eye).eval();
    Array spd = (a + swapaxes(a, -1, -2)).eval();
    const Shape rhs = p.batch == 1 ? Shape{p.n, 1} : Shape{p.batch, p.n, 1};
    Array b = rng.uniform(rhs, -1.0, 1.0, p.dtype).eval();
    const std::string size = absl::StrCat(p.batch == 1 ? "" : absl::StrCat(p.batch, "x"), p.n, "x",
                                          p.n, "_", dtype_name(p.dtype));
    TimeApiCall(
        "solve_" + size, [&] { return linalg::solve(a, b); }, 5);
    TimeApiCall(
        "inv_" + size, [&] { return linalg::inv(a); }, 5);
    TimeApiCall(
        "det_" + size, [&] { return linalg::det(a); }, 5);
    TimeApiCall(
        "cholesky_" + size, [&] { return linalg::cholesky(spd); }, 5);
    TimeApiCall(
        "eigh_" + size, [&] { return linalg::eigh(spd).eigenvectors; }, 3);
  }
}

}  // namespace gpuc::bench
