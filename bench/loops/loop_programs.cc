//===- loop_programs.cc - NumPy-shaped loop programs, written as users write them ===//
#include "bench/loops/loop_programs.h"

#include <cmath>
#include <map>
#include <utility>

namespace gpuc::bench {
namespace {

using gpuc::colon;
using gpuc::none;
using gpuc::Slice;

/// Deterministic, non-trivial data: sin(k * (0.37 + 0.11 seed) + seed) in row-major order
/// (numpy_loops.py's wave()). Made once per shape and seed and kept, so the warm calls time
/// the loops, not the sines (NumPy's are SIMD, the host back end's are libm's); numpy_loops.py
/// keeps its inputs the same way.
Array Wave(const Shape& shape, int seed) {
  static std::map<std::pair<Shape, int>, Array>* made = new std::map<std::pair<Shape, int>, Array>;
  auto it = made->find({shape, seed});
  if (it != made->end()) return it->second;
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  Array k = gpuc::arange(0, count, 1, gpuc::float64);
  Array wave =
      gpuc::reshape(gpuc::sin(k * (0.37 + 0.11 * seed) + static_cast<double>(seed)), shape);
  wave.eval();
  made->emplace(std::make_pair(shape, seed), wave);
  return wave;
}

// cov[i, i:] = cov[i:, i] = data[:, i] @ data[:, i:] / (n - 1): a row-by-row statistic
// whose slice bounds and subscript change every row.
Array Covariance(int64_t m, int64_t) {
  const int64_t n = m;
  Array data = Wave({n, m}, 1);
  data = data - gpuc::mean(data, {0});
  Array cov = gpuc::zeros({m, m});
  for (int64_t i = 0; i < m; ++i) {
    Array row = gpuc::matmul(data(colon, i), data(colon, Slice(i, none))) / (n - 1.0);
    cov(i, Slice(i, none)) = row;
    cov(Slice(i, none), i) = row;
  }
  cov.eval();
  return cov;
}

// The Thomas algorithm along axis 0 of a 3-D array, one k-plane at a time: every step reads
// the previous plane's result and writes its own.
Array Thomas(int64_t n, int64_t nz) {
  Array a = -1.0 + 0.1 * Wave({nz, n, n}, 2);
  Array b = 4.0 + Wave({nz, n, n}, 3);
  Array c = -1.0 + 0.1 * Wave({nz, n, n}, 4);
  Array d = Wave({nz, n, n}, 5);
  Array cp = gpuc::empty({nz, n, n});
  Array dp = gpuc::empty({nz, n, n});
  cp(0) = c(0) / b(0);
  dp(0) = d(0) / b(0);
  for (int64_t k = 1; k < nz; ++k) {
    Array denom = b(k) - a(k) * cp(k - 1);
    cp(k) = c(k) / denom;
    dp(k) = (d(k) - a(k) * dp(k - 1)) / denom;
  }
  Array x = gpuc::empty({nz, n, n});
  x(nz - 1) = dp(nz - 1);
  for (int64_t k = nz - 2; k >= 0; --k) x(k) = dp(k) - cp(k) * x(k + 1);
  x.eval();
  return x;
}

// u[0] = sin(0.05 t); u[1:-1] += r(t) * (u[:-2] - 2 u[1:-1] + u[2:]) with r = 0.4 t / T: a
// time-dependent boundary and a scalar schedule.
Array Stencil1d(int64_t n, int64_t steps) {
  Array u = Wave({n}, 6);
  const double dt = 0.4 / static_cast<double>(steps);
  for (int64_t t = 0; t < steps; ++t) {
    u(0) = std::sin(0.05 * static_cast<double>(t));
    u(Slice(1, -1)) =
        u(Slice(1, -1)) +
        dt * static_cast<double>(t) * (u(Slice(0, -2)) - 2.0 * u(Slice(1, -1)) + u(Slice(2, none)));
  }
  u.eval();
  return u;
}

// The same in 2-D: one edge driven by the clock, the interior by a five-point Laplacian.
Array Stencil2d(int64_t n, int64_t steps) {
  Array u = Wave({n, n}, 7);
  const Slice in(1, -1), up(0, -2), down(2, none);
  const double dt = 0.2 / static_cast<double>(steps);
  for (int64_t t = 0; t < steps; ++t) {
    u(0) = std::sin(0.05 * static_cast<double>(t));
    u(in, in) =
        u(in, in) + dt * static_cast<double>(t) *
                        (u(up, in) + u(down, in) + u(in, up) + u(in, down) - 4.0 * u(in, in));
  }
  u.eval();
  return u;
}

// Direct-summation n-body with a leapfrog-free Euler step; each step writes its total energy
// into a history array at the step's index.
Array NBody(int64_t n, int64_t steps) {
  Array pos = Wave({n, 3}, 8);
  Array vel = 0.1 * Wave({n, 3}, 9);
  Array mass = 1.0 + 0.5 * Wave({n}, 10);
  Array energy = gpuc::zeros({steps});
  const double dt = 0.001, eps2 = 0.01;
  for (int64_t t = 0; t < steps; ++t) {
    Array d = pos(gpuc::newaxis, colon, colon) - pos(colon, gpuc::newaxis, colon);
    Array r2 = gpuc::sum(d * d, {-1}) + eps2;
    Array inv3 = gpuc::power(r2, -1.5);
    Array acc =
        gpuc::sum(d * (inv3 * mass(gpuc::newaxis, colon))(colon, colon, gpuc::newaxis), {1});
    vel = vel + dt * acc;
    pos = pos + dt * vel;
    Array kinetic = 0.5 * gpuc::sum(mass * gpuc::sum(vel * vel, {1}));
    Array potential =
        -0.5 * gpuc::sum(mass(colon, gpuc::newaxis) * mass(gpuc::newaxis, colon) / gpuc::sqrt(r2));
    energy(t) = kinetic + potential;
  }
  energy.eval();
  return energy;
}

// Escape-time Mandelbrot: each iteration writes its index where points escape (a masked
// write with a changing value).
Array Mandelbrot(int64_t n, int64_t iterations) {
  Array x = gpuc::linspace(-2.0, 0.6, n);
  Array y = gpuc::linspace(-1.2, 1.2, n);
  Array cr = gpuc::broadcast_to(x(gpuc::newaxis, colon), {n, n});
  Array ci = gpuc::broadcast_to(y(colon, gpuc::newaxis), {n, n});
  Array zr = gpuc::zeros({n, n});
  Array zi = gpuc::zeros({n, n});
  Array counts = gpuc::full({n, n}, iterations, gpuc::int64);
  for (int64_t i = 0; i < iterations; ++i) {
    Array next_r = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = next_r;
    Array escaped = (zr * zr + zi * zi > 4.0) & (counts == iterations);
    counts = counts.at(escaped).set(i);
    // Escaped points would overflow to inf and NaN: hold them where they left.
    zr = gpuc::where(escaped, 0.0, zr);
    zi = gpuc::where(escaped, 0.0, zi);
  }
  counts.eval();
  return counts;
}

// A direct 2-D convolution ("valid"), written as a loop over output pixels.
Array Convolution(int64_t n, int64_t) {
  constexpr int64_t k = 5;
  Array image = Wave({n, n}, 11);
  Array weights = Wave({k, k}, 12);
  const int64_t out_n = n - k + 1;
  Array out = gpuc::zeros({out_n, out_n});
  for (int64_t i = 0; i < out_n; ++i) {
    for (int64_t j = 0; j < out_n; ++j) {
      out(i, j) = gpuc::sum(image(Slice(i, i + k), Slice(j, j + k)) * weights);
    }
  }
  out.eval();
  return out;
}

// The same programs with the loop written as gpuc::fori_loop (gpuc/loops.h): the body is
// traced once, and a subscript or window that moves with the index is a take or an
// at(index).set of the index array. Each computes what its plain form computes.

Array ThomasFori(int64_t n, int64_t nz) {
  Array a = -1.0 + 0.1 * Wave({nz, n, n}, 2);
  Array b = 4.0 + Wave({nz, n, n}, 3);
  Array c = -1.0 + 0.1 * Wave({nz, n, n}, 4);
  Array d = Wave({nz, n, n}, 5);
  gpuc::eval({a, b, c, d});
  Array cp = gpuc::empty({nz, n, n});
  Array dp = gpuc::empty({nz, n, n});
  cp(0) = c(0) / b(0);
  dp(0) = d(0) / b(0);
  std::vector<Array> forward =
      gpuc::fori_loop(1, nz,
                      [&](const Array& k, const std::vector<Array>& s) {
                        Array ak = gpuc::take(a, k, 0);
                        Array denom = gpuc::take(b, k, 0) - ak * gpuc::take(s[0], k - 1, 0);
                        Array cpk = gpuc::take(c, k, 0) / denom;
                        Array dpk = (gpuc::take(d, k, 0) - ak * gpuc::take(s[1], k - 1, 0)) / denom;
                        return std::vector<Array>{s[0].at(k).set(cpk), s[1].at(k).set(dpk)};
                      },
                      {cp, dp});
  cp = forward[0];
  dp = forward[1];
  Array x = gpuc::empty({nz, n, n});
  x(nz - 1) = dp(nz - 1);
  x = gpuc::fori_loop(
      0, nz - 1,
      [&](const Array& j, const Array& x) {
        Array k = (nz - 2) - j;
        return x.at(k).set(gpuc::take(dp, k, 0) - gpuc::take(cp, k, 0) * gpuc::take(x, k + 1, 0));
      },
      x);
  return x;
}

Array Stencil1dFori(int64_t n, int64_t steps) {
  const double dt = 0.4 / static_cast<double>(steps);
  return gpuc::fori_loop(
      0, steps,
      [&](const Array& t, const Array& u0) {
        Array u = u0;
        u(0) = gpuc::sin(0.05 * t);
        u(Slice(1, -1)) = u(Slice(1, -1)) +
                          dt * t * (u(Slice(0, -2)) - 2.0 * u(Slice(1, -1)) + u(Slice(2, none)));
        return u;
      },
      Wave({n}, 6));
}

Array Stencil2dFori(int64_t n, int64_t steps) {
  const Slice in(1, -1), up(0, -2), down(2, none);
  const double dt = 0.2 / static_cast<double>(steps);
  return gpuc::fori_loop(
      0, steps,
      [&](const Array& t, const Array& u0) {
        Array u = u0;
        u(0) = gpuc::sin(0.05 * t);
        u(in, in) = u(in, in) +
                    dt * t * (u(up, in) + u(down, in) + u(in, up) + u(in, down) - 4.0 * u(in, in));
        return u;
      },
      Wave({n, n}, 7));
}

Array NBodyFori(int64_t n, int64_t steps) {
  Array mass = (1.0 + 0.5 * Wave({n}, 10)).eval();
  const double dt = 0.001, eps2 = 0.01;
  std::vector<Array> out = gpuc::fori_loop(
      0, steps,
      [&](const Array& t, const std::vector<Array>& s) {
        const Array& pos = s[0];
        Array d = pos(gpuc::newaxis, colon, colon) - pos(colon, gpuc::newaxis, colon);
        Array r2 = gpuc::sum(d * d, {-1}) + eps2;
        Array inv3 = gpuc::power(r2, -1.5);
        Array acc =
            gpuc::sum(d * (inv3 * mass(gpuc::newaxis, colon))(colon, colon, gpuc::newaxis), {1});
        Array vel = s[1] + dt * acc;
        Array next = pos + dt * vel;
        Array kinetic = 0.5 * gpuc::sum(mass * gpuc::sum(vel * vel, {1}));
        Array potential = -0.5 * gpuc::sum(mass(colon, gpuc::newaxis) * mass(gpuc::newaxis, colon) /
                                           gpuc::sqrt(r2));
        return std::vector<Array>{next, vel, s[2].at(t).set(kinetic + potential)};
      },
      {Wave({n, 3}, 8), 0.1 * Wave({n, 3}, 9), gpuc::zeros({steps})});
  return out[2];
}

Array MandelbrotFori(int64_t n, int64_t iterations) {
  Array x = gpuc::linspace(-2.0, 0.6, n);
  Array y = gpuc::linspace(-1.2, 1.2, n);
  Array cr = gpuc::broadcast_to(x(gpuc::newaxis, colon), {n, n}).eval();
  Array ci = gpuc::broadcast_to(y(colon, gpuc::newaxis), {n, n}).eval();
  std::vector<Array> out = gpuc::fori_loop(
      0, iterations,
      [&](const Array& i, const std::vector<Array>& s) {
        const Array &zr = s[0], &zi = s[1], &counts = s[2];
        Array next_r = zr * zr - zi * zi + cr;
        Array next_i = 2.0 * zr * zi + ci;
        Array escaped = (next_r * next_r + next_i * next_i > 4.0) & (counts == iterations);
        return std::vector<Array>{gpuc::where(escaped, 0.0, next_r),
                                  gpuc::where(escaped, 0.0, next_i), counts.at(escaped).set(i)};
      },
      {gpuc::zeros({n, n}), gpuc::zeros({n, n}), gpuc::full({n, n}, iterations, gpuc::int64)});
  return out[2];
}

}  // namespace

const std::vector<LoopProgram>& LoopPrograms() {
  static const std::vector<LoopProgram> programs = {
      {"covariance", "cov[i, i:] = cov[i:, i] = data[:, i] @ data[:, i:] / (n-1), n = m", 256, 256,
       Covariance},
      {"thomas", "tridiagonal sweep along k of an nz x n x n array, plane by plane", 128, 64,
       Thomas},
      {"stencil1d", "u[0] = sin(.05 t); u[1:-1] += dt t (u[:-2] - 2 u[1:-1] + u[2:])", 65536, 500,
       Stencil1d},
      {"stencil2d", "u[0] = sin(.05 t); u[1:-1, 1:-1] += dt t * laplacian(u)", 256, 200, Stencil2d},
      {"nbody", "direct n-body Euler steps; energy[t] = kinetic + potential", 256, 50, NBody},
      {"mandelbrot", "z = z^2 + c; counts[escaped] = i", 256, 64, Mandelbrot},
      {"convolution", "out[i, j] = sum(image[i:i+5, j:j+5] * w) for every output pixel", 40, 1,
       Convolution},
      // The loops above written with gpuc::fori_loop (the same results).
      {"thomas.fori", "thomas with fori_loop: take(b, k, 0), cp.at(k).set(...)", 128, 64,
       ThomasFori},
      {"stencil1d.fori", "stencil1d with fori_loop: the step traced once", 65536, 500,
       Stencil1dFori},
      {"stencil2d.fori", "stencil2d with fori_loop", 256, 200, Stencil2dFori},
      {"nbody.fori", "nbody with fori_loop: energy.at(t).set(...)", 256, 50, NBodyFori},
      {"mandelbrot.fori", "mandelbrot with fori_loop: counts.at(escaped).set(i)", 256, 64,
       MandelbrotFori},
  };
  return programs;
}

}  // namespace gpuc::bench
