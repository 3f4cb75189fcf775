//===- cg.cc - Conjugate gradient on the 2-D Poisson matrix ---------------===//
//
// Issue 32's CG workload: the 5-point Laplacian of an N x N grid (Dirichlet boundaries) as a
// CSR matrix (gpuc::sparse, cuSPARSE's SpMV on the GPU), solved by unpreconditioned conjugate
// gradient for a fixed number of iterations, in the two forms a user writes:
//   plain   a C++ for loop over lazy ops (each iteration a loop-step cut, one plan);
//   fori    gpuc::fori_loop (the iteration traced once, its plan run every step).
//
//   cg --check DIR      both forms at the fixture's size must match NumPy's CG
//                       (test/fixtures/science/make_science_fixtures.py), in float64
//   cg [--n N] [--iterations K] [--dtype f32|f64]
//                       one JSON line per form: ms an iteration (to the device's end), host
//                       us an iteration, kernels an iteration, the final residual's norm
//
// bench/science/cg_peers.py times cupyx's cg and JAX's on the same problem in the same run
// (scripts/device-check.sh science).
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/science/science_util.h"
#include "gpuc/gpuc.h"

namespace {

using gpuc::Array;
using Clock = std::chrono::steady_clock;
using gpuc::bench::KernelsRun;

// The 5-point Laplacian (4 on the diagonal, -1 to each grid neighbour) of an n x n grid in
// row-major order, as CSR.
gpuc::sparse::CsrMatrix Poisson(int64_t n, gpuc::DType dtype) {
  std::vector<int32_t> indptr = {0}, indices;
  std::vector<double> data;
  indices.reserve(static_cast<size_t>(5 * n * n));
  data.reserve(static_cast<size_t>(5 * n * n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      auto add = [&](int64_t r, int64_t c, double v) {
        if (r < 0 || r >= n || c < 0 || c >= n) return;
        indices.push_back(static_cast<int32_t>(r * n + c));
        data.push_back(v);
      };
      add(i - 1, j, -1.0);
      add(i, j - 1, -1.0);
      add(i, j, 4.0);
      add(i, j + 1, -1.0);
      add(i + 1, j, -1.0);
      indptr.push_back(static_cast<int32_t>(indices.size()));
    }
  }
  return gpuc::sparse::CsrMatrix(gpuc::array(data).astype(dtype), gpuc::array(indices),
                                 gpuc::array(indptr), {n * n, n * n});
}

// One CG iteration over the state (x, r, p, rr), rr = r . r: what both forms run.
std::vector<Array> Iteration(const gpuc::sparse::CsrMatrix& a, const std::vector<Array>& s) {
  const Array &x = s[0], &r = s[1], &p = s[2], &rr = s[3];
  Array ap = gpuc::sparse::matmul(a, p);
  Array alpha = rr / gpuc::sum(p * ap);
  Array next_r = r - alpha * ap;
  Array next_rr = gpuc::sum(next_r * next_r);
  return {x + alpha * p, next_r, next_r + (next_rr / rr) * p, next_rr};
}

std::vector<Array> Start(const Array& b) {
  // x0 = 0, so r0 = p0 = b.
  return {gpuc::zeros_like(b), b, b, gpuc::sum(b * b)};
}

std::vector<Array> SolvePlain(const gpuc::sparse::CsrMatrix& a, const Array& b, int64_t k) {
  std::vector<Array> s = Start(b);
  for (int64_t i = 0; i < k; ++i) s = Iteration(a, s);
  gpuc::eval(s);
  return s;
}

std::vector<Array> SolveFori(const gpuc::sparse::CsrMatrix& a, const Array& b, int64_t k) {
  return gpuc::fori_loop(
      0, k, [&](const Array&, const std::vector<Array>& s) { return Iteration(a, s); }, Start(b));
}

int Check(const std::string& dir) {
  const Array b = gpuc::load(dir + "/cg_b.npy");
  const Array want = gpuc::load(dir + "/cg_x.npy");
  const int64_t k = gpuc::load(dir + "/cg_iterations.npy").item<int64_t>();
  const int64_t n = static_cast<int64_t>(std::lround(std::sqrt(b.shape()[0])));
  const gpuc::sparse::CsrMatrix a = Poisson(n, gpuc::float64);
  bool ok = true;
  for (const char* form : {"plain", "fori"}) {
    const std::vector<Array> s =
        std::string(form) == "plain" ? SolvePlain(a, b, k) : SolveFori(a, b, k);
    const double err = gpuc::max(gpuc::abs(s[0] - want)).item<double>() /
                       gpuc::max(gpuc::abs(want)).item<double>();
    const bool good = err <= 1e-10;
    std::printf(
        "cg --check (%s): %lld iterations on a %lldx%lld grid, max rel |gpuc - numpy| "
        "= %.3g: %s\n",
        form, static_cast<long long>(k), static_cast<long long>(n), static_cast<long long>(n), err,
        good ? "ok" : "MISMATCH");
    ok = ok && good;
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 2048, iterations = 100;
  gpuc::DType dtype = gpuc::float32;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--check" && i + 1 < argc) return Check(argv[++i]);
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--iterations" && i + 1 < argc) iterations = std::atoll(argv[++i]);
    if (arg == "--dtype" && i + 1 < argc)
      dtype = std::string(argv[++i]) == "f64" ? gpuc::float64 : gpuc::float32;
  }
  const gpuc::sparse::CsrMatrix a = Poisson(n, dtype);
  gpuc::random::Generator rng(7);
  const Array b = rng.uniform({n * n}, 0.0, 1.0, dtype).eval();
  for (const char* form : {"plain", "fori"}) {
    auto solve = [&](int64_t k) {
      return std::string(form) == "plain" ? SolvePlain(a, b, k) : SolveFori(a, b, k);
    };
    solve(3);  // plan, compile, warm the pool
    gpuc::Stream::current().synchronize();
    const int64_t kernels_before = KernelsRun();
    const Clock::time_point start = Clock::now();
    const std::vector<Array> s = solve(iterations);
    const double host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    gpuc::Stream::current().synchronize();
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    const double kernels = static_cast<double>(KernelsRun() - kernels_before) / iterations;
    const double residual = std::sqrt(s[3].astype(gpuc::float64).item<double>());
    if (!std::isfinite(residual)) {
      std::fprintf(stderr, "cg: the residual is %g\n", residual);
      return 1;
    }
    std::printf(
        "{\"impl\": \"gpuc\", \"form\": \"%s\", \"workload\": \"cg_poisson_%lld_%s\", "
        "\"ms_per_iteration\": %.5f, \"host_us_per_iteration\": %.2f, "
        "\"kernels_per_iteration\": %.2f, \"residual\": %.6g, \"device\": \"%s\"}\n",
        form, static_cast<long long>(n), dtype == gpuc::float32 ? "f32" : "f64",
        wall_ms / iterations, host_ms * 1e3 / iterations, kernels, residual,
        gpuc::current_device().c_str());
  }
  return 0;
}
