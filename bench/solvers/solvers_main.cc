//===- solvers_main.cc - Issue 33's sparse solvers beside SciPy -----------===//
//
//   bench_solvers [--repeat R]
//
// scipy.sparse.linalg's cg, bicgstab, gmres (restart 20, side 64), minres and spsolve (SuperLU)
// as gpuc::sparse::linalg runs them, on the 5-point Poisson matrix of a side x side grid
// (bicgstab with a convection term, so nonsymmetric), rtol 1e-8, b from the same closed formula
// as bench/solvers/scipy_solvers.py. One JSON line per (solver, side): iterations, the cold
// first call and the median warm call, and the relative residual reached. On the host back
// end by default; a GPU machine runs it there.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"

namespace {

using gpuc::Array;
using gpuc::sparse::CsrMatrix;

CsrMatrix Poisson(int64_t side, double convection) {
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
      add(k, k, 4.0 + convection);
      if (i > 0) add(k, k - side, -1.0);
      if (i + 1 < side) add(k, k + side, -1.0);
      if (j > 0) add(k, k - 1, -1.0 - convection);
      if (j + 1 < side) add(k, k + 1, -1.0);
    }
  }
  const int64_t n = side * side;
  return CsrMatrix::from_coo(gpuc::array(rows), gpuc::array(cols), gpuc::array(values), {n, n});
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
  }
  for (const char* solver : {"cg", "bicgstab", "gmres", "minres", "spsolve"}) {
    for (int64_t side : {64, 256}) {
      const bool cg = std::string(solver) == "cg";
      const bool gmres = std::string(solver) == "gmres";
      const bool minres = std::string(solver) == "minres";
      const bool direct = std::string(solver) == "spsolve";
      if (gmres && side > 64) continue;  // GMRES(20) takes thousands of steps there
      const CsrMatrix a = Poisson(side, cg || minres || direct ? 0.0 : 0.5);
      const int64_t n = side * side;
      Array k = gpuc::arange(0, n, 1, gpuc::float64);
      Array b = gpuc::sin(k * 0.37 + 1.0);
      b.eval();
      gpuc::sparse::linalg::SolverOptions options;
      options.rtol = 1e-8;
      options.maxiter = 20000;
      auto run = [&] {
        namespace sl = gpuc::sparse::linalg;
        gpuc::sparse::linalg::SolverResult r;
        if (direct) {
          r.x = sl::spsolve(a, b);
        } else if (cg) {
          r = sl::cg(a, b, options);
        } else if (gmres) {
          r = sl::gmres(a, b, options, 20);
        } else if (minres) {
          r = sl::minres(a, b, options);
        } else {
          r = sl::bicgstab(a, b, options);
        }
        r.x.eval();
        return r;
      };
      auto start = std::chrono::steady_clock::now();
      const gpuc::sparse::linalg::SolverResult first = run();
      const double cold = Seconds(start);
      std::vector<double> warm;
      for (int r = 0; r < repeat; ++r) {
        start = std::chrono::steady_clock::now();
        run();
        warm.push_back(Seconds(start));
      }
      std::sort(warm.begin(), warm.end());
      const double residual =
          gpuc::linalg::norm(b - gpuc::sparse::matmul(a, first.x)).item<double>() /
          gpuc::linalg::norm(b).item<double>();
      std::printf(
          "{\"solver\": \"%s\", \"impl\": \"gpuc\", \"side\": %lld, \"iterations\": %lld, "
          "\"info\": %lld, \"cold_s\": %.6f, \"warm_s\": %.6f, \"relative_residual\": %.3e}\n",
          solver, static_cast<long long>(side), static_cast<long long>(first.iterations),
          static_cast<long long>(first.info), cold, warm[warm.size() / 2], residual);
      std::fflush(stdout);
    }
  }
  return 0;
}
