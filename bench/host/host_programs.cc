//===- host_programs.cc - NumPy-shaped whole-array programs for the host --===//
#include "bench/host/host_programs.h"

#include <cmath>
#include <complex>

namespace gpuc::bench {
namespace {

using gpuc::colon;
using gpuc::none;
using gpuc::Slice;
using Inputs = std::vector<Array>;

/// sin(k * (0.37 + 0.11 seed) + seed) in row-major order, in `dtype` (numpy_suite.py's
/// wave()), evaluated.
Array Wave(const Shape& shape, int seed, DType dtype = gpuc::float64) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  Array k = gpuc::arange(0, count, 1, gpuc::float64);
  Array wave = gpuc::reshape(gpuc::sin(k * (0.37 + 0.11 * seed) + static_cast<double>(seed)), shape)
                   .astype(dtype);
  wave.eval();
  return wave;
}

/// Bin indices in [0, 1000) from a wave: int64.
Array Bins(int64_t n) {
  Array bins = gpuc::floor((Wave({n}, 8) + 1.0) * 499.5).astype(gpuc::int64);
  bins.eval();
  return bins;
}

/// The side of a square of about `n` elements.
int64_t Side(int64_t n) {
  return std::max<int64_t>(2, std::llround(std::sqrt(static_cast<double>(n))));
}

Array Done(Array a) {
  a.eval();
  return a;
}

Inputs OneF64(int64_t n) { return {Wave({n}, 1)}; }
Inputs TwoF64(int64_t n) { return {Wave({n}, 1), Wave({n}, 2)}; }
Inputs TwoF32(int64_t n) { return {Wave({n}, 1, gpuc::float32), Wave({n}, 2, gpuc::float32)}; }
Inputs OneF32(int64_t n) { return {Wave({n}, 5, gpuc::float32)}; }
Inputs SquareF32(int64_t n) { return {Wave({Side(n), Side(n)}, 4, gpuc::float32)}; }
Inputs TwoSquaresF32(int64_t n) {
  return {Wave({Side(n), Side(n)}, 3, gpuc::float32), Wave({Side(n), Side(n)}, 4, gpuc::float32)};
}
Inputs SquareAndVectorF64(int64_t n) { return {Wave({Side(n), Side(n)}, 3), Wave({Side(n)}, 4)}; }
Inputs RowsOf256F32(int64_t n) {
  return {Wave({std::max<int64_t>(1, n / 256), 256}, 7, gpuc::float32)};
}
Inputs BinsAndWeights(int64_t n) { return {Bins(n), Wave({n}, 9)}; }
Inputs FourF64(int64_t n) { return {Wave({n}, 12), Wave({n}, 13), Wave({n}, 14), Wave({n}, 15)}; }
/// A symmetric, diagonally dominant (so positive definite) square and a vector: the solvers'.
Inputs SystemF64(int64_t n) {
  const int64_t s = Side(n);
  const Array w = Wave({s, s}, 16);
  return {Done((w + w.T()) * 0.5 + static_cast<double>(s) * gpuc::eye(s)), Wave({s}, 17)};
}

Array SolveF64(const Inputs& in) { return Done(gpuc::linalg::solve(in[0], in[1])); }
Array InvF64(const Inputs& in) { return Done(gpuc::linalg::inv(in[0])); }
Array CholeskyF64(const Inputs& in) { return Done(gpuc::linalg::cholesky(in[0])); }
Array SlogdetF64(const Inputs& in) { return Done(gpuc::linalg::slogdet(in[0]).logabsdet); }
Array EigvalshF64(const Inputs& in) { return Done(gpuc::linalg::eigvalsh(in[0])); }
Array SvdvalsF64(const Inputs& in) { return Done(gpuc::linalg::svdvals(in[0])); }
Array EigvalsF64(const Inputs& in) { return Done(gpuc::linalg::eigvals(in[0])); }
Array CumsumF64(const Inputs& in) { return Done(gpuc::cumsum(in[0])); }
Array SortF32(const Inputs& in) { return Done(gpuc::sort(in[0])); }
Array MedianRowsF64(const Inputs& in) { return Done(gpuc::median(in[0], 1)); }

Array ChainF64(const Inputs& in) {
  const Array& x = in[0];
  return Done(gpuc::exp(-x * x) * gpuc::sin(3.0 * x) + 0.5 * x);
}

Array PolyF64(const Inputs& in) {
  const Array& x = in[0];
  return Done(((x * 0.3 + 1.2) * x - 0.7) * x + 2.0);
}

Array AxpyF32(const Inputs& in) { return Done(2.5f * in[0] + in[1]); }

Array WhereF64(const Inputs& in) {
  const Array& x = in[0];
  return Done(gpuc::where(x > 0.2, x * x, -x) + gpuc::clip(x, -0.5, 0.5));
}

Array Stencil1dF64(const Inputs& in) {
  const Array& x = in[0];
  return Done(x(Slice(none, -2)) - 2.0 * x(Slice(1, -1)) + x(Slice(2, none)));
}

Array Stencil2dF32(const Inputs& in) {
  const Array& u = in[0];
  Slice c(1, -1), up(none, -2), down(2, none);
  return Done(u(up, c) + u(down, c) + u(c, up) + u(c, down) - 4.0f * u(c, c));
}

Array SumF32(const Inputs& in) { return Done(gpuc::sum(in[0])); }
Array SumRowsF32(const Inputs& in) { return Done(gpuc::sum(in[0], {1})); }
Array SumColumnsF32(const Inputs& in) { return Done(gpuc::sum(in[0], {0})); }

Array MeanStdF64(const Inputs& in) {
  return Done(gpuc::stack({gpuc::mean(in[0]), gpuc::stddev(in[0])}));
}

Array SoftmaxRowsF32(const Inputs& in) {
  const Array& x = in[0];
  Array e = gpuc::exp(x - gpuc::max(x, {1}, true));
  return Done(e / gpuc::sum(e, {1}, true));
}

Array DotF64(const Inputs& in) { return Done(gpuc::dot(in[0], in[1])); }
Array MatmulOf(const Inputs& in) { return Done(gpuc::matmul(in[0], in[1])); }

Array BincountWeights(const Inputs& in) { return Done(gpuc::bincount(in[0], in[1], 1000)); }

Array HistogramF64(const Inputs& in) { return Done(gpuc::histogram(in[0], 100, -1.0, 1.0).counts); }

Array ScatterAdd(const Inputs& in) { return Done(gpuc::zeros({1000}).at(in[0]).add(in[1])); }

Array ComplexF64(const Inputs& in) {
  const std::complex<double> i(0.0, 1.0), scale(0.3, -0.2);
  Array z = in[0].astype(gpuc::complex128) + i * in[1];
  Array c = in[2].astype(gpuc::complex128) * scale;
  Array w = z * z + c;
  return Done(gpuc::abs(w * w + c));
}

// Twenty explicit heat steps as a NumPy user writes them: the interior updated in place.
Array HeatLoopF64(const Inputs& in) {
  Array u = in[3] * 1.0;
  const Slice c(1, -1), left(none, -2), right(2, none);
  for (int t = 0; t < 20; ++t) u(c) = u(c) + 0.25 * (u(left) - 2.0 * u(c) + u(right));
  return Done(u);
}

}  // namespace

const std::vector<int64_t>& HostSuiteSizes() {
  static const std::vector<int64_t> sizes = {1000, 10000, 100000, 1000000, 10000000};
  return sizes;
}

const std::vector<HostProgram>& HostPrograms() {
  constexpr int64_t kAll = 10000000;
  static const std::vector<HostProgram> programs = {
      {"chain_f64", "exp(-x*x) * sin(3x) + 0.5x", kAll, OneF64, ChainF64},
      {"poly_f64", "((0.3x + 1.2)x - 0.7)x + 2", kAll, OneF64, PolyF64},
      {"axpy_f32", "2.5x + y", kAll, TwoF32, AxpyF32},
      {"where_f64", "where(x > 0.2, x*x, -x) + clip(x, -0.5, 0.5)", kAll, OneF64, WhereF64},
      {"stencil1d_f64", "x[:-2] - 2x[1:-1] + x[2:]", kAll, OneF64, Stencil1dF64},
      {"stencil2d_f32", "5-point Laplacian of a square grid", kAll, SquareF32, Stencil2dF32},
      {"sum_f32", "x.sum()", kAll, OneF32, SumF32},
      {"sum_rows_f32", "square.sum(axis=1)", kAll, SquareF32, SumRowsF32},
      {"sum_columns_f32", "square.sum(axis=0)", kAll, SquareF32, SumColumnsF32},
      {"mean_std_f64", "[x.mean(), x.std()]", kAll, OneF64, MeanStdF64},
      {"softmax_rows_f32", "softmax over rows of 256", kAll, RowsOf256F32, SoftmaxRowsF32},
      {"dot_f64", "x @ y (BLAS-1)", kAll, TwoF64, DotF64},
      {"gemv_f64", "A @ v, A square (BLAS-2)", kAll, SquareAndVectorF64, MatmulOf},
      {"gemm_f32", "A @ B, both square (BLAS-3)", 1000000, TwoSquaresF32, MatmulOf},
      {"bincount_weights", "bincount(bins, weights=x, minlength=1000)", kAll, BinsAndWeights,
       BincountWeights},
      {"histogram_f64", "histogram(x, 100, range=(-1, 1))[0]", kAll, OneF64, HistogramF64},
      {"scatter_add", "np.add.at(zeros(1000), bins, x)", kAll, BinsAndWeights, ScatterAdd},
      {"complex_f64", "z = x + iy; w = z*z + c; abs(w*w + c), complex128", kAll, FourF64,
       ComplexF64},
      {"heat_loop_f64", "20 steps of u[1:-1] += 0.25 (u[:-2] - 2u[1:-1] + u[2:])", kAll, FourF64,
       HeatLoopF64},
      {"eigvals_f64", "linalg.eigvals(A)", 100000, SystemF64, EigvalsF64},
      {"cumsum_f64", "np.cumsum(x)", kAll, OneF64, CumsumF64},
      {"sort_f32", "np.sort(x)", kAll, OneF32, SortF32},
      {"median_rows_f64", "np.median(square, axis=1)", kAll, SquareAndVectorF64, MedianRowsF64},
      {"solve_f64", "linalg.solve(A, b), A square (LAPACK gesv)", 1000000, SystemF64, SolveF64},
      {"inv_f64", "linalg.inv(A)", 1000000, SystemF64, InvF64},
      {"cholesky_f64", "linalg.cholesky(A)", 1000000, SystemF64, CholeskyF64},
      {"slogdet_f64", "linalg.slogdet(A)[1]", 1000000, SystemF64, SlogdetF64},
      {"eigvalsh_f64", "linalg.eigvalsh(A)", 100000, SystemF64, EigvalshF64},
      {"svdvals_f64", "linalg.svd(A, compute_uv=False)", 100000, SystemF64, SvdvalsF64},
  };
  return programs;
}

}  // namespace gpuc::bench
