// A GEMM, an FFT and fused elementwise math in one program: the power spectrum of each signal
// (|fft(x)|^2 over the last axis) feeds a dense layer, relu(power @ w + b). The fft and the
// matmul are library nodes; abs and square fuse into one kernel between them, the bias and
// relu into one after.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "examples/api/check.h"
#include "gpuc/gpuc.h"

int main() {
  using gpuc::Array;
  const int64_t signals = 6, length = 16, features = 3;
  gpuc::random::Generator rng(11);
  Array x = rng.normal({signals, length}, 0.0, 1.0, gpuc::float64);
  Array w = rng.normal({length, features}, 0.0, 0.1, gpuc::float64);
  Array b = rng.uniform({features}, -1.0, 1.0, gpuc::float64);
  Array power = gpuc::square(gpuc::abs(gpuc::fft::fft(x)));  // (6, 16) float64
  Array y = gpuc::maximum(gpuc::matmul(power, w) + b, 0.0);  // (6, 3)

  const std::vector<double> xs = x.to_host<double>(), ws = w.to_host<double>(),
                            bs = b.to_host<double>();
  std::vector<double> want;
  for (int64_t s = 0; s < signals; ++s) {
    std::vector<double> p(length);
    for (int64_t f = 0; f < length; ++f) {
      std::complex<double> sum = 0;
      for (int64_t t = 0; t < length; ++t) {
        const double angle =
            -2.0 * std::numbers::pi * static_cast<double>((f * t) % length) / length;
        sum += xs[s * length + t] * std::complex<double>(std::cos(angle), std::sin(angle));
      }
      p[f] = std::norm(sum);
    }
    for (int64_t j = 0; j < features; ++j) {
      double acc = bs[j];
      for (int64_t f = 0; f < length; ++f) acc += p[f] * ws[f * features + j];
      want.push_back(std::max(acc, 0.0));
    }
  }
  int bad = example::CountMismatches("features", y.to_host<double>(), want, 1e-10);
  if (y.shape() != gpuc::Shape{signals, features} || y.dtype() != gpuc::float64) {
    std::printf("spectral_features: wrong shape or dtype\n");
    ++bad;
  }
  std::printf("spectral_features: %s %s from |fft|^2 of %lld signals: %s\n",
              gpuc::dtype_name(y.dtype()).c_str(), example::ShapeText(y.shape()).c_str(),
              static_cast<long long>(signals), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}
